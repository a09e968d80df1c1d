// Party mode's calls (services/gateway/party_api.py), the host token this browser keeps for the
// tables it opened, and a refusal in the page's words. Shared by the forms (party.js) and the host
// screen (partyhost.js).

import { ApiError, call } from "./api.js";
import { t } from "./i18n.js";

const HOST_KEY = (id) => `host.${id}`;

// ---- the HTTP calls ------------------------------------------------------------------------------

/** A game's API address (its view, events, party info and start hang below it). */
export const gamePath = (id) => `/api/games/${encodeURIComponent(id)}`;
export const partyApi = {
  games: () => call("GET", "/api/party/games"),
  create: (body) => call("POST", "/api/games", { body }),
  join: (code, name) => call("POST", `/api/join/${encodeURIComponent(code)}`, { body: { name } }),
  info: (id) => call("GET", `${gamePath(id)}/party`),
  start: (id, token) => call("POST", `${gamePath(id)}/start`, { token }),
  view: (id) => call("GET", gamePath(id)), // the public view: never with a token
  qrUrl: (code) => `/api/join/${encodeURIComponent(code)}/qr.svg`,
};

/** The host token of table `id`, kept in this browser when it opened the table ("" if none). */
export function hostToken(id) {
  try {
    return localStorage.getItem(HOST_KEY(id)) || "";
  } catch {
    return "";
  }
}

export function saveHostToken(id, token) {
  try {
    localStorage.setItem(HOST_KEY(id), token);
  } catch {
    /* private mode: the host screen can still show the table, not start it after a reload */
  }
}

/** A refusal in the page's words (the codes of services/engine/play/party.py). */
export function partyError(err) {
  const known = {
    party_not_found: "party.error_not_found",
    party_started: "party.error_started",
    party_full: "party.error_full",
    party_empty: "party.error_empty",
    rate_limited: "party.error_rate",
    permission_denied: "party.error_not_host",
  };
  if (err instanceof ApiError && known[err.code]) return t(known[err.code], { seconds: err.retryAfter || 60 });
  if (err instanceof ApiError && err.status === 400 && err.field === "code") return t("party.error_code");
  return t("party.error", { message: err?.message || String(err) });
}
