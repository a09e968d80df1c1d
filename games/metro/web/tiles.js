// Tile codes, connectors and stations (RULES.md §1–§3): the facts the board needs to draw
// and to preview, kept in one module so the drawing code never re-derives them.

import { formatList, t } from "/i18n.js";

export const SIZE = 8;
export const CENTRE = new Set(["3,3", "3,4", "4,3", "4,4"]);

// Letter → offset from the even connector it leaves: a straight, b clockwise, c anticlockwise, d U-turn.
const OFFSET = { a: 5, b: 3, c: 7, d: 1 };

export const TILE_CODE = /^[abcd]{4}$/;
export const PLACEMENT = /^([abcd]{4})([0-7])([0-7])$/;

/** partner[k] = the connector joined to k by the tile's track. */
export function partners(code) {
  const partner = new Array(8);
  for (let i = 0; i < 4; i++) {
    const even = 2 * i;
    const odd = (even + OFFSET[code[i]]) % 8;
    partner[even] = odd;
    partner[odd] = even;
  }
  return partner;
}

/** The four tracks of a tile as [even, odd] connector pairs. */
export function tracks(code) {
  const partner = partners(code);
  return [0, 2, 4, 6].map((even) => [even, partner[even]]);
}

/** The code of the tile turned 90° clockwise (connector k → k+2): the last letter moves first. */
export function rotate(code, quarterTurns = 1) {
  let out = code;
  for (let i = 0; i < ((quarterTurns % 4) + 4) % 4; i++) out = out[3] + out.slice(0, 3);
  return out;
}

export function parsePlacement(text) {
  const m = PLACEMENT.exec(text || "");
  return m ? { code: m[1], row: Number(m[2]), col: Number(m[3]) } : null;
}

export const placementText = (code, row, col) => `${code}${row}${col}`;

/** A board as a Map "r,c" → tile code, from placements like "aacb00" (the view's `board`). */
export function boardFrom(placements) {
  const board = new Map();
  for (const text of placements) {
    const p = parsePlacement(text);
    if (p) board.set(`${p.row},${p.col}`, p.code);
  }
  return board;
}

// Connector positions on a unit square, clockwise from the top-left, at 1/3 and 2/3 of each side.
const POINTS = [
  [1 / 3, 0], [2 / 3, 0], [1, 1 / 3], [1, 2 / 3],
  [2 / 3, 1], [1 / 3, 1], [0, 2 / 3], [0, 1 / 3],
];
// The direction pointing into the square from each side: top, right, bottom, left.
const INWARD = [[0, 1], [-1, 0], [0, -1], [1, 0]];

export const connectorPoint = (k) => POINTS[k];

/** An SVG path (unit square) for the track from connector a to b: a smooth cubic curve. */
export function trackPath(a, b, scale = 1, x0 = 0, y0 = 0) {
  const [ax, ay] = POINTS[a];
  const [bx, by] = POINTS[b];
  const [nax, nay] = INWARD[a >> 1];
  const [nbx, nby] = INWARD[b >> 1];
  const sameSide = a >> 1 === b >> 1;
  const dist = Math.hypot(bx - ax, by - ay);
  const reach = sameSide ? 0.34 : dist > 0.95 ? 0.4 : 0.42 * dist;
  const p = (x, y) => `${(x0 + x * scale).toFixed(2)} ${(y0 + y * scale).toFixed(2)}`;
  return (
    `M${p(ax, ay)} C${p(ax + nax * reach, ay + nay * reach)} ` +
    `${p(bx + nbx * reach, by + nby * reach)} ${p(bx, by)}`
  );
}

/** Station s (1..32): the border square it faces, its departure connector, and its side. */
export function station(s) {
  if (s <= 8) return { row: 0, col: 8 - s, depart: 0, side: "top" };
  if (s <= 16) return { row: s - 9, col: 0, depart: 6, side: "left" };
  if (s <= 24) return { row: 7, col: s - 17, depart: 4, side: "bottom" };
  return { row: 32 - s, col: 7, depart: 2, side: "right" };
}

export const isCentre = (r, c) => CENTRE.has(`${r},${c}`);

const SIDES = ["top", "right", "bottom", "left"];

const KINDS = { a: "straight", b: "curve", c: "curve", d: "uturn" };

/**
 * A tile in a few words, for lists, logs, hints and confirmations: what its four tracks are
 * ("2 straights, 1 curve and 1 U-turn"), never its code. The board shows the picture; a screen
 * reader gets the full track list from describeTile.
 */
export function tileName(code) {
  if (!TILE_CODE.test(code || "")) return t("metro.tile_unknown");
  const counts = { straight: 0, curve: 0, uturn: 0 };
  for (const letter of code) counts[KINDS[letter]] += 1;
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => t(`metro.tile_part.${kind}`, { count: n }));
  return t("metro.tile", { name: formatList(parts) });
}

/**
 * A tile in words, for screen readers: its four tracks, one from each side ("tile: straight top
 * to bottom; straight right to left; curve bottom to right; curve left to top"). a: straight
 * across, b: a curve to the next side clockwise, c: anticlockwise, d: a U-turn back to the same
 * side. The code itself never reaches a person.
 */
export function describeTile(code) {
  if (!TILE_CODE.test(code || "")) return t("metro.tile_unknown");
  const side = (i) => t(`metro.side.${SIDES[i % 4]}`);
  const parts = [...code].map((letter, i) => {
    if (letter === "a") return t("metro.track_straight", { from: side(i), to: side(i + 2) });
    if (letter === "b") return t("metro.track_curve", { from: side(i), to: side(i + 1) });
    if (letter === "c") return t("metro.track_curve", { from: side(i), to: side(i + 3) });
    return t("metro.track_uturn", { side: side(i) });
  });
  return t("metro.tile_words", { tracks: parts.join("; ") });
}

/** A refusal's or a log's value in words: a tile code, or a comma-separated list of them. */
export function tileListWords(text) {
  const codes = String(text || "").split(/,\s*/).filter((c) => TILE_CODE.test(c));
  return codes.length ? formatList(codes.map(tileName)) : String(text || "");
}
