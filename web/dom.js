// Small DOM helpers the shell offers to every game's page module (import from "/dom.js").

import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (null/undefined ones left out), appended to `parent`. */
export function svg(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

/** An HTML element: `className` sets the class, `true` an empty attribute, false/null none. */
export function html(tag, attrs = {}, parent = null, text = null) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "className") el.className = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== null) el.textContent = text;
  if (parent) parent.appendChild(el);
  return el;
}

/** Load a page module's stylesheet once (CSP allows only files from this origin). */
export function ensureStylesheet(href) {
  const url = new URL(href, location.href).href;
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some((l) => l.href === url)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = url;
  document.head.appendChild(link);
}

// ---- seats told apart without colour (issue 11, item 5) ---------------------------------------

/** One symbol per seat, so that no player is told apart by colour alone (seat i: SEAT_GLYPHS[i]). */
export const SEAT_GLYPHS = ["●", "▲", "■", "◆", "★", "✚", "⬟", "✖"];
const GLYPH_NAMES = ["circle", "triangle", "square", "diamond", "star", "cross", "pentagon", "saltire"];

/** The symbol of seat `i` as text ("●"), and its name for screen readers ("circle", in the
 *  page's language). */
export const seatGlyph = (i) => (Number.isInteger(i) && i >= 0 ? SEAT_GLYPHS[i % SEAT_GLYPHS.length] : "");
export const seatGlyphName = (i) => (Number.isInteger(i) && i >= 0 ? t(`glyph.${GLYPH_NAMES[i % GLYPH_NAMES.length]}`) : "");

/** Okabe–Ito shades for the plain colour names seats use: they stay apart under deuteranopia,
 *  protanopia and tritanopia (Okabe & Ito, "Color Universal Design"). */
export const SAFE_SHADES = {
  yellow: "#f0e442", blue: "#0072b2", orange: "#e69f00", green: "#009e73", purple: "#cc79a7",
  black: "#000000", vermilion: "#d55e00", sky: "#56b4e9", red: "#d55e00", grey: "#8a8f98",
};

/** The colour marking "moved since your last turn": used by no seat, and always drawn dashed. */
export const RECENT_COLOUR = "#e0007a";

/** The SVG path of seat i's symbol, centred on (0, 0), about 2r across. */
function glyphPath(i, r) {
  const k = ((i % SEAT_GLYPHS.length) + SEAT_GLYPHS.length) % SEAT_GLYPHS.length;
  const f = (n) => n.toFixed(2);
  const poly = (pts) => `M${pts.map(([x, y]) => `${f(x)} ${f(y)}`).join("L")}Z`;
  const ring = (n, rad, phase = -Math.PI / 2) =>
    Array.from({ length: n }, (_, j) => [rad * Math.cos(phase + (2 * Math.PI * j) / n), rad * Math.sin(phase + (2 * Math.PI * j) / n)]);
  switch (k) {
    case 0:
      return `M${f(-r)} 0a${f(r)} ${f(r)} 0 1 0 ${f(2 * r)} 0a${f(r)} ${f(r)} 0 1 0 ${f(-2 * r)} 0Z`;
    case 1:
      return poly(ring(3, r * 1.15).map(([x, y]) => [x, y + r * 0.18]));
    case 2:
      return poly([[-r * 0.85, -r * 0.85], [r * 0.85, -r * 0.85], [r * 0.85, r * 0.85], [-r * 0.85, r * 0.85]]);
    case 3:
      return poly([[0, -r * 1.1], [r * 1.1, 0], [0, r * 1.1], [-r * 1.1, 0]]);
    case 4:
      return poly(ring(10, r * 1.15).map(([x, y], j) => (j % 2 ? [x * 0.45, y * 0.45] : [x, y])));
    case 5: {
      const a = r * 0.36;
      return poly([[-a, -r], [a, -r], [a, -a], [r, -a], [r, a], [a, a], [a, r], [-a, r], [-a, a], [-r, a], [-r, -a], [-a, -a]]);
    }
    case 6:
      return poly(ring(5, r * 1.05));
    default: {
      const a = r * 0.3;
      const b = r * 0.95;
      return poly([[-b, -b + a], [-b + a, -b], [0, -a], [b - a, -b], [b, -b + a], [a, 0], [b, b - a], [b - a, b], [0, a], [-b + a, b], [-b, b - a], [-a, 0]]);
    }
  }
}

/** Seat i's symbol as an SVG path at (x, y), radius r (attrs: fill, stroke, class...). */
export function seatSymbol(i, x, y, r, attrs = {}, parent = null) {
  return svg("path", { d: glyphPath(i, r), transform: `translate(${x} ${y})`, ...attrs }, parent);
}

/** A small standalone SVG badge: seat i's symbol in white on its colour (for lists and tables). */
export function seatBadge(i, colour, size = 16, parent = null) {
  const root = svg("svg", { class: "seat-badge-icon", viewBox: "-10 -10 20 20", width: size, height: size, "aria-hidden": "true" }, parent);
  svg("circle", { r: 9.5, fill: colour || "#9aa1ab", stroke: "#1d1d1f", "stroke-width": 1 }, root);
  seatSymbol(i, 0, 0, 5.2, { fill: "#fff", stroke: "#1d1d1f", "stroke-width": 1 }, root);
  return root;
}

// ---- settings and what this tab remembers ------------------------------------------------------

function stored(area, key) {
  try {
    return window[area].getItem(key);
  } catch {
    return null;
  }
}

function store(area, key, value) {
  try {
    if (value === null) window[area].removeItem(key);
    else window[area].setItem(key, value);
  } catch {
    /* storage is off: the setting lasts as long as the page */
  }
}

const CONFIRM_KEY = "confirm.moves";

/** Whether a tap/click only previews a move and a second tap (or Confirm) sends it: the player's
 *  choice (localStorage), else on for touch screens (a coarse pointer). */
export function confirmMoves() {
  const saved = stored("localStorage", CONFIRM_KEY);
  if (saved === "on" || saved === "off") return saved === "on";
  return !!window.matchMedia?.("(pointer: coarse)").matches;
}

/** A "Confirm moves" checkbox (remembered in localStorage); onChange(on) after each change. */
export function confirmToggle(parent, onChange = () => {}) {
  const label = html("label", { className: "check confirm-toggle" }, parent);
  const box = html("input", { type: "checkbox", className: "confirm-moves" }, label);
  label.append(` ${t("dom.confirm_moves")}`);
  box.checked = confirmMoves();
  box.addEventListener("change", () => {
    store("localStorage", CONFIRM_KEY, box.checked ? "on" : "off");
    onChange(box.checked);
  });
  return box;
}

/** Per game and seat, what this tab saw at the viewer's last move (sessionStorage, so that a
 *  reload still highlights every move since then): an object, or null. */
export function lastSeen(kind, game, seat) {
  if (!game || seat === null || seat === undefined) return null;
  try {
    return JSON.parse(stored("sessionStorage", `seen.${kind}.${game}.${seat}`) || "null");
  } catch {
    return null;
  }
}

export function saveLastSeen(kind, game, seat, value) {
  if (!game || seat === null || seat === undefined) return;
  store("sessionStorage", `seen.${kind}.${game}.${seat}`, value === null ? null : JSON.stringify(value));
}

/** The player asked for less motion. */
export const reducedMotion = () => !!window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

// ---- keyboard cursors and the move log ---------------------------------------------------------

const DIRS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

/** The arrow key's direction as [dx, dy], or null for another key. */
export const arrowOf = (key) => DIRS[key] || null;

/**
 * The nearest of `items` ({x, y, ...}) from `from` in the direction of arrow `key`: the one ahead
 * with the least distance, sideways steps counting double; wraps round to the farthest one
 * behind when nothing is ahead. `from` null: the first item.
 */
export function nearestInDirection(items, from, key) {
  if (!items.length) return null;
  const dir = DIRS[key];
  if (!from || !dir) return items[0];
  let best = null;
  let bestCost = Infinity;
  for (const it of items) {
    const dx = it.x - from.x;
    const dy = it.y - from.y;
    const ahead = dx * dir[0] + dy * dir[1];
    if (ahead <= 1e-6) continue;
    const side = Math.abs(dx * dir[1] - dy * dir[0]);
    const cost = ahead + 2 * side;
    if (cost < bestCost) {
      bestCost = cost;
      best = it;
    }
  }
  if (best) return best;
  // Nothing ahead: wrap to the far side, nearest sideways.
  for (const it of items) {
    if (it === from) continue;
    const dx = it.x - from.x;
    const dy = it.y - from.y;
    const behind = -(dx * dir[0] + dy * dir[1]);
    const side = Math.abs(dx * dir[1] - dy * dir[0]);
    const cost = 3 * side - behind;
    if (cost < bestCost) {
      bestCost = cost;
      best = it;
    }
  }
  return best || from;
}

/**
 * What happened lately, for everyone: a short visible list (newest first) and a polite live
 * region that speaks other players' moves and whose turn it is. Page modules style `.move-log`.
 */
export class MoveLog {
  constructor(parent, { title = t("dom.recent_moves"), size = 8 } = {}) {
    this.size = size;
    this.box = html("section", { className: "move-log", "aria-label": title, hidden: true }, parent);
    html("h3", {}, this.box, title);
    this.list = html("ul", { className: "move-log-list" }, this.box);
    this.live = html("div", { className: "visually-hidden move-live", "aria-live": "polite", role: "status" }, parent);
    this.entries = [];
  }

  /** Add moves, oldest first ({text, seat, glyph, recent}); the list keeps the last `size`. */
  add(items) {
    for (const item of items) this.entries.push(typeof item === "string" ? { text: item } : item);
    this.entries = this.entries.slice(-this.size);
    this.#render();
  }

  /** Mark which entries are since the viewer's last move (a predicate on an entry). */
  markRecent(test) {
    for (const e of this.entries) e.recent = !!test(e);
    this.#render();
  }

  #render() {
    this.list.replaceChildren();
    for (const e of [...this.entries].reverse()) {
      const li = html("li", { className: e.recent ? "recent" : "" }, this.list);
      if (e.glyph) html("span", { className: "log-glyph", "aria-hidden": "true" }, li, `${e.glyph} `);
      li.append(e.text);
      if (e.recent) {
        li.title = t("dom.since_last");
        html("span", { className: "visually-hidden" }, li, ` ${t("dom.since_last_paren")}`);
      }
    }
    this.box.hidden = !this.entries.length;
  }

  /** Say `text` to screen readers (the same text twice is said again). */
  announce(text) {
    if (!text) return;
    this.live.textContent = this.live.textContent === text ? `${text}\u00a0` : text;
  }

  clear() {
    this.entries = [];
    this.#render();
  }
}
