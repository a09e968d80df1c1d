// Metro X's board (RULES-METROX.md), in chessground's way: it draws one sheet as a subway map and
// takes input given the legal targets. The page hands it a state (paint: the view, the legal
// moves, the selection) and gets back through `on` a legal move pointed at, select(move), or why
// not, notify(text, kind); also clear() (Escape) and announce(text) (the keyboard's words). What
// the pointer hovers (and its preview), the keyboard cursor and the camera are the board's own.

import { cursorKey, cursorStep, html, MapView, segmentDistance, signedValue, svg } from "/kit.js";
import { t } from "/i18n.js";
import { layoutNames, paintLabel, pinLabels, placeLabels, pointedStations, STATION_R } from "./labels.js";
import { cardInfo, moveWords, sameMove } from "./notation.js";

const GAP = 84; // px between the two nearest stations of a map
const PHONE_SCALE = 0.75; // px per map unit on a narrow screen: its words 11 px and more
const NARROW_PX = 600; // a map box narrower than this is a phone's
const REACH_PX = 28; // a tap this near a line or station that can be chosen picks it

export class MetroXBoard {
  constructor(parent, on) {
    this.on = on;
    this.root = html("div", { className: "mx-board" }, parent);
    this.state = null; // what the page painted last: the keyboard and taps read it
    this.cursor = null; // the keyboard cursor: {line} or {station}
    this.hover = null; // a line id under the pointer
    this.nameWidths = new Map();
  }

  // ---- the map (built once per map, painted on every change) -----------------------------------

  build(index) {
    const map = index.map;
    this.index = index;
    this.mapView?.destroy();
    this.mapView = null;
    this.root.replaceChildren();
    // The zoom buttons, and beside them on a touch screen the hint (the card stays on a phone's
    // first screen: the hint takes no row of its own).
    const bar = html("div", { className: "mx-toolbar" }, this.root);
    const touchHint = html("p", { className: "mx-touch-hint", id: "mx-touch-hint" }, bar, t("metrox.two_fingers"));
    const tools = html("div", { className: "mx-tools", role: "group", "aria-label": t("metrox.zoom") }, bar);
    const zoomOut = html("button", { type: "button", className: "mx-zoom-out small", "aria-label": t("metrox.zoom_out"), title: t("metrox.zoom_out") }, tools, "−");
    const zoomIn = html("button", { type: "button", className: "mx-zoom-in small", "aria-label": t("metrox.zoom_in"), title: t("metrox.zoom_in") }, tools, "+");
    const zoomAll = html("button", { type: "button", className: "mx-zoom-all small", "aria-label": t("metrox.whole_map"), title: t("metrox.whole_map") }, tools, "⤢");
    zoomOut.addEventListener("click", () => this.mapView?.zoomBy(1 / 1.5, null, null, true));
    zoomIn.addEventListener("click", () => this.mapView?.zoomBy(1.5, null, null, true));
    zoomAll.addEventListener("click", () => this.mapView?.fitAll({ animate: true }));
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
      this.hoverLine(null);
      this.#paintCursor();
    });
    // The drawing's letters and numbers (line badges, windows, transfers, hint ranks) would reach a
    // screen reader as loose text ("A 1 9 4 B 7 3"): the map is named and described as a whole,
    // and the line list beside it says the same in sentences.
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
      hit.addEventListener("mouseenter", () => this.hoverLine(line.id));
      hit.addEventListener("mouseleave", () => this.hoverLine(null));
      hit.addEventListener("click", () => this.pickLine(line.id));
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
        if (lineId) this.hoverLine(lineId);
      });
      this.stationEls.set(s.id, { g, circle, mark, text, title, name: s.name || s.id, deg });
    }
    // Station names as the city writes them, placed by layoutNames at every pan and zoom.
    this.nameEls = new Map();
    for (const s of st) {
      const el = svg("text", { class: "mx-name", "data-station": s.id, visibility: "hidden" }, gNames);
      el.textContent = s.name || s.id;
      this.nameEls.set(s.id, el);
    }
    const pointer = { hover: (id) => this.hoverLine(id), line: (id) => this.pickLine(id) };
    const { labels, boxes } = placeLabels(map, pos, gLabels, pointer);
    this.labelEls = labels;
    this.labelBoxes = boxes;
    this.labelHome = boxes; // where placeLabels put them; a phone's view may slide them (pinLabels)
    for (const box of boxes) grow(box.x0, box.y0, box.x1, box.y1);

    const pad = 12;
    const whole = { x: bounds.x0 - pad, y: bounds.y0 - pad, w: bounds.x1 - bounds.x0 + 2 * pad, h: bounds.y1 - bounds.y0 + 2 * pad };
    root.setAttribute("viewBox", `${whole.x} ${whole.y} ${whole.w} ${whole.h}`);
    // The box keeps the map's shape on a wide screen (a phone's is taller: page.css).
    root.style.setProperty("--mx-aspect", `${whole.w.toFixed(0)} / ${whole.h.toFixed(0)}`);
    this.svgRoot = root;
    this.root.appendChild(root);
    this.root.addEventListener("mouseleave", () => this.hoverLine(null));
    // Pan and zoom (wheel, drag, two fingers); a tap picks the nearest line or station that can
    // be chosen. A phone starts close enough to read: part of the map, around what matters.
    this.mapView = new MapView(root, {
      bounds: whole,
      maxScale: 3,
      onChange: (v) => {
        zoomIn.disabled = !v.canZoomIn;
        zoomOut.disabled = !v.canZoomOut;
        this.labelBoxes = pinLabels(v, this.labelEls, this.labelHome, map.lines, v.size.w < NARROW_PX);
        this.#scheduleNames();
      },
      onTap: (ev, at) => this.#onTap(at),
      onReady: (v) => {
        if (v.size.w >= NARROW_PX || v.fitScale >= PHONE_SCALE) return;
        const focus = this.#focusBox();
        v.centreOn(focus.x + focus.w / 2, focus.y + focus.h / 2, PHONE_SCALE, false);
      },
      // A touch screen: one finger scrolls the page, two move the map (the hint says so, and
      // stands out a moment when a finger slid over the map).
      cooperative: true,
      onOneFinger: () => {
        touchHint.classList.add("nudged");
        clearTimeout(this.nudgeTimer);
        this.nudgeTimer = setTimeout(() => touchHint.classList.remove("nudged"), 1600);
      },
    });
    root.setAttribute("aria-describedby", `${root.getAttribute("aria-describedby")} ${touchHint.id}`);
  }

  /** Names are placed again once the map rests (they scale with it meanwhile). */
  #scheduleNames() {
    clearTimeout(this.nameTimer);
    const first = new Set(this.namedFirst || []);
    const root = this.svgRoot; // data-names: "pending", then "placed" once laid out (tests wait on it)
    if (root) root.dataset.names = "pending";
    this.nameTimer = setTimeout(() => { layoutNames(this.mapView, this.index, this.pos, this.nameEls, this.labelBoxes, this.nameWidths, first); if (root) root.dataset.names = "placed"; }, 80);
  }

  /** What matters now, in map units: the stations a free card may fill, or the selected line,
   *  else the middle of the stations. */
  #focusBox() {
    const pts = [];
    const legal = this.state?.moves || [];
    const line = this.state?.sel?.line ? this.index.lines.get(this.state.sel.line) : null;
    if (line) for (const s of line.stations) pts.push(this.pos.get(s));
    else for (const m of legal) if (m.station) pts.push(this.pos.get(m.station));
    if (!pts.length) for (const p of this.pos.values()) pts.push(p);
    const xs = pts.filter(Boolean).map((p) => p.x);
    const ys = pts.filter(Boolean).map((p) => p.y);
    return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
  }

  /** A tap on the map: a free card's nearest empty station, else the nearest line the card may
   *  go on, within a finger's reach; other taps go to what lies under them. A tap on a hint's
   *  badge is that hint's, and with a line card a tap on a line's label is that line's, however
   *  near another line runs (one line's label may sit on another's track: Madrid's 1 beside 4). */
  #onTap(at) {
    const v = this.mapView;
    if (!v || !this.state?.choosing) return false;
    const free = cardInfo(this.state.view.card).kind === "free"; // a label cannot take a station
    if (document.elementFromPoint(at.x, at.y)?.closest(free ? ".mx-hint" : ".mx-label, .mx-hint")) return false;
    let best = null;
    let bd = REACH_PX;
    for (const m of this.state.moves) {
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
    else this.pickLine(best.line);
    return true;
  }

  // ---- input: what the pointer is on, and what may be chosen there -----------------------------

  /** A line under the pointer (or the keyboard's cursor, or a button of the panel's list). */
  hoverLine(lineId) {
    if (this.hover === lineId) return;
    this.hover = lineId;
    if (this.state) this.paint(this.state);
  }

  #legal(move) {
    return (this.state?.moves || []).some((m) => sameMove(m, move));
  }

  /** The one line the card may go on through this station, if only one. */
  #lineAtStation(stationId) {
    const s = this.state;
    if (!s?.canChoose || cardInfo(s.view.card).kind === "free") return null;
    const lines = this.index.map.lines.filter((l) => l.stations.includes(stationId) && s.moves.some((m) => m.line === l.id));
    return lines.length === 1 ? lines[0].id : null;
  }

  /** A line pointed at: selected when the card may go on it, else the reason why not. */
  pickLine(lineId) {
    const s = this.state;
    if (!s?.canChoose) return;
    if (cardInfo(s.view.card).kind === "free") {
      this.on.notify(t("metrox.free_click_station"), "info");
      return;
    }
    if (!this.#legal({ line: lineId })) {
      this.on.notify(t("metrox.refusal.line_full", { line: lineId }), "error");
      return;
    }
    this.on.select({ line: lineId });
  }

  /** A station pointed at: a free card fills it; another card takes its line, if only one. */
  #pickStation(stationId) {
    const s = this.state;
    if (!s?.canChoose) return;
    if (cardInfo(s.view.card).kind !== "free") {
      const lineId = this.#lineAtStation(stationId);
      if (lineId) this.pickLine(lineId);
      return;
    }
    if (!this.#legal({ station: stationId })) {
      this.on.notify(t("metrox.refusal.station_filled", { station: this.index.stations.get(stationId)?.name || stationId }), "error");
      return;
    }
    this.on.select({ station: stationId });
  }

  /** Fade in no longer: other players' new crosses have arrived. */
  settle() {
    for (const el of this.stationEls?.values() || []) el.g.classList.remove("arrive");
  }

  // ---- painting --------------------------------------------------------------------------------

  /** Paint the page's state: the shown seat's sheet, what may be chosen, the selection and its
   *  preview, the last turn's crosses, the analysis's best choice and the hints. */
  paint(s) {
    this.state = s;
    const p = s.shown;
    const sheet = s.sheet;
    if (!sheet || !this.svgRoot) return;
    // A new card (or sheet) points at other stations: their names go first.
    const aimed = s.sel ? [s.sel] : s.moves.length === 1 ? s.moves : []; // the chosen move, or the only one
    const pointed = s.choosing ? [...pointedStations(this.index, s.ownSheet, aimed, s.effect)] : [];
    if (pointed.join() !== (this.namedFirst || []).join()) {
      this.namedFirst = pointed;
      this.#scheduleNames();
    }
    const index = this.index;
    const legal = s.choosing ? s.moves : [];
    const legalLines = new Set(legal.filter((m) => m.line).map((m) => m.line));
    const legalStations = new Set(legal.filter((m) => m.station).map((m) => m.station));
    const preview = this.#preview(s);
    const previewSet = new Set(preview?.stations || []);
    const chosen = s.chosen;
    const complete = new Set(sheet.bonuses.map((b) => b.line)); // a completed line's bonus (§4)
    this.svgRoot.setAttribute("aria-label", t("metrox.map_sheet_label", { map: index.map.name || index.map.id, name: s.seatName(p) }));
    this.svgRoot.dataset.seat = String(p);
    this.svgRoot.classList.toggle("choosing", s.choosing);

    for (const [id, el] of this.lineEls) {
      const cls = (name, on) => {
        el.path.classList.toggle(name, on);
        el.hit.classList.toggle(name, on);
        this.labelEls.get(id).g.classList.toggle(name, on);
      };
      cls("selectable", legalLines.has(id));
      cls("selected", !!(s.sel?.line === id));
      cls("chosen", !!(chosen?.line === id) && s.choosing);
      cls("previewing", preview?.line === id);
      cls("complete", complete.has(id));
      cls("analysis-best", s.best?.line === id);
      cls("dim", !!preview?.line && preview.line !== id && !sameMove({ line: preview.line }, chosen));
    }

    for (const [id, el] of this.stationEls) {
      const filled = sheet.filled.has(id);
      const tnum = sheet.transfers[id];
      el.g.classList.toggle("filled", filled);
      el.g.classList.toggle("fresh", filled && s.fresh.has(id));
      el.g.classList.toggle("arrive", s.arriving && filled && s.fresh.has(id) && p !== s.own);
      el.g.classList.toggle("has-tnum", tnum !== undefined);
      el.g.classList.toggle("preview", previewSet.has(id));
      el.g.classList.toggle("selectable", legalStations.has(id));
      el.g.classList.toggle("selected", s.sel?.station === id);
      el.g.classList.toggle("chosen", s.choosing && chosen?.station === id);
      el.g.classList.toggle("analysis-best", s.best?.station === id);
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

    for (const line of index.map.lines) paintLabel(this.labelEls.get(line.id), line, s, preview);
    this.#paintHints();
    this.#paintCursor();
  }

  /** The line shown: hovered, else selected; only on the viewer's own sheet while choosing. */
  #preview(s) {
    if (!s.choosing) return null;
    if (cardInfo(s.view.card).kind === "free") {
      return s.sel?.station ? { stations: [s.sel.station], transfer: null, line: null } : null;
    }
    const lineId = this.hover && this.#legal({ line: this.hover }) ? this.hover : s.sel?.line;
    if (!lineId) return null;
    return { ...s.effect(lineId), line: lineId };
  }

  #paintHints() {
    const s = this.state;
    this.gHints.replaceChildren();
    if (!s.hints.length || !s.choosing) return;
    for (const h of s.hints) {
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
      g.addEventListener("click", () => this.on.select(h.move));
    }
    for (const [id, el] of this.lineEls) {
      if (!s.hints.some((h) => h.move?.line === id)) el.path.classList.remove("hinted");
    }
  }

  /** A chosen move brought into sight when the map shows only part of itself (a phone): the
   *  stations the card would fill on its line, or its station, unless they are in sight. */
  showMove(move) {
    const v = this.mapView;
    const s = this.state;
    if (!v?.s || !this.index || !s || move.pass) return;
    let ids = [move.station];
    if (move.line) {
      const fill = s.own !== null ? s.effect(move.line).stations : [];
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

  // ---- the keyboard on the map -----------------------------------------------------------------

  /** What the cursor may visit: the lines (by their label) or, with a free card, the stations. */
  #cursorTargets() {
    if (!this.index || !this.state?.choosing) return [];
    const out = [];
    for (const m of this.state.moves) {
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
    const same = (x) => this.cursor && ((x.line && x.line === this.cursor.line) || (x.station && x.station === this.cursor.station));
    const next = cursorStep(targets, targets.find(same) || null, key, (x) => sameMove(x, this.state?.sel));
    this.cursor = next ? (next.line ? { line: next.line } : { station: next.station }) : null;
    this.hoverLine(this.cursor?.line || null);
    this.#paintCursor();
    if (key || next) this.on.announce(this.#cursorWords());
  }

  #cursorWords() {
    const k = this.cursor;
    const s = this.state;
    if (!k) return s?.canChoose ? "" : t("metrox.nothing_now");
    if (k.line) {
      const line = this.index.lines.get(k.line);
      const eff = s.effect(k.line);
      const fills = eff.transfer !== null && eff.stations.length ? t("metrox.fills_transfer", { value: eff.transfer }) : t("metrox.fills_stations", { count: eff.stations.length });
      const marks = s.ownSheet.windows[k.line] || [];
      return t(sameMove(s.sel, k) ? "metrox.cursor_line_selected" : "metrox.cursor_line", { line: k.line, name: line?.name || "", fills, used: marks.length, windows: line?.windows });
    }
    return t(sameMove(s.sel, k) ? "metrox.cursor_station_selected" : "metrox.cursor_station", { station: this.index.stations.get(k.station)?.name || k.station });
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
        this.on.select(k.line ? { line: k.line } : { station: k.station });
        this.on.announce(sameMove(this.state?.sel, k) && !this.state?.busy ? this.#cursorWords() : "");
      },
      escape: () => this.on.clear(),
    });
  }
}
