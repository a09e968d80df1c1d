// Metro's board as SVG: grid, central station, 32 numbered stations coloured by owner, tiles drawn
// as track curves, every route in its owner's colour, and the layers play needs on top (legal
// squares, a hover preview, the AI's hints). Rendering only: page.js decides what to show.

import { CENTRE, SIZE, connectorPoint, isCentre, station, trackPath, tracks } from "./tiles.js";

const NS = "http://www.w3.org/2000/svg";
export const CELL = 60;
const MARGIN = 48;

const PALETTE = {
  yellow: "#f4c20d", blue: "#2d6cdf", orange: "#f07f1f",
  green: "#26a05a", purple: "#8b4fd0", black: "#2a2a2e",
};
const SEAT_COLOURS = ["yellow", "blue", "orange", "green", "purple", "black"];
const LIGHT_TEXT = new Set(["blue", "green", "purple", "black"]);

/** The colour name of a seat: the view's `color`, else the seat-order default. */
export function colourName(seats, seat) {
  if (seat === null || seat === undefined) return null;
  const named = seats?.[seat]?.color;
  return named && PALETTE[named] ? named : SEAT_COLOURS[seat % SEAT_COLOURS.length];
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
export function tileIcon(code, px = 64) {
  const svg = el("svg", { viewBox: "0 0 60 60", width: px, height: px, class: "tile-icon", role: "img" });
  el("title", {}, svg).textContent = `tile ${code}`;
  svg.appendChild(tileGroup(code, 0, 0, 60));
  return svg;
}

/** The back of a tile, for "draw & place" in lists: the tile is unknown until drawn. */
export function deckIcon(px = 30) {
  const svg = el("svg", { viewBox: "0 0 60 60", width: px, height: px, class: "tile-icon", role: "img" });
  el("title", {}, svg).textContent = "a tile from the deck";
  el("rect", { x: 1, y: 1, width: 58, height: 58, rx: 5, class: "tile-back" }, svg);
  el("text", { x: 30, y: 41, class: "tile-back-mark" }, svg).textContent = "?";
  return svg;
}

export class BoardView {
  /** handlers: {hover(r, c), leave(), click(r, c)} */
  constructor(svg, handlers) {
    this.svg = svg;
    this.handlers = handlers;
    const span = SIZE * CELL + 2 * MARGIN;
    svg.setAttribute("viewBox", `${-MARGIN} ${-MARGIN} ${span} ${span}`);
    svg.replaceChildren();
    this.layers = {};
    for (const name of ["grid", "tiles", "routes", "stations", "marks", "highlight", "preview", "hints"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, svg);
    }
    this.#drawGrid();
  }

  #drawGrid() {
    const g = this.layers.grid;
    el("rect", { x: -MARGIN + 2, y: -MARGIN + 2, width: SIZE * CELL + 2 * MARGIN - 4,
      height: SIZE * CELL + 2 * MARGIN - 4, rx: 14, class: "board-frame" }, g);
    for (let r = 0; r < SIZE; r++) {
      for (let c = 0; c < SIZE; c++) {
        if (isCentre(r, c)) continue;
        const sq = el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL,
          class: "square", "data-square": `${r}${c}` }, g);
        sq.addEventListener("mouseenter", () => this.handlers.hover?.(r, c));
        sq.addEventListener("mouseleave", () => this.handlers.leave?.());
        sq.addEventListener("click", () => this.handlers.click?.(r, c));
      }
    }
    const centre = el("g", { class: "centre" }, g);
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
    const label = el("text", { x: 4 * CELL, y: 4 * CELL + 10, class: "centre-label" }, centre);
    label.textContent = "M";
  }

  /** Draw tiles, routes and stations from a view-like object. */
  render({ board, seats, routes, lastSquare }) {
    const { tiles, routes: routeLayer, marks, stations } = this.layers;
    tiles.replaceChildren();
    for (const [key, code] of board) {
      const [r, c] = key.split(",").map(Number);
      const g = tileGroup(code, c * CELL, r * CELL, CELL);
      g.setAttribute("data-tile", `${code}${r}${c}`);
      if (key === lastSquare) g.classList.add("last");
      tiles.appendChild(g);
    }
    routeLayer.replaceChildren();
    marks.replaceChildren();
    const owners = new Map();
    (seats || []).forEach((seat, i) => (seat.stations || []).forEach((s) => owners.set(s, i)));
    for (const route of routes || []) this.#drawRoute(route, seats, owners);
    stations.replaceChildren();
    for (let s = 1; s <= 32; s++) this.#drawStation(s, seats, owners, routes);
  }

  #drawRoute(route, seats, owners) {
    const owner = route.owner ?? owners.get(route.station) ?? null;
    const colour = colourHex(colourName(seats, owner));
    const complete = route.end && route.end !== "open";
    const g = el("g", { class: `route ${complete ? "complete" : "open"}`, "data-station": route.station },
      this.layers.routes);
    for (const [r, c, a, b] of (route.path || []).map(pathStep)) {
      el("path", { d: trackPath(a, b, CELL, c * CELL, r * CELL), stroke: colour, class: "route-track" }, g);
    }
  }

  #drawStation(s, seats, owners, routes) {
    const { row, col, side } = station(s);
    const owner = owners.has(s) ? owners.get(s) : null;
    const name = colourName(seats, owner);
    const w = 28;
    const h = 20;
    let x;
    let y;
    if (side === "top") [x, y] = [col * CELL + CELL / 2 - w / 2, -h - 5];
    else if (side === "bottom") [x, y] = [col * CELL + CELL / 2 - w / 2, SIZE * CELL + 5];
    else if (side === "left") [x, y] = [-w - 5, row * CELL + CELL / 2 - h / 2];
    else [x, y] = [SIZE * CELL + 5, row * CELL + CELL / 2 - h / 2];
    const g = el("g", { class: "station", "data-station": s }, this.layers.stations);
    el("rect", { x, y, width: w, height: h, rx: 5, fill: colourHex(name),
      class: owner === null ? "station-box unowned" : "station-box" }, g);
    const t = el("text", { x: x + w / 2, y: y + h / 2 + 4.5, fill: textOn(name), class: "station-num" }, g);
    t.textContent = String(s);
    const route = (routes || []).find((rt) => rt.station === s);
    if (route && route.end && route.end !== "open") {
      // on the box's outer corner, in the margin, clear of the board and its neighbours
      const bx = side === "left" ? x + 1 : x + w - 1;
      const by = side === "bottom" ? y + h + 1 : y - 1;
      const badge = el("g", { class: `points ${route.end}` }, this.layers.marks);
      const half = 9 + 3.2 * (String(route.points).length - 1); // a pill that fits two digits
      el("rect", { x: bx - half, y: by - 9, width: 2 * half, height: 18, rx: 9, stroke: colourHex(name) },
        badge);
      el("text", { x: bx, y: by + 3.8 }, badge).textContent = String(route.points);
      el("title", {}, badge).textContent =
        `station ${s}: ${route.points} points (${route.end === "centre" ? "into the centre, doubled" : "to the edge"})`;
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

  /** A ghost of `code` on (r, c), with the points it would complete: [{owner, points}]. */
  preview(code, r, c, gains = [], seats = []) {
    const g = this.layers.preview;
    g.replaceChildren();
    if (!code) return;
    const ghost = tileGroup(code, c * CELL, r * CELL, CELL, { ghost: true });
    g.appendChild(ghost);
    gains.forEach((gain, i) => {
      const name = colourName(seats, gain.owner);
      const x = c * CELL + CELL - 4;
      const y = r * CELL + 4 + i * 20;
      const b = el("g", { class: "gain" }, g);
      el("rect", { x: x - 30, y, width: 34, height: 18, rx: 9, fill: colourHex(name) }, b);
      el("text", { x: x - 13, y: y + 13, fill: textOn(name) }, b).textContent = `+${gain.points}`;
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
      const value = formatValue(h.value, true);
      const half = 6 + 3.6 * value.length;
      const [x, y] = [h.col * CELL + CELL / 2, h.row * CELL + CELL / 2 + 4];
      el("rect", { x: x - half, y: y - 10, width: 2 * half, height: 20, rx: 10, class: "hint-badge" }, hg);
      el("text", { x, y: y + 4.2, class: "hint-text" }, hg).textContent = value;
    });
  }
}

/** A route step as [row, col, entry, exit]: the view sends objects, replays make arrays. */
const pathStep = (s) => (Array.isArray(s) ? s : [s.row, s.col, s.entry, s.exit]);

/** A hint's value, short; `signed` writes +/− as a margin should read. */
export function formatValue(v, signed = false) {
  if (typeof v !== "number" || Number.isNaN(v)) return "?";
  const text = Math.abs(v) >= 10 ? Math.abs(v).toFixed(0) : Math.abs(v).toFixed(1);
  if (v < 0 && Number(text) !== 0) return `−${text}`;
  return signed && Number(text) !== 0 ? `+${text}` : text;
}
