// The lobby, built from the catalogue (GET /api/meta): pick a game, fill in its seats (each you /
// open / AI with a level, as many as the game's players range allows) and its options (rendered
// from the game's option specs), and list open games to join. The engine allows one human seat at
// creation, the creator's: every other person takes an open seat with the invite link.
// "My games" is one list: the games this browser holds a seat in (api.js keeps the seats), each
// fetched with its seat's token (whose turn it is, or how it ended; a game that is gone is
// dropped), and the player's games from its other devices (players.js), each game once.

import { clockForm } from "./clock.js";
import { api, forgetSeat, listSeats, markCreated, rememberName, savedName, saveSeat } from "./api.js";
import { formatList, formatNumber, t } from "./i18n.js";
import { defaultLevel, loadMeta, seatColour, textOn } from "./meta.js";
import { levelDescription, levelName, plainError, seatLabel } from "./panel.js";
import { analyseButton } from "./analysis.js";
import { claimSeat, serverGames, stateOf } from "./players.js";
import { playerLink } from "./profile.js";
import { learnHref } from "./learn.js";
import { mapPicture } from "./mappick.js";
import { gameGallery, markPickedGame } from "./gallery.js";
import { choiceLabel, gameName, optionHelp, optionLabel, optionText } from "./words.js";

const $ = (id) => document.getElementById(id);

// The option that sets the number of seats (games/base.py `Option`): the seat rows set it.
const PLAYERS_OPTION = "players";

let games = [];
let current = null; // the picked game's meta entry
let optionReaders = []; // per rendered option: () => [name, value | undefined]

export async function initLobby(go) {
  $("your-name").value = savedName();
  $("add-seat").addEventListener("click", () => {
    addSeatRow("open");
    syncSeats();
  });
  $("create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    create(go);
  });
  $("refresh-open").addEventListener("click", () => refreshOpen(go));
  $("game-pick").addEventListener("change", () => pickGame($("game-pick").value));
  window.addEventListener("metro:player", () => {
    if (!$("lobby").hidden) refreshMine(go);
  });
  await ensureCatalogue();
}

// ---- the form across a language switch (issue 19.7) ------------------------------------------
// A language switch reloads the page; the form as it was (the game, the name, the seats, the
// options) is kept for that one reload in sessionStorage and put back once the catalogue is in.

const DRAFT_KEY = "lobby.draft";

/** Keep the form as it is now, for the reload that follows (app.js calls it on a switch). */
export function keepDraft() {
  if (!current || $("lobby").hidden) return;
  const seats = [...$("seat-list").children].map((li) => ({
    kind: li.querySelector(".seat-kind").value,
    level: li.querySelector(".seat-level").value,
  }));
  const options = {};
  for (const el of $("options").querySelectorAll("input, select")) {
    options[el.name] = el.type === "checkbox" ? el.checked : el.value;
  }
  const draft = { game: current.game, name: $("your-name").value, seats, options, rated: $("rated-pick").checked };
  try {
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
  } catch {
    /* no storage: the form starts afresh */
  }
}

/** The kept form, once (null when there is none or it does not parse). */
function takeDraft() {
  try {
    const raw = sessionStorage.getItem(DRAFT_KEY);
    sessionStorage.removeItem(DRAFT_KEY);
    const draft = raw ? JSON.parse(raw) : null;
    return draft && typeof draft === "object" ? draft : null;
  } catch {
    return null;
  }
}

function restoreDraft(draft) {
  if (!games.some((g) => g.game === draft.game)) return;
  const list = $("seat-list");
  list.replaceChildren();
  const seats = Array.isArray(draft.seats) ? draft.seats : [];
  for (const seat of seats) {
    addSeatRow(["you", "open", "ai"].includes(seat?.kind) ? seat.kind : "open");
    if (seat?.kind === "ai") fillLevels(list.lastElementChild.querySelector(".seat-level"), seat.level);
  }
  pickGame(draft.game); // keeps the seat rows that fit the game's range
  if (typeof draft.name === "string") $("your-name").value = draft.name.slice(0, 24);
  for (const [name, value] of Object.entries(draft.options || {})) {
    const el = document.getElementById(`opt-${name}`);
    if (!el) continue;
    if (el.type === "checkbox") el.checked = value === true;
    else if (typeof value === "string" && (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === value))) el.value = value;
  }
  $("rated-pick").checked = draft.rated === true;
}

let mineTimer = null;

export function showLobby(go) {
  ensureCatalogue();
  refreshOpen(go);
  refreshMine(go);
  clearInterval(mineTimer);
  // While the lobby is shown, whose turn it is in my games keeps up (slowly).
  mineTimer = setInterval(() => {
    if ($("lobby").hidden) clearInterval(mineTimer);
    else refreshMine(go);
  }, 15000);
}

let catalogue = null;

/** The game picker filled once; tried again on the next visit of the lobby after a failure. */
function ensureCatalogue() {
  if (!catalogue) {
    catalogue = loadCatalogue().then((ok) => {
      if (!ok) catalogue = null;
    });
  }
  return catalogue;
}

async function loadCatalogue() {
  const error = $("create-error");
  let meta;
  try {
    meta = await loadMeta();
  } catch (err) {
    error.textContent = t("lobby.catalogue_failed");
    $("create-button").disabled = true;
    return false;
  }
  games = meta.games || [];
  error.textContent = "";
  $("create-button").disabled = !games.length;
  const pick = $("game-pick");
  pick.replaceChildren();
  for (const g of games) pick.add(new Option(gameName(g.game), g.game));
  gameGallery(pick, games.map((g) => g.game), (kind) => pickGame(kind)); // (issue 35)
  if (games.length) pickGame(games[0].game);
  const draft = takeDraft();
  if (draft) restoreDraft(draft);
  return true;
}

/** Show `kind`'s description, options and seat range; keep the seat rows that still fit. */
let readClock = null; // the clock part of the create form (clock.js)

function pickGame(kind) {
  current = games.find((g) => g.game === kind) || games[0];
  $("game-pick").value = current.game;
  markPickedGame(current.game);
  $("game-description").textContent = optionText(current.game, "description");
  const learnLink = $("learn-link");
  learnLink.href = learnHref(current.game);
  learnLink.textContent = t("learn.link_game", { game: gameName(current.game) });
  const [min, max] = playersRange(current);
  $("seat-range").textContent = min === max ? t("lobby.range_one", { min }) : t("lobby.range", { min, max });
  const list = $("seat-list");
  if (!list.children.length) {
    const players = (current.options || []).find((o) => o.name === PLAYERS_OPTION);
    const want = Math.max(min, Math.min(max, Number(players?.default) || min || 2));
    addSeatRow("you");
    for (let i = 1; i < want; i++) addSeatRow("ai");
  }
  while (list.children.length > max) list.lastElementChild.remove();
  while (list.children.length < min) addSeatRow("open");
  for (const select of list.querySelectorAll(".seat-level")) fillLevels(select, select.value);
  renderOptions(current);
  readClock = clockForm($("clock-box"), (current.levels || []).map((l) => [l.name, levelName(l.name)]));
  syncSeats();
}

function playersRange(game) {
  const [min, max] = game?.players || [1, 1];
  return [Math.max(1, Number(min) || 1), Math.max(1, Number(max) || Number(min) || 1)];
}

function fillLevels(select, wanted) {
  const levels = current?.levels || [];
  const keep = levels.some((l) => l.name === wanted) ? wanted : defaultLevel(levels);
  select.replaceChildren();
  for (const l of levels) {
    const option = new Option(levelName(l.name), l.name, false, l.name === keep);
    const about = levelDescription(l.name);
    if (about) option.title = about;
    select.add(option);
  }
}

function addSeatRow(kind) {
  const list = $("seat-list");
  const li = document.createElement("li");
  li.className = "seat-row";
  const badge = document.createElement("span");
  badge.className = "seat-badge";
  const kindSelect = document.createElement("select");
  kindSelect.className = "seat-kind";
  kindSelect.setAttribute("aria-label", t("lobby.seat_kind"));
  const kinds = [["you", t("lobby.kind_you")], ["open", t("lobby.kind_open")], ["ai", t("lobby.kind_ai")]];
  for (const [value, label] of kinds) kindSelect.add(new Option(label, value, false, value === kind));
  const levelSelect = document.createElement("select");
  levelSelect.className = "seat-level";
  levelSelect.setAttribute("aria-label", t("hint.level"));
  fillLevels(levelSelect, "");
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove-seat";
  remove.textContent = "×";
  remove.title = t("lobby.remove_player");
  remove.setAttribute("aria-label", t("lobby.remove_player"));
  remove.addEventListener("click", () => {
    li.remove();
    syncSeats();
  });
  const sync = () => {
    levelSelect.hidden = kindSelect.value !== "ai";
  };
  kindSelect.addEventListener("change", () => {
    // only one seat can be "you": picking it elsewhere turns the old one into an open seat
    if (kindSelect.value === "you") {
      for (const other of list.querySelectorAll(".seat-kind")) {
        if (other !== kindSelect && other.value === "you") {
          other.value = "open";
          other.dispatchEvent(new Event("change"));
        }
      }
    }
    sync();
  });
  sync();
  li.append(badge, kindSelect, levelSelect, remove);
  list.appendChild(li);
}

function syncSeats() {
  const list = $("seat-list");
  const n = list.children.length;
  const [min, max] = playersRange(current);
  [...list.children].forEach((li, i) => {
    const badge = li.querySelector(".seat-badge");
    const colour = seatColour(current, i);
    badge.textContent = formatNumber(i + 1);
    badge.style.background = colour;
    badge.style.color = textOn(colour);
    badge.title = t("seat.player", { n: i + 1 });
  });
  $("add-seat").disabled = n >= max;
  for (const b of list.querySelectorAll(".remove-seat")) b.disabled = n <= min;
}

// ---- options ---------------------------------------------------------------------------------

/** One control per option spec of `game` (the seat count is the seat rows, not a control). */
function renderOptions(game) {
  const box = $("options");
  box.replaceChildren();
  optionReaders = [];
  const specs = (game.options || []).filter((o) => o.name !== PLAYERS_OPTION);
  $("options-box").hidden = !specs.length;
  for (const spec of specs) {
    const { node, read } = optionControl(spec);
    box.appendChild(node);
    optionReaders.push(read);
  }
}

function helpText(spec) {
  const text = optionHelp(current.game, spec);
  if (!text) return null;
  const small = document.createElement("small");
  small.textContent = text;
  return small;
}

function optionControl(spec) {
  const id = `opt-${spec.name}`;
  const label = document.createElement("label");
  label.dataset.option = spec.name;
  if (spec.kind === "bool") {
    label.className = "check";
    const input = document.createElement("input");
    input.type = "checkbox";
    input.id = id;
    input.name = spec.name;
    input.checked = spec.default === true;
    label.append(input, ` ${optionLabel(current.game, spec)} `);
    const help = helpText(spec);
    if (help) label.append(help);
    return { node: label, read: () => [spec.name, input.checked] };
  }
  label.className = "field inline";
  label.append(`${optionLabel(current.game, spec)} `);
  let read;
  if (spec.kind === "choice") {
    const select = document.createElement("select");
    select.id = id;
    select.name = spec.name;
    const choices = spec.choices || [];
    for (const c of choices) {
      select.add(new Option(choiceLabel(current.game, spec, c), String(c.value), false, c.value === spec.default));
    }
    label.append(select);
    const picture = mapPicture(current.game, spec, select);
    if (picture) label.append(picture);
    // back to the choice's own value, number or string as the game wrote it
    read = () => [spec.name, choices.find((c) => String(c.value) === select.value)?.value];
  } else if (spec.kind === "int") {
    const input = document.createElement("input");
    input.type = "number";
    input.id = id;
    input.name = spec.name;
    input.step = "1";
    if (spec.min !== undefined) input.min = String(spec.min);
    if (spec.max !== undefined) input.max = String(spec.max);
    if (spec.default !== null && spec.default !== undefined) input.value = String(spec.default);
    label.append(input);
    read = () => [spec.name, input.value.trim() === "" ? undefined : Number(input.value)];
  } else {
    const input = document.createElement("input");
    input.type = "text";
    input.id = id;
    input.name = spec.name;
    input.maxLength = 64;
    input.value = spec.default === null || spec.default === undefined ? "" : String(spec.default);
    label.append(input);
    // an empty text leaves the option out: the game's default applies
    read = () => [spec.name, input.value.trim() === "" ? undefined : input.value.trim()];
  }
  const help = helpText(spec);
  if (help) {
    label.title = optionHelp(current.game, spec);
    label.append(help);
  }
  return { node: label, read };
}

// ---- creating --------------------------------------------------------------------------------

/** The POST /api/games body from the form. */
function formBody() {
  const you = $("your-name").value.trim();
  const rows = [...$("seat-list").children];
  const seats = rows.map((li) => {
    const kind = li.querySelector(".seat-kind").value;
    if (kind === "you") return { kind: "human", name: you };
    if (kind === "ai") return { kind: "ai", level: li.querySelector(".seat-level").value };
    return { kind: "open" };
  });
  const rules = {};
  if ((current.options || []).some((o) => o.name === PLAYERS_OPTION)) rules[PLAYERS_OPTION] = seats.length;
  for (const read of optionReaders) {
    const [name, value] = read();
    if (value !== undefined) rules[name] = value;
  }
  const playing = rows.some((li) => li.querySelector(".seat-kind").value === "you");
  const clock = readClock?.();
  return { you, playing, body: { game: current.game, rules, seats, ...(clock ? { clock } : {}) } };
}

async function create(go) {
  const error = $("create-error");
  error.textContent = "";
  if (!current) return;
  const { you, playing, body } = formBody();
  if (playing && !you) {
    error.textContent = t("lobby.name_needed");
    $("your-name").focus();
    return;
  }
  const button = $("create-button");
  button.disabled = true;
  try {
    const made = await api.create(body);
    if (you) rememberName(you);
    markCreated(made.game_id);
    if (made.token) saveSeat(made.game_id, made.seat, made.token);
    go(made.game_id);
  } catch (err) {
    error.textContent = plainError(err, null, null)[0];
  } finally {
    button.disabled = false;
  }
}

// ---- open games ------------------------------------------------------------------------------

async function refreshOpen(go) {
  const ul = $("open-list");
  const error = $("open-error");
  error.textContent = "";
  let open;
  try {
    [open] = await Promise.all([api.listOpen().then((r) => r.games || []), ensureCatalogue()]);
  } catch (err) {
    error.textContent = plainError(err, null, null)[0];
    return;
  }
  ul.replaceChildren();
  if (!open.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = t("lobby.no_open");
    ul.appendChild(li);
    return;
  }
  for (const game of open) ul.appendChild(openGameItem(game, go));
}

/** The options a game was made with that differ from its game's defaults, in words. */
function optionSummary(entry, rules) {
  const out = [];
  for (const spec of entry?.options || []) {
    if (spec.name === PLAYERS_OPTION || !(spec.name in (rules || {}))) continue;
    const value = rules[spec.name];
    if (value === spec.default || value === null) continue;
    const label = optionLabel(entry.game, spec);
    if (spec.kind === "bool") {
      if (value) out.push(label);
    } else if (spec.kind === "choice") {
      const choice = (spec.choices || []).find((c) => c.value === value);
      out.push(t("lobby.option_value", { label, value: choice ? choiceLabel(entry.game, spec, choice) : String(value) }));
    } else {
      out.push(t("lobby.option_value", { label, value: String(value) }));
    }
  }
  return out.join(t("lobby.option_separator"));
}

function openGameItem(game, go) {
  const entry = games.find((g) => g.game === game.game);
  const li = document.createElement("li");
  li.dataset.game = game.game || "";
  const seats = game.seats || [];
  const who = seats
    .map((s, i) => seatName(s, i))
    .join(" · ");
  const options = optionSummary(entry, game.rules);
  const text = document.createElement("div");
  text.className = "open-text";
  const title = document.createElement("strong");
  const name = entry ? gameName(entry.game) : t("lobby.a_game");
  title.textContent = t("lobby.open_title", { name, count: seats.length });
  const detail = document.createElement("span");
  detail.textContent = options ? t("lobby.open_detail", { who, options }) : who;
  text.append(title, detail);
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = t("lobby.open");
  button.setAttribute("aria-label", t("lobby.open_label", { action: t("lobby.open"), name, words: who }));
  button.addEventListener("click", () => go(game.game_id));
  li.append(text, button);
  return li;
}

// ---- my games --------------------------------------------------------------------------------

const MAX_MINE = 30;
let mineRound = 0;

const ORDER = { "your-turn": 0, playing: 1, waiting: 2, unknown: 3, over: 4 };

function seatName(seat, i) {
  // A bot account's seat (or one it is invited to) is marked as a bot's (issue 24).
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

async function refreshMine(go) {
  const round = ++mineRound;
  const saved = listSeats().slice(0, MAX_MINE);
  const card = $("my-games-card");
  await ensureCatalogue();
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
  $("my-games").replaceChildren(...entries.map((e) => mineItem(e, go)));
}

function mineItem(entry, go) {
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
