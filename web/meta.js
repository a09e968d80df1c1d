// The catalogue of games (GET /api/meta), fetched once and shared by the lobby and the game screen,
// and the few helpers the shell needs to show a seat: its colour and a readable text colour on it.
// Nothing here knows any game: names, options, seat colours and AI levels all come from the server.

import { api } from "./api.js";
import { SAFE_SHADES } from "./dom.js";

let loading = null;

/** The meta answer: {games: [...]}; the first game is the default. Retried after a failure. */
export function loadMeta() {
  if (!loading) {
    loading = api.meta().catch((err) => {
      loading = null;
      throw err;
    });
  }
  return loading;
}

/** One game's entry, or null when the catalogue does not list it. */
export async function gameMeta(kind) {
  const meta = await loadMeta();
  return (meta.games || []).find((g) => g.game === kind) || null;
}

// Softer shades for the plain colour names a game may give its seats; any other CSS colour
// (such as "#0072b2") is used as it is.
const SHADES = {
  yellow: "#f4c20d", blue: "#2d6cdf", orange: "#f07f1f", green: "#26a05a", purple: "#8b4fd0",
  black: "#2a2a2e", red: "#d64545", white: "#f5f5f5", grey: "#8a8f98", gray: "#8a8f98",
  pink: "#e56fa5", brown: "#8c5a2b", cyan: "#2bb3c8", teal: "#1f9e90",
};

/** The CSS colour of seat `i` from a game's meta colours (a neutral grey when it has none). */
export function seatColour(game, i) {
  const colours = game?.colours || [];
  if (i === null || i === undefined || !colours.length) return "#9aa1ab";
  const c = String(colours[i % colours.length]);
  return SAFE_SHADES[c.toLowerCase()] || SHADES[c.toLowerCase()] || c;
}

/** Black or white, whichever reads better on `css` (a #rgb/#rrggbb colour; else black). */
export function textOn(css) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(css || "");
  if (!m) return "#1d1d1f";
  const hex = m[1].length === 3 ? [...m[1]].map((x) => x + x).join("") : m[1];
  const [r, g, b] = [0, 2, 4].map((k) => parseInt(hex.slice(k, k + 2), 16) / 255);
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum < 0.55 ? "#fff" : "#1d1d1f";
}

/** The level offered first: "medium" where the server offers it, else the middle one of the
 *  list (the server's own order, weakest first). */
export function defaultLevel(levels) {
  if (!levels?.length) return "";
  if (levels.some((l) => l.name === "medium")) return "medium";
  return levels[Math.floor(levels.length / 2)].name;
}
