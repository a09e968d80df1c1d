// The lobby's "My games" card: one list of the games this browser holds a seat in (api.js keeps
// the seats), each fetched with its seat's token (whose turn it is, or how it ended; a game that
// is gone is dropped), and the player's games from its other devices (players.js), each game once.
// Split from lobby.js, which calls refreshMine while the lobby shows.

import { api, forgetSeat, listSeats } from "./api.js";
import { formatList, t } from "./i18n.js";
import { seatLabel } from "./panel.js";
import { analyseButton } from "./analysis.js";
import { claimSeat, serverGames, stateOf } from "./players.js";
import { playerLink } from "./profile.js";
import { gameName } from "./words.js";

const $ = (id) => document.getElementById(id);

const MAX_MINE = 30;
let mineRound = 0;

const ORDER = { "your-turn": 0, playing: 1, waiting: 2, unknown: 3, over: 4 };

/** A seat's name in a list (the open games too): a bot account's seat (or one it is invited to)
 *  is marked as a bot's (issue 24). */
export function seatName(seat, i) {
  if (seat?.bot) return `${seat.kind === "open" ? seat.name : seatLabel(seat, i)} ${t("seat.bot_mark")}`;
  return seatLabel(seat, i);
}

/** [state, words] for the viewer at `mine` of `view`. */
function mineState(view, mine) {
  const seats = view.seats || [];
  if (view.status === "waiting") {
    const count = seats.filter((s) => s.kind === "open").length;
    return ["waiting", t("mine.waiting", { count })];
  }
  if (view.status === "over") {
    const winners = view.winners || [];
    if (seats.length === 1) return ["over", t("mine.finished")]; // a daily attempt: nobody to beat
    if (winners.includes(mine)) return ["over", winners.length > 1 ? t("mine.you_shared") : t("mine.you_won")];
    if (!winners.length) return ["over", t("mine.finished")];
    return ["over", t("mine.they_won", { count: winners.length, names: formatList(winners.map((i) => seatName(seats[i], i))) })];
  }
  const moving = view.to_move || [];
  if (moving.includes(mine) && seats[mine]?.chosen !== true) return ["your-turn", t("mine.your_turn")];
  const others = moving.filter((i) => i !== mine && seats[i]?.chosen !== true);
  if (!others.length) return ["playing", t("mine.waiting_others")];
  if (others.length === 1) return ["playing", t("mine.to_play", { name: seatName(seats[others[0]], others[0]) })];
  return ["playing", t("mine.waiting_for", { names: formatList(others.map((i) => seatName(seats[i], i))) })];
}

/** Redraw "My games"; `catalogue()` resolves to the meta's games once they are in (for names). */
export async function refreshMine(go, catalogue) {
  const round = ++mineRound;
  const saved = listSeats().slice(0, MAX_MINE);
  const card = $("my-games-card");
  const games = await catalogue();
  // This browser's seats, each fetched with its token; and the player's games from every device.
  const [found, elsewhere] = await Promise.all([
    Promise.all(
      saved.map(async (s) => {
        try {
          return { ...s, view: await api.view(s.id, s.token) };
        } catch (err) {
          if (err.status === 404 || err.code === "game_not_found") {
            forgetSeat(s.id); // the game is gone (expired): nothing to come back to
            return null;
          }
          if (err.status === 403 || err.status === 400) return null; // this seat is not ours any more
          return { ...s, view: null };
        }
      }),
    ),
    serverGames().catch((err) => {
      console.warn(`lobby: the player's games could not be listed: ${err.message}`);
      return [];
    }),
  ]);
  if (round !== mineRound) return; // a newer refresh is under way
  const server = new Map(elsewhere.map((e) => [e.game_id, e]));
  const entries = found.filter(Boolean).map((e) => {
    const [state, words] = e.view ? mineState(e.view, e.seat) : ["unknown", t("mine.unreachable")];
    const rated = server.get(e.id)?.rated === true;
    server.delete(e.id); // one game, one row: this browser's seat says more
    return { id: e.id, game: e.view?.game, seats: e.view?.seats, seat: e.seat, saved: e.saved, state, words, rated };
  });
  let order = 0;
  for (const e of server.values()) {
    const [state, words] = stateOf(e);
    // the server lists newest first; they go after this browser's own of the same state
    entries.push({ id: e.game_id, game: e.game, seats: e.seats, seat: e.seat, saved: -++order, state, words, rated: e.rated === true, elsewhere: e });
  }
  entries.sort((a, b) => ORDER[a.state] - ORDER[b.state] || b.saved - a.saved);
  card.hidden = !entries.length;
  $("my-games").replaceChildren(...entries.map((e) => mineItem(e, games, go)));
}

function mineItem(entry, games, go) {
  const { id, seats, seat, state, words } = entry;
  const meta = games.find((g) => g.game === entry.game);
  const name = meta ? gameName(meta.game) : t("lobby.a_game");
  const li = document.createElement("li");
  li.dataset.game = id;
  li.dataset.state = state;
  li.className = `mine-item ${state}`;
  const text = document.createElement("div");
  text.className = "open-text";
  const title = document.createElement("strong");
  title.textContent = name;
  const badge = document.createElement("span");
  badge.className = `mine-state ${state}`;
  badge.textContent = entry.rated ? `${words} · ${t("players.rated")}` : words;
  const players = document.createElement("span");
  players.className = "mine-players";
  (seats || []).forEach((s, i) => {
    if (i) players.append(" · ");
    playerLink(seatName(s, i), s?.player_id, players); // a finished game's players link to their profiles
    if (i === seat) players.append(` ${t("seat.you_mark")}`);
  });
  text.append(title, badge, players);
  const button = document.createElement("button");
  button.type = "button";
  button.className = state === "your-turn" ? "primary" : "";
  button.textContent = state === "your-turn" ? t("mine.play") : state === "over" ? t("mine.view") : t("lobby.open");
  button.setAttribute("aria-label", t("lobby.open_label", { action: button.textContent, name, words }));
  button.addEventListener("click", async () => {
    if (entry.elsewhere) {
      button.disabled = true;
      await claimSeat(entry.elsewhere); // played on another device: take my seat here first
    }
    go(id);
  });
  li.append(text, button);
  if (state === "over") li.append(analyseButton(id, () => go(id)));
  return li;
}
