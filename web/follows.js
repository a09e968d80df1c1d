// Follow players (issue 35 item 3). Every player name links to their profile (profile.js), which
// carries a Follow button; the lobby shows a "Playing now" card of the followed players' public
// games, each with a one-click Watch (the spectator's view). A browser notification when a
// followed player starts a game is opt-in (the Notification API, as notify.js asks for it); the
// page learns of new games by asking GET /api/players/me/follows now and then while it is open.
// The follows are the player's (X-Player-Key), kept by the server: every device of theirs shares them.

import { call, savedName, saveSetting, setting } from "./api.js";
import { html } from "./dom.js";
import { t } from "./i18n.js";
import { gameName } from "./words.js";
import { ensurePlayer, player } from "./players.js";

const NOTIFY = "follows.notify";
const SEEN = "follows.seen"; // game ids already announced (or present when the page loaded)
const POLL_MS = 30_000;
const $ = (id) => document.getElementById(id);

let go = (id) => (location.hash = `#/game/${encodeURIComponent(id)}`);
let latest = null; // the last answer: {follows: [...]}
let timer = null;
let seen = null; // Set of game ids the notifications already know

const path = (id) => `/api/players/me/follows${id ? `/${encodeURIComponent(id)}` : ""}`;

/** Whom this browser's player follows now (null without a player or on an error). */
async function load() {
  const me = player();
  if (!me) return null;
  try {
    latest = await call("GET", path(), { key: me.key });
  } catch {
    return null;
  }
  announce(latest);
  return latest;
}

/** The lobby's card (made once, before "My games"), and the poll that keeps it current. */
export function initFollows(open) {
  go = open;
  const mine = $("my-games-card");
  if (!mine || $("follows-card")) return;
  const card = html("section", { className: "card follows-card", id: "follows-card", hidden: true });
  mine.before(card);
  const head = html("div", { className: "card-head" }, card);
  html("h2", { id: "follows-title" }, head, t("follows.playing_now"));
  html("ul", { id: "follows-list", className: "open-list", "aria-labelledby": "follows-title" }, card);
  html("p", { id: "follows-none", className: "hint" }, card, t("follows.none_playing"));
  const row = html("label", { className: "check", id: "follows-notify-row" }, card);
  const box = html("input", { type: "checkbox", id: "follows-notify" }, row);
  row.append(` ${t("follows.notify")}`);
  html("p", { id: "follows-error", className: "form-error", role: "alert" }, card);
  box.checked = notifying();
  box.addEventListener("change", () => choose(box));
  clearInterval(timer);
  timer = setInterval(() => {
    if (!$("lobby")?.hidden || notifying()) refreshFollows();
  }, POLL_MS);
}

/** Ask again and redraw the lobby's card (hidden while the player follows nobody). */
export async function refreshFollows() {
  const answer = await load();
  const card = $("follows-card");
  if (!card) return;
  const follows = answer?.follows || [];
  card.hidden = follows.length === 0;
  const list = $("follows-list");
  const items = [];
  for (const who of follows) for (const game of who.playing) items.push(playingItem(who, game));
  list.replaceChildren(...items);
  $("follows-none").hidden = items.length > 0;
  $("follows-notify").checked = notifying();
}

function playingItem(who, game) {
  const li = html("li", { className: "follow-item" });
  li.dataset.game = game.game_id;
  li.dataset.player = who.player_id;
  const text = html("div", { className: "open-text" }, li);
  html("strong", {}, text, t("follows.plays", { name: who.name, game: gameName(game.game) }));
  const others = game.seats.map((s) => s.name).filter(Boolean).join(" · ");
  html("span", {}, text, others);
  const watch = html("button", { type: "button", className: "follow-watch" }, li, t("follows.watch"));
  watch.setAttribute("aria-label", t("follows.watch_label", { name: who.name, game: gameName(game.game) }));
  watch.addEventListener("click", () => go(game.game_id));
  return li;
}

// ---- the Follow button on a profile ------------------------------------------------------------

/** A Follow / Unfollow button in the profile page's head for `playerId` (none on one's own). */
export async function followButton(section, playerId) {
  const head = section.querySelector(".card-head");
  if (!head) return;
  let button = section.querySelector("#profile-follow");
  if (!button) {
    button = html("button", { type: "button", id: "profile-follow", className: "button ghost-button" }, head);
    button.addEventListener("click", () => toggle(section, button));
  }
  button.dataset.player = playerId;
  const me = player();
  button.hidden = Boolean(me && me.id === playerId);
  setFollowing(button, false);
  if (me && !button.hidden) {
    const answer = latest || (await load());
    if (button.dataset.player === playerId) setFollowing(button, following(answer, playerId));
  }
}

const following = (answer, id) => Boolean(answer?.follows?.some((f) => f.player_id === id));

function setFollowing(button, on) {
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.textContent = on ? t("follows.unfollow") : t("follows.follow");
}

async function toggle(section, button) {
  const id = button.dataset.player;
  const error = section.querySelector("#profile-error");
  button.disabled = true;
  try {
    // Following needs a player of this browser: made on first need, with the name it plays as.
    const me = await ensurePlayer(savedName() || t("follows.default_name"));
    if (!me) return;
    const on = button.getAttribute("aria-pressed") === "true";
    latest = await call(on ? "DELETE" : "PUT", path(id), { key: me.key });
    announce(latest, true);
    setFollowing(button, following(latest, id));
  } catch (err) {
    if (error) error.textContent = err.message || String(err);
  } finally {
    button.disabled = false;
  }
}

// ---- notifications when a followed player starts a game -----------------------------------------

const supported = () => typeof window.Notification === "function";
const notifying = () => supported() && setting(NOTIFY) === "on" && Notification.permission === "granted";

async function choose(box) {
  if (!box.checked) {
    saveSetting(NOTIFY, "off");
    return;
  }
  let permission = supported() ? Notification.permission : "denied";
  if (permission === "default") {
    try {
      permission = await Notification.requestPermission();
    } catch {
      permission = "denied";
    }
  }
  box.checked = permission === "granted";
  saveSetting(NOTIFY, box.checked ? "on" : "off");
  $("follows-error").textContent = box.checked ? "" : t(supported() ? "notify.denied" : "notify.unsupported");
}

function seenGames() {
  if (seen) return seen;
  try {
    seen = new Set(JSON.parse(sessionStorage.getItem(SEEN) || "null") || []);
  } catch {
    seen = new Set();
  }
  return seen;
}

/** Notify of each followed player's game not seen before. The first answer of a page (or one
 *  right after a follow: `quiet`) only learns what is already running. */
function announce(answer, quiet = false) {
  const known = seenGames();
  const first = known.size === 0 && !sessionStorage.getItem(SEEN);
  for (const who of answer?.follows || []) {
    for (const game of who.playing) {
      if (known.has(game.game_id)) continue;
      known.add(game.game_id);
      if (!first && !quiet && notifying()) notify(who, game);
    }
  }
  try {
    sessionStorage.setItem(SEEN, JSON.stringify([...known].slice(-200)));
  } catch {
    /* no storage: this page's memory only */
  }
}

function notify(who, game) {
  try {
    const note = new Notification(t("follows.started_title", { name: who.name }), {
      body: t("follows.started_body", { name: who.name, game: gameName(game.game) }),
      tag: `metro-follow-${game.game_id}`,
      lang: document.documentElement.lang || undefined,
    });
    note.onclick = () => {
      window.focus();
      note.close();
      go(game.game_id);
    };
  } catch {
    /* a browser that only notifies from a service worker: the lobby's card still shows it */
  }
}
