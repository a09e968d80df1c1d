// The daily puzzle's calls (docs/api-players.md "The daily puzzle") and this browser's attempts:
// starting today's (or a past day's) attempt, opening one again, remembering which games are
// attempts (the link under a finished one and the Hint button ask). Shared by the lobby's card
// (daily.js) and the results page (dailyresults.js).

import { loadSeat, saveSeat } from "./api.js";
import { t } from "./i18n.js";
import { ensurePlayer, player, playersApi } from "./players.js";

const $ = (id) => document.getElementById(id);
const GAMES_KEY = "daily.games"; // game id -> {kind, date, scored}: this browser's attempts
const KEEP_GAMES = 60;

// ---- the HTTP calls ------------------------------------------------------------------------------

class DailyError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code || `http_${status}`;
    this.body = body?.error || {};
  }
}

async function call(method, path, key) {
  const headers = { Accept: "application/json" };
  if (key) headers["X-Player-Key"] = key;
  let res;
  try {
    res = await fetch(path, { method, headers });
  } catch {
    throw new DailyError(0, { error: { code: "network", message: t("error.network") } });
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new DailyError(res.status, data);
  return data;
}

const base = (kind) => `/api/daily/${encodeURIComponent(kind)}`;
const dateArg = (date) => (date ? `?date=${encodeURIComponent(date)}` : "");
export const dailyApi = {
  today: (kind, key) => call("GET", base(kind), key),
  start: (kind, key, date = "") => call("POST", `${base(kind)}/games${dateArg(date)}`, key),
  results: (kind, key, date = "") => call("GET", `${base(kind)}/results${dateArg(date)}`, key),
};

export function errorText(err) {
  return err?.code === "network" ? t("error.network") : t("daily.error", { message: err?.message || "" });
}

// ---- this browser's attempts ------------------------------------------------------------------------

/** game id -> {kind, date, scored, at} of the attempts this browser started or opened. */
export function attempts() {
  try {
    const found = JSON.parse(localStorage.getItem(GAMES_KEY) || "{}");
    return found && typeof found === "object" ? found : {};
  } catch {
    return {};
  }
}

export function remember(id, entry) {
  const all = attempts();
  all[id] = { ...entry, at: Date.now() };
  const kept = Object.entries(all).sort((a, b) => (b[1].at || 0) - (a[1].at || 0)).slice(0, KEEP_GAMES);
  try {
    localStorage.setItem(GAMES_KEY, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    /* private mode: the results link shows only during this visit */
  }
}

/** Open an attempt: with this browser's seat token, or one claimed for this device (the attempt
 *  was started on another one). */
export async function openAttempt(id, entry, go) {
  remember(id, entry);
  const mine = player();
  if (!loadSeat(id) && mine) {
    try {
      const claimed = await playersApi.claim(id, mine.key);
      saveSeat(claimed.game_id, claimed.seat, claimed.token);
    } catch (err) {
      console.warn(`daily: could not claim the seat in ${id}: ${err.message}`);
    }
  }
  go(id);
}

/** Start today's attempt at `kind` (the player made from the typed name when there is none yet);
 *  one already played is opened instead. */
export async function startToday(kind, nameInput, button, error, go) {
  error.textContent = "";
  const typed = (nameInput?.value || $("your-name")?.value || "").trim();
  button.disabled = true;
  try {
    const mine = await ensurePlayer(typed);
    if (!mine) {
      error.textContent = t("daily.name_needed");
      nameInput?.focus();
      return;
    }
    const made = await dailyApi.start(kind, mine.key);
    remember(made.game_id, { kind, date: made.date, scored: made.scored });
    saveSeat(made.game_id, made.seat, made.token);
    go(made.game_id);
  } catch (err) {
    if (err.code === "already_played" && err.body.game_id) {
      await openAttempt(err.body.game_id, { kind, date: err.body.date, scored: true }, go);
      return;
    }
    error.textContent = errorText(err);
  } finally {
    button.disabled = false;
  }
}
