// On the Underground's network for the page (RULES-UNDERGROUND.md §2-§4), no DOM: the map
// indexed, the scores while building replayed rail by rail (so the page can preview what a rail
// would score and explain what each rail did score), the passenger's rides, and the positions of a
// finished game's record. The server is the judge; this only explains its numbers. (It was
// board.js; board.js is now the map on the screen, issue 31.3.)

import { has, t } from "/i18n.js";

export const COLOURS = ["red", "yellow", "blue", "purple", "black", "pink", "orange", "green", "brown", "white", "grey"];
export const LINES_PER_SEAT = { 2: 4, 3: 3, 4: 2, 5: 2 };
export const SYMBOLS = ["a", "b", "c", "d"];
export const FACE_UP = 4;

/** The Underground's own line colours for the 11 colour names. */
export const LINE_HEX = {
  red: "#dc241f",
  yellow: "#ffd329",
  blue: "#0019a8",
  purple: "#9b0058",
  black: "#1c1c1c",
  pink: "#f4a9be",
  orange: "#ee7c0e",
  green: "#00782a",
  brown: "#b26300",
  white: "#ffffff",
  grey: "#a1a5a7",
};

export const secKey = (a, b) => (a < b ? `${a}|${b}` : `${b}|${a}`);

/** The colours of seat `seat` in a game of `players` seats (§2). */
export function seatColours(players, seat) {
  const per = LINES_PER_SEAT[players] || 2;
  return COLOURS.slice(seat * per, seat * per + per);
}

/** Dash patterns, one per line a seat holds (solid, long dashes, dots, dash-dot): lines of one
 *  seat never look alike without their colours; seats differ by their symbol. */
export const LINE_DASHES = ["", "8 3", "2.2 2.2", "8 2.5 2.2 2.5"];

/** The dash pattern of `colour`'s line in a game of `players` seats ("" = solid). */
export function lineDash(players, colour) {
  const per = LINES_PER_SEAT[players] || 2;
  const i = COLOURS.indexOf(colour);
  return i < 0 ? "" : LINE_DASHES[i % per] || "";
}

export function ownerOf(players, colour) {
  const per = LINES_PER_SEAT[players] || 2;
  const i = COLOURS.indexOf(colour);
  return i < 0 ? -1 : Math.floor(i / per);
}

/** The map JSON (§1) with look-ups. */
export class MapIndex {
  constructor(map) {
    this.map = map;
    this.stations = map.stations;
    this.byId = new Map(map.stations.map((s) => [s.id, s]));
    this.sections = map.sections.map((s, i) => ({ ...s, i, key: secKey(s.a, s.b) }));
    this.byKey = new Map(this.sections.map((s) => [s.key, s]));
    this.neighbours = new Map(map.stations.map((s) => [s.id, []]));
    for (const s of this.sections) {
      this.neighbours.get(s.a)?.push(s.b);
      this.neighbours.get(s.b)?.push(s.a);
    }
  }

  name(id) {
    return this.byId.get(id)?.name || id;
  }
}

const EPS = 1e-9;

function onSegment(px, py, ax, ay, bx, by) {
  const cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  if (Math.abs(cross) > EPS) return false;
  return (
    Math.min(ax, bx) - EPS <= px && px <= Math.max(ax, bx) + EPS && Math.min(ay, by) - EPS <= py && py <= Math.max(ay, by) + EPS
  );
}

/** Even-odd rule; a point on the boundary is outside (scoring.py's `inside`). */
export function inside(px, py, poly) {
  let result = false;
  let [ax, ay] = poly[poly.length - 1];
  for (const [bx, by] of poly) {
    if (onSegment(px, py, ax, ay, bx, by)) return false;
    if (ay > py !== by > py) {
      const xCross = ax + ((py - ay) * (bx - ax)) / (by - ay);
      if (px < xCross) result = !result;
    }
    ax = bx;
    ay = by;
  }
  return result;
}

const MAX_PATHS = 20000; // a guard for the preview; real lines have a handful of loops

/**
 * The rails of every colour and what they have scored, replayed in order. `lay` applies a rail
 * and returns its gains (as the server's events name them: rail, terminus, symbol, enclosed,
 * branch); `preview` returns them without changing anything.
 */
export class Network {
  constructor(index, connections) {
    this.ix = index;
    this.connections = connections || {};
    this.adj = new Map(); // colour -> Map(station -> Set(station))
    this.symbols = new Map(); // colour -> Set(symbol)
    this.enclosed = new Map(); // colour -> Set(station)
    this.slots = new Map(); // section key -> [colour, ...] in the order laid
    this.order = []; // every rail, in order
  }

  adjOf(colour) {
    let m = this.adj.get(colour);
    if (!m) this.adj.set(colour, (m = new Map()));
    return m;
  }

  setOf(map, colour) {
    let s = map.get(colour);
    if (!s) map.set(colour, (s = new Set()));
    return s;
  }

  on(colour, station) {
    return this.adj.get(colour)?.has(station) || false;
  }

  railCount(colour) {
    let n = 0;
    for (const set of this.adjOf(colour).values()) n += set.size;
    return n / 2;
  }

  isEnd(colour, station) {
    return (this.adjOf(colour).get(station)?.size || 0) === 1 && !this.ix.byId.get(station)?.terminus;
  }

  /** "start", "extend", "branch" or null (§3), ignoring space and tokens. */
  kind(colour, a, b) {
    if (this.railCount(colour) === 0) return "start";
    if (this.isEnd(colour, a) || this.isEnd(colour, b)) return "extend";
    if (this.on(colour, a) || this.on(colour, b)) return "branch";
    return null;
  }

  partner(station) {
    const sym = this.connections[station];
    if (!sym) return null;
    for (const [spot, s] of Object.entries(this.connections)) if (s === sym && spot !== station) return spot;
    return null;
  }

  preview(colour, a, b) {
    return this.#score(colour, a, b, false);
  }

  lay(colour, a, b) {
    return this.#score(colour, a, b, true);
  }

  #score(colour, a, b, commit) {
    const ix = this.ix;
    const adj = this.adjOf(colour);
    const k = this.kind(colour, a, b);
    const gains = [];
    if (k === "branch") gains.push({ colour, reason: "branch", points: 0, tokens: -2 });
    const closes = k !== "start" && adj.has(a) && adj.has(b);
    const cycles = closes ? this.#paths(adj, a, b) : [];
    const fresh = [a, b].filter((s) => !adj.has(s));
    const onAfter = (s) => adj.has(s) || fresh.includes(s);
    for (const s of fresh) {
      const st = ix.byId.get(s);
      if (st?.rail) gains.push({ colour, reason: "rail", points: 1, station: s });
      if (st?.terminus) gains.push({ colour, reason: "terminus", points: 2, tokens: 1, station: s });
    }
    const syms = new Set(this.symbols.get(colour) || []);
    for (const s of fresh) {
      const sym = this.connections[s];
      if (!sym || syms.has(sym)) continue;
      const p = this.partner(s);
      if (p && onAfter(p)) {
        syms.add(sym);
        gains.push({ colour, reason: "symbol", points: 3, symbol: sym });
      }
    }
    const enclosedBefore = this.enclosed.get(colour) || new Set();
    const got = new Set();
    for (const cycle of cycles) {
      const poly = cycle.map((s) => [ix.byId.get(s).x, ix.byId.get(s).y]);
      const onCycle = new Set(cycle);
      const xs = poly.map((p) => p[0]);
      const ys = poly.map((p) => p[1]);
      const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
      for (const st of ix.stations) {
        if (onCycle.has(st.id) || enclosedBefore.has(st.id) || got.has(st.id)) continue;
        if (x0 < st.x && st.x < x1 && y0 < st.y && st.y < y1 && inside(st.x, st.y, poly)) got.add(st.id);
      }
    }
    for (const st of ix.stations) if (got.has(st.id)) gains.push({ colour, reason: "enclosed", points: 1, station: st.id });
    if (commit) {
      if (!adj.has(a)) adj.set(a, new Set());
      if (!adj.has(b)) adj.set(b, new Set());
      adj.get(a).add(b);
      adj.get(b).add(a);
      this.symbols.set(colour, syms);
      const enc = this.setOf(this.enclosed, colour);
      for (const s of got) enc.add(s);
      const key = secKey(a, b);
      if (!this.slots.has(key)) this.slots.set(key, []);
      this.slots.get(key).push(colour);
      this.order.push({ colour, a, b });
    }
    return gains;
  }

  /** Every simple path a -> b along the colour's rails (each one a loop the rail a-b closes). */
  #paths(adj, start, goal) {
    const out = [];
    const path = [start];
    const onPath = new Set([start]);
    const stack = [[...(adj.get(start) || [])]];
    let count = 0;
    while (stack.length && count < MAX_PATHS) {
      const top = stack[stack.length - 1];
      if (!top.length) {
        stack.pop();
        onPath.delete(path.pop());
        continue;
      }
      const nxt = top.shift();
      if (nxt === goal) {
        out.push([...path, goal]);
        count++;
        continue;
      }
      if (onPath.has(nxt)) continue;
      path.push(nxt);
      onPath.add(nxt);
      stack.push([...(adj.get(nxt) || [])]);
    }
    return out;
  }

  /** Rails per section, in the order laid: the slot of each colour. */
  slotOf(a, b, colour) {
    return (this.slots.get(secKey(a, b)) || []).indexOf(colour);
  }

  used(a, b) {
    return (this.slots.get(secKey(a, b)) || []).length;
  }
}

export const sumPoints = (gains) => gains.reduce((t, g) => t + (g.points || 0), 0);


/** "+3: national rail Euston, terminus Morden (+1 token)" or "no points". */
export function gainWords(gains, index) {
  const pts = sumPoints(gains);
  const parts = [];
  const enclosed = gains.filter((g) => g.reason === "enclosed").length;
  for (const g of gains) {
    if (g.reason === "enclosed") continue;
    if (g.reason === "branch") parts.push(t("underground.gain.branch"));
    else if (g.reason === "terminus") parts.push(t("underground.gain.terminus", { station: index.name(g.station) }));
    else if (g.reason === "symbol") parts.push(t("underground.gain.symbol", { symbol: g.symbol.toUpperCase() }));
    else if (has(`underground.gain.${g.reason}`)) parts.push(t(`underground.gain.${g.reason}`, { station: g.station ? index.name(g.station) : "" }).trim());
    else parts.push(`${g.reason} ${g.station ? index.name(g.station) : ""}`.trim());
  }
  if (enclosed) parts.push(t("underground.gain.enclosed", { count: enclosed }));
  const head = pts ? `+${pts}` : t("underground.no_points");
  return parts.length ? `${head}: ${parts.join(", ")}` : head;
}

/** Per seat: where its score came from. */
export function emptyBreakdown(seat) {
  return { seat, start: seat, rail: 0, terminus: 0, symbol: 0, enclosed: 0, ride: 0 };
}

/**
 * Everything the page explains about a view: the network of all rails (in order), each rail's
 * gains, and each seat's breakdown. `turnRails` of the rails (the last ones) are this turn's.
 */
export function analyse(index, view) {
  const players = view.rules?.players || view.seats.length;
  const net = new Network(index, view.connections);
  const breakdown = view.seats.map((_, i) => emptyBreakdown(i));
  const railGains = [];
  for (const r of view.rails || []) {
    const gains = net.lay(r.colour, r.a, r.b);
    railGains.push(gains);
    const owner = ownerOf(players, r.colour);
    if (breakdown[owner]) for (const g of gains) if (g.reason !== "branch") breakdown[owner][g.reason] += g.points;
  }
  // A retired seat's lines score nothing from the rides after it left (its score is frozen).
  const gone = new Set();
  const ride = (leg) => {
    for (const c of leg.lines || []) {
      const owner = ownerOf(players, c);
      if (breakdown[owner] && !gone.has(owner)) breakdown[owner].ride += 1;
    }
  };
  for (const m of view.moves || []) {
    for (const leg of m.route || []) ride(leg);
    if (m.action === "retire") gone.add(m.seat);
  }
  for (const leg of view.turn?.legs || []) ride(leg);
  for (const b of breakdown) b.total = b.start + b.rail + b.terminus + b.symbol + b.enclosed + b.ride;
  return { net, railGains, breakdown };
}

/**
 * The positions of a finished game's record: 0 the set-up, i after the i-th turn. Each has the
 * rails laid so far, the passenger, the face-up cards, the pile and the scores.
 */
export function replayPositions(index, record) {
  const players = record.rules?.players || record.seats?.length || 2;
  const deal = record.destinations || [];
  let faceUp = deal.slice(0, FACE_UP);
  let drawn = faceUp.length;
  let passenger = index.map.start;
  const scores = Array.from({ length: players }, (_, i) => i);
  const rails = [];
  const moves = [];
  const net = new Network(index, record.connections);
  const positions = [{ rails: [], passenger, faceUp: [...faceUp], pile: deal.length - drawn, scores: [...scores], moves: [], move: null }];
  const gone = new Set(); // retired seats: rides on their lines score nothing
  for (const move of record.moves || []) {
    for (const r of move.rails || []) {
      const gains = net.lay(r.colour, r.a, r.b);
      scores[move.seat] += sumPoints(gains);
      rails.push({ colour: r.colour, a: r.a, b: r.b });
    }
    for (const leg of move.route || []) {
      for (const c of leg.lines || []) {
        const o = ownerOf(players, c);
        if (o >= 0 && !gone.has(o)) scores[o] += 1;
      }
      passenger = leg.to;
      faceUp = faceUp.filter((s) => s !== leg.to);
    }
    if (move.action === "retire") gone.add(move.seat);
    if (passenger !== null) {
      while (faceUp.length < FACE_UP && drawn < deal.length) faceUp.push(deal[drawn++]);
      if (drawn >= deal.length) passenger = null;
    }
    moves.push(move);
    positions.push({
      rails: [...rails],
      passenger,
      faceUp: [...faceUp],
      pile: deal.length - drawn,
      scores: [...scores],
      moves: [...moves],
      move,
    });
  }
  return positions;
}
