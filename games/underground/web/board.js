// On the Underground's board, chessground's way (issue 31.3): the map on a screen, drawn and taking
// input given the page's state and the legal rails. It draws through draw.js and adds what a
// screen needs (issue 19): pan and zoom (MapView, the zoom buttons), the first view, station
// names laid out for the zoom, taps that snap to the nearest station that can be chosen, the
// keyboard cursor over those stations, and the finder that picks one by name. It holds no game
// state: it asks the page (`now()`) and hands every choice back (`pick`, `lay`).

import { MapView, cursorKey, cursorStep, html, svg } from "/kit.js";
import { t } from "/i18n.js";
import { MapDrawing, SCALE } from "./draw.js";
import { Finder } from "./finder.js";
import { cw, gainWords } from "./words.js";

const ZOOM_STEP = 1.6; // one press of + or -
const MAX_SCALE = 4; // screen px per svg unit at the most: a station's disc 20 px across
const REACH_PX = 30; // a tap this near a station that can be chosen picks it (a 60 px target)
const ON_PX = 12; // a tap this near any station is on it

let mapPromise = null;

/** The map (§1), once per page: POST /api/rules {"op": "map"}. */
export function loadMap() {
  if (!mapPromise) {
    mapPromise = fetch("/api/rules", {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ op: "map", game: "underground" }),
    })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(t("underground.map_http", { status: r.status })))))
      .then((m) => {
        if (!m || !Array.isArray(m.stations)) throw new Error(m?.error || t("underground.map_none"));
        return m;
      })
      .catch((err) => {
        mapPromise = null;
        throw err;
      });
  }
  return mapPromise;
}

export class Board {
  /**
   * parent: where the board goes. ctl: the page's side: now() -> its state (view, phase, busy,
   * sel, legalRails, candidates, preview(r), scene, myColours, hints, lanes, ...); pick(id): a
   * station was chosen; lay(r, {now}): a rail was chosen; announce(text): words for a screen reader.
   */
  constructor(parent, ctl) {
    this.parent = parent;
    this.ctl = ctl;
    this.drawing = null;
    this.svg = null;
    this.mapView = null;
    this.fitted = false; // the first view was chosen
    this.way = null; // the route choice under the pointer ("to|lines")
    this.cursor = null; // the keyboard cursor: a station id
    this.root = html("div", { className: "ug-board" });
    this.tools = html("div", { className: "ug-tools", role: "group", "aria-label": t("underground.zoom") }, this.root);
    this.zoomOut = html("button", { type: "button", className: "ug-zoom-out small", "aria-label": t("underground.zoom_out"), title: t("underground.zoom_out") }, this.tools, "−");
    this.zoomIn = html("button", { type: "button", className: "ug-zoom-in small", "aria-label": t("underground.zoom_in"), title: t("underground.zoom_in") }, this.tools, "+");
    this.zoomAll = html("button", { type: "button", className: "ug-zoom-all small", "aria-label": t("underground.whole_map"), title: t("underground.whole_map") }, this.tools, "⤢");
    this.zoomOut.addEventListener("click", () => this.#setZoom(-1));
    this.zoomIn.addEventListener("click", () => this.#setZoom(1));
    this.zoomAll.addEventListener("click", () => this.fitAll());
    this.finder = new Finder(this.root, {
      label: t("underground.find_label"),
      prefix: "ug-find",
      options: () => this.#finderOptions(),
      onPick: (id) => this.#pickByName(id),
    });
    this.finder.hidden = true;
    // On a touch screen one finger scrolls the page, two move the map: the hint says so.
    this.touchHint = html("p", { className: "ug-touch-hint", id: "ug-touch-hint" }, this.root, t("underground.two_fingers"));
    this.scroll = html("div", { className: "ug-scroll" }, this.root);
    this.loading = html("p", { className: "ug-loading" }, this.scroll, t("underground.map_loading"));
    parent.appendChild(this.root);
  }

  /** Gone from the page (unmounted before the map came). */
  get detached() {
    return !this.root.isConnected && !this.parent.contains(this.root);
  }

  /** The map could not be loaded: say why where it would be. */
  failed(message) {
    this.loading.textContent = message;
  }

  /** The map came: its picture, its keys, pan and zoom. */
  build(index) {
    this.index = index;
    const d = new MapDrawing(index, (r) => this.ctl.lay(r));
    const map = d.svg;
    map.addEventListener("keydown", (ev) => this.#mapKey(ev));
    // The keyboard's cursor, not a press of the mouse or a finger (which would move the map).
    map.addEventListener("focus", () => map.matches(":focus-visible") && this.#moveCursor(null));
    map.addEventListener("blur", () => this.#paintCursor());
    this.drawing = d;
    this.svg = map;
    this.loading.remove();
    this.scroll.appendChild(map);
    // Pan and zoom by the viewBox; a tap picks the nearest station that can be chosen.
    this.mapView = new MapView(map, {
      bounds: { x: 0, y: 0, w: d.w, h: d.h },
      maxScale: MAX_SCALE,
      onChange: () => this.#onCamera(),
      onTap: (ev, at) => this.#onTap(at),
      onReady: () => this.#firstView(),
      cooperative: true,
      onOneFinger: () => this.#nudge(),
    });
    map.setAttribute("aria-describedby", `${map.getAttribute("aria-describedby") || ""} ${this.touchHint.id}`.trim());
  }

  /** A finger slid over the map and the page scrolled: the hint stands out a moment. */
  #nudge() {
    this.touchHint.classList.add("nudged");
    clearTimeout(this.nudgeTimer);
    this.nudgeTimer = setTimeout(() => this.touchHint.classList.remove("nudged"), 1600);
  }

  /** Draw the page's state now. */
  draw() {
    if (!this.svg) return;
    const st = this.ctl.now();
    if (!st.view) return;
    this.drawing.draw(st);
    this.#highlights(st);
    this.#paintCursor();
    this.#renderFinder(st);
    this.#firstView();
    this.#layoutLabels();
  }

  /** The route choice under the pointer ("to|lines", or null): its card lights up on the map. */
  hover(way) {
    if (way === this.way) return;
    this.way = way;
    if (this.svg) this.#highlights(this.ctl.now());
  }

  /** The hints changed, or the pointer left a route choice: draw the highlights again. */
  #highlights(st) {
    this.drawing.highlights(st.hints, st.replaying ? null : st.lanes, this.way);
  }

  /** The whole map, every line in sight. */
  fitAll() {
    this.mapView?.fitAll({ animate: true });
  }

  destroy() {
    this.mapView?.destroy();
    clearTimeout(this.labelTimer);
    this.root.remove();
  }

  #xy(id) {
    return this.drawing.xy(id);
  }

  /** One step in (+1) or out (-1), around the map's centre. */
  #setZoom(dir) {
    const v = this.mapView;
    if (!v) return;
    // around the chosen station when there is one in sight, else around the middle
    const from = this.ctl.now().sel.from;
    let at = null;
    if (from && this.index.byId.has(from)) {
      const p = v.toScreen(...this.#xy(from));
      const r = this.svg.getBoundingClientRect();
      if (p.x > r.left && p.x < r.right && p.y > r.top && p.y < r.bottom) at = p;
    }
    v.zoomBy(dir > 0 ? ZOOM_STEP : 1 / ZOOM_STEP, at?.x ?? null, at?.y ?? null, true);
  }

  /** The chosen station and where its rail may go, brought into sight (zooming out only when
   *  they would not fit). */
  showChoice() {
    const v = this.mapView;
    const st = this.ctl.now();
    const from = st.sel.from;
    if (!v?.s || !from || !this.index.byId.has(from)) return;
    const pts = [from, ...st.candidates.map((r) => (r.a === from ? r.b : r.a))].map((id) => this.#xy(id));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const box = { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
    const fits = Math.min((v.size.w - 60) / Math.max(box.x1 - box.x0, 1), (v.size.h - 60) / Math.max(box.y1 - box.y0, 1));
    const s = Math.min(v.s, fits);
    // the least move that brings them 30 px inside the edges
    const m = 30 / s;
    const half = { w: v.size.w / s / 2, h: v.size.h / s / 2 };
    const shift = (c, lo, hi, h) => (lo < c - h + m ? lo - m + h : hi > c + h - m ? hi + m - h : c);
    const cx = shift(v.cx, box.x0, box.x1, half.w);
    const cy = shift(v.cy, box.y0, box.y1, half.h);
    if (cx !== v.cx || cy !== v.cy || s !== v.s) v.centreOn(cx, cy, s);
  }

  /** The first view, once: what matters now (the passenger, the face-up destinations, the
   *  viewer's own rails), at a scale where stations can be told apart. */
  #firstView() {
    const v = this.mapView;
    if (this.fitted || !v?.s) return;
    const st = this.ctl.now();
    if (!st.view || !st.index) return;
    this.fitted = true;
    const scene = st.scene;
    const ids = [scene.passenger, ...scene.faceUp];
    const mine = new Set(st.myColours);
    for (const r of scene.rails) if (mine.has(r.colour)) ids.push(r.a, r.b);
    const pts = ids.filter((id) => id && this.index.byId.has(id)).map((id) => this.#xy(id));
    if (!pts.length) {
      v.fitAll();
      return;
    }
    const pad = 3 * SCALE;
    let [x0, x1] = [Math.min(...pts.map((p) => p[0])) - pad, Math.max(...pts.map((p) => p[0])) + pad];
    let [y0, y1] = [Math.min(...pts.map((p) => p[1])) - pad, Math.max(...pts.map((p) => p[1])) + pad];
    const least = 28 * SCALE; // never closer than 28 map units across
    if (x1 - x0 < least) [x0, x1] = [(x0 + x1 - least) / 2, (x0 + x1 + least) / 2];
    if (y1 - y0 < least * 0.6) [y0, y1] = [(y0 + y1 - least * 0.6) / 2, (y0 + y1 + least * 0.6) / 2];
    // A small screen keeps stations a finger apart: it shows part of the map, around the passenger.
    const legible = Math.min(0.55, v.maxScale);
    const fits = Math.min(v.size.w / (x1 - x0), v.size.h / (y1 - y0));
    if (fits < legible && scene.passenger && this.index.byId.has(scene.passenger)) {
      const [px, py] = this.#xy(scene.passenger);
      v.centreOn(px, py, legible, false);
    } else v.fit({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, { maxScale: 1.6 });
  }

  /** After every pan or zoom: the buttons, the stations' sizes on screen, the names. */
  #onCamera() {
    const v = this.mapView;
    if (!v?.s) return;
    this.zoomIn.disabled = !v.canZoomIn;
    this.zoomOut.disabled = !v.canZoomOut;
    this.drawing.sizeDiscs(v.s);
    // Names are placed again once the map rests (they scale with it meanwhile): a pinch or a
    // wheel stays smooth on a slow phone.
    // data-names: "pending", then "placed" once laid out (what a test waits for).
    clearTimeout(this.labelTimer);
    if (this.svg) this.svg.dataset.names = "pending";
    this.labelTimer = setTimeout(() => {
      this.#layoutLabels();
      if (this.svg) this.svg.dataset.names = "placed";
    }, 80);
  }

  /** Station names: the chosen station and its targets first, then the passenger's, the face-up
   *  cards (draw.js places them). */
  #layoutLabels() {
    const v = this.mapView;
    if (!v?.s || !this.drawing) return;
    const st = this.ctl.now();
    const scene = st.view ? st.scene : { faceUp: [], passenger: null };
    const from = st.sel.from;
    const first = new Set([from, scene.passenger, ...scene.faceUp]);
    if (from) for (const r of st.candidates) first.add(r.a === from ? r.b : r.a);
    this.drawing.layoutLabels(v.s, v.visible, first);
  }

  /** A tap on the map: the nearest station that can be chosen within a finger's reach. */
  #onTap(at) {
    const st = this.ctl.now();
    if (st.phase !== "build" || st.busy || !this.mapView) return false;
    const id = this.#snap(st, at.x, at.y);
    if (!id) return false; // a candidate rail's own listener may take it
    this.ctl.pick(id);
    return true;
  }

  /** The station a tap at (cx, cy) means: one that can be chosen right under the finger, else
   *  the nearest of the chosen line's next stations within reach, else of any that can be
   *  chosen, else whatever station is right there (the page then says why not). */
  #snap(st, cx, cy) {
    const v = this.mapView;
    const { colour, from } = st.sel;
    const mine = new Set(st.myColours);
    const next = new Set();
    const legal = new Set(from ? [from] : []);
    for (const r of st.legalRails) {
      if (!mine.has(r.colour)) continue;
      legal.add(r.a);
      legal.add(r.b);
      if (from && r.colour === colour) {
        if (r.a === from) next.add(r.b);
        if (r.b === from) next.add(r.a);
      } else if (!from && (!colour || r.colour === colour)) {
        next.add(r.a);
        next.add(r.b);
      }
    }
    const near = (ids, within) => {
      let best = null;
      let bd = within;
      for (const id of ids) {
        const p = v.toScreen(...this.#xy(id));
        const d = Math.hypot(p.x - cx, p.y - cy);
        if (d <= bd) [best, bd] = [id, d];
      }
      return best;
    };
    return near(legal, ON_PX) || near(next, REACH_PX) || near(legal, REACH_PX) || near(this.index.byId.keys(), ON_PX);
  }

  /** The stations the finder offers: where a rail may start, or, from a chosen station, where
   *  the chosen line may go (with the points it would score). */
  #finderOptions() {
    const st = this.ctl.now();
    if (st.phase !== "build" || st.busy || !this.index) return [];
    const { colour, from } = st.sel;
    const mine = new Set(st.myColours);
    const n = (id) => this.index.name(id);
    const out = new Map();
    for (const r of st.legalRails) {
      if (!mine.has(r.colour)) continue;
      if (from) {
        if (r.colour !== colour || (r.a !== from && r.b !== from)) continue;
        const to = r.a === from ? r.b : r.a;
        out.set(to, { id: to, name: n(to), note: gainWords(st.preview(r), this.index).split(":")[0] });
      } else if (!colour || r.colour === colour) {
        for (const id of [r.a, r.b]) if (!out.has(id)) out.set(id, { id, name: n(id), note: "" });
      }
    }
    return [...out.values()];
  }

  #pickByName(id) {
    if (this.index?.byId.has(id)) {
      const [x, y] = this.#xy(id);
      this.mapView?.ensureVisible(x, y, 60);
    }
    this.ctl.pick(id);
  }

  #renderFinder(st) {
    const build = st.phase === "build" && !!this.svg;
    this.finder.hidden = !build;
    if (!build) return;
    this.finder.placeholder = st.sel.from
      ? t("underground.find_to", { station: this.index.name(st.sel.from) })
      : t("underground.find_start");
    this.finder.refresh();
  }

  // ---- the keyboard on the map -----------------------------------------------------------------

  /** The rail of the chosen line from the chosen station to `id`, if one may be laid. */
  #railTo(st, id) {
    const { colour, from } = st.sel;
    if (!from || id === from) return null;
    return st.legalRails.find((x) => x.colour === colour && ((x.a === from && x.b === id) || (x.b === from && x.a === id))) || null;
  }

  /** The stations the cursor may visit: where a rail of the chosen line may start, or, once one
   *  is chosen, where it may go. */
  #cursorTargets(st) {
    if (st.phase !== "build" || st.busy || !this.svg) return [];
    const { colour, from } = st.sel;
    const ids = new Set();
    for (const r of st.legalRails) {
      if (colour && r.colour !== colour) continue;
      if (from) {
        if (r.a === from) ids.add(r.b);
        if (r.b === from) ids.add(r.a);
      } else {
        ids.add(r.a);
        ids.add(r.b);
      }
    }
    if (from) ids.add(from);
    return [...ids].map((id) => {
      const [x, y] = this.#xy(id);
      return { id, x, y };
    });
  }

  #moveCursor(key) {
    const st = this.ctl.now();
    const targets = this.#cursorTargets(st);
    const at = targets.find((c) => c.id === this.cursor) || null;
    const next = cursorStep(targets, at, key, (c) => c.id !== st.sel.from);
    this.cursor = next ? next.id : null;
    this.#paintCursor();
    if (next) this.ctl.announce(this.#cursorWords(st, next.id));
    else if (key) this.ctl.announce(st.phase === "build" ? t("underground.pick_line_first") : t("underground.nothing_to_lay"));
  }

  #cursorWords(st, id) {
    const { colour, from } = st.sel;
    const n = (s) => this.index.name(s);
    const name = this.drawing.stationEls.get(id)?.getAttribute("aria-label") || n(id);
    const r = this.#railTo(st, id);
    if (r) return t("underground.cursor_rail", { station: name, colour: cw(colour), from: n(from), gains: gainWords(st.preview(r), this.index) });
    if (id === from) return t("underground.cursor_from", { station: name });
    return t("underground.cursor_start", { station: name, colour: cw(colour) });
  }

  #paintCursor() {
    if (!this.drawing) return;
    const g = this.drawing.layers.cursor;
    g.replaceChildren();
    const focused = document.activeElement === this.svg && this.svg.matches(":focus-visible");
    if (!focused || !this.cursor || !this.index.byId.has(this.cursor)) {
      this.svg?.removeAttribute("aria-activedescendant");
      return;
    }
    const [x, y] = this.#xy(this.cursor);
    const r = Math.max(7, 14 / (this.mapView?.s || 1));
    svg("circle", { class: "ug-cursor-halo", cx: x, cy: y, r }, g);
    svg("circle", { class: "ug-cursor", cx: x, cy: y, r }, g);
    this.svg.setAttribute("aria-activedescendant", `ug-st-${this.cursor}`);
    this.mapView?.ensureVisible(x, y); // keep the cursor in sight when the map is zoomed
  }

  #mapKey(ev) {
    cursorKey(ev, {
      move: (key) => this.#moveCursor(key),
      act: () => {
        if (!this.cursor) return false;
        const id = this.cursor;
        const r = this.#railTo(this.ctl.now(), id);
        // The cursor already shows the rail and its points: Enter lays it.
        if (r) this.ctl.lay(r, { now: true });
        else this.ctl.pick(id);
        this.#moveCursor(null);
      },
      other: (key) => {
        // The zoom keys leave the key's default alone, as they always did.
        if (key === "+" || key === "=") this.#setZoom(1);
        else if (key === "-") this.#setZoom(-1);
        return false;
      },
    });
  }
}
