// The gateway's HTTP API (API.md) as small async functions, and where the page keeps seat tokens.
// A token only ever travels in the Authorization header, never in a URL.

import { noteServerDate } from "./clock.js";
import { t } from "./i18n.js";

export class ApiError extends Error {
  /** `detail`: the error body's added fields the page shows: the rule broken (`rule`), and for
   *  a rule refusal its stable `refusal` code and `params` (the catalogue words it), a refused
   *  field its `field` and `reason`. */
  constructor(status, code, message, detail = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.rule = typeof detail.rule === "string" ? detail.rule : "";
    this.refusal = typeof detail.refusal === "string" ? detail.refusal : "";
    this.params = detail.params && typeof detail.params === "object" ? detail.params : {};
    // A refused field: its path and why (a code the page words: web/words.js fieldErrorWords).
    this.field = typeof detail.field === "string" ? detail.field : "";
    this.reason = typeof detail.reason === "string" ? detail.reason : "";
    // Seconds the server asked the page to wait (its Retry-After header; 0 when it named none).
    this.retryAfter = 0;
  }
}

/** One API request: the answer's JSON (null for an empty body), or an ApiError thrown. */
export async function call(method, path, { body, token, key } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (key) headers["X-Player-Key"] = key; // a player's device key (players.js), never in a URL
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", t("error.network"));
  }
  noteServerDate(res.headers.get("Date"));
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = data?.error;
    const error = new ApiError(res.status, err?.code || "http_" + res.status, err?.message || `HTTP ${res.status}`, err || {});
    error.retryAfter = Number(res.headers.get("Retry-After")) || 0;
    throw error;
  }
  return data;
}

const g = (id) => `/api/games/${encodeURIComponent(id)}`;

export const api = {
  meta: () => call("GET", "/api/meta"),
  create: (body) => call("POST", "/api/games", { body }),
  listOpen: () => call("GET", "/api/games?status=open"),
  join: (id, name) => call("POST", `${g(id)}/join`, { body: { name } }),
  view: (id, token) => call("GET", g(id), { token }),
  legal: (id, token) => call("GET", `${g(id)}/legal`, { token }),
  // With `since` (the version of the view the page holds) the answer may be a delta against it
  // (docs/api-deltas.md): the page's live copy (web/live.js) takes either.
  move: (id, token, move, since = null) =>
    call("POST", `${g(id)}/moves${Number.isInteger(since) && since >= 0 ? `?since=${since}` : ""}`, { body: move, token }),
  hint: (id, token, level) => call("POST", `${g(id)}/hint`, { body: level ? { level } : {}, token }),
  record: (id, token) => call("GET", `${g(id)}/record`, { token }),
  // A finished game's replay positions in its game's own form (the rules core's, from the record).
  positions: (id, token) => call("GET", `${g(id)}/positions`, { token }),
  // A private game's (a daily attempt's) table is its seat's: the token goes with it.
  table: (id, token) => call("GET", `${g(id)}/table`, { token }),
  setAway: (id, token, away) => call("POST", `${g(id)}/${away ? "leave" : "return"}`, { token }),
  resign: (id, token) => call("POST", `${g(id)}/resign`, { token }),
  offer: (id, token, kind) => call("POST", `${g(id)}/offers`, { token, body: { kind } }),
  answerOffer: (id, token, n, answer) => call("POST", `${g(id)}/offers/${n}/${answer}`, { token }),
  // The live stream with deltas (web/live.js reads it; where to resume goes in Last-Event-ID).
  streamUrl: (id) => `${g(id)}/events?delta=1&chat=1`, // chat: the reader's room's lines too
};

// Seat tokens by game id: the tab's own first (sessionStorage), then this browser's (localStorage),
// so a reload keeps the seat and a fresh tab of the same browser finds it too.
const KEY = (id) => `seat.${id}`;

export function loadSeat(id) {
  for (const store of [sessionStorage, localStorage]) {
    try {
      const raw = store.getItem(KEY(id));
      if (raw) {
        const seat = JSON.parse(raw);
        if (typeof seat?.token === "string" && Number.isInteger(seat?.seat)) return seat;
      }
    } catch {
      /* storage unavailable or corrupt: behave as a spectator */
    }
  }
  return null;
}

export function saveSeat(id, seat, token) {
  window.dispatchEvent(new CustomEvent("metro:seat", { detail: { id, seat, token } })); // players.js
  const raw = JSON.stringify({ seat, token, saved: Date.now() });
  for (const store of [sessionStorage, localStorage]) {
    try {
      store.setItem(KEY(id), raw);
    } catch {
      /* private mode: the seat lasts as long as the page */
    }
  }
}

/** Every seat this browser holds, newest first: [{id, seat, token, saved}]. */
export function listSeats() {
  const found = new Map();
  for (const store of [sessionStorage, localStorage]) {
    try {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i);
        if (!key?.startsWith("seat.")) continue;
        const id = key.slice(5);
        if (found.has(id) || !GAME_ID.test(id)) continue;
        const seat = loadSeat(id);
        if (seat) found.set(id, { id, seat: seat.seat, token: seat.token, saved: Number(seat.saved) || 0 });
      }
    } catch {
      /* storage unavailable */
    }
  }
  return [...found.values()].sort((a, b) => b.saved - a.saved);
}

/** Forget the seat held for game `id` (a game that is gone). */
export function forgetSeat(id) {
  for (const store of [sessionStorage, localStorage]) {
    try {
      store.removeItem(KEY(id));
    } catch {
      /* ignore */
    }
  }
}

/** The shape of a game id (the engine's own rule): anything else names no game. */
export const GAME_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The game id of the page's address (#/game/<id>): null for the lobby (or any other page),
 *  undefined for a #/game address that names no game ("%00%ff" is not even text: never thrown). */
export function addressedGame(hash = location.hash) {
  if (hash === "" || hash === "#" || hash === "#/") return null;
  const m = /^#\/game\/([^/?#]*)$/.exec(hash);
  if (!m) return hash.startsWith("#/game") ? undefined : null;
  try {
    const id = decodeURIComponent(m[1]);
    return GAME_ID.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Games this browser created (so only their creator is asked to share the invite). */
export function markCreated(id) {
  try {
    localStorage.setItem(`created.${id}`, "1");
  } catch {
    /* ignore */
  }
}

export function wasCreatedHere(id) {
  try {
    return localStorage.getItem(`created.${id}`) === "1";
  } catch {
    return false;
  }
}

/** A small setting kept in this browser (hint level, sound); `fallback` when unset. */
export function setting(name, fallback = "") {
  try {
    const v = localStorage.getItem(`setting.${name}`);
    return v === null ? fallback : v;
  } catch {
    return fallback;
  }
}

export function saveSetting(name, value) {
  try {
    localStorage.setItem(`setting.${name}`, String(value));
  } catch {
    /* ignore */
  }
}

export function rememberName(name) {
  try {
    localStorage.setItem("player.name", name);
  } catch {
    /* ignore */
  }
}

export function savedName() {
  try {
    return localStorage.getItem("player.name") || "";
  } catch {
    return "";
  }
}
