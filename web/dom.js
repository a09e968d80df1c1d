// Small DOM helpers the shell offers to every game's page module (import from "/dom.js").

import { formatNumber, t } from "./i18n.js";
import { offerText } from "./offers.js";

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

/** "+12" / "−3.5" / "0" (a true minus sign): a hint's value as every hint list writes it, the
 *  shell's hint explanation and each game's list alike; here, below the kit, so that the kit
 *  takes nothing from the shell's game screen. */
export function signedValue(v) {
  if (typeof v !== "number" || !Number.isFinite(v)) return "";
  const digits = Math.abs(v) >= 10 ? 0 : 1;
  const rounded = Number(Math.abs(v).toFixed(digits));
  if (rounded === 0) return "0";
  const text = formatNumber(rounded, { maximumFractionDigits: digits });
  return v < 0 ? `\u2212${text}` : `+${text}`;
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
const LOG_OPEN_KEY = "movelog.open";

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
 * Where a board's keyboard cursor goes (issue 20.4): with an arrow `key`, the nearest of `targets`
 * that way from `at` (see nearestInDirection); with none (the cursor is placed again after a
 * change), `at` itself while it is still a target, else the first target `preferred` picks, else
 * the first target; null when there are none.
 */
export function cursorStep(targets, at, key, preferred = () => false) {
  if (key) return nearestInDirection(targets, at, key);
  return at || targets.find(preferred) || targets[0] || null;
}

/**
 * A board's keyboard cursor keys, read the same way on every board (issue 20.4): an arrow goes to
 * `move(key)`, Enter and Space to `act(key)`, Escape to `escape(key)`, any other key to
 * `other(key)`; with Ctrl, Cmd or Alt held the key stays the browser's. The key's default is
 * prevented when its handler ran and did not return false (false: "not mine, leave it be").
 */
export function cursorKey(ev, { move, act, escape, other } = {}) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const key = ev.key;
  let handler;
  if (arrowOf(key)) handler = move;
  else if (key === "Enter" || key === " ") handler = act;
  else if (key === "Escape") handler = escape;
  else handler = other;
  if (handler && handler(key) !== false) ev.preventDefault();
}

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
 * The whole game's moves, for everyone: a collapsible list (newest first; open or shut as the
 * player last left it) and a polite live region that speaks other players' moves and whose turn
 * it is. One entry per move (per turn where everyone moves at once); an entry made by the AI for
 * a person's seat says so in its words and carries `by: "ai"` (shown as data-by). Page modules
 * style `.move-log`.
 */
export class MoveLog {
  constructor(parent, { title = t("dom.move_log"), size = Infinity } = {}) {
    this.size = size;
    this.title = title;
    this.box = html("details", { className: "move-log", "aria-label": title, hidden: true }, parent);
    this.box.open = stored("localStorage", LOG_OPEN_KEY) !== "shut";
    this.box.addEventListener("toggle", () => store("localStorage", LOG_OPEN_KEY, this.box.open ? null : "shut"));
    const summary = html("summary", { className: "move-log-summary" }, this.box);
    this.heading = html("h3", {}, summary, title);
    this.heading.style.display = "inline"; // beside the summary's open/shut marker
    summary.style.cursor = "pointer";
    // A long game scrolls inside its log instead of stretching the side panel; the keyboard
    // reaches the list (tabindex) to scroll it too.
    this.list = html("ol", { className: "move-log-list", reversed: true, tabindex: "0", "aria-label": title }, this.box);
    this.list.style.maxHeight = "18em";
    this.list.style.overflowY = "auto";
    this.live = html("div", { className: "visually-hidden move-live", "aria-live": "polite", role: "status" }, parent);
    this.entries = [];
  }

  /** Add moves, oldest first ({text, seat, glyph, recent, by}, or for several seats' moves at
   *  once {text, head, parts: [{glyph, text}], tail}); the list keeps the last `size` (by default
   *  every one). */
  add(items) {
    for (const item of items) this.entries.push(typeof item === "string" ? { text: item } : item);
    if (Number.isFinite(this.size)) this.entries = this.entries.slice(-this.size);
    this.#render();
  }

  /** Replace every entry (a log rebuilt from the game's history); nothing is re-rendered when
   *  the entries read the same. */
  set(items) {
    const next = items.map((item) => (typeof item === "string" ? { text: item } : item));
    const key = (list) => JSON.stringify(list.map((e) => [e.text, e.seat, e.by]));
    if (key(next) === key(this.entries)) return;
    this.entries = [];
    this.add(next);
  }

  /** Mark which entries are since the viewer's last move (a predicate on an entry). */
  markRecent(test) {
    for (const e of this.entries) e.recent = !!test(e);
    this.#render();
  }

  #render() {
    const scroll = this.list.scrollTop;
    this.list.replaceChildren();
    for (const e of [...this.entries].reverse()) {
      const li = html("li", { className: e.recent ? "recent" : "", "data-by": e.by || null }, this.list);
      if (e.glyph) html("span", { className: "log-glyph", "aria-hidden": "true" }, li, `${e.glyph} `);
      if (Array.isArray(e.parts)) {
        // Several seats' moves in one entry (a turn everyone played at once): each with its
        // seat's symbol; `text` says the same in words for comparisons and screen readers.
        li.append(e.head || "");
        e.parts.forEach((part, i) => {
          if (i) li.append("; ");
          if (part.glyph) html("span", { className: "log-glyph", "aria-hidden": "true" }, li, `${part.glyph} `);
          li.append(part.text);
        });
        li.append(e.tail || "");
      } else li.append(e.text);
      if (e.recent) {
        li.title = t("dom.since_last");
        html("span", { className: "visually-hidden" }, li, ` ${t("dom.since_last_paren")}`);
      }
    }
    this.list.scrollTop = scroll;
    this.heading.textContent = this.entries.length ? t("dom.move_log_count", { title: this.title, count: this.entries.length }) : this.title;
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

// ---- who made a move, from the game's events ----------------------------------------------------

/** Whether the AI made this move for a person's seat: the engine marks each move event with `by`
 *  ("player" or "ai"); a seat of kind "ai" is an AI player in its own right. */
export const aiForPerson = (event, seats) => event?.by === "ai" && seats?.[event.seat]?.kind === "human";

/** The mover's words in a log sentence: `name` ("You" for the viewer), or "The AI (for Ada)" /
 *  "The AI (for you)" when the AI made the move for a person's seat. */
export function moverWords(name, { byAi = false, mine = false } = {}) {
  if (!byAi) return name;
  return mine ? t("dom.ai_for_you") : t("dom.ai_for", { name });
}

const TABLE_ACTIONS = new Set(["timeout", "left", "returned", "resigned"]);

/** The log entries of the table's own events (a seat timed out, left, came back), which every
 *  game shares: one per seat, or [] for any other event. `nameOf(seat)` names a seat. */
export function tableEntries(event, mySeat, nameOf) {
  const offered = offerText(event, nameOf); // an offer to stop, answered or agreed (issue 35)
  if (offered) return [{ seat: event.seat, glyph: seatGlyph(event.seat), table: true, text: offered }];
  if (!TABLE_ACTIONS.has(event?.action)) return [];
  const out = [];
  for (const seat of event.seats || []) {
    const mine = seat === mySeat;
    let key = "dom.log_returned";
    if (event.action === "resigned") key = "dom.log_resigned";
    else if (event.action !== "returned") {
      const lose = event.then === "lose";
      key = event.action === "timeout" ? (lose ? "dom.log_timeout_out" : "dom.log_timeout_ai") : lose ? "dom.log_left_out" : "dom.log_left_ai";
    }
    out.push({ seat, glyph: seatGlyph(seat), table: true, text: t(mine ? `${key}_you` : key, { name: nameOf(seat) }) });
  }
  return out;
}
