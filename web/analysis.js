// Post-game analysis on the finished table (docs/ai.md "Analysis"): an "Analyse this game" button,
// the progress while the AI workers run it, then a value graph across the game (SVG: one line per
// seat, a point per decision; a click goes to that move in the replay), each seat's summary, and a
// log of every decision with its label in words, a colour AND a symbol, the move played and the
// AI's best move, both in the game's own words (`steps.moveWords(move)`, never a code). The replay controls (web/replay.js) drive it: at each position the decisions of
// the move just played are marked, and the page module draws the best move next to the one played
// when it can (`steps.showBest(pos, decisions)`, optional).

import { call as apiCall, loadSeat } from "./api.js";
import { formatNumber, t } from "./i18n.js";
import { seatColour } from "./meta.js";
import { plainError } from "./panel.js";

const NS = "http://www.w3.org/2000/svg";
const POLL_MS = 1000;
export const SYMBOLS = { best: "★", good: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };
// The graph's drawing box: about as wide as the panel it sits in, so 1 unit is about 1 px and its
// 11-unit labels read as 11 px text on a desktop's panel and a phone alike (it was 370x94 px).
const W = 360;
const H = 220;
const PAD = { left: 38, right: 10, top: 10, bottom: 30 };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** A move in words, as its game says it: the page's replay steps answer `moveWords(move)`
 * (Metro: the tile and its square; Metro X: the line or station; Underground: the rail laid or
 * the ride). A move the page cannot say reads "a move": an internal code never reaches a person
 * (issue 19). */
export function moveWords(steps, move) {
  if (move && typeof move === "object" && typeof steps?.moveWords === "function") {
    try {
      const words = steps.moveWords(move);
      if (typeof words === "string" && words) return words;
    } catch (err) {
      console.warn("analysis: move words:", err);
    }
  }
  return t("analysis.a_move");
}

/** A loss in points, as precise as it needs to be to not read "0.0". */
const points = (loss) => loss.toFixed(loss < 1 ? 2 : 1);

/** The analysis call, with this browser's seat token when it holds a seat of the game: a private
 *  game's analysis (a daily attempt's: it shows the day's cards) is its seat's alone, and without
 *  the token its own player was refused with a raw 403 sentence (issue 35). */
function call(method, gameId) {
  const token = loadSeat(gameId)?.token;
  return apiCall(method, `/api/games/${encodeURIComponent(gameId)}/analysis`, { token });
}

/** Ask for a game's analysis (My games uses it too); answers its state. */
export const requestAnalysis = (gameId) => call("POST", gameId);

/** A refused or failed analysis call in the page's words (never the server's sentence). */
export function analysisError(err) {
  const reason = err?.code === "permission_denied" ? t("analysis.private") : plainError(err)[0];
  return t("analysis.failed", { reason });
}

export class AnalysisPanel {
  constructor(controls) {
    this.controls = controls;
    this.gameId = null;
    this.result = null;
    this.timer = null;
    this.root = el("section", { id: "analysis", class: "analysis", "aria-labelledby": "analysis-title" });
    this.title = el("h3", { id: "analysis-title", text: t("analysis.title") });
    this.button = el("button", { type: "button", id: "analysis-run", class: "primary", text: t("analysis.run") });
    this.status = el("p", { id: "analysis-status", class: "analysis-status", "aria-live": "polite" });
    this.graph = el("div", { id: "analysis-graph", class: "analysis-graph" });
    this.summary = el("table", { id: "analysis-summary", class: "analysis-summary" });
    this.here = el("p", { id: "analysis-here", class: "analysis-here" });
    this.log = el("ol", { id: "analysis-log", class: "analysis-log" });
    this.root.append(this.title, this.button, this.status, this.graph, this.summary, this.here, this.log);
    this.button.addEventListener("click", () => this.start());
    const replay = document.getElementById("replay");
    replay.after(this.root);
    ensureStylesheet();
  }

  /** A finished game's replay is loaded: offer its analysis (shown at once if it exists). */
  load(gameId, record) {
    if (this.gameId === gameId && this.result) return;
    this.stop();
    this.gameId = gameId;
    this.record = record;
    this.result = null;
    this.root.hidden = !gameId;
    this.button.hidden = false;
    this.button.disabled = false;
    this.status.textContent = "";
    this.graph.replaceChildren();
    this.summary.replaceChildren();
    this.log.replaceChildren();
    this.here.textContent = "";
    if (gameId) this.poll("GET");
  }

  reset() {
    this.stop();
    this.gameId = null;
    this.result = null;
    this.root.hidden = true;
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }

  start() {
    this.button.disabled = true;
    this.poll("POST");
  }

  async poll(method) {
    const id = this.gameId;
    let state;
    try {
      state = await call(method, id);
    } catch (err) {
      if (id !== this.gameId) return;
      this.button.disabled = false;
      this.status.textContent = analysisError(err);
      return;
    }
    if (id !== this.gameId) return;
    this.show(state);
    if (state.status === "queued" || state.status === "running") {
      this.timer = setTimeout(() => this.poll("GET"), POLL_MS);
    }
  }

  show(state) {
    const { done = 0, total = 0 } = state.progress || {};
    if (state.status === "none") return;
    this.button.hidden = state.status !== "failed";
    this.button.disabled = false;
    if (state.status === "queued") this.status.textContent = t("analysis.queued");
    else if (state.status === "running") this.status.textContent = t("analysis.running", { done, total });
    else if (state.status === "failed") this.status.textContent = t("analysis.failed", { reason: state.error || "" });
    else if (state.status === "done") {
      this.status.textContent = t("analysis.done", { iterations: state.params?.iterations ?? 0 });
      this.result = state;
      this.render();
      this.step(this.controls.pos);
    }
  }

  /** A decision's move (or best move) in the game's words. */
  words(move) {
    return moveWords(this.controls.steps, move);
  }

  seatName(seat) {
    return this.record?.seats?.[seat]?.name || t("analysis.seat", { n: seat + 1 });
  }

  render() {
    const { moves, seats } = this.result;
    this.renderGraph(moves, seats.length);
    const head = el("tr", {}, el("th", { text: t("analysis.player") }), el("th", { text: t("analysis.mean_loss") }));
    for (const label of Object.keys(SYMBOLS)) {
      // The symbol, its word for screen readers and on hover (the log below spells each out).
      head.append(el("th", { class: `an-${label}`, title: t(`analysis.label.${label}`), "aria-label": t(`analysis.label.${label}`) }, SYMBOLS[label]));
    }
    const rows = seats.map((s) =>
      el("tr", { "data-seat": s.seat }, el("th", { text: this.seatName(s.seat) }), el("td", { text: s.mean_loss.toFixed(2) }),
        ...Object.keys(SYMBOLS).map((label) => el("td", { class: `an-${label}`, text: String(s.labels[label] ?? 0) }))),
    );
    this.summary.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
    this.log.replaceChildren(
      ...moves.map((m) => {
        const item = el(
          "li",
          { class: `an-move an-${m.label}`, "data-index": m.index, "data-entry": m.entry, "data-label": m.label },
          el("span", { class: "an-symbol", "aria-hidden": "true", text: SYMBOLS[m.label] }),
          el("span", { class: "an-label", text: t(`analysis.label.${m.label}`) }),
          el("span", { class: "an-text", text: t("analysis.move", { name: this.seatName(m.seat), move: this.words(m.move) }) }),
        );
        if (m.label !== "best") item.append(el("span", { class: "an-best", text: t("analysis.best", { move: this.words(m.best), loss: points(m.loss) }) }));
        item.tabIndex = 0;
        item.setAttribute("role", "button");
        const go = () => this.controls.go(m.entry + 1);
        item.addEventListener("click", go);
        item.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") {
            ev.preventDefault();
            go();
          }
        });
        return item;
      }),
    );
  }

  /** Seat `seat`'s colour as the table shows it (the game's meta `colours`, as the seat list's
   *  swatches and the board use them), never a palette of this file's own. */
  seatColour(seat) {
    return seatColour(this.controls.meta, seat);
  }

  renderGraph(moves, seatCount) {
    const n = Math.max(1, moves.length - 1);
    const values = moves.map((m) => m.value);
    let lo = Math.min(0, ...values);
    let hi = Math.max(0, ...values);
    if (hi - lo < 1e-9) [lo, hi] = [-1, 1]; // every move even: a scale around zero, not one tick
    const span = hi - lo;
    const x = (i) => PAD.left + ((W - PAD.left - PAD.right) * i) / n;
    const y = (v) => PAD.top + ((H - PAD.top - PAD.bottom) * (hi - v)) / span;
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "an-graph", role: "img", "aria-label": t("analysis.graph") });
    root.append(...axes(x, y, lo, hi, n));
    for (let seat = 0; seat < seatCount; seat++) {
      const mine = moves.filter((m) => m.seat === seat);
      if (!mine.length) continue;
      const points = mine.map((m) => `${x(m.index).toFixed(1)},${y(m.value).toFixed(1)}`).join(" ");
      root.append(svg("polyline", { points, class: `an-line an-seat-${seat}`, stroke: this.seatColour(seat), "data-seat": seat }));
    }
    this.cursor = svg("line", { x1: 0, x2: 0, y1: 0, y2: H, class: "an-cursor", visibility: "hidden" });
    root.append(this.cursor);
    for (const m of moves) {
      const dot = svg("circle", { cx: x(m.index).toFixed(1), cy: y(m.value).toFixed(1), r: m.label === "best" || m.label === "good" ? 3 : 5,
        class: `an-point an-${m.label} an-seat-${m.seat}`, "data-index": m.index, "data-entry": m.entry });
      const title = svg("title");
      title.textContent = `${t(`analysis.label.${m.label}`)} ${SYMBOLS[m.label]} — ${t("analysis.move", { name: this.seatName(m.seat), move: this.words(m.move) })}`;
      dot.append(title);
      dot.addEventListener("click", () => this.controls.go(m.entry + 1));
      root.append(dot);
    }
    this.x = x;
    this.graph.replaceChildren(root, this.legend(seatCount));
  }

  /** Each seat's name beside a swatch of its colour (and its line's sample), under the graph. */
  legend(seatCount) {
    const items = [];
    for (let seat = 0; seat < seatCount; seat++) {
      const swatch = el("span", { class: "an-swatch", "aria-hidden": "true" });
      swatch.style.background = this.seatColour(seat); // CSSOM: the page's policy refuses style attributes
      items.push(el("li", { "data-seat": seat }, swatch, el("span", { class: "an-legend-name", text: this.seatName(seat) })));
    }
    return el("ul", { class: "an-legend", "aria-label": t("analysis.legend") }, ...items);
  }

  /** The replay is at position `pos` (after `pos` entries of the record): mark the decisions
   * of the entry just played, and let the page draw the best move beside the one played. */
  step(pos) {
    if (!this.result) return;
    const here = this.result.moves.filter((m) => m.entry === pos - 1);
    for (const item of this.log.children) item.classList.toggle("an-current", Number(item.dataset.entry) === pos - 1);
    for (const dot of this.graph.querySelectorAll(".an-point")) dot.classList.toggle("an-current", Number(dot.dataset.entry) === pos - 1);
    if (here.length && this.cursor) {
      const cx = this.x(here[here.length - 1].index).toFixed(1);
      this.cursor.setAttribute("x1", cx);
      this.cursor.setAttribute("x2", cx);
      this.cursor.setAttribute("visibility", "visible");
    } else if (this.cursor) this.cursor.setAttribute("visibility", "hidden");
    this.here.textContent = here.length
      ? here.map((m) => `${SYMBOLS[m.label]} ${t(`analysis.label.${m.label}`)}: ${t("analysis.move", { name: this.seatName(m.seat), move: this.words(m.move) })}${m.label === "best" ? "" : ` — ${t("analysis.best", { move: this.words(m.best), loss: points(m.loss) })}`}`).join(" · ")
      : "";
    const current = this.log.querySelector(".an-current");
    if (current) current.scrollIntoView({ block: "nearest" });
    if (typeof this.controls.steps?.showBest === "function") {
      try {
        this.controls.steps.showBest(pos, here);
      } catch (err) {
        console.error("analysis best move:", err);
      }
    }
  }
}

/** A round step for about `count` ticks over `span` (1, 2 or 5 times a power of ten). */
function niceStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * power).find((s) => s >= raw) || raw;
}

/** The graph's axes: the move number along x, the value (an expected score margin) along y, a
 *  few labelled ticks on each, the zero line drawn through. */
function axes(x, y, lo, hi, n) {
  const parts = [];
  const left = x(0);
  const right = x(n);
  const bottom = y(lo);
  parts.push(svg("line", { x1: left, x2: left, y1: y(hi), y2: bottom, class: "an-axis" }));
  parts.push(svg("line", { x1: left, x2: right, y1: bottom, y2: bottom, class: "an-axis" }));
  const label = (attrs, text) => {
    const node = svg("text", attrs);
    node.textContent = text;
    return node;
  };
  // At most six steps over the range: a nice step is then at most 0.42 of it, so at least two
  // labelled values always fall inside (with four, -45..40 got a step of 50 and only "0").
  const vStep = niceStep(hi - lo || 1, 6);
  for (let v = Math.ceil(lo / vStep) * vStep; v <= hi + 1e-9; v += vStep) {
    const at = y(v).toFixed(1);
    parts.push(svg("line", { x1: left - 4, x2: right, y1: at, y2: at, class: Math.abs(v) < 1e-9 ? "an-zero" : "an-grid" }));
    parts.push(label({ x: left - 6, y: Number(at) + 4, class: "an-tick an-tick-y", "text-anchor": "end" },
      formatNumber(Math.abs(v) < 1e-9 ? 0 : Number(v.toFixed(3)))));
  }
  const mStep = Math.max(1, niceStep(n + 1, 6));
  for (let i = 0; i <= n; i += mStep) {
    const at = x(i).toFixed(1);
    parts.push(svg("line", { x1: at, x2: at, y1: bottom, y2: bottom + 4, class: "an-axis" }));
    parts.push(label({ x: at, y: bottom + 15, class: "an-tick an-tick-x", "text-anchor": "middle" }, formatNumber(i + 1)));
  }
  parts.push(label({ x: (left + right) / 2, y: H - 3, class: "an-axis-label an-axis-x", "text-anchor": "middle" }, t("analysis.axis_move")));
  parts.push(label({ x: 10, y: (y(hi) + bottom) / 2, class: "an-axis-label an-axis-y", "text-anchor": "middle",
    transform: `rotate(-90 10 ${((y(hi) + bottom) / 2).toFixed(1)})` }, t("analysis.axis_value")));
  return parts;
}

function ensureStylesheet() {
  if (document.getElementById("analysis-css")) return;
  const link = el("link", { id: "analysis-css", rel: "stylesheet", href: "/analysis.css" });
  document.head.append(link);
}

/** "Analyse" for a finished game in My games: asks for the analysis, then opens the game, whose
 * replay shows the progress and then the analysis. */
export function analyseButton(gameId, open) {
  const button = el("button", { type: "button", class: "analyse-button", "data-analyse": gameId, text: t("analysis.analyse") });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await requestAnalysis(gameId);
    } catch (err) {
      console.warn(`analysis: could not ask for ${gameId}: ${err.message}`);
    }
    open();
  });
  return button;
}
