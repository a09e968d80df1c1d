// Players (docs/api-players.md): this browser's player (a name and a device key kept in
// localStorage, sent only in the X-Player-Key header), its games on every device (listed by the
// lobby's one list of games), a recovery code to bring them to another device, the "rated game"
// choice, and the rematch after a game.
//
// The shell tells this module little: app.js calls initPlayers({ game, go }) once; api.js
// announces every seat it saves with a `metro:seat` event, and this module seats the player there.
// The rematch row lives in the after-game panel and shows while that panel does.

import { ApiError, call, loadSeat, saveSeat } from "./api.js";
import { ensureStylesheet, html } from "./dom.js";
import { formatList, t } from "./i18n.js";
import { plainError, seatLabel } from "./panel.js";
import { profileHash } from "./profile.js";

const $ = (id) => document.getElementById(id);
// (The lobby keeps the name typed last under "player.name"; the player's own name is apart.)
const KEYS = { key: "player.key", id: "player.id", code: "player.code", name: "player.own_name" };
const REMATCH_POLL_MS = 3000;
const MAX_NAME = 40;
const SIT_TRIES = 4; // seating the player after a seat is saved: this many tries at most

// ---- the HTTP calls ------------------------------------------------------------------------------

const g = (id) => `/api/games/${encodeURIComponent(id)}`;

export const playersApi = {
  create: (name) => call("POST", "/api/players", { body: { name } }),
  recover: (code) => call("POST", "/api/players/recover", { body: { recovery_code: code } }),
  me: (key) => call("GET", "/api/players/me", { key }),
  games: (key, limit = 20) => call("GET", `/api/players/me/games?limit=${limit}`, { key }),
  sit: (id, token, key, rated) => call("POST", `${g(id)}/player`, { body: { rated }, token, key }),
  claim: (id, key) => call("POST", `${g(id)}/claim`, { key }),
  leaderboard: (kind, hideBots = false) =>
    call("GET", `/api/leaderboard/${encodeURIComponent(kind)}${hideBots ? "?bots=0" : ""}`),
  rematch: (id, token, answer) => call("POST", `${g(id)}/rematch`, { body: { answer }, token }),
  rematchState: (id, token) => call("GET", `${g(id)}/rematch`, { token }),
};

// ---- this browser's player -------------------------------------------------------------------------

function read(name) {
  try {
    return localStorage.getItem(KEYS[name]) || "";
  } catch {
    return "";
  }
}

function keep(fields) {
  for (const [name, value] of Object.entries(fields)) {
    try {
      if (value) localStorage.setItem(KEYS[name], value);
      else localStorage.removeItem(KEYS[name]);
    } catch {
      /* private mode: the player lasts as long as the page */
    }
  }
}

/** This browser's player, or null: {id, name, key, code}. */
export function player() {
  const key = read("key");
  return key ? { id: read("id"), name: read("name"), key, code: read("code") } : null;
}

function adopt(made) {
  keep({ key: made.device_key, id: made.player_id, name: made.name, code: made.recovery_code || "" });
  changed();
}

let making = null; // the creation under way: two seats saved at once make one player

/** The player, made on first need with the name this browser plays under. */
export async function ensurePlayer(name) {
  const mine = player();
  if (mine) return mine;
  const wanted = (name || "").trim().slice(0, MAX_NAME);
  if (!wanted) return null;
  making ??= playersApi
    .create(wanted)
    .then(adopt)
    .finally(() => (making = null));
  await making;
  return player();
}

function savedName() {
  try {
    return localStorage.getItem("player.name") || "";
  } catch {
    return "";
  }
}

/** A seat was saved (create, join, rematch): the player sits there; a table made in the lobby
 *  with "Rated game" ticked becomes rated. Failures only cost the listing: play goes on. */
async function seated(ev) {
  const { id, token } = ev.detail || {};
  if (!id || !token) return;
  const rated = !$("lobby").hidden && $("rated-pick")?.checked === true;
  const name = savedName() || $("your-name")?.value || $("join-name")?.value;
  for (let attempt = 1; ; attempt++) {
    try {
      const mine = await ensurePlayer(name);
      if (!mine) return;
      await playersApi.sit(id, token, mine.key, rated);
      return;
    } catch (err) {
      if (err.code === "bad_player_key") {
        keep({ key: "", id: "", code: "" }); // forgotten: start anew
        changed();
      }
      // A busy or unreachable server is asked again (a rated table counts only seated
      // players); a refusal is final.
      if (attempt < SIT_TRIES && transient(err)) {
        await new Promise((done) => setTimeout(done, Math.max(err.retryAfter || 0, attempt) * 1000));
        continue;
      }
      console.warn(`players: could not seat the player in ${id}: ${err.message}`);
      return;
    }
  }
}

/** An answer worth asking again: no answer at all, too many requests, or the server's fault. */
function transient(err) {
  return err instanceof ApiError && (err.status === 0 || err.status === 429 || err.status >= 500);
}

// ---- the player menu in the lobby -----------------------------------------------------------------
// The lobby keeps one list of your games (lobby.js merges this browser's seats with the player's
// games from every device); this menu holds only the player: name, recovery code, the code from
// another device.

/** Tell the lobby that the player changed (made, recovered, forgotten): its list follows. */
function changed() {
  window.dispatchEvent(new CustomEvent("metro:player"));
}

function showCard() {
  const card = $("player-card");
  if (!card) return;
  card.hidden = false;
  const mine = player();
  $("player-summary-name").textContent = mine?.name ? `· ${mine.name}` : "";
  $("player-who").textContent = mine ? t("players.playing_as", { name: mine.name }) : t("players.none");
  $("player-code-row").hidden = !mine;
  profileLink(mine);
  $("player-code").textContent = "";
  $("player-code-button").hidden = !mine;
}

/** "Your profile" in the player card (#/player/<id>: history, ratings), once there is a player. */
function profileLink(mine) {
  let link = $("player-profile-link");
  if (!link) {
    link = html("a", { id: "player-profile-link", className: "button ghost-button small" }, null, t("profile.mine"));
    $("player-who").after(link);
  }
  link.hidden = !mine;
  if (mine) link.href = profileHash(mine.id);
}

/** The player's games from every device, newest first ([] without a player). A player key the
 *  server no longer knows is forgotten. Rejects on other failures. */
export async function serverGames() {
  const mine = player();
  if (!mine) return [];
  try {
    return (await playersApi.games(mine.key, 30)).games || [];
  } catch (err) {
    if (err.code === "bad_player_key") {
      keep({ key: "", id: "", code: "" });
      showCard();
      return [];
    }
    throw err;
  }
}

/** [state, words] of a game from the player's list (state as the lobby's list sorts it). */
export function stateOf(entry) {
  if (entry.status === "over") return ["over", t("players.over")];
  if (entry.status === "waiting") return ["waiting", t("players.waiting")];
  if (entry.your_turn) return ["your-turn", t("players.your_turn")];
  return ["playing", t("players.playing")];
}

/** Before opening a game of mine this browser holds no seat token for (played on another
 *  device): a token of this device's own, so that it opens as my seat, not a spectator's. */
export async function claimSeat(entry) {
  const mine = player();
  if (!mine || !Number.isInteger(entry.seat) || entry.status === "over" || loadSeat(entry.game_id)) return;
  try {
    const claimed = await playersApi.claim(entry.game_id, mine.key);
    saveSeat(claimed.game_id, claimed.seat, claimed.token);
  } catch (err) {
    console.warn(`players: could not claim my seat in ${entry.game_id}: ${err.message}`);
  }
}

async function recover(ev) {
  ev.preventDefault();
  const input = $("recover-code");
  const out = $("recover-result");
  out.textContent = "";
  out.className = "form-error";
  const code = input.value.trim();
  if (!code) {
    out.textContent = t("players.code_needed");
    input.focus();
    return;
  }
  $("recover-button").disabled = true;
  try {
    const found = await playersApi.recover(code);
    adopt({ ...found, recovery_code: "" });
    input.value = "";
    out.className = "players-ok";
    out.textContent = t("players.recovered", { name: found.name });
    showCard();
  } catch (err) {
    out.textContent =
      err.code === "bad_recovery_code"
        ? t("players.code_wrong")
        : err.status === 429
          ? t("players.code_slow_down")
          : err.status === 400
            ? t("players.code_malformed")
            : plainError(err, null, null)[0];
  } finally {
    $("recover-button").disabled = false;
  }
}

function revealCode() {
  const mine = player();
  $("player-code").textContent = mine?.code ? t("players.code_is", { code: mine.code }) : t("players.code_elsewhere");
}

// ---- rematch ------------------------------------------------------------------------------------

class Rematch {
  constructor(game, go) {
    this.game = game;
    this.go = go;
    this.timer = null;
    this.gameId = null;
    $("rematch-button").addEventListener("click", () => this.answer("accept"));
    $("rematch-decline").addEventListener("click", () => this.answer("decline"));
    $("rematch-open").addEventListener("click", () => this.openNew());
  }

  /** The after-game panel is shown (or hidden): follow the offer while it is. */
  follow(shown) {
    clearInterval(this.timer);
    this.timer = null;
    const mine = this.game.mine;
    const row = $("rematch-row");
    // A game of one seat (a daily puzzle attempt) has nobody to ask for a rematch.
    const solo = (this.game.view?.seats?.length ?? 0) < 2;
    if (!shown || !this.game.id || solo) {
      row.hidden = true;
      return;
    }
    this.gameId = this.game.id;
    row.hidden = false;
    this.render(null, mine);
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REMATCH_POLL_MS);
  }

  pendingKey() {
    return `rematch.${this.gameId}`;
  }

  pending() {
    try {
      return JSON.parse(localStorage.getItem(this.pendingKey()) || "null");
    } catch {
      return null;
    }
  }

  async refresh() {
    const id = this.gameId;
    if (id !== this.game.id) return this.follow(false);
    try {
      const state = await playersApi.rematchState(id, this.game.mine?.token);
      if (id === this.game.id) this.render(state, this.game.mine);
    } catch (err) {
      if (err.status === 404 && this.game.view?.status === "over") {
        this.follow(false); // a game kept in the archive: its rematch offers are long gone
        return;
      }
      $("rematch-status").textContent = plainError(err, null, null)[0];
    }
  }

  async answer(what) {
    const id = this.gameId;
    const mine = this.game.mine;
    if (!mine) return;
    $("rematch-button").disabled = $("rematch-decline").disabled = true;
    try {
      const state = await playersApi.rematch(id, mine.token, what);
      if (state.token) {
        try {
          localStorage.setItem(this.pendingKey(), JSON.stringify({ id: state.game_id, seat: state.seat, token: state.token }));
        } catch {
          /* the seat lasts as long as the page */
          this.memory = { id: state.game_id, seat: state.seat, token: state.token };
        }
      }
      this.render(state, mine);
    } catch (err) {
      $("rematch-status").textContent =
        err.code === "rematch_declined" ? t("players.rematch_off") : plainError(err, null, null)[0];
    } finally {
      $("rematch-button").disabled = $("rematch-decline").disabled = false;
    }
  }

  openNew() {
    const seat = this.pending() || this.memory;
    if (!seat?.id) return;
    saveSeat(seat.id, seat.seat, seat.token);
    try {
      localStorage.removeItem(this.pendingKey());
    } catch {
      /* ignore */
    }
    this.follow(false);
    this.go(seat.id);
  }

  render(state, mine) {
    const offer = state?.rematch || null;
    const view = this.game.view;
    const seats = view?.seats || [];
    const name = (i) => seatLabel(seats[i], i);
    const people = seats.map((s, i) => i).filter((i) => seats[i]?.kind !== "ai");
    const mySeat = mine ? mine.seat : null;
    const said = offer && mySeat !== null && (offer.accepted.includes(mySeat) || offer.declined.includes(mySeat));
    const status = $("rematch-status");
    const button = $("rematch-button");
    const decline = $("rematch-decline");
    const open = $("rematch-open");
    button.hidden = mySeat === null || !!said || !!offer?.declined.length || !!offer?.started;
    button.textContent = offer ? t("players.rematch_accept") : t("players.rematch");
    decline.hidden = button.hidden || !offer;
    const ready = !!offer?.started && !!(this.pending() || this.memory);
    open.hidden = !ready;
    if (!offer) {
      status.textContent = "";
    } else if (offer.declined.length) {
      status.textContent = t("players.rematch_declined", { name: name(offer.declined[0]) });
    } else if (offer.started) {
      status.textContent = t("players.rematch_started");
    } else {
      const waiting = people.filter((i) => !offer.accepted.includes(i)).map(name);
      status.textContent = said
        ? t("players.rematch_waiting", { names: formatList(waiting) })
        : t("players.rematch_offered", { names: formatList(offer.accepted.filter((i) => people.includes(i)).map(name)) });
    }
    if (ready && said && this.autoOpened !== this.gameId) {
      this.autoOpened = this.gameId; // everyone said yes: go to the new game once
      this.openNew();
    }
  }
}

// ---- wiring --------------------------------------------------------------------------------------

function whenShown(el, fn) {
  if (!el) return;
  new MutationObserver(() => fn(!el.hidden)).observe(el, { attributes: true, attributeFilter: ["hidden"] });
  fn(!el.hidden);
}

/** Once, at start: `game` is the shell's GameScreen (its id, mine and view are read), `go(id)`
 *  opens a game. */
export function initPlayers({ game, go }) {
  ensureStylesheet("/players.css");
  window.addEventListener("metro:seat", seated);
  $("recover-form")?.addEventListener("submit", recover);
  $("player-code-button")?.addEventListener("click", revealCode);
  whenShown($("lobby"), (shown) => shown && showCard());
  const rematch = new Rematch(game, go);
  whenShown($("after"), (shown) => rematch.follow(shown));
}
