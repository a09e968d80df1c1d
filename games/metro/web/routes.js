// Route tracing on the page (RULES.md §4), used only where the server has no answer to give:
// previewing the points a hovered placement would complete, and replaying a finished record.
// The server's view stays the authority for the live board.

import { isCentre, onBoard, parsePlacement, partners, station, step } from "./tiles.js";

/** A board as a Map "r,c" → tile code, from placements like "aacb00". */
export function boardFrom(placements) {
  const board = new Map();
  for (const text of placements) {
    const p = parsePlacement(text);
    if (p) board.set(`${p.row},${p.col}`, p.code);
  }
  return board;
}

/** The route from station s: its path, its end ("open"/"edge"/"centre") and its points. */
export function traceRoute(board, s) {
  const start = station(s);
  let [row, col, enter] = [start.row, start.col, start.depart];
  const path = [];
  for (;;) {
    if (!onBoard(row, col)) return finish(path, "edge");
    if (isCentre(row, col)) return finish(path, "centre");
    const code = board.get(`${row},${col}`);
    if (!code) return { path, end: "open", points: 0, next: [row, col] };
    const leave = partners(code)[enter];
    path.push([row, col, enter, leave]);
    if (path.length > 240) return finish(path, "edge"); // a cycle cannot happen; never loop forever
    [row, col, enter] = step(row, col, leave);
  }
}

function finish(path, end) {
  return { path, end, points: path.length * (end === "centre" ? 2 : 1) };
}

/** Every station's route, with its owner seat (null for an unowned station). */
export function traceAll(board, seats) {
  const owner = ownerByStation(seats);
  const routes = [];
  for (let s = 1; s <= 32; s++) routes.push({ station: s, owner: owner.get(s) ?? null, ...traceRoute(board, s) });
  return routes;
}

export function ownerByStation(seats) {
  const owner = new Map();
  (seats || []).forEach((seat, i) => (seat.stations || []).forEach((s) => owner.set(s, i)));
  return owner;
}

/** Scores per seat from the complete routes. */
export function scores(routes, seatCount) {
  const out = new Array(seatCount).fill(0);
  for (const r of routes) if (r.end !== "open" && r.owner !== null) out[r.owner] += r.points;
  return out;
}

/**
 * The routes a placement of `code` on (row, col) would complete: [{station, owner, points}].
 * Only an open route that runs into that very square can change.
 */
export function completions(board, seats, code, row, col) {
  const owner = ownerByStation(seats);
  const next = new Map(board);
  next.set(`${row},${col}`, code);
  const done = [];
  for (let s = 1; s <= 32; s++) {
    const before = traceRoute(board, s);
    if (before.end !== "open" || before.next[0] !== row || before.next[1] !== col) continue;
    const after = traceRoute(next, s);
    if (after.end !== "open") done.push({ station: s, owner: owner.get(s) ?? null, points: after.points });
  }
  return done;
}
