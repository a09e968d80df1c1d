// Metro X's page module (RULES-METROX.md): the sheet drawn as a subway map, the revealed card,
// choosing a line or station with a preview of what the card would fill, every seat's sheet, the
// AI's hints, the final breakdown and the replay. The shell owns the status line, scores, join,
// hint button and replay buttons; it hands this module a board element and a controls element.

import { cursorKey, cursorStep, ensureStylesheet, html, lastSeen, MapView, MoveLog, moverWords,
  reducedMotion, registerParamWords, saveLastSeen, seatBadge, seatGlyph,
  seatGlyphName, seatLabel, seatSymbol, segmentDistance, signedValue, svg, tableEntries } from "/kit.js";
import { t } from "/i18n.js";
import {
  breakdown,
  cardInfo,
  cardWords,
  completeLines,
  hasWindow,
  indexMap,
  lineEffect,
  moveWords,
  replayPositions,
  sheetFrom,
} from "./sheet.js";

// A refusal names the card by its code ("card"): the shell words it through this.
registerParamWords("metrox", (name, value) => (name === "card" ? cardWords(value) : null));

const STATION_R = 15;
const GAP = 84; // px between the two nearest stations of a map
const BOX = 20; // a window box
const BADGE_R = 15;
const PHONE_SCALE = 0.75; // px per map unit on a narrow screen: its words 11 px and more
const NARROW_PX = 600; // a map box narrower than this is a phone's
const REACH_PX = 28; // a tap this near a line or station that can be chosen picks it
const NAME_PX = 13; // station names on screen at every zoom (a name that would overlap waits)

let metaColours = null;
let metaPromise = null;

/** Seat colours come from the registry (GET /api/meta), fetched once per page. */
function loadColours() {
  if (!metaPromise) {
    metaPromise = fetch("/api/meta", { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((meta) => {
        const game = meta?.games?.find((g) => g.game === "metrox");
        metaColours = Array.isArray(game?.colours) ? game.colours : [];
        return metaColours;
      })
      .catch(() => {
        metaColours = [];
        return metaColours;
      });
  }
  return metaPromise;
}




function sameMove(a, b) {
  if (!a || !b) return false;
  if (a.pass || b.pass) return !!a.pass && !!b.pass;
  if (a.line !== undefined || b.line !== undefined) return a.line === b.line;
  return a.station === b.station;
}

function plainMove(m) {
  if (!m) return null;
  if (m.move && typeof m.move === "object") return plainMove(m.move);
  if (m.pass) return { pass: true };
  if (m.line !== undefined) return { line: m.line };
  if (m.station !== undefined) return { station: m.station };
  return null;
}


/** A card face: number, circled number (skip), star (transfer), circle (free), shuffle icon. */
export function cardFace(code, size = "big") {
  const c = cardInfo(code);
  const el = html("span", { className: `mx-card mx-card-${size} ${c ? `kind-${c.kind}` : "none"}` });
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", c ? t("metrox.card_label", { words: cardWords(code) }) : t("metrox.no_card"));
  el.title = c ? cardWords(code) : t("metrox.no_card");
  const face = html("span", { className: "mx-face", "aria-hidden": "true" }, el);
  if (!c) face.textContent = "–";
  else if (c.kind === "number") face.textContent = String(c.n);
  else if (c.kind === "skip") html("span", { className: "mx-circled" }, face, String(c.n));
  else if (c.kind === "transfer") face.textContent = "\u2605";
  else html("span", { className: "mx-ring" }, face);
  if (c?.shuffle) html("span", { className: "mx-shuffle", "aria-hidden": "true", title: t("metrox.shuffle_after") }, el, "\u21c4");
  return el;
}

/** A small coloured disc (with a letter), as SVG: colours go in attributes, never in styles. */
function badgeIcon(colour, text, className) {
  const root = svg("svg", { class: className, viewBox: "0 0 24 24", width: 24, height: 24, "aria-hidden": "true" });
  svg("circle", { cx: 12, cy: 12, r: 11, fill: colour }, root);
  if (text) svg("text", { x: 12, y: 12, dy: "0.35em", "text-anchor": "middle" }, root).textContent = text;
  return root;
}

export function mount(parts, host) {
  return new MetroXPage(parts, host);
}

class MetroXPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.parts = parts;
    this.host = host;
    this.view = null;
    this.legal = [];
    this.index = null;
    this.mapId = null;
    this.sheetSeat = null; // chosen by the viewer; null: own (or seat 0)
    this.sel = null; // the selected move, not yet sent
    this.hover = null; // a line id under the pointer
    this.hints = [];
    this.busy = false;
    this.replayPos = null;
    this.turnKey = null;
    this.prevFilled = new Map(); // seat -> stations filled before the last resolved turn
    this.lastFilled = new Map(); // seat -> stations the last resolved turn filled
    this.cursor = null; // the keyboard cursor: {line} or {station}
    this.arriving = false;
    this.#buildControls();
    this.log = new MoveLog(this.root);
    this.boardRoot = html("div", { className: "mx-board" }, parts.board);
    loadColours().then(() => this.view && this.#render());
  }

  // ---- the shell's interface -------------------------------------------------------------------

  update(view, legal) {
    const key = `${view.game_id}/${view.turn_index}/${view.status}`;
    const newTurn = key !== this.turnKey;
    if (view.map && view.map.id !== this.mapId) {
      this.index = indexMap(view.map);
      this.mapId = view.map.id;
      this.#buildMap();
    }
    if (newTurn) {
      this.#trackFresh(view);
      this.turnKey = key;
      this.cursor = null;
      this.sel = null;
      this.hints = [];
    }
    this.view = view;
    this.#logTurns(view);
    this.legal = Array.isArray(legal) ? legal.map(plainMove).filter(Boolean) : [];
    if (this.sel && !this.#isLegal(this.sel)) this.sel = null;
    this.#render();
  }

  showHints(suggestions) {
    this.hints = (suggestions || []).slice(0, 5).map((s, i) => ({
      rank: i + 1,
      move: plainMove(s),
      value: s.value,
      visits: s.visits,
    }));
    this.#render();
  }

  /** A move object in words (the post-game analysis says moves with it): the line, the
   * station by its name, or the pass; never a code. */
  moveWords(move) {
    const known = move && (move.pass || move.station !== undefined || move.line !== undefined);
    return this.index && known ? moveWords(this.index, move) : "";
  }

  replay(record, view) {
    if (view) this.view = view;
    const v = this.view;
    if (v?.map && v.map.id !== this.mapId) {
      this.index = indexMap(v.map);
      this.mapId = v.map.id;
      this.#buildMap();
    }
    const index = this.index;
    const positions = index ? replayPositions(index, record) : [];
    const length = Math.max(0, positions.length - 1);
    const names = (p) => this.#seatName(p);
    return {
      length,
      moveWords: (move) => this.moveWords(move),
      describe: (i) => {
        if (!positions.length) return "";
        i = Math.max(0, Math.min(length, i));
        if (i === 0) return t("metrox.replay_start", { words: cardWords(record.cards[0]) });
        const code = record.cards[i - 1];
        const moves = record.turns[i - 1]
          .map((mv, p) => `${names(p)}: ${moveWords(index, mv)}`)
          .join("; ");
        const scores = positions[i].sheets.map((s, p) => `${names(p)} ${breakdown(index, s).total}`).join(", ");
        return t("metrox.replay_turn", { turn: i, length, words: cardWords(code), moves, scores });
      },
      show: (i) => {
        if (!positions.length) return;
        i = Math.max(0, Math.min(length, i));
        this.replayPos = i === length ? null : { ...positions[i], index: i, length, record };
        this.#render();
      },
      // The post-game analysis (web/analysis.js) at turn i: each seat's best choice where it
      // was not the one made, marked on its sheet beside the line (or station) it chose.
      showBest: (i, decisions) => {
        this.analysisBest = decisions.filter((m) => m.label !== "best").map((m) => ({ ...m.best, seat: m.seat }));
        this.#render();
      },
      // Every seat's total at turn i, so the shell's score table follows the replay.
      scores: (i) => {
        if (!positions.length) return null;
        const at = positions[Math.max(0, Math.min(length, i))];
        return at.sheets.map((sheet) => breakdown(index, sheet).total);
      },
    };
  }

  unmount() {
    this.parts.board.replaceChildren();
    this.parts.controls.replaceChildren();
    this.view = null;
  }

  // ---- helpers ---------------------------------------------------------------------------------

  get #seat() {
    const s = this.host.seat;
    return Number.isInteger(s) ? s : null;
  }

  #seatName(p) {
    const s = this.view?.seats?.[p];
    return s ? seatLabel(s, p) : t("seat.player", { n: p + 1 });
  }

  #colour(p) {
    const s = this.view?.seats?.[p];
    return s?.colour || (metaColours && metaColours[p]) || "#555555";
  }

  #shownSeat() {
    const n = this.view?.sheets?.length || 0;
    if (this.sheetSeat !== null && this.sheetSeat < n) return this.sheetSeat;
    const own = this.#seat;
    return own !== null && own < n ? own : 0;
  }

  /** The viewer may choose now (or change its choice). */
  #canChoose() {
    const v = this.view;
    return !!v && v.status === "playing" && this.#seat !== null && !!v.card && this.replayPos === null;
  }

  /** Legal moves: the shell's list; when it is empty after a choice, the same rules computed here. */
  #legalMoves() {
    if (!this.#canChoose()) return [];
    if (this.legal.length) return this.legal;
    if (!this.view.choice) return [];
    const sheet = this.#sheet(this.#seat);
    const c = cardInfo(this.view.card);
    if (c.kind === "free") {
      const empty = this.index.map.stations.filter((s) => !sheet.filled.has(s.id)).map((s) => ({ station: s.id }));
      return empty.length ? empty : [{ pass: true }];
    }
    return this.index.map.lines.filter((l) => hasWindow(this.index, sheet, l.id)).map((l) => ({ line: l.id }));
  }

  #isLegal(move) {
    return this.#legalMoves().some((m) => sameMove(m, move));
  }

  /** The sheet of seat p as drawn now (the replay's, or the view's). */
  #sheet(p) {
    const sheets = this.replayPos ? this.replayPos.sheets : this.view?.sheets;
    const s = sheets?.[p];
    if (!s) return null;
    return s.filled instanceof Set ? s : sheetFrom(s);
  }

  #lines() {
    return this.replayPos ? this.replayPos.lines : this.view?.lines || [];
  }

  #trackFresh(view) {
    // Which stations the last resolved turn filled, to mark them on the map (dashed): kept in
    // sessionStorage too, so that a reload still shows the turn everyone has just played.
    this.lastFilled = new Map();
    const me = this.#seat;
    const stored = lastSeen("metrox", view.game_id, me);
    if (!this.prevFilled.size && stored?.turn === view.turn_index && stored.before) {
      for (const [seat, filled] of Object.entries(stored.before)) this.prevFilled.set(Number(seat), new Set(filled));
    }
    const before = {};
    let fresh = false;
    for (const s of view.sheets || []) {
      const had = this.prevFilled.get(s.seat);
      if (had) {
        this.lastFilled.set(s.seat, new Set(s.filled.filter((x) => !had.has(x))));
        before[s.seat] = [...had];
        fresh = true;
      }
      this.prevFilled.set(s.seat, new Set(s.filled));
    }
    if (fresh && me !== null) saveLastSeen("metrox", view.game_id, me, { turn: view.turn_index, before });
    // Other players' new crosses fade in (briefly), unless the player asked for less motion.
    this.arriving = fresh && !reducedMotion();
    clearTimeout(this.arriveTimer);
    if (this.arriving) this.arriveTimer = setTimeout(() => {
      this.arriving = false;
      for (const el of this.stationEls?.values() || []) el.g.classList.remove("arrive");
    }, 900);
  }

  /** The whole game's log, rebuilt from its events on every update: one entry per resolved
   *  turn (every seat's choice, and who made it: the player, or the AI for them), with seats
   *  timing out or coming back in between. Turns not spoken yet are spoken (others' choices and
   *  the next card); the first look at a game speaks none. */
  #logTurns(view) {
    if (!this.index || !this.host.events) return; // the game's events are still coming
    const entries = this.#history(view);
    const last = entries.reduce((m, e) => Math.max(m, e.turn || 0), 0);
    for (const e of entries) e.recent = e.turn === last && last > 0;
    this.log.set(entries);
    const first = this.spokenTurns === undefined || this.spokenGame !== view.game_id;
    const fresh = first ? [] : entries.filter((e) => e.turn > this.spokenTurns);
    this.spokenTurns = Math.max(first ? 0 : this.spokenTurns, last);
    this.spokenGame = view.game_id;
    if (!fresh.length) return;
    const next = view.status === "over" ? t("metrox.over") : view.card ? t("metrox.next_card", { words: cardWords(view.card) }) : "";
    this.log.announce([...fresh.map((e) => e.text), next].filter(Boolean).join(" "));
  }

  /** Log entries from the game's events (the shell's host.events). */
  #history(view) {
    const me = this.#seat;
    const seats = view.seats || [];
    const name = (p) => (seats[p] ? seatLabel(seats[p], p) : t("seat.player", { n: p + 1 }));
    const out = [];
    let turn = 0;
    let by = {}; // seat -> who made its choice this turn ("player" / "ai"), from its last event
    const resolved = (r) => {
      if (r.by) by[r.seat] = r.by;
      out.push(this.#turnEntry(++turn, r, by, seats, name));
      by = {};
    };
    for (const event of this.host.events || []) {
      if (event.action === "choose") by[event.seat] = event.by;
      else if (event.action === "resolve") resolved(event);
      else if (event.action === "retire" && event.resolved) resolved(event.resolved);
      else {
        out.push(...tableEntries(event, me, name));
        // A seat out of the game may be the last one the turn waited for.
        for (const r of event.retired || []) if (r?.resolved) resolved(r.resolved);
      }
    }
    return out;
  }

  /** One resolved turn (a resolve event) in words: "Turn 3 (card 5): You took line C; Ada…". */
  #turnEntry(turn, r, by, seats, name) {
    const me = this.#seat;
    const moves = [];
    let ai = false;
    (r.choices || []).forEach((c, p) => {
      if (!c) return; // a seat out of the game chose nothing
      let what = t("metrox.log_passed");
      if (c.line) what = t("metrox.log_took_line_only", { line: c.line });
      else if (c.station) what = t("metrox.log_filled", { station: this.index.stations.get(c.station)?.name || c.station });
      const byAi = by[p] === "ai" && seats[p]?.kind === "human";
      ai = ai || byAi;
      const who = moverWords(p === me ? t("metrox.you") : name(p), { byAi, mine: p === me });
      moves.push({ glyph: seatGlyph(p), text: t("metrox.log_seat_move", { name: who, what }) });
    });
    const mark = "\u0000"; // where the seats' moves go in the sentence
    const [head, tail = ""] = t("metrox.log_turn_moves", { turn, card: cardWords(r.card), moves: mark }).split(mark);
    const text = `${head}${moves.map((m) => m.text).join("; ")}${tail}`;
    return { turn, by: ai ? "ai" : undefined, text, head, tail, parts: moves };
  }

  // ---- the map (built once per map, painted on every change) -----------------------------------

  #buildMap() {
    const index = this.index;
    const map = index.map;
    this.mapView?.destroy();
    this.mapView = null;
    this.boardRoot.replaceChildren();
    const tools = html("div", { className: "mx-tools", role: "group", "aria-label": t("metrox.zoom") }, this.boardRoot);
    const zoomOut = html("button", { type: "button", className: "mx-zoom-out small", "aria-label": t("metrox.zoom_out"), title: t("metrox.zoom_out") }, tools, "−");
    const zoomIn = html("button", { type: "button", className: "mx-zoom-in small", "aria-label": t("metrox.zoom_in"), title: t("metrox.zoom_in") }, tools, "+");
    const zoomAll = html("button", { type: "button", className: "mx-zoom-all small", "aria-label": t("metrox.whole_map"), title: t("metrox.whole_map") }, tools, "⤢");
    zoomOut.addEventListener("click", () => this.mapView?.zoomBy(1 / 1.5, null, null, true));
    zoomIn.addEventListener("click", () => this.mapView?.zoomBy(1.5, null, null, true));
    zoomAll.addEventListener("click", () => this.mapView?.fitAll({ animate: true }));
    this.zoomButtons = { zoomIn, zoomOut };
    let minD = Infinity;
    const st = map.stations;
    for (let i = 0; i < st.length; i++) {
      for (let j = i + 1; j < st.length; j++) {
        const d = Math.hypot(st[i].x - st[j].x, st[i].y - st[j].y);
        if (d > 0 && d < minD) minD = d;
      }
    }
    const unit = GAP / (Number.isFinite(minD) ? minD : 1);
    const pos = new Map(st.map((s) => [s.id, { x: s.x * unit, y: s.y * unit }]));
    this.pos = pos;

    const root = svg("svg", {
      class: "mx-map",
      role: "group",
      tabindex: 0,
      "aria-label": t("metrox.map_label", { map: map.name || map.id }),
      "aria-describedby": "mx-map-keys",
    });
    root.addEventListener("keydown", (ev) => this.#mapKey(ev));
    // The keyboard's cursor, not a press of the mouse or a finger (that one picks by itself).
    root.addEventListener("focus", () => root.matches(":focus-visible") && this.#moveCursor(null));
    root.addEventListener("blur", () => {
      this.cursor = null;
      this.#hoverLine(null);
      this.#paintCursor();
    });
    // The drawing's letters and numbers (line badges, windows, transfers, hint ranks) would reach a
    // screen reader as loose text ("A 1 9 4 B 7 3"): the map is named and described as a whole,
    // and the line list below says the same in sentences.
    const hidden = { "aria-hidden": "true" };
    const gLines = svg("g", { class: "mx-lines", ...hidden }, root);
    const gHit = svg("g", { class: "mx-hits", ...hidden }, root);
    const gLabels = svg("g", { class: "mx-labels", ...hidden }, root);
    const gStations = svg("g", { class: "mx-stations", ...hidden }, root);
    const gNames = svg("g", { class: "mx-names", ...hidden }, root);
    this.gHints = svg("g", { class: "mx-hint-layer", ...hidden }, root);
    this.gCursor = svg("g", { class: "mx-cursor-layer", "aria-hidden": "true" }, root);

    this.lineEls = new Map();
    this.stationEls = new Map();
    this.labelEls = new Map();
    const bounds = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    const grow = (x0, y0, x1, y1) => {
      bounds.x0 = Math.min(bounds.x0, x0);
      bounds.y0 = Math.min(bounds.y0, y0);
      bounds.x1 = Math.max(bounds.x1, x1);
      bounds.y1 = Math.max(bounds.y1, y1);
    };

    for (const line of map.lines) {
      const points = line.stations.map((s) => `${pos.get(s).x},${pos.get(s).y}`).join(" ");
      const casing = svg("polyline", { class: "mx-line-casing", points }, gLines);
      const path = svg("polyline", { class: "mx-line", points, stroke: line.colour, "data-line": line.id }, gLines);
      const hit = svg("polyline", { class: "mx-line-hit", points, "data-line": line.id }, gHit);
      svg("title", {}, hit).textContent = t("metrox.line_name", { line: line.id, name: line.name || "" });
      hit.addEventListener("mouseenter", () => this.#hoverLine(line.id));
      hit.addEventListener("mouseleave", () => this.#hoverLine(null));
      hit.addEventListener("click", () => this.#pickLine(line.id));
      this.lineEls.set(line.id, { casing, path, hit });
    }

    for (const s of st) {
      const p = pos.get(s.id);
      grow(p.x - STATION_R - 4, p.y - STATION_R - 4, p.x + STATION_R + 4, p.y + STATION_R + 4);
      const deg = index.degree.get(s.id) || 0;
      const g = svg("g", {
        class: `mx-station${deg >= 2 ? " interchange" : ""}`,
        "data-station": s.id,
        "data-degree": deg,
        transform: `translate(${p.x},${p.y})`,
      }, gStations);
      const circle = svg("circle", { r: deg >= 2 ? STATION_R + 1 : STATION_R - 3, class: "mx-dot" }, g);
      const mark = svg("path", { class: "mx-cross", d: "M-6,-6L6,6M6,-6L-6,6" }, g);
      const text = svg("text", { class: "mx-tnum", "text-anchor": "middle", dy: "0.35em" }, g);
      const title = svg("title", {}, g);
      title.textContent = deg >= 2 ? t("metrox.station_lines", { station: s.name || s.id, count: deg }) : s.name || s.id;
      g.addEventListener("click", () => this.#pickStation(s.id));
      g.addEventListener("mouseenter", () => {
        const lineId = this.#lineAtStation(s.id);
        if (lineId) this.#hoverLine(lineId);
      });
      this.stationEls.set(s.id, { g, circle, mark, text, title, name: s.name || s.id, deg });
    }
    // Station names as the city writes them, placed by #layoutNames at every pan and zoom.
    this.nameEls = new Map();
    for (const s of st) {
      const el = svg("text", { class: "mx-name", "data-station": s.id, visibility: "hidden" }, gNames);
      el.textContent = s.name || s.id;
      this.nameEls.set(s.id, el);
    }

    // Line labels near each start: badge, windows, bonus [first, later]; pushed outward until
    // they overlap neither another label nor a station.
    const placed = [];
    const stationBoxes = st.map((s) => {
      const p = pos.get(s.id);
      return { x0: p.x - STATION_R, y0: p.y - STATION_R, x1: p.x + STATION_R, y1: p.y + STATION_R };
    });
    const overlaps = (a, b) => a.x0 < b.x1 + 3 && b.x0 < a.x1 + 3 && a.y0 < b.y1 + 3 && b.y0 < a.y1 + 3;
    for (const line of map.lines) {
      const w = 2 * BADGE_R + 6 + line.windows * (BOX + 3) + 4 + 2 * 30;
      const h = 2 * BADGE_R;
      const p0 = pos.get(line.stations[0]);
      const p1 = pos.get(line.stations[1] ?? line.stations[0]);
      let dx = p0.x - p1.x;
      let dy = p0.y - p1.y;
      const len = Math.hypot(dx, dy) || 1;
      dx /= len;
      dy /= len;
      if (!dx && !dy) dx = -1;
      const boxAt = (t) => {
        const ax = p0.x + dx * t;
        const ay = p0.y + dy * t;
        const x0 = dx < -0.3 ? ax - w : dx > 0.3 ? ax : ax - w / 2;
        const y0 = dy < -0.3 ? ay - h : dy > 0.3 ? ay : ay - h / 2;
        return { x0, y0, x1: x0 + w, y1: y0 + h };
      };
      let t = STATION_R + 10;
      let box = boxAt(t);
      for (let k = 0; k < 60; k++) {
        if (!placed.some((b) => overlaps(b, box)) && !stationBoxes.some((b) => overlaps(b, box))) break;
        t += 8;
        box = boxAt(t);
      }
      placed.push(box);
      grow(box.x0, box.y0, box.x1, box.y1);
      this.labelBoxes = placed;
      const anchor = { x: p0.x + dx * Math.max(0, t - 6), y: p0.y + dy * Math.max(0, t - 6) };
      this.labelEls.set(line.id, this.#buildLabel(gLabels, line, box, p0, anchor));
    }

    const pad = 12;
    const whole = { x: bounds.x0 - pad, y: bounds.y0 - pad, w: bounds.x1 - bounds.x0 + 2 * pad, h: bounds.y1 - bounds.y0 + 2 * pad };
    root.setAttribute("viewBox", `${whole.x} ${whole.y} ${whole.w} ${whole.h}`);
    // The box keeps the map's shape on a wide screen (a phone's is taller: page.css).
    root.style.setProperty("--mx-aspect", `${whole.w.toFixed(0)} / ${whole.h.toFixed(0)}`);
    this.svgRoot = root;
    this.boardRoot.appendChild(root);
    this.boardRoot.addEventListener("mouseleave", () => this.#hoverLine(null));
    // Pan and zoom (wheel, drag, two fingers); a tap picks the nearest line or station that can
    // be chosen. A phone starts close enough to read: part of the map, around what matters.
    this.mapView = new MapView(root, {
      bounds: whole,
      maxScale: 3,
      onChange: (v) => {
        zoomIn.disabled = !v.canZoomIn;
        zoomOut.disabled = !v.canZoomOut;
        this.#scheduleNames();
      },
      onTap: (ev) => this.#onTap(ev),
      onReady: (v) => {
        if (v.size.w >= NARROW_PX || v.fitScale >= PHONE_SCALE) return;
        const focus = this.#focusBox();
        v.centreOn(focus.x + focus.w / 2, focus.y + focus.h / 2, PHONE_SCALE, false);
      },
    });
  }

  /** Names are placed again once the map rests (they scale with it meanwhile). */
  #scheduleNames() {
    clearTimeout(this.nameTimer);
    this.nameTimer = setTimeout(() => this.#layoutNames(), 80);
  }

  /** Station names at NAME_PX on screen beside their stations, where they cover no station, no
   *  line label and no name already placed: the interchanges first, then the others; zooming in
   *  makes room for every name (a 90-station sheet names its crossings when fitted whole). */
  #layoutNames() {
    const v = this.mapView;
    if (!v?.s || !this.nameEls) return;
    const s = v.s;
    const size = NAME_PX / s;
    const vis = v.visible;
    const r = STATION_R + 2;
    const taken = [...this.pos.values()].map((p) => ({ x0: p.x - r, y0: p.y - r, x1: p.x + r, y1: p.y + r }));
    taken.push(...(this.labelBoxes || []));
    const hits = (b) => taken.some((o) => b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1);
    const degree = (st) => this.index.degree.get(st.id) || 0;
    const order = [...this.index.map.stations].sort((a, b) => degree(b) - degree(a));
    const gap = r + 2 / s;
    const h = size * 1.15;
    for (const st of order) {
      const el = this.nameEls.get(st.id);
      const p = this.pos.get(st.id);
      const w = this.#nameWidth(st.id, el) * size + 2 / s;
      const spots = [
        [p.x + gap, p.y - h / 2, "start"], [p.x - gap - w, p.y - h / 2, "end"],
        [p.x - w / 2, p.y + gap, "middle"], [p.x - w / 2, p.y - gap - h, "middle"],
      ];  // prettier-ignore
      const inSight = p.x >= vis.x && p.x <= vis.x + vis.w && p.y >= vis.y && p.y <= vis.y + vis.h;
      const spot = inSight && spots.find(([x, y]) => !hits({ x0: x, y0: y, x1: x + w, y1: y + h }));
      if (!spot) {
        el.setAttribute("visibility", "hidden");
        continue;
      }
      const [x, y, anchor] = spot;
      taken.push({ x0: x, y0: y, x1: x + w, y1: y + h });
      el.setAttribute("x", (anchor === "start" ? x : anchor === "end" ? x + w : x + w / 2).toFixed(1));
      el.setAttribute("y", (y + size * 0.88).toFixed(1));
      el.setAttribute("text-anchor", anchor);
      el.setAttribute("font-size", size.toFixed(2));
      el.setAttribute("stroke-width", (3 / s).toFixed(2));
      el.setAttribute("visibility", "visible");
    }
  }

  /** A name's width per unit of font size, measured once (the font the page really uses). */
  #nameWidth(id, el) {
    this.nameWidths ||= new Map();
    if (!this.nameWidths.has(id)) {
      el.setAttribute("font-size", "100");
      const measured = el.getComputedTextLength() / 100;
      this.nameWidths.set(id, measured > 0 ? measured : (el.textContent || "").length * 0.62);
    }
    return this.nameWidths.get(id);
  }

  /** What matters now, in map units: the stations a free card may fill, or the selected line,
   *  else the middle of the stations. */
  #focusBox() {
    const pts = [];
    const legal = this.view ? this.#legalMoves() : [];
    const line = this.sel?.line ? this.index.lines.get(this.sel.line) : null;
    if (line) for (const s of line.stations) pts.push(this.pos.get(s));
    else for (const m of legal) if (m.station) pts.push(this.pos.get(m.station));
    if (!pts.length) for (const p of this.pos.values()) pts.push(p);
    const xs = pts.filter(Boolean).map((p) => p.x);
    const ys = pts.filter(Boolean).map((p) => p.y);
    return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
  }

  /** A tap on the map: a free card's nearest empty station, else the nearest line the card may
   *  go on, within a finger's reach; other taps go to what lies under them. */
  #onTap(ev) {
    const v = this.mapView;
    if (!v || !this.#canChoose() || this.#shownSeat() !== this.#seat) return false;
    const at = { x: ev.clientX, y: ev.clientY };
    const legal = this.#legalMoves();
    let best = null;
    let bd = REACH_PX;
    for (const m of legal) {
      if (m.station) {
        const p = this.pos.get(m.station);
        const d = p ? Math.hypot(v.toScreen(p.x, p.y).x - at.x, v.toScreen(p.x, p.y).y - at.y) : Infinity;
        if (d <= bd) [best, bd] = [{ station: m.station }, d];
      } else if (m.line) {
        const pts = this.index.lines.get(m.line).stations.map((s) => this.pos.get(s)).map((p) => v.toScreen(p.x, p.y));
        for (let i = 1; i < pts.length; i++) {
          const d = segmentDistance(at, pts[i - 1], pts[i]);
          if (d <= bd) [best, bd] = [{ line: m.line }, d];
        }
      }
    }
    if (!best) return false;
    this.hover = null; // a finger's emulated hover would keep previewing another line
    if (best.station) this.#pickStation(best.station);
    else this.#pickLine(best.line);
    return true;
  }

  #buildLabel(parent, line, box, p0, anchor) {
    const g = svg("g", { class: "mx-label", "data-line": line.id }, parent);
    if (Math.hypot(anchor.x - p0.x, anchor.y - p0.y) > STATION_R + 8) {
      // A thin tether from the start station to its label.
      svg("line", { class: "mx-tether", x1: p0.x, y1: p0.y, x2: anchor.x, y2: anchor.y, stroke: line.colour }, g);
    }
    svg("rect", {
      class: "mx-label-bg",
      x: box.x0 - 3,
      y: box.y0 - 3,
      width: box.x1 - box.x0 + 6,
      height: box.y1 - box.y0 + 6,
      rx: 8,
    }, g);
    const cy = box.y0 + BADGE_R;
    let x = box.x0 + BADGE_R;
    svg("circle", { class: "mx-badge", cx: x, cy, r: BADGE_R, fill: line.colour }, g);
    svg("text", { class: "mx-badge-text", x, y: cy, "text-anchor": "middle", dy: "0.35em" }, g).textContent = line.id;
    x += BADGE_R + 6;
    const windows = [];
    for (let i = 0; i < line.windows; i++) {
      const r = svg("rect", { class: "mx-window", x, y: cy - BOX / 2, width: BOX, height: BOX, rx: 3 }, g);
      const t = svg("text", { class: "mx-window-text", x: x + BOX / 2, y: cy, "text-anchor": "middle", dy: "0.35em" }, g);
      windows.push({ r, t });
      x += BOX + 3;
    }
    x += 4;
    const bonus = [];
    line.bonus.forEach((value, i) => {
      const r = svg("rect", { class: `mx-bonus ${i ? "later" : "first"}`, x, y: cy - 11, width: 27, height: 22, rx: 11, fill: "#ffffff" }, g);
      const t = svg("text", { class: "mx-bonus-text", x: x + 13.5, y: cy, "text-anchor": "middle", dy: "0.35em" }, g);
      t.textContent = String(value);
      const title = svg("title", {}, r);
      const mark = svg("g", { class: "mx-bonus-seat" }, g);
      bonus.push({ r, t, title, value, mark, x: x + 27, y: cy - 10 });
      x += 30;
    });
    const title = svg("title", {}, g);
    title.textContent = t("metrox.line_name", { line: line.id, name: line.name || "" });
    g.addEventListener("mouseenter", () => this.#hoverLine(line.id));
    g.addEventListener("mouseleave", () => this.#hoverLine(null));
    g.addEventListener("click", () => this.#pickLine(line.id));
    return { g, windows, bonus, title };
  }

  #lineAtStation(stationId) {
    if (!this.#canChoose() || cardInfo(this.view.card).kind === "free") return null;
    const legal = this.#legalMoves();
    const lines = this.index.map.lines.filter((l) => l.stations.includes(stationId) && legal.some((m) => m.line === l.id));
    return lines.length === 1 ? lines[0].id : null;
  }

  /** What starts the waiting game: a party table's host (the game page's `host.party`), else
   *  the last open seat taken. */
  #startsWhen() {
    return this.host.party ? t("metrox.starts_when_host") : t("metrox.starts_when_full");
  }

  // ---- painting --------------------------------------------------------------------------------

  #render() {
    if (!this.view) return;
    if (!this.index) {
      this.prompt.textContent = this.view.status === "waiting" ? this.#startsWhen() : "";
      return;
    }
    this.#renderCard();
    this.#renderSheetPicker();
    this.#paintMap();
    this.#renderChoose();
    this.#renderHints();
    this.#renderFinal();
  }

  #preview() {
    // The line shown: hovered, else selected; only on the viewer's own sheet while choosing.
    if (!this.#canChoose() || this.#shownSeat() !== this.#seat) return null;
    const c = cardInfo(this.view.card);
    if (c.kind === "free") {
      return this.sel?.station ? { stations: [this.sel.station], transfer: null, line: null } : null;
    }
    const lineId = this.hover && this.#isLegal({ line: this.hover }) ? this.hover : this.sel?.line;
    if (!lineId) return null;
    const eff = lineEffect(this.index, this.#sheet(this.#seat), this.view.card, lineId);
    return { ...eff, line: lineId };
  }

  #paintMap() {
    const p = this.#shownSeat();
    const sheet = this.#sheet(p);
    if (!sheet) return;
    const index = this.index;
    const choosing = this.#canChoose() && p === this.#seat;
    const legal = choosing ? this.#legalMoves() : [];
    const legalLines = new Set(legal.filter((m) => m.line).map((m) => m.line));
    const legalStations = new Set(legal.filter((m) => m.station).map((m) => m.station));
    const preview = this.#preview();
    const previewSet = new Set(preview?.stations || []);
    const chosen = this.replayPos ? null : this.view.choice;
    const fresh = this.replayPos ? new Set() : this.lastFilled.get(p) || new Set();
    const complete = new Set(completeLines(index, sheet));
    const best = this.replayPos ? (this.analysisBest || []).find((b) => b.seat === p) : null;
    this.svgRoot.setAttribute("aria-label", t("metrox.map_sheet_label", { map: index.map.name || index.map.id, name: this.#seatName(p) }));
    this.svgRoot.dataset.seat = String(p);
    this.svgRoot.classList.toggle("choosing", choosing);

    for (const [id, el] of this.lineEls) {
      const cls = (name, on) => {
        el.path.classList.toggle(name, on);
        el.hit.classList.toggle(name, on);
        this.labelEls.get(id).g.classList.toggle(name, on);
      };
      cls("selectable", legalLines.has(id));
      cls("selected", !!(this.sel?.line === id));
      cls("chosen", !!(chosen?.line === id) && choosing);
      cls("previewing", preview?.line === id);
      cls("complete", complete.has(id));
      cls("analysis-best", best?.line === id);
      cls("dim", !!preview?.line && preview.line !== id && !sameMove({ line: preview.line }, chosen));
    }

    for (const [id, el] of this.stationEls) {
      const filled = sheet.filled.has(id);
      const tnum = sheet.transfers[id];
      el.g.classList.toggle("filled", filled);
      el.g.classList.toggle("fresh", filled && fresh.has(id));
      el.g.classList.toggle("arrive", this.arriving && filled && fresh.has(id) && p !== this.#seat);
      el.g.classList.toggle("has-tnum", tnum !== undefined);
      el.g.classList.toggle("preview", previewSet.has(id));
      el.g.classList.toggle("selectable", legalStations.has(id));
      el.g.classList.toggle("selected", this.sel?.station === id);
      el.g.classList.toggle("chosen", choosing && chosen?.station === id);
      el.g.classList.toggle("analysis-best", best?.station === id);
      let text = tnum !== undefined ? String(tnum) : "";
      if (previewSet.has(id) && preview.transfer !== null && preview.stations[0] === id) text = String(preview.transfer);
      el.text.textContent = text;
      el.g.classList.toggle("preview-tnum", previewSet.has(id) && preview?.transfer !== null);
      const where = el.deg >= 2 ? t("metrox.station_lines", { station: el.name, count: el.deg }) : el.name;
      const state = filled ? t("metrox.filled") : t("metrox.empty");
      el.title.textContent = tnum !== undefined
        ? t("metrox.station_state_transfer", { station: where, state, transfer: tnum })
        : t("metrox.station_state", { station: where, state });
    }

    const lineState = new Map(this.#lines().map((l) => [l.line, l]));
    for (const line of index.map.lines) {
      const lab = this.labelEls.get(line.id);
      const marks = sheet.windows[line.id] || [];
      lab.windows.forEach((w, i) => {
        const previewMark = preview?.line === line.id && i === marks.length ? preview.mark : null;
        w.t.textContent = i < marks.length ? marks[i] : previewMark || "";
        w.r.classList.toggle("used", i < marks.length);
        w.r.classList.toggle("preview", previewMark !== null && previewMark !== undefined);
      });
      const done = lineState.get(line.id)?.completed || [];
      const firsts = done.filter((e) => e.first);
      const laters = done.filter((e) => !e.first);
      const paintBonus = (b, who, label) => {
        b.r.classList.toggle("taken", who.length > 0);
        b.r.classList.toggle("mine", who.some((e) => e.seat === p));
        if (who.length) b.r.setAttribute("fill", this.#colour(who.some((e) => e.seat === p) ? p : who[0].seat));
        else b.r.setAttribute("fill", "#ffffff");
        b.t.classList.toggle("taken", who.length > 0);
        // the taker's symbol on the pill's corner: seats told apart without their colour
        b.mark.replaceChildren();
        if (who.length) {
          const seat = who.some((e) => e.seat === p) ? p : who[0].seat;
          svg("circle", { cx: b.x, cy: b.y, r: 6.5, fill: "#fff", stroke: "#222", "stroke-width": 1 }, b.mark);
          seatSymbol(seat, b.x, b.y, 3.8, { fill: "#222" }, b.mark);
        }
        const names = who.map((e) => t("metrox.bonus_taker", { name: this.#seatName(e.seat), turn: e.turn + 1 })).join(", ");
        b.title.textContent = t(`metrox.bonus_${label}`, { value: b.value, names: names || t("metrox.not_taken") });
      };
      paintBonus(lab.bonus[0], firsts, "first");
      paintBonus(lab.bonus[1], laters, "later");
      lab.title.textContent = t("metrox.line_title", {
        line: line.id, name: line.name || "", marks: marks.join(" ") || t("metrox.empty"), used: marks.length,
        windows: line.windows, first: line.bonus[0], later: line.bonus[1] });
    }
    this.#paintHintsOnMap();
    this.#paintCursor();
  }

  #paintHintsOnMap() {
    this.gHints.replaceChildren();
    if (!this.hints.length || !this.#canChoose() || this.#shownSeat() !== this.#seat) return;
    for (const h of this.hints) {
      let at = null;
      if (h.move?.line) {
        const line = this.index.lines.get(h.move.line);
        if (!line) continue;
        this.lineEls.get(line.id)?.path.classList.add("hinted");
        const mid = Math.floor((line.stations.length - 1) / 2);
        const a = this.pos.get(line.stations[mid]);
        const b = this.pos.get(line.stations[Math.min(mid + 1, line.stations.length - 1)]);
        at = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      } else if (h.move?.station) {
        at = this.pos.get(h.move.station);
        if (at) svg("circle", { class: "mx-hint-ring", cx: at.x, cy: at.y, r: STATION_R + 7 }, this.gHints);
      }
      if (!at) continue;
      const g = svg("g", { class: "mx-hint", "data-rank": h.rank, transform: `translate(${at.x},${at.y})` }, this.gHints);
      svg("circle", { r: 13, class: "mx-hint-badge" }, g);
      svg("text", { "text-anchor": "middle", dy: "0.35em", class: "mx-hint-rank" }, g).textContent = String(h.rank);
      svg("title", {}, g).textContent = t("metrox.hint_title", { rank: h.rank, move: moveWords(this.index, h.move), value: signedValue(h.value) });
      g.addEventListener("click", () => this.#select(h.move));
    }
    for (const [id, el] of this.lineEls) {
      if (!this.hints.some((h) => h.move?.line === id)) el.path.classList.remove("hinted");
    }
  }

  // ---- the controls ----------------------------------------------------------------------------

  #buildControls() {
    const c = html("div", { className: "mx-controls" });
    this.root = c;
    this.parts.controls.replaceChildren(c);

    const cardBox = html("section", { className: "mx-cardbox", "aria-label": t("metrox.card") }, c);
    this.cardSlot = html("div", { className: "mx-card-slot" }, cardBox);
    const info = html("div", { className: "mx-card-info" }, cardBox);
    this.cardWords = html("p", { className: "mx-card-words" }, info);
    this.revealed = html("div", { className: "mx-revealed", role: "group", "aria-label": t("metrox.revealed_label") }, info);
    this.counts = html("p", { className: "mx-counts" }, info);

    const pick = html("label", { className: "mx-sheet-pick" }, c, `${t("metrox.sheet")} `);
    this.sheetSelect = html("select", { className: "mx-sheet-select", "aria-label": t("metrox.whose_sheet") }, pick);
    this.sheetSelect.addEventListener("change", () => {
      this.sheetSeat = Number(this.sheetSelect.value);
      this.#render();
    });

    html("p", { id: "mx-map-keys", className: "visually-hidden" }, c,
      t("metrox.keys"));
    const choose = html("section", { className: "mx-choose", "aria-label": t("metrox.your_choice") }, c);
    this.prompt = html("p", { className: "mx-prompt", "aria-live": "polite" }, choose);
    this.lineList = html("div", { className: "mx-line-list" }, choose);
    this.stationPick = html("label", { className: "mx-station-pick", hidden: true }, choose, `${t("metrox.station")} `);
    this.stationSelect = html("select", { className: "mx-station-select", "aria-label": t("metrox.station_to_fill") }, this.stationPick);
    this.stationSelect.addEventListener("change", () => {
      if (this.stationSelect.value) this.#select({ station: this.stationSelect.value });
    });
    const actions = html("div", { className: "mx-actions" }, choose);
    this.confirmBtn = html("button", { type: "button", className: "primary mx-confirm" }, actions, t("metrox.confirm"));
    this.confirmBtn.addEventListener("click", () => this.#confirm());
    this.passBtn = html("button", { type: "button", className: "mx-pass", hidden: true }, actions, t("metrox.pass"));
    this.passBtn.addEventListener("click", () => this.#select({ pass: true }, true));
    this.clearBtn = html("button", { type: "button", className: "ghost-button mx-clear" }, actions, t("metrox.clear"));
    this.clearBtn.addEventListener("click", () => {
      this.sel = null;
      this.#render();
    });
    this.waiting = html("p", { className: "mx-waiting", "aria-live": "polite" }, choose);

    this.hintBox = html("section", { className: "mx-hints", hidden: true, "aria-label": t("metrox.hints_title") }, c);
    html("h3", {}, this.hintBox, t("metrox.hints_title"));
    this.hintList = html("ol", { className: "mx-hint-list" }, this.hintBox);

    this.finalBox = html("section", { className: "mx-final", hidden: true, "aria-label": t("metrox.final_scores") }, c);
    this.replayNote = html("p", { className: "mx-replay-note", hidden: true }, c);
  }

  #renderCard() {
    const v = this.view;
    const rp = this.replayPos;
    const code = rp ? rp.card : v.card;
    this.cardSlot.replaceChildren(cardFace(code, "big"));
    this.cardSlot.parentElement.hidden = v.status === "over" && !rp;
    const dealt = `${v.game_id}|${v.turn_index ?? 0}|${code}`;
    if (!rp && this.dealt && dealt !== this.dealt) requestAnimationFrame(() => this.#cardInSight());
    this.dealt = dealt;
    if (rp) {
      this.cardWords.textContent = code ? t("metrox.replay_card", { turn: rp.index + 1, words: cardWords(code) }) : t("metrox.replay");
    } else if (v.status === "over") {
      this.cardWords.textContent = t("metrox.over_filled");
    } else {
      this.cardWords.textContent = code ? t("metrox.turn_card", { turn: (v.turn_index ?? 0) + 1, words: cardWords(code) }) : t("metrox.no_card_yet");
    }
    this.revealed.replaceChildren();
    if (!rp) {
      const shown = (v.revealed || []).slice(0, -1);
      if (shown.length) html("span", { className: "mx-revealed-label" }, this.revealed, t("metrox.earlier"));
      for (const r of shown) this.revealed.appendChild(cardFace(r, "mini"));
    }
    this.counts.textContent = rp
      ? t("metrox.turn_resolved", { turn: rp.index, length: rp.length })
      : t("metrox.counts", { deck: v.deck_left ?? "?", windows: v.windows_left ?? "?" });
  }

  #renderSheetPicker() {
    const v = this.view;
    const own = this.#seat;
    const shown = this.#shownSeat();
    const opts = (v.sheets || []).map((s) => {
      const label = `${seatGlyph(s.seat)} ${this.#seatName(s.seat)}${s.seat === own ? ` ${t("seat.you_mark")}` : ""}`;
      return [String(s.seat), label];
    });
    const key = JSON.stringify(opts);
    if (this.sheetSelect.dataset.key !== key) {
      this.sheetSelect.replaceChildren(...opts.map(([value, label]) => html("option", { value }, null, label)));
      this.sheetSelect.dataset.key = key;
    }
    this.sheetSelect.value = String(shown);
    this.sheetSelect.parentElement.hidden = opts.length < 2;
  }

  #renderChoose() {
    const v = this.view;
    const own = this.#seat;
    const choosing = this.#canChoose();
    const c = cardInfo(v.card);
    const legal = this.#legalMoves();
    const sheet = own !== null ? this.#sheet(own) : null;

    // One button per line, with its windows and what the card would fill there.
    const rows = [];
    const shownSheet = this.#sheet(this.#shownSeat());
    const lineState = new Map(this.#lines().map((l) => [l.line, l]));
    for (const line of this.index.map.lines) {
      const isLegal = choosing && c?.kind !== "free" && legal.some((m) => m.line === line.id);
      const marks = shownSheet.windows[line.id] || [];
      const b = html("button", {
        type: "button",
        className: "mx-line-btn",
        "data-line": line.id,
        "aria-pressed": String(this.sel?.line === line.id),
      });
      b.disabled = !isLegal || this.busy;
      b.classList.toggle("chosen", !this.replayPos && v.choice?.line === line.id);
      b.appendChild(badgeIcon(line.colour, line.id, "mx-line-badge"));
      html("span", { className: "mx-line-name" }, b, line.name || line.id);
      const w = html("span", { className: "mx-line-windows", "aria-hidden": "true" }, b);
      for (let i = 0; i < line.windows; i++) html("span", { className: `mx-win${i < marks.length ? " used" : ""}` }, w, marks[i] || "");
      const done = lineState.get(line.id)?.completed || [];
      const first = done.filter((e) => e.first).map((e) => this.#seatName(e.seat));
      const later = done.filter((e) => !e.first).map((e) => this.#seatName(e.seat));
      html("span", { className: `mx-line-bonus${first.length ? " taken" : ""}` }, b, `${line.bonus[0]}/${line.bonus[1]}`);
      let gain = "";
      if (isLegal && sheet) {
        const eff = lineEffect(this.index, sheet, v.card, line.id);
        gain = eff.transfer !== null && eff.stations.length ? `★${eff.transfer}` : `+${eff.stations.length}`;
        html("span", { className: "mx-line-gain" }, b, gain);
        b.dataset.gain = String(eff.stations.length + (eff.transfer || 0));
        b.addEventListener("mouseenter", () => this.#hoverLine(line.id));
        b.addEventListener("mouseleave", () => this.#hoverLine(null));
        b.addEventListener("focus", () => this.#hoverLine(line.id));
        b.addEventListener("blur", () => this.#hoverLine(null));
        b.addEventListener("click", () => this.#pickLine(line.id));
      }
      const who = [first.length ? t("metrox.first_taken", { value: line.bonus[0], names: first.join(", ") }) : t("metrox.first_bonus", { value: line.bonus[0] }),
        later.length ? t("metrox.later_taken", { value: line.bonus[1], names: later.join(", ") }) : t("metrox.later_bonus", { value: line.bonus[1] })].join("; ");
      const fills = !gain ? "" : gain.startsWith("★") ? t("metrox.fills_transfer", { value: gain.slice(1) }) : t("metrox.fills_stations", { count: Number(gain.slice(1)) });
      const label = t(gain ? "metrox.line_button_fills" : "metrox.line_button", {
        line: line.id, name: line.name || "", used: marks.length, windows: line.windows, bonus: who, fills });
      // The name is the visible text (line and gain); the rest is its description.
      b.title = label;
      html("span", { className: "visually-hidden" }, b, `: ${label}`);
      rows.push(b);
    }
    this.lineList.replaceChildren(...rows);
    // A free card goes on no line: its turn lists none (issue 19), only the stations below.
    this.lineList.hidden = !!this.replayPos || v.status === "over" || (choosing && c?.kind === "free");

    // A free card: a station, from the map or from the list; a pass when none is empty.
    const free = choosing && c?.kind === "free";
    const stations = free ? legal.filter((m) => m.station).map((m) => m.station) : [];
    this.stationPick.hidden = !free || !stations.length;
    if (free && stations.length) {
      const key = stations.join(",");
      if (this.stationSelect.dataset.key !== key) {
        this.stationSelect.replaceChildren(
          html("option", { value: "" }, null, t("metrox.pick_station")),
          ...stations.map((id) => html("option", { value: id }, null, this.index.stations.get(id)?.name || id)),
        );
        this.stationSelect.dataset.key = key;
      }
      this.stationSelect.value = this.sel?.station || "";
    }
    this.passBtn.hidden = !(choosing && legal.some((m) => m.pass));
    this.passBtn.disabled = this.busy;

    const sel = this.sel;
    const pending = !this.replayPos ? v.choice : null;
    const unsent = sel && !sameMove(sel, pending);
    this.confirmBtn.hidden = !choosing;
    this.confirmBtn.disabled = !unsent || this.busy;
    this.confirmBtn.textContent = unsent ? t("metrox.confirm_move", { move: moveWords(this.index, sel) }) : t("metrox.confirm");
    this.confirmBtn.setAttribute("aria-label", unsent ? t("metrox.confirm_move", { move: moveWords(this.index, sel) }) : t("metrox.confirm_first"));
    this.clearBtn.hidden = !choosing || !unsent;

    // What to do now, and who has chosen.
    let prompt = "";
    if (this.replayPos) prompt = "";
    else if (v.status === "over") prompt = t("metrox.over");
    else if (v.status !== "playing") prompt = this.#startsWhen();
    else if (own === null) prompt = t("metrox.watching");
    else if (!legal.length) prompt = t("metrox.nothing_now");
    else if (c.kind === "free") {
      prompt = stations.length ? t("metrox.prompt_free") : t("metrox.prompt_free_pass");
    } else {
      prompt = t("metrox.prompt_line", { words: cardWords(v.card) });
    }
    if (pending && choosing) prompt = t("metrox.prompt_chosen", { move: moveWords(this.index, pending) });
    this.prompt.textContent = prompt;
    this.prompt.hidden = !prompt;

    let waiting = "";
    if (v.status === "playing" && !this.replayPos && v.seats?.length > 1) {
      const parts = v.seats.map((s, i) => `${seatGlyph(i)} ${this.#seatName(i)} ${s.chosen ? "✓" : "…"}`);
      const left = v.seats.filter((s) => !s.chosen).length;
      waiting = pending && choosing
        ? t("metrox.waiting_others", { count: left, seats: parts.join(" · ") })
        : t("metrox.chosen_so_far", { seats: parts.join(" · ") });
    }
    this.waiting.textContent = waiting;
    this.waiting.hidden = !waiting;

    // The phase, for tests and styles: choose / chosen / wait / watch / waiting / over / replay.
    let phase = "wait";
    if (this.replayPos) phase = "replay";
    else if (v.status === "over") phase = "over";
    else if (v.status !== "playing") phase = "waiting";
    else if (own === null) phase = "watch";
    else if (choosing && pending) phase = "chosen";
    else if (choosing && legal.length) phase = "choose";
    this.root.dataset.phase = phase;
    this.root.dataset.turn = String(v.turn_index ?? 0);
    this.root.dataset.card = v.card || "";
    this.root.dataset.busy = String(this.busy);
  }

  #renderHints() {
    const show = this.hints.length > 0 && this.#canChoose();
    this.hintBox.hidden = !show;
    this.hintList.replaceChildren();
    if (!show) return;
    const sheet = this.#sheet(this.#seat);
    for (const h of this.hints) {
      const li = html("li", {}, this.hintList);
      let gain = "";
      if (h.move?.line) {
        const eff = lineEffect(this.index, sheet, this.view.card, h.move.line);
        gain = eff.transfer !== null && eff.stations.length ? ` · ★${eff.transfer}` : ` · +${eff.stations.length}`;
      }
      const words = moveWords(this.index, h.move);
      const b = html("button", {
        type: "button",
        className: "mx-hint-btn",
        "data-rank": h.rank,
        // The visible text is the button's name (axe: label-content-name-mismatch); the sentence
        // that says what a click does is its description.
        title: t("metrox.select_hint", { rank: h.rank, move: words, value: signedValue(h.value) }),
        "aria-pressed": String(sameMove(this.sel, h.move)),
      }, li);
      html("span", { className: "mx-hint-rank-text" }, b, `${h.rank}.`);
      html("span", { className: "mx-hint-move" }, b, `${words}${gain}`);
      html("span", { className: "mx-hint-value" }, b, signedValue(h.value));
      b.addEventListener("click", () => this.#select(h.move));
    }
  }

  #renderFinal() {
    const v = this.view;
    const over = v.status === "over" && Array.isArray(v.final);
    this.finalBox.hidden = !over;
    this.replayNote.hidden = !this.replayPos;
    if (this.replayPos) {
      const i = this.replayPos.index;
      const rec = this.replayPos.record;
      this.replayNote.textContent = i === 0
        ? t("metrox.replay_note_start")
        : t("metrox.replay_note", { turn: i, card: cardWords(rec.cards[i - 1]) });
    }
    if (!over) return;
    this.finalBox.replaceChildren();
    html("h3", {}, this.finalBox, t("metrox.final_score"));
    const table = html("table", { className: "mx-final-table" }, this.finalBox);
    const head = html("tr", {}, html("thead", {}, table));
    for (const col of ["player", "bonus", "transfer", "empty", "penalty", "total"]) {
      const full = t(`metrox.col.${col}`);
      html("th", { scope: "col", title: full, "aria-label": full }, head, t(`metrox.col.${col}.short`));
    }
    const body = html("tbody", {}, table);
    const winners = new Set(v.winners || []);
    const rows = [...v.final].sort((a, b) => b.total - a.total || a.seat - b.seat);
    for (const f of rows) {
      const tr = html("tr", { "data-seat": f.seat, className: winners.has(f.seat) ? "winner" : "" }, body);
      const name = html("th", { scope: "row" }, tr);
      const badge = seatBadge(f.seat, this.#colour(f.seat), 16, name);
      badge.classList.add("mx-swatch");
      html("span", { className: "visually-hidden" }, name, `(${seatGlyphName(f.seat)}) `);
      name.append(`${this.#seatName(f.seat)}${f.seat === this.#seat ? ` ${t("seat.you_mark")}` : ""}`);
      if (winners.has(f.seat) && rows.length > 1) html("span", { className: "mx-winner", title: t("final.winner"), "aria-label": t("final.winner") }, name, " ★");
      html("td", { className: "bonuses" }, tr, `+${f.bonuses}`);
      html("td", { className: "transfers" }, tr, `+${f.transfers}`);
      html("td", { className: "empty" }, tr, String(f.empty));
      html("td", { className: "penalty" }, tr, f.penalty ? `\u2212${f.penalty}` : "0");
      html("td", { className: "total" }, tr, f.total < 0 ? `\u2212${-f.total}` : String(f.total));
    }
  }

  // ---- input -----------------------------------------------------------------------------------

  // ---- the keyboard on the map -----------------------------------------------------------------

  /** What the cursor may visit: the lines (by their label) or, with a free card, the stations. */
  #cursorTargets() {
    if (!this.index || !this.#canChoose() || this.#shownSeat() !== this.#seat) return [];
    const legal = this.#legalMoves();
    const out = [];
    for (const m of legal) {
      if (m.line) {
        const line = this.index.lines.get(m.line);
        const box = this.labelEls.get(m.line)?.g.getBBox?.();
        const p = box && box.width ? { x: box.x + box.width / 2, y: box.y + box.height / 2 } : this.pos.get(line.stations[0]);
        out.push({ line: m.line, x: p.x, y: p.y });
      } else if (m.station) {
        const p = this.pos.get(m.station);
        if (p) out.push({ station: m.station, x: p.x, y: p.y });
      }
    }
    return out;
  }

  #moveCursor(key) {
    const targets = this.#cursorTargets();
    const same = (t) => this.cursor && ((t.line && t.line === this.cursor.line) || (t.station && t.station === this.cursor.station));
    const next = cursorStep(targets, targets.find(same) || null, key, (t) => sameMove(t, this.sel));
    this.cursor = next ? (next.line ? { line: next.line } : { station: next.station }) : null;
    this.#hoverLine(this.cursor?.line || null);
    this.#paintCursor();
    if (key || next) this.log.announce(this.#cursorWords());
  }

  #cursorWords() {
    const k = this.cursor;
    if (!k) return this.#canChoose() ? "" : t("metrox.nothing_now");
    if (k.line) {
      const line = this.index.lines.get(k.line);
      const eff = lineEffect(this.index, this.#sheet(this.#seat), this.view.card, k.line);
      const fills = eff.transfer !== null && eff.stations.length ? t("metrox.fills_transfer", { value: eff.transfer }) : t("metrox.fills_stations", { count: eff.stations.length });
      const marks = this.#sheet(this.#seat).windows[k.line] || [];
      return t(sameMove(this.sel, k) ? "metrox.cursor_line_selected" : "metrox.cursor_line", { line: k.line, name: line?.name || "", fills, used: marks.length, windows: line?.windows });
    }
    return t(sameMove(this.sel, k) ? "metrox.cursor_station_selected" : "metrox.cursor_station", { station: this.index.stations.get(k.station)?.name || k.station });
  }

  #paintCursor() {
    if (!this.gCursor) return;
    this.gCursor.replaceChildren();
    for (const [, lab] of this.labelEls || []) lab.g.classList.remove("kbd");
    const k = this.cursor;
    if (!k || document.activeElement !== this.svgRoot || !this.svgRoot.matches(":focus-visible")) return;
    if (k.line) this.labelEls.get(k.line)?.g.classList.add("kbd");
    else {
      const p = this.pos.get(k.station);
      if (p) {
        svg("circle", { class: "mx-cursor-halo", cx: p.x, cy: p.y, r: STATION_R + 8 }, this.gCursor);
        svg("circle", { class: "mx-cursor", cx: p.x, cy: p.y, r: STATION_R + 8 }, this.gCursor);
      }
    }
  }

  #mapKey(ev) {
    cursorKey(ev, {
      move: (key) => this.#moveCursor(key),
      act: () => {
        if (!this.cursor) this.#moveCursor(null);
        const k = this.cursor;
        if (!k) return;
        if (k.line) this.#select({ line: k.line });
        else this.#select({ station: k.station });
        this.log.announce(sameMove(this.sel, k) && !this.busy ? this.#cursorWords() : "");
      },
      escape: () => {
        if (!this.sel) return false;
        this.sel = null;
        this.#render();
      },
    });
  }

  #hoverLine(lineId) {
    if (this.hover === lineId) return;
    this.hover = lineId;
    if (this.index && this.view) this.#paintMap();
  }

  #pickLine(lineId) {
    if (!this.#canChoose()) return;
    const c = cardInfo(this.view.card);
    if (c.kind === "free") {
      this.host.notify(t("metrox.free_click_station"), "info");
      return;
    }
    if (!this.#isLegal({ line: lineId })) {
      this.host.notify(t("metrox.refusal.line_full", { line: lineId }), "error");
      return;
    }
    this.#select({ line: lineId });
  }

  #pickStation(stationId) {
    if (!this.#canChoose()) return;
    const c = cardInfo(this.view.card);
    if (c.kind !== "free") {
      const lineId = this.#lineAtStation(stationId);
      if (lineId) this.#pickLine(lineId);
      return;
    }
    if (!this.#isLegal({ station: stationId })) {
      this.host.notify(t("metrox.refusal.station_filled", { station: this.index.stations.get(stationId)?.name || stationId }), "error");
      return;
    }
    this.#select({ station: stationId });
  }

  /** A new card dealt while the panel beside the map (wide screens: it scrolls by itself) is
   *  scrolled down to the list of lines: scroll it back so the card shows under the status. */
  #cardInSight() {
    const box = this.cardSlot.parentElement;
    const panel = box.closest(".panel");
    if (!panel || box.hidden || panel.scrollHeight <= panel.clientHeight) return;
    const status = panel.querySelector(":scope > .status");
    const top = box.getBoundingClientRect().top - panel.getBoundingClientRect().top;
    const cover = (status?.getBoundingClientRect().height || 0) + 8;
    const bottom = box.getBoundingClientRect().bottom - panel.getBoundingClientRect().bottom;
    if (top < cover || bottom > 0) panel.scrollTop += top - cover;
  }

  /** Select a move (a second click on the selected one sends it; `send` sends at once). */
  #select(move, send = false) {
    if (!this.#canChoose() || !move) return;
    if (this.sheetSeat !== null && this.sheetSeat !== this.#seat) this.sheetSeat = null;
    if (!this.#isLegal(move)) {
      this.host.notify(t("metrox.not_possible", { move: moveWords(this.index, move) }), "error");
      return;
    }
    const again = sameMove(this.sel, move) && !sameMove(move, this.view.choice);
    this.sel = move;
    this.#render();
    this.#showMove(move);
    if (send || again) this.#confirm();
  }

  /** A chosen move brought into sight when the map shows only part of itself (a phone): the
   *  stations the card would fill on its line, or its station, unless they are in sight. */
  #showMove(move) {
    const v = this.mapView;
    if (!v?.s || !this.index || move.pass) return;
    let ids = [move.station];
    if (move.line) {
      const fill = this.#seat !== null ? lineEffect(this.index, this.#sheet(this.#seat), this.view.card, move.line).stations : [];
      ids = fill.length ? fill : this.index.lines.get(move.line)?.stations || [];
    }
    const pts = ids.map((id) => this.pos.get(id)).filter(Boolean);
    if (!pts.length) return;
    const vis = v.visible;
    const m = 20 / v.s;
    const seen = (p) => p.x > vis.x + m && p.x < vis.x + vis.w - m && p.y > vis.y + m && p.y < vis.y + vis.h - m;
    if (move.line ? pts.every(seen) : pts.some(seen)) return;
    const xs = pts.map((p) => p.x);
    const ys = pts.map((p) => p.y);
    v.centreOn((Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2);
  }

  async #confirm() {
    const move = this.sel;
    if (!move || this.busy || !this.#canChoose()) return;
    if (sameMove(move, this.view.choice)) return;
    this.busy = true;
    this.#render();
    try {
      await this.host.send(move);
    } catch {
      /* the shell shows the error; the view it refreshes says what stands */
    } finally {
      this.busy = false;
      if (this.view) this.#render();
    }
  }
}
