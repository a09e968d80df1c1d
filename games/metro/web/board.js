// Metro's board as SVG: grid, central station, 32 numbered stations coloured by owner, tiles drawn
// as track curves, every route in its owner's colour, and the layers play needs on top (legal
// squares, a hover preview, the AI's hints). Input: a click or hover on a square, and the
// keyboard cursor over the squares page.js names as its targets; page.js decides what to show.

import { SAFE_SHADES, cursorKey, nearestInDirection, seatSymbol, signedValue } from "/kit.js";
import { has, t as say } from "/i18n.js";
import { CENTRE, SIZE, connectorPoint, isCentre, station, tileName, trackPath, tracks } from "./tiles.js";

const NS = "http://www.w3.org/2000/svg";
export const CELL = 60;
// Seat i's routes: solid, long dashes, dots, dash-dot, short dashes, dash-dot-dot. The gaps
// outgrow the round caps of a 5-unit stroke, so each pattern still reads as one.
const ROUTE_DASHES = [null, "14 9", "0.1 9", "14 9 0.1 9", "5 9", "14 8 0.1 8 0.1 8"];
const MARGIN = 48;
// At phone width the margin shrinks so that the squares reach 44 px (tap targets) on a 390 px screen.
const COMPACT_MARGIN = 23;

// The rules name the seat colours (yellow, blue, orange, green, purple, black); their shades are
// Okabe–Ito's, which stay apart under the common colour-vision deficiencies. Each seat also has a
// symbol (dom.js), drawn on its stations and its points.
const PALETTE = {
  yellow: SAFE_SHADES.yellow, blue: SAFE_SHADES.blue, orange: SAFE_SHADES.orange,
  green: SAFE_SHADES.green, purple: SAFE_SHADES.purple, black: SAFE_SHADES.black,
};
const LIGHT_TEXT = new Set(["blue", "black"]);

/** A colour's name in the page's language ("yellow" -> "sárga"). */
export const colourWord = (name) => (has(`metro.colour.${name}`) ? say(`metro.colour.${name}`) : String(name ?? ""));

/** The colour name of a seat: the view's `color` (the rules' seat colours are the server's,
 *  games/metro/board.py COLOURS); null (grey) for no seat. */
export function colourName(seats, seat) {
  if (seat === null || seat === undefined) return null;
  const named = seats?.[seat]?.color;
  return named && PALETTE[named] ? named : null;
}
export const colourHex = (name) => (name ? PALETTE[name] : "#9aa1ab");
export const textOn = (name) => (name && LIGHT_TEXT.has(name) ? "#fff" : "#1d1d1f");

export function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** One tile's tracks inside a square at (x, y) of side `size`: a group the caller places. */
export function tileGroup(code, x, y, size, { ghost = false } = {}) {
  const g = el("g", { class: ghost ? "tile ghost" : "tile" });
  el("rect", { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 5, class: "tile-face" }, g);
  for (const [a, b] of tracks(code)) {
    const d = trackPath(a, b, size, x, y);
    el("path", { d, class: "track-casing" }, g);
    el("path", { d, class: "track" }, g);
  }
  return g;
}

/** A small standalone SVG of one tile, for the hand and the hint list. */
export function tileIcon(code, px = 64, label = null) {
  const svg = el("svg", { viewBox: "0 0 60 60", width: px, height: px, class: "tile-icon", role: "img",
    "aria-label": label || tileName(code) });
  el("title", {}, svg).textContent = label || tileName(code);
  svg.appendChild(tileGroup(code, 0, 0, 60));
  return svg;
}

/** The back of a tile, for "draw & place" in lists: the tile is unknown until drawn. */
export function deckIcon(px = 30) {
  const svg = el("svg", { viewBox: "0 0 60 60", width: px, height: px, class: "tile-icon", role: "img" });
  el("title", {}, svg).textContent = say("metro.deck_tile");
  el("rect", { x: 1, y: 1, width: 58, height: 58, rx: 5, class: "tile-back" }, svg);
  el("text", { x: 30, y: 41, class: "tile-back-mark" }, svg).textContent = "?";
  return svg;
}

/** The board's SVG: a keyboard grid named `label`, described by the element `describedBy`. */
export function boardSvg(label, describedBy) {
  const svg = document.createElementNS(NS, "svg");
  svg.id = "board";
  svg.setAttribute("class", "board");
  svg.setAttribute("role", "grid");
  svg.setAttribute("tabindex", "0");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("aria-describedby", describedBy);
  return svg;
}

export class BoardView {
  /** handlers: {hover(r, c), leave(), click(r, c)}; `compact`: the phone layout (thin margin). */
  constructor(svg, handlers, { compact = false, idPrefix = "metro" } = {}) {
    this.svg = svg;
    this.handlers = handlers;
    this.idPrefix = idPrefix;
    this.compact = compact;
    this.#build();
  }

  /** Switch between the wide and the phone layout; the caller renders again. */
  setCompact(compact) {
    if (compact === this.compact) return;
    this.compact = compact;
    this.#build();
  }

  get margin() {
    return this.compact ? COMPACT_MARGIN : MARGIN;
  }

  /** The id of the grid cell (r, c), for aria-activedescendant. */
  cellId(r, c) {
    return `${this.idPrefix}-sq-${r}-${c}`;
  }

  #build() {
    const svg = this.svg;
    const m = this.margin;
    const span = SIZE * CELL + 2 * m;
    svg.setAttribute("viewBox", `${-m} ${-m} ${span} ${span}`);
    svg.classList.toggle("compact", this.compact);
    svg.replaceChildren();
    this.layers = {};
    for (const name of ["grid", "tiles", "routes", "coords", "stations", "marks", "recent", "highlight", "preview", "hints", "cursor"]) {
      // Only the grid's cells speak to screen readers: they name what is on each square.
      this.layers[name] = el("g", { class: `layer-${name}`, "aria-hidden": name === "grid" ? null : "true" }, svg);
    }
    this.cells = new Map();
    this.#drawGrid();
  }

  #drawGrid() {
    const g = this.layers.grid;
    const m = this.margin;
    el("rect", { x: -m + 2, y: -m + 2, width: SIZE * CELL + 2 * m - 4,
      height: SIZE * CELL + 2 * m - 4, rx: this.compact ? 8 : 14, class: "board-frame", "aria-hidden": "true" }, g);
    for (let r = 0; r < SIZE; r++) {
      const row = el("g", { role: "row" }, g);
      for (let c = 0; c < SIZE; c++) {
        if (isCentre(r, c)) {
          // The central station's four squares: cells too, so every row has eight.
          const cell = el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL, class: "centre-cell",
            role: "gridcell", id: this.cellId(r, c), "aria-label": say("metro.cell_centre", { row: r + 1, col: c + 1 }) }, row);
          this.cells.set(`${r},${c}`, cell);
          continue;
        }
        const sq = el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL,
          class: "square", "data-square": `${r}${c}`, role: "gridcell", id: this.cellId(r, c),
          "aria-label": say("metro.cell_empty", { row: r + 1, col: c + 1 }) }, row);
        sq.addEventListener("mouseenter", () => this.handlers.hover?.(r, c));
        sq.addEventListener("mouseleave", () => this.handlers.leave?.());
        sq.addEventListener("click", () => this.handlers.click?.(r, c));
        this.cells.set(`${r},${c}`, sq);
      }
    }
    const centre = el("g", { class: "centre", "aria-hidden": "true" }, g);
    el("rect", { x: 3 * CELL + 3, y: 3 * CELL + 3, width: 2 * CELL - 6, height: 2 * CELL - 6, rx: 10,
      class: "centre-station" }, centre);
    for (const [r, c] of [...CENTRE].map((k) => k.split(",").map(Number))) {
      // the 8 entrances: both connectors of each outer side of the block
      const sides = [];
      if (r === 3) sides.push(0);
      if (r === 4) sides.push(2);
      if (c === 3) sides.push(3);
      if (c === 4) sides.push(1);
      for (const side of sides) {
        for (const k of [2 * side, 2 * side + 1]) {
          const [px, py] = connectorPoint(k);
          el("circle", { cx: c * CELL + px * CELL, cy: r * CELL + py * CELL, r: 3.2, class: "entrance" }, centre);
        }
      }
    }
    el("circle", { cx: 4 * CELL, cy: 4 * CELL, r: 27, class: "centre-roundel" }, centre);
    this.#drawCoords();
    const label = el("text", { x: 4 * CELL, y: 4 * CELL + 10, class: "centre-label" }, centre);
    label.textContent = "M";
  }

  /** Row and column numbers, as the hints and the screen reader count them (from 1): column
   *  numbers in the top row's corners, row numbers in the left column's, above the tiles. */
  #drawCoords() {
    const g = this.layers.coords;
    g.setAttribute("pointer-events", "none");
    const look = { "font-size": 10, "font-weight": 600, fill: "#4d5360" };
    for (let c = 0; c < SIZE; c++) {
      el("text", { x: c * CELL + 4, y: 12, class: "coord coord-col", ...look }, g).textContent = String(c + 1);
    }
    for (let r = 0; r < SIZE; r++) {
      el("text", { x: 4, y: r * CELL + CELL - 5, class: "coord coord-row", ...look }, g).textContent = String(r + 1);
    }
  }

  /** Set what a screen reader says for square (r, c). */
  label(r, c, text) {
    this.cells.get(`${r},${c}`)?.setAttribute("aria-label", text);
  }

  /**
   * Draw tiles, routes and stations from a view-like object. `recent`: squares "r,c" placed since
   * the viewer's last move (a dashed outline); `arrive`: squares to fade in (other players' moves).
   */
  render({ board, seats, routes, lastSquare, recent = new Set(), arrive = new Set() }) {
    const { tiles, routes: routeLayer, marks, stations } = this.layers;
    tiles.replaceChildren();
    for (const [key, code] of board) {
      const [r, c] = key.split(",").map(Number);
      const g = tileGroup(code, c * CELL, r * CELL, CELL);
      g.setAttribute("data-tile", `${code}${r}${c}`);
      if (key === lastSquare) g.classList.add("last");
      if (recent.has(key)) g.classList.add("recent");
      if (arrive.has(key)) g.classList.add("arrive");
      tiles.appendChild(g);
    }
    this.recent(recent);
    routeLayer.replaceChildren();
    marks.replaceChildren();
    const owners = new Map();
    (seats || []).forEach((seat, i) => (seat.stations || []).forEach((s) => owners.set(s, i)));
    for (const route of routes || []) this.#drawRoute(route, seats, owners);
    stations.replaceChildren();
    for (let s = 1; s <= 32; s++) this.#drawStation(s, seats, owners, routes);
  }

  /** Outline the squares moved to since the viewer's last move: dashed, in a colour no seat has. */
  recent(squares) {
    const g = this.layers.recent;
    g.replaceChildren();
    for (const key of squares) {
      const [r, c] = key.split(",").map(Number);
      const box = { x: c * CELL + 2.5, y: r * CELL + 2.5, width: CELL - 5, height: CELL - 5, rx: 6 };
      el("rect", { ...box, class: "recent-halo" }, g);
      el("rect", { ...box, class: "recent-mark", "data-recent": `${r}${c}` }, g);
    }
  }

  #drawRoute(route, seats, owners) {
    const owner = route.owner ?? owners.get(route.station) ?? null;
    const colour = colourHex(colourName(seats, owner));
    const complete = route.end && route.end !== "open";
    const g = el("g", { class: `route ${complete ? "complete" : "open"}`, "data-station": route.station },
      this.layers.routes);
    // A dash pattern per seat as well as its colour: routes stay apart under colour blindness.
    const dash = owner === null ? null : ROUTE_DASHES[owner % ROUTE_DASHES.length];
    for (const [r, c, a, b] of (route.path || []).map(pathStep)) {
      el("path", { d: trackPath(a, b, CELL, c * CELL, r * CELL), stroke: colour, class: "route-track",
        "stroke-dasharray": dash, "data-dash": dash ?? "solid" }, g);
    }
  }

  #drawStation(s, seats, owners, routes) {
    const { row, col, side } = station(s);
    const owner = owners.has(s) ? owners.get(s) : null;
    const name = colourName(seats, owner);
    const compact = this.compact;
    const across = side === "left" || side === "right";
    // The wide layout: a box with the seat's symbol and the number side by side. Compact: a
    // narrower box; on the left and right sides the symbol sits above the number.
    const w = compact ? (across ? 20 : 32) : owner === null ? 28 : 38;
    const h = compact ? (across ? 26 : 18) : 20;
    const gap = compact ? 2 : 5;
    let x;
    let y;
    if (side === "top") [x, y] = [col * CELL + CELL / 2 - w / 2, -h - gap];
    else if (side === "bottom") [x, y] = [col * CELL + CELL / 2 - w / 2, SIZE * CELL + gap];
    else if (side === "left") [x, y] = [-w - gap, row * CELL + CELL / 2 - h / 2];
    else [x, y] = [SIZE * CELL + gap, row * CELL + CELL / 2 - h / 2];
    const g = el("g", { class: "station", "data-station": s, "data-owner": owner ?? "" }, this.layers.stations);
    el("rect", { x, y, width: w, height: h, rx: compact ? 4 : 5, fill: colourHex(name),
      class: owner === null ? "station-box unowned" : "station-box" }, g);
    const ink = textOn(name);
    let tx = x + w / 2;
    let ty = y + h / 2 + (compact ? 3.5 : 4.5);
    if (owner !== null) {
      const sym = { fill: ink, class: "station-symbol", stroke: "none" };
      if (compact && across) {
        seatSymbol(owner, x + w / 2, y + 7, 4.2, sym, g);
        ty = y + h - 4;
      } else {
        const r = compact ? 4.2 : 5;
        seatSymbol(owner, x + (compact ? 8 : 10), y + h / 2, r, sym, g);
        tx = x + w / 2 + (compact ? 5 : 6);
      }
    }
    const t = el("text", { x: tx, y: ty, fill: ink, class: "station-num" }, g);
    t.textContent = String(s);
    const route = (routes || []).find((rt) => rt.station === s);
    if (route && route.end && route.end !== "open") {
      const badge = el("g", { class: `points ${route.end}` }, this.layers.marks);
      const digits = String(route.points).length;
      let bx;
      let by;
      let half;
      let ph;
      if (compact) {
        // beside the box, in the gap between two stations
        half = 7 + 2.8 * (digits - 1);
        ph = 14;
        if (across) half = Math.min(half, w / 2 - 1.5); // as wide as the box at most: in the frame
        if (across) [bx, by] = [x + w / 2, y + h + ph / 2 - 1];
        else [bx, by] = [x + w + half - 2, y + h / 2];
      } else {
        // beside the box, never on its number: outside it in the margin (top and bottom), or
        // above it in the gap to the next station (left and right); inside the board's frame
        half = 9 + 3.2 * (digits - 1); // a pill that fits two digits
        ph = 18;
        bx = x + w / 2;
        by = side === "bottom" ? y + h + ph / 2 + 1 : y - ph / 2 - 1;
      }
      el("rect", { x: bx - half, y: by - ph / 2, width: 2 * half, height: ph, rx: ph / 2, stroke: colourHex(name) },
        badge);
      el("text", { x: bx, y: by + (compact ? 3.2 : 3.8) }, badge).textContent = String(route.points);
      el("title", {}, badge).textContent =
        say(route.end === "centre" ? "metro.route_centre" : "metro.route_edge", { station: s, count: route.points });
    }
  }

  /** Mark the squares where the selected tile may go. */
  highlight(squares) {
    const g = this.layers.highlight;
    g.replaceChildren();
    for (const key of squares) {
      const [r, c] = key.split(",").map(Number);
      el("rect", { x: c * CELL + 3, y: r * CELL + 3, width: CELL - 6, height: CELL - 6, rx: 6,
        class: "legal", "data-legal": `${r}${c}` }, g);
    }
  }

  /** The keyboard cursor on (r, c), or none. */
  cursor(r, c, { pending = false } = {}) {
    const g = this.layers.cursor;
    g.replaceChildren();
    if (r === null || r === undefined) return;
    el("rect", { x: c * CELL + 0.5, y: r * CELL + 0.5, width: CELL - 1, height: CELL - 1, rx: 7, class: "cursor-halo" }, g);
    el("rect", { x: c * CELL + 0.5, y: r * CELL + 0.5, width: CELL - 1, height: CELL - 1, rx: 7,
      class: pending ? "cursor-mark pending" : "cursor-mark", "data-cursor": `${r}${c}` }, g);
  }

  /** A ghost of `code` on (r, c), with the points it would complete: [{owner, points}].
   *  `pending`: a move waiting for its confirmation (drawn firmer). */
  preview(code, r, c, gains = [], seats = [], { pending = false } = {}) {
    const g = this.layers.preview;
    g.replaceChildren();
    if (!code) return;
    const ghost = tileGroup(code, c * CELL, r * CELL, CELL, { ghost: true });
    if (pending) ghost.classList.add("pending");
    ghost.setAttribute("data-preview", `${code}${r}${c}`);
    g.appendChild(ghost);
    gains.forEach((gain, i) => {
      const name = colourName(seats, gain.owner);
      const x = c * CELL + CELL - 4;
      const y = r * CELL + 4 + i * 20;
      const b = el("g", { class: "gain", "data-gain": gain.points }, g);
      const owned = gain.owner !== null && gain.owner !== undefined;
      const w = owned ? 44 : 34;
      el("rect", { x: x - w + 4, y, width: w, height: 18, rx: 9, fill: colourHex(name), class: "gain-pill" }, b);
      if (owned) seatSymbol(gain.owner, x - w + 14, y + 9, 4.4, { fill: textOn(name) }, b);
      el("text", { x: x - (owned ? 11 : 13), y: y + 13, fill: textOn(name) }, b).textContent = `+${gain.points}`;
    });
  }

  /** The AI's suggestions: ghost tiles with their rank and value. */
  hints(list) {
    const g = this.layers.hints;
    g.replaceChildren();
    list.forEach((h, i) => {
      const hg = el("g", { class: "hint", "data-hint": h.placement }, g);
      hg.appendChild(tileGroup(h.code, h.col * CELL, h.row * CELL, CELL, { ghost: true }));
      el("rect", { x: h.col * CELL + 2, y: h.row * CELL + 2, width: CELL - 4, height: CELL - 4, rx: 6,
        class: "hint-frame" }, hg);
      // the rank in the square's corner, the value in its middle
      const [cx, cy] = [h.col * CELL + 9, h.row * CELL + 9];
      el("circle", { cx, cy, r: 8.5, class: "hint-rank" }, hg);
      el("text", { x: cx, y: cy + 4, class: "hint-rank-text" }, hg).textContent = String(h.rank ?? i + 1);
      const value = signedValue(h.value);
      const half = 6 + 3.6 * value.length;
      const [x, y] = [h.col * CELL + CELL / 2, h.row * CELL + CELL / 2 + 4];
      el("rect", { x: x - half, y: y - 10, width: 2 * half, height: 20, rx: 10, class: "hint-badge" }, hg);
      el("text", { x, y: y + 4.2, class: "hint-text" }, hg).textContent = value;
    });
  }
}

/** The keyboard cursor over the board (issue 11): the arrows go to the nearest target that way,
 *  Home and End to the first and the last, Enter and Space act on the cursor's square. `on`:
 *  {targets() -> [{r, c, x, y}] (where it may go, in order), act(r, c), escape(), other(key)
 *  (false: not a key of the board's), pending(r, c) (a move waits there for its confirmation),
 *  moved() (after it moved or the board got the focus), left() (the board lost the focus)}. */
export class BoardCursor {
  constructor(svg, boardView, on) {
    this.svg = svg;
    this.boardView = boardView;
    this.on = on;
    this.at = null; // {r, c}
    svg.addEventListener("keydown", (ev) => this.#key(ev));
    svg.addEventListener("focus", () => this.refresh());
    svg.addEventListener("blur", () => {
      this.svg.removeAttribute("aria-activedescendant");
      this.boardView.cursor(null);
      this.on.left();
    });
  }

  get focused() {
    return document.activeElement === this.svg;
  }

  /** Keep the cursor on a target: where it is while that still is one, else the first. */
  keep() {
    const targets = this.on.targets();
    if (!this.at || !targets.some((t) => t.r === this.at.r && t.c === this.at.c)) {
      this.at = targets.length ? { r: targets[0].r, c: targets[0].c } : null;
    }
  }

  /** Put the cursor on a target again and say so (the board got the focus, or its targets changed
   *  while it had it). */
  refresh() {
    this.keep();
    this.#moved();
  }

  /** Draw the cursor while the board has the focus (and point the grid's active cell at it). */
  draw() {
    const k = this.at;
    const focused = this.focused;
    if (!k || !focused) {
      this.boardView.cursor(null);
      if (!focused) this.svg.removeAttribute("aria-activedescendant");
      return;
    }
    this.boardView.cursor(k.r, k.c, { pending: this.on.pending(k.r, k.c) });
    this.svg.setAttribute("aria-activedescendant", this.boardView.cellId(k.r, k.c));
  }

  #moved() {
    this.draw();
    this.on.moved();
  }

  #key(ev) {
    cursorKey(ev, {
      move: (key) => this.#step(key),
      act: () => {
        if (this.at) this.on.act(this.at.r, this.at.c);
      },
      escape: () => this.on.escape(),
      other: (key) => {
        if (key === "Home" || key === "End") this.#step(key);
        else return this.on.other(key);
      },
    });
  }

  /** Arrow keys (nearest square that way), Home and End move the cursor over the targets. */
  #step(key) {
    const targets = this.on.targets();
    let next;
    if (key === "Home") next = targets[0];
    else if (key === "End") next = targets[targets.length - 1];
    else {
      const from = this.at ? { x: this.at.c, y: this.at.r } : null;
      next = nearestInDirection(targets, from, key);
    }
    if (next) this.at = { r: next.r, c: next.c };
    this.#moved();
  }
}

/** A route step as [row, col, entry, exit]: the view sends objects, replays make arrays. */
const pathStep = (s) => (Array.isArray(s) ? s : [s.row, s.col, s.entry, s.exit]);

