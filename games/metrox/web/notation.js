// Metro X's notation as the page reads it (RULES-METROX.md §1-§2): a card code's kind and its
// words, a move in words, a window's mark as shown, and the map indexed by id. What a card does
// to a sheet is never worked out here: the server's previews (games/metrox/preview.py) and
// replay positions (positions.py) say it.

import { t } from "/i18n.js";

/** A card code ("3", "s2", "t", "f*", "5*") as {kind, n, shuffle}: which face to draw and how
 *  to word it. */
export function cardInfo(code) {
  if (!code) return null;
  const shuffle = code.endsWith("*");
  const body = shuffle ? code.slice(0, -1) : code;
  if (body === "t") return { kind: "transfer", n: 0, shuffle };
  if (body === "f") return { kind: "free", n: 0, shuffle };
  if (body.startsWith("s")) return { kind: "skip", n: Number(body.slice(1)), shuffle };
  return { kind: "number", n: Number(body), shuffle };
}

/** A window's mark as the page shows it: the transfer's "*" (the server's and the replay's
 *  spelling) as the card's own ★, so a transfer has one mark on cards, windows and words. */
export function shownMark(mark) {
  return mark === "*" ? "\u2605" : mark;
}

/** A card in words, for buttons, replays and screen readers. */
export function cardWords(code) {
  const c = cardInfo(code);
  if (!c) return t("metrox.no_card");
  const base = t(`metrox.card_kind.${c.kind}`, { n: c.n });
  return c.shuffle ? t("metrox.then_shuffle", { card: base }) : base;
}

/** Indexes of a map: stations by id, how many lines pass each station (drawn as its size and
 *  used to place names), lines by id. */
export function indexMap(map) {
  const stations = new Map(map.stations.map((s) => [s.id, s]));
  const degree = new Map(map.stations.map((s) => [s.id, 0]));
  for (const line of map.lines) for (const s of line.stations) degree.set(s, (degree.get(s) || 0) + 1);
  const lines = new Map(map.lines.map((l) => [l.id, l]));
  return { map, stations, degree, lines };
}

/** A sheet from the view's shape, with `filled` as a Set (a copy: never changes the view). */
export function sheetFrom(view) {
  return {
    seat: view.seat,
    filled: new Set(view.filled || []),
    transfers: { ...(view.transfers || {}) },
    windows: Object.fromEntries(Object.entries(view.windows || {}).map(([k, v]) => [k, [...v]])),
    bonuses: [...(view.bonuses || [])],
  };
}

/** The same choice: both passes, the same line, or the same station. */
export function sameMove(a, b) {
  if (!a || !b) return false;
  if (a.pass || b.pass) return !!a.pass && !!b.pass;
  if (a.line !== undefined || b.line !== undefined) return a.line === b.line;
  return a.station === b.station;
}

/** A move as the page keeps it ({pass}, {line} or {station}), from a legal move or a hint. */
export function plainMove(m) {
  if (!m) return null;
  if (m.move && typeof m.move === "object") return plainMove(m.move);
  if (m.pass) return { pass: true };
  if (m.line !== undefined) return { line: m.line };
  if (m.station !== undefined) return { station: m.station };
  return null;
}

/** A move object in words: "line C", "station Quay", "pass". */
export function moveWords(index, move) {
  if (!move) return "—";
  if (move.pass) return t("metrox.move_pass");
  if (move.station !== undefined) return t("metrox.move_station", { station: index.stations.get(move.station)?.name || move.station });
  if (move.line !== undefined) return t("metrox.move_line", { line: move.line });
  return JSON.stringify(move);
}
