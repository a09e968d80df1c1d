// On the Underground's page module (RULES-UNDERGROUND.md): London drawn as an Underground diagram
// (sections with their 1-3 spaces, rails in line colours, termini, national rail, connection
// tokens, destinations, the passenger and the face-up cards), building a turn rail by rail with a
// preview of what each candidate rail scores, ending the building, choosing the passenger's way
// among ties, the AI's hints, every seat's score breakdown and the replay of a finished game.
// The shell owns the status line, scores, join, hint button and replay buttons.

import { aiForPerson, confirmMoves, confirmToggle, cursorKey, cursorStep, ensureStylesheet, html, MapView,
  MoveLog, moverWords, reducedMotion, seatGlyph, seatGlyphName, seatLabel,
  seatSymbol, signedValue, svg, tableEntries } from "/kit.js";
import {
  COLOURS,
  LINE_HEX,
  MapIndex,
  Network,
  analyse,
  gainWords,
  lineDash,
  ownerOf,
  replayPositions,
  secKey,
  sumPoints,
} from "./board.js";
import { has, t } from "/i18n.js";
import { Finder } from "./finder.js";

/** A line's colour in the page's language ("red" -> "piros"). */
const cw = (c) => (has(`underground.colour.${c}`) ? t(`underground.colour.${c}`) : String(c ?? ""));
/** The map's name in the page's language ("London" -> "Londres"): the lobby's map choice words. */
const mapWord = (m) => (has(`underground.option.map.choice.${m?.id}`) ? t(`underground.option.map.choice.${m.id}`) : m?.name || "");
/** The lines a leg rides, in words ("red + blue"), or on foot. */
const riding = (lines) => (lines?.length ? lines.map(cw).join(" + ") : "");

const SCALE = 12; // svg units per map unit
const PAD = 4; // map units around the stations
const SLOT_GAP = 3.4; // between the parallel spaces of a section
const ZOOM_STEP = 1.6; // one press of + or -
const MAX_SCALE = 4; // screen px per svg unit at the most: a station's disc 20 px across
const LABEL_PX = 12.5; // station names on screen, whatever the zoom
const REACH_PX = 30; // a tap this near a station that can be chosen picks it (a 60 px target)
const ON_PX = 12; // a tap this near any station is on it
const SYMBOL_HEX = { a: "#6a1b9a", b: "#00838f", c: "#d84315", d: "#2e7d32" };
// Stations named first (when names would overlap, these keep theirs; zoomed in, all are named).
const MAJOR = new Set([
  "euston",
  "kings_cross_st_pancras",
  "paddington",
  "victoria",
  "waterloo",
  "bank",
  "oxford_circus",
  "liverpool_street",
  "hammersmith",
  "stratford",
  "wimbledon",
  "brixton",
  "ealing_broadway",
  "richmond",
  "morden",
  "golders_green",
  "wembley_park",
  "walthamstow_central",
  "highgate",
  "north_greenwich",
  "elephant_and_castle",
  "canary_wharf",
  "london_bridge",
  "clapham_junction",
]);

let mapPromise = null;

/** The map (§1), once per page: POST /api/rules {"op": "map"}. */
function loadMap() {
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




const DARK_LINES = new Set(["blue", "purple", "black", "green", "brown"]);

/** A small line-colour swatch as SVG (colours go in attributes, never in style attributes),
 *  crossed by its line's dash pattern (`dash`, none when solid) as the map draws it. */
function swatch(colour, parent, size = 14, dash = "") {
  const root = svg("svg", { class: "ug-swatch", viewBox: "0 0 14 14", width: size, height: size, "aria-hidden": "true" }, parent);
  svg("rect", { x: 1, y: 1, width: 12, height: 12, rx: 3, fill: LINE_HEX[colour] || "#888", stroke: "#1c1c1c", "stroke-width": 1 }, root);
  if (dash) {
    const ink = DARK_LINES.has(colour) ? "#ffffff" : "#1c1c1c";
    const small = dash.split(" ").map((n) => (Number(n) / 2).toString()).join(" ");
    svg("line", { x1: 2.5, y1: 7, x2: 11.5, y2: 7, stroke: ink, "stroke-width": 2, "stroke-dasharray": small, class: "ug-swatch-dash" }, root);
  }
  return root;
}

function destIcon(kind, parent) {
  const root = svg("svg", { class: "ug-dest-icon", viewBox: "0 0 14 14", width: 14, height: 14, "aria-hidden": "true" }, parent);
  svg("circle", { cx: 7, cy: 7, r: 5.5, fill: kind === "express" ? "#f2b705" : "#fff", stroke: "#1c1c1c", "stroke-width": 1.4 }, root);
  return root;
}

const seatName = (view, i) => {
  const s = view?.seats?.[i];
  return s ? seatLabel(s, i) : t("seat.player", { n: i + 1 });
};

const railMove = (r) => ({ step: "rail", colour: r.colour, a: r.a, b: r.b });

function plainMove(m) {
  const src = m?.move && typeof m.move === "object" ? m.move : m;
  if (!src || typeof src !== "object") return null;
  if (src.step === "rail") return railMove(src);
  if (src.step === "stop") return { step: "stop" };
  if (src.step === "route") return { step: "route", to: src.to, lines: [...(src.lines || [])] };
  return null;
}

export function mount(parts, host) {
  return new UndergroundPage(parts, host);
}

class UndergroundPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.parts = parts;
    this.host = host;
    this.view = null;
    this.legal = [];
    this.index = null;
    this.analysis = null;
    this.sel = { colour: null, from: null };
    this.hints = [];
    this.busy = false;
    this.replayScene = null; // a replay position shown instead of the live view
    this.mapView = null;
    this.fitted = false; // the first view was chosen
    this.hoverWay = null;
    this.turnKey = null;
    this.lastSent = null;

    this.root = html("div", { className: "ug-board" });
    this.tools = html("div", { className: "ug-tools", role: "group", "aria-label": t("underground.zoom") }, this.root);
    this.zoomOut = html("button", { type: "button", className: "ug-zoom-out small", "aria-label": t("underground.zoom_out"), title: t("underground.zoom_out") }, this.tools, "−");
    this.zoomIn = html("button", { type: "button", className: "ug-zoom-in small", "aria-label": t("underground.zoom_in"), title: t("underground.zoom_in") }, this.tools, "+");
    this.zoomAll = html("button", { type: "button", className: "ug-zoom-all small", "aria-label": t("underground.whole_map"), title: t("underground.whole_map") }, this.tools, "⤢");
    this.zoomOut.addEventListener("click", () => this.#setZoom(-1));
    this.zoomIn.addEventListener("click", () => this.#setZoom(1));
    this.zoomAll.addEventListener("click", () => this.mapView?.fitAll({ animate: true }));
    this.finder = new Finder(this.root, {
      label: t("underground.find_label"),
      prefix: "ug-find",
      options: () => this.#finderOptions(),
      onPick: (id) => this.#pickByName(id),
    });
    this.finder.hidden = true;
    this.scroll = html("div", { className: "ug-scroll" }, this.root);
    this.loading = html("p", { className: "ug-loading" }, this.scroll, t("underground.map_loading"));
    parts.board.appendChild(this.root);

    this.controls = html("div", { className: "ug-controls", "data-phase": "loading", "data-busy": "false" });
    parts.controls.appendChild(this.controls);
    // Kept outside the controls the page redraws: the move log, its live region, the setting.
    this.after = html("div", { className: "ug-after" }, parts.controls);
    this.log = new MoveLog(this.after);
    this.logged = null; // how many of the view's events the log has
    this.arrive = new Set(); // rails to fade in ("colour|a|b")
    this.proposed = null; // a rail waiting for its confirmation
    this.confirm = confirmMoves();
    this.cursor = null; // the keyboard cursor: a station id
    const settings = html("div", { className: "ug-settings" }, this.after);
    const box = confirmToggle(settings, (on) => {
      this.confirm = on;
      this.proposed = null;
      this.#render();
    });
    box.id = "confirm-moves";
    this.settings = settings;
    html("p", { id: "ug-map-keys", className: "visually-hidden" }, this.after,
      t("underground.keys"));
    this.controls.addEventListener("click", (ev) => this.#onControlClick(ev));
    this.controls.addEventListener("pointerover", (ev) => this.#onControlHover(ev, true));
    this.controls.addEventListener("pointerout", (ev) => this.#onControlHover(ev, false));

    this.onKey = (ev) => {
      if (ev.key === "Escape" && (this.sel.from || this.sel.colour || this.proposed)) {
        if (this.proposed) this.proposed = null;
        else this.sel.from = null;
        this.#render();
      }
    };
    document.addEventListener("keydown", this.onKey);

    loadMap().then(
      (map) => {
        if (!this.root.isConnected && !this.parts.board.contains(this.root)) return;
        this.index = new MapIndex(map);
        this.#buildSvg();
        if (this.view) {
          this.#analyse();
          this.#keepSelection(); // a view that came before the map: its line is chosen now
        }
        this.#render();
      },
      (err) => {
        this.loading.textContent = t("underground.map_failed", { reason: err.message });
        this.host.notify(t("underground.map_failed", { reason: err.message }), "error");
      },
    );
  }

  // ---- the shell's interface -----------------------------------------------------------------

  update(view, legal) {
    const changed = !this.view || this.view.version !== view.version;
    const before = this.view;
    this.view = view;
    this.legal = Array.isArray(legal) ? legal : [];
    if (changed) {
      this.#analyse();
      this.#keepSelection();
      this.proposed = null;
      this.#follow(before, view);
    }
    this.#render();
    if (changed) this.#showChoice();
    // the game's end: the whole map, every line in sight
    if (view.status === "over" && before && before.status !== "over") this.mapView?.fitAll({ animate: true });
    this.arrive = new Set();
  }

  showHints(suggestions) {
    this.hints = Array.isArray(suggestions) ? suggestions : [];
    this.#render();
  }

  /** A move object in words (the post-game analysis says moves with it): the rail laid, the
   * end of building, or the passenger's ride; stations by their names, never their ids. */
  moveWords(move) {
    if (!this.index) return "";
    if (move?.step === "rail") return t("underground.laid", { rails: `${cw(move.colour)} ${this.#n(move.a)}–${this.#n(move.b)}` });
    if (move?.step === "stop") return t("underground.end_building");
    if (move?.step === "route") {
      return move.lines?.length
        ? t("underground.leg_by", { station: this.#n(move.to), lines: riding(move.lines) })
        : t("underground.leg_on_foot", { station: this.#n(move.to) });
    }
    return "";
  }

  replay(record, view) {
    const positions = this.index ? replayPositions(this.index, record) : null;
    const names = (i) => record.seats?.[i]?.name || seatName(view, i);
    const length = (record.moves || []).length;
    return {
      length,
      moveWords: (move) => this.moveWords(move),
      describe: (i) => {
        if (i <= 0) return t("underground.replay_start", { station: this.index?.name(this.index.map.start) || "Euston" });
        const m = record.moves[i - 1];
        const rails = (m.rails || []).map((r) => `${cw(r.colour)} ${this.#n(r.a)}–${this.#n(r.b)}`).join(", ");
        const route = (m.route || []).map((l) => (l.lines.length
          ? t("underground.leg_by", { station: this.#n(l.to), lines: riding(l.lines) })
          : t("underground.leg_on_foot", { station: this.#n(l.to) }))).join(t("underground.then"));
        const built = rails ? t("underground.laid", { rails }) : t("underground.laid_none");
        return t(route ? "underground.replay_turn_route" : "underground.replay_turn", { turn: i, name: names(m.seat), built, route });
      },
      show: (i) => {
        const all = positions || (this.index ? replayPositions(this.index, record) : null);
        if (!all) return;
        if (i >= length) {
          this.replayScene = null;
        } else {
          const p = all[Math.max(0, i)];
          const net = new Network(this.index, record.connections);
          for (const r of p.rails) net.lay(r.colour, r.a, r.b);
          this.replayScene = { ...p, net, connections: record.connections, index: i, length, names };
        }
        this.#render();
      },
      // Every seat's points after move i, so the shell's score table follows the replay.
      scores: (i) => {
        const all = positions || (this.index ? replayPositions(this.index, record) : null);
        return all ? all[Math.max(0, Math.min(length, i))]?.scores ?? null : null;
      },
    };
  }

  unmount() {
    document.removeEventListener("keydown", this.onKey);
    this.mapView?.destroy();
    clearTimeout(this.labelTimer);
    this.root.remove();
    this.controls.remove();
  }

  // ---- state ---------------------------------------------------------------------------------

  #n(id) {
    return this.index ? this.index.name(id) : id;
  }

  #analyse() {
    if (!this.index || !this.view) return;
    this.analysis = analyse(this.index, this.view);
  }

  get #mySeat() {
    const s = this.host.seat;
    return s === null || s === undefined ? null : s;
  }

  get #phase() {
    const v = this.view;
    if (this.replayScene) return "replay";
    if (!v || !this.index) return "loading";
    if (v.status === "over") return "over";
    if (v.status !== "playing") return "waiting";
    const me = this.#mySeat;
    if (me === null || !(v.to_move || []).includes(me) || !this.legal.length) return "watch";
    return v.turn?.step === "route" ? "route" : "build";
  }

  get #legalRails() {
    return this.legal.filter((m) => m.step === "rail");
  }

  get #myColours() {
    const v = this.view;
    const me = this.#mySeat;
    return me !== null && v?.seats?.[me]?.colours ? v.seats[me].colours : [];
  }

  /** After a view change: keep the colour; continue from where the last rail ended if it can. */
  #keepSelection() {
    const rails = this.#legalRails;
    if (this.#phase !== "build") {
      this.sel = { colour: this.sel.colour, from: null };
      return;
    }
    const { colour } = this.sel;
    const touches = (c, s) => rails.some((r) => r.colour === c && (r.a === s || r.b === s));
    if (this.lastSent && this.lastSent.colour === colour) {
      const next = this.lastSent.to;
      this.sel.from = touches(colour, next) ? next : null;
    } else if (this.sel.from && !touches(colour, this.sel.from)) {
      this.sel.from = null;
    }
    this.lastSent = null;
    if (!colour || !rails.some((r) => r.colour === colour)) {
      this.sel.colour = this.#myColours.find((c) => rails.some((r) => r.colour === c)) || null;
      this.sel.from = null;
    }
  }

  /** The candidate rails to draw: of the chosen colour, from the chosen station if any. */
  #candidates() {
    if (this.#phase !== "build" || this.busy) return [];
    const { colour, from } = this.sel;
    if (!colour) return [];
    // A line with no rail yet could start anywhere: draw its rails once a station is chosen.
    if (!from && !(this.analysis?.net.railCount(colour) > 0)) return [];
    return this.#legalRails.filter((r) => r.colour === colour && (!from || r.a === from || r.b === from));
  }

  #preview(r) {
    if (!this.analysis) return [];
    return this.analysis.net.preview(r.colour, r.a, r.b);
  }

  // ---- sending -------------------------------------------------------------------------------

  async #send(move, note = null) {
    if (this.busy) return false;
    this.busy = true;
    this.#render();
    let ok = false;
    try {
      ok = await this.host.send(move);
    } finally {
      this.busy = false;
    }
    if (ok && note) this.host.notify(note, "ok");
    this.#render();
    return ok;
  }

  /** Lay rail r; with "Confirm moves", a first choice only shows it with its points. */
  async #layRail(r, { now = false } = {}) {
    if (this.confirm && !now) {
      const same = this.proposed && this.proposed.colour === r.colour && secKey(this.proposed.a, this.proposed.b) === secKey(r.a, r.b);
      if (!same) {
        this.proposed = r;
        this.#render();
        const to = this.sel.from && r.a === this.sel.from ? r.b : r.a;
        this.log.announce(t("underground.preview_again", { colour: cw(r.colour), from: this.#n(this.sel.from || r.a), to: this.#n(to === this.sel.from ? r.b : to), gains: gainWords(this.#preview(r), this.index) }));
        return;
      }
    }
    this.proposed = null;
    const from = this.sel.from && (r.a === this.sel.from || r.b === this.sel.from) ? this.sel.from : r.a;
    const to = from === r.a ? r.b : r.a;
    const gains = this.#preview(r);
    this.lastSent = { colour: r.colour, to };
    // The line's colour in words of the page's language (the English id showed in hu/fr/es).
    const ok = await this.#send(railMove(r), `${cw(r.colour)} ${this.#n(from)}–${this.#n(to)}: ${gainWords(gains, this.index)}`);
    if (!ok) this.lastSent = null;
  }

  #onStation(id) {
    if (this.#phase !== "build" || this.busy) return;
    const rails = this.#legalRails;
    const { colour, from } = this.sel;
    if (from && from !== id) {
      const r = rails.find((x) => x.colour === colour && ((x.a === from && x.b === id) || (x.b === from && x.a === id)));
      if (r) {
        this.#layRail(r);
        return;
      }
    }
    if (from === id) {
      this.sel.from = null;
      this.#render();
      return;
    }
    const colours = this.#myColours.filter((c) => rails.some((r) => r.colour === c && (r.a === id || r.b === id)));
    if (!colours.length) {
      this.host.notify(t("underground.no_rail_from", { station: this.#n(id) }), "info");
      return;
    }
    this.sel.colour = colours.includes(colour) ? colour : colours[0];
    this.sel.from = id;
    this.host.notify("", "info");
    this.#render();
    this.#showChoice();
  }

  #onControlClick(ev) {
    const btn = ev.target.closest("button");
    if (!btn || btn.disabled || !this.controls.contains(btn)) return;
    const d = btn.dataset;
    if (d.action === "colour") {
      this.sel = { colour: d.colour, from: null };
      this.#render();
    } else if (d.action === "target") {
      const r = this.#legalRails.find((x) => x.colour === d.colour && secKey(x.a, x.b) === secKey(d.a, d.b));
      if (r) this.#layRail(r);
    } else if (d.action === "clear") {
      this.sel.from = null;
      this.proposed = null;
      this.#render();
    } else if (d.action === "confirm") {
      if (this.proposed) this.#layRail(this.proposed, { now: true });
    } else if (d.action === "cancel") {
      this.proposed = null;
      this.#render();
    } else if (d.action === "stop") {
      this.sel.from = null;
      this.#send({ step: "stop" });
    } else if (d.action === "way") {
      const m = this.legal.find((x) => x.step === "route" && x.to === d.to && (x.lines || []).join("+") === d.lines);
      if (m) this.#send({ step: "route", to: m.to, lines: [...(m.lines || [])] });
    } else if (d.action === "hint") {
      const h = this.hints[Number(d.rank)];
      const move = plainMove(h);
      if (move?.step === "rail") {
        const r = this.#legalRails.find((x) => x.colour === move.colour && secKey(x.a, x.b) === secKey(move.a, move.b));
        if (r) this.#layRail(r);
      } else if (move) this.#send(move);
    }
  }

  #onControlHover(ev, on) {
    const btn = ev.target.closest?.("[data-action='way']");
    const key = on && btn ? `${btn.dataset.to}|${btn.dataset.lines}` : null;
    if (key === this.hoverWay) return;
    this.hoverWay = key;
    this.#renderHighlights();
  }

  /** One step in (+1) or out (-1), around the map's centre. */
  #setZoom(dir) {
    const v = this.mapView;
    if (!v) return;
    // around the chosen station when there is one in sight, else around the middle
    let at = null;
    if (this.sel.from && this.index.byId.has(this.sel.from)) {
      const p = v.toScreen(...this.#xy(this.sel.from));
      const r = this.svg.getBoundingClientRect();
      if (p.x > r.left && p.x < r.right && p.y > r.top && p.y < r.bottom) at = p;
    }
    v.zoomBy(dir > 0 ? ZOOM_STEP : 1 / ZOOM_STEP, at?.x ?? null, at?.y ?? null, true);
  }

  /** The chosen station and where its rail may go, brought into sight (zooming out only when
   *  they would not fit). */
  #showChoice() {
    const v = this.mapView;
    const from = this.sel.from;
    if (!v?.s || !from || !this.index.byId.has(from)) return;
    const pts = [from, ...this.#candidates().map((r) => (r.a === from ? r.b : r.a))].map((id) => this.#xy(id));
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

  // ---- the map on a screen: pan, zoom, taps, names (issue 19) -----------------------------------

  /** The first view, once: what matters now (the passenger, the face-up destinations, the
   *  viewer's own rails), at a scale where stations can be told apart. */
  #firstView() {
    const v = this.mapView;
    if (this.fitted || !v?.s || !this.view || !this.index) return;
    this.fitted = true;
    const scene = this.#scene();
    const ids = [scene.passenger, ...scene.faceUp];
    const mine = new Set(this.#myColours);
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
    // A disc never shrinks below a few pixels, whatever the zoom (taps find stations by their
    // distance, #snap: the transparent targets stay small, never covering a neighbour's centre).
    this.discs ||= [...this.stationEls.values()].map((g) => g.querySelector(".ug-disc"));
    for (const disc of this.discs) {
      const base = Number(disc.dataset.r);
      disc.setAttribute("r", Math.max(base, (base > 3 ? 5 : 3.6) / v.s).toFixed(2));
    }
    // Names are placed again once the map rests (they scale with it meanwhile): a pinch or a
    // wheel stays smooth on a slow phone.
    clearTimeout(this.labelTimer);
    this.labelTimer = setTimeout(() => this.#layoutLabels(), 80);
  }

  /** Station names at LABEL_PX on screen, placed around their dots where they overlap nothing
   *  already named: the chosen station and its targets first, then the passenger's, the big
   *  stations, the destinations; zooming in makes room for every name. */
  #layoutLabels() {
    const v = this.mapView;
    if (!v?.s || !this.labelEls) return;
    const s = v.s;
    const size = LABEL_PX / s;
    const vis = v.visible;
    const scene = this.view ? this.#scene() : { faceUp: [], passenger: null };
    const first = new Set([this.sel.from, scene.passenger, ...scene.faceUp]);
    if (this.sel.from) for (const r of this.#candidates()) first.add(r.a === this.sel.from ? r.b : r.a);
    const rank = (st) => (first.has(st.id) ? 0 : MAJOR.has(st.id) || st.id === this.index.map.start ? 1 : st.destination ? 2 : st.terminus || st.rail ? 3 : 4);
    const order = [...this.index.stations].sort((a, b) => rank(a) - rank(b));
    const taken = [];
    const hits = (b) => taken.some((o) => b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1);
    // the dots themselves are not covered by names
    for (const st of this.index.stations) {
      const [x, y] = this.#xy(st.id);
      const r = Math.max(st.destination ? 3.7 : 2.5, 3.6 / s);
      taken.push({ x0: x - r, y0: y - r, x1: x + r, y1: y + r });
    }
    const gap = Math.max(4, 7 / s);
    const h = size * 1.05;
    for (const st of order) {
      const el = this.labelEls.get(st.id);
      const [x, y] = this.#xy(st.id);
      if (x < vis.x - gap || x > vis.x + vis.w + gap || y < vis.y - gap || y > vis.y + vis.h + gap) {
        el.setAttribute("visibility", "hidden");
        continue;
      }
      const w = st.name.length * size * 0.58;
      // right, left, below, above, then the four corners
      const spots = [
        [x + gap, y - h / 2, "start"], [x - gap - w, y - h / 2, "end"], [x - w / 2, y + gap, "middle"], [x - w / 2, y - gap - h, "middle"],
        [x + gap * 0.7, y + gap * 0.5, "start"], [x + gap * 0.7, y - gap * 0.5 - h, "start"],
        [x - gap * 0.7 - w, y + gap * 0.5, "end"], [x - gap * 0.7 - w, y - gap * 0.5 - h, "end"],
      ];
      let put = null;
      for (const [bx, by, anchor] of spots) {
        const box = { x0: bx, y0: by, x1: bx + w, y1: by + h };
        if (!hits(box)) {
          put = { box, anchor };
          break;
        }
      }
      if (!put && rank(st) === 0) put = { box: { x0: spots[0][0], y0: spots[0][1], x1: spots[0][0] + w, y1: spots[0][1] + h }, anchor: "start" };
      if (!put) {
        el.setAttribute("visibility", "hidden");
        continue;
      }
      taken.push(put.box);
      const tx = put.anchor === "start" ? put.box.x0 : put.anchor === "end" ? put.box.x1 : (put.box.x0 + put.box.x1) / 2;
      el.setAttribute("x", tx.toFixed(1));
      el.setAttribute("y", (put.box.y0 + size * 0.82).toFixed(1));
      el.setAttribute("text-anchor", put.anchor);
      el.setAttribute("font-size", size.toFixed(2));
      el.setAttribute("stroke-width", (3 / s).toFixed(2));
      el.setAttribute("visibility", "visible");
    }
  }

  /** A tap on the map: the nearest station that can be chosen within a finger's reach. */
  #onTap(ev) {
    if (this.#phase !== "build" || this.busy || !this.mapView) return false;
    const id = this.#snap(ev.clientX, ev.clientY);
    if (!id) return false; // a candidate rail's own listener may take it
    this.#onStation(id);
    return true;
  }

  /** The station a tap at (cx, cy) means: one that can be chosen right under the finger, else
   *  the nearest of the chosen line's next stations within reach, else of any that can be
   *  chosen, else whatever station is right there (the page then says why not). */
  #snap(cx, cy) {
    const v = this.mapView;
    const { colour, from } = this.sel;
    const mine = new Set(this.#myColours);
    const next = new Set();
    const legal = new Set(from ? [from] : []);
    for (const r of this.#legalRails) {
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
        const [x, y] = this.#xy(id);
        const p = v.toScreen(x, y);
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
    if (this.#phase !== "build" || this.busy || !this.index) return [];
    const { colour, from } = this.sel;
    const mine = new Set(this.#myColours);
    const out = new Map();
    for (const r of this.#legalRails) {
      if (!mine.has(r.colour)) continue;
      if (from) {
        if (r.colour !== colour || (r.a !== from && r.b !== from)) continue;
        const to = r.a === from ? r.b : r.a;
        out.set(to, { id: to, name: this.#n(to), note: gainWords(this.#preview(r), this.index).split(":")[0] });
      } else if (!colour || r.colour === colour) {
        for (const id of [r.a, r.b]) if (!out.has(id)) out.set(id, { id, name: this.#n(id), note: "" });
      }
    }
    return [...out.values()];
  }

  #pickByName(id) {
    if (this.index?.byId.has(id)) {
      const [x, y] = this.#xy(id);
      this.mapView?.ensureVisible(x, y, 60);
    }
    this.#onStation(id);
  }

  #renderFinder() {
    const build = this.#phase === "build" && !!this.svg;
    this.finder.hidden = !build;
    if (!build) return;
    this.finder.placeholder = this.sel.from
      ? t("underground.find_to", { station: this.#n(this.sel.from) })
      : t("underground.find_start");
    this.finder.refresh();
  }

  // ---- other players' moves ------------------------------------------------------------------

  /** Every rail and passenger ride of the game in order, in words, with its seat: from the
   *  game's events (the shell's host.events), which also say who laid each rail (the player,
   *  or the AI for them) and when seats timed out or came back; from the view's turns until the
   *  events have come. */
  #events(view) {
    const history = this.host.events;
    if (!history) return this.#viewEvents(view);
    const out = [];
    const gains = this.analysis?.railGains || [];
    const me = this.#mySeat;
    let k = 0;
    let laidThisTurn = 0;
    for (const event of history) {
      const seat = event.seat;
      if (!["rail", "stop", "route", "turn"].includes(event.action)) {
        out.push(...tableEntries(event, me, (p) => seatName(view, p)));
        continue;
      }
      const byAi = aiForPerson(event, view.seats);
      const by = event.by || undefined;
      const who = moverWords(seat === me ? t("underground.you") : seatName(view, seat), { byAi, mine: seat === me });
      for (const r of event.rails || []) {
        out.push({ seat, by, glyph: seatGlyph(seat), rail: `${r.colour}|${r.a}|${r.b}`,
          text: t("underground.log_laid", { name: who, colour: cw(r.colour), a: this.#n(r.a), b: this.#n(r.b), gains: gainWords(gains[k] || [], this.index) }) });
        k++;
        laidThisTurn++;
      }
      const ends = event.turn_complete === true || event.action === "turn";
      if (ends && !laidThisTurn) out.push({ seat, by, glyph: seatGlyph(seat), text: t("underground.log_no_rail", { name: who }) });
      if (ends) laidThisTurn = 0;
      for (const leg of event.route || []) out.push(this.#legEntry(seat, leg));
    }
    return out;
  }

  /** The passenger's ride on `leg`, at the end of `seat`'s turn. */
  #legEntry(seat, leg) {
    return { seat, glyph: seatGlyph(seat),
      text: leg.lines?.length
        ? t("underground.log_passenger", { station: this.#n(leg.to), lines: riding(leg.lines) })
        : t("underground.log_passenger_walked", { station: this.#n(leg.to) }) };
  }

  /** The log from the view's own list of turns (before the game's events have come). */
  #viewEvents(view) {
    const out = [];
    const gains = this.analysis?.railGains || [];
    let k = 0;
    const rails = (seat, list) => {
      for (const r of list || []) {
        const who = seat === this.#mySeat ? t("underground.you") : seatName(view, seat);
        out.push({ seat, glyph: seatGlyph(seat), rail: `${r.colour}|${r.a}|${r.b}`,
          text: t("underground.log_laid", { name: who, colour: cw(r.colour), a: this.#n(r.a), b: this.#n(r.b), gains: gainWords(gains[k] || [], this.index) }) });
        k++;
      }
    };
    for (const m of view.moves || []) {
      if (m.action === "retire") continue; // a seat out of the game: the table's events say so
      rails(m.seat, m.rails);
      if (!(m.rails || []).length) out.push({ seat: m.seat, glyph: seatGlyph(m.seat), text: t("underground.log_no_rail", { name: m.seat === this.#mySeat ? t("underground.you") : seatName(view, m.seat) }) });
      for (const leg of m.route || []) out.push(this.#legEntry(m.seat, leg));
    }
    if (view.status === "playing" && view.turn) rails(view.turn.seat, view.turn.rails);
    return out;
  }

  /** The rails laid by others since the viewer's last turn ("colour|a|b"): from the view's own
   *  list of turns, so a reload shows the same. */
  #recentRails() {
    const v = this.view;
    const me = this.#mySeat;
    const out = new Set();
    if (!v) return out;
    const moves = v.moves || [];
    let last = Math.max(-1, moves.length - 2); // a spectator: the last turn
    if (me !== null) {
      last = -1;
      for (let k = 0; k < moves.length; k++) if (moves[k].seat === me) last = k;
    }
    for (let k = last + 1; k < moves.length; k++) {
      if (moves[k].seat === me) continue;
      for (const r of moves[k].rails || []) out.add(`${r.colour}|${r.a}|${r.b}`);
    }
    if (v.status === "playing" && v.turn && v.turn.seat !== me) for (const r of v.turn.rails || []) out.add(`${r.colour}|${r.a}|${r.b}`);
    return out;
  }

  /** New events between two views: logged, spoken (others' moves, whose turn), faded in. */
  #follow(before, view) {
    if (!this.index || !this.analysis) return;
    const events = this.#events(view);
    const me = this.#mySeat;
    // The first look, or the game's events just came in place of the view's turns: no news.
    const source = this.host.events ? "events" : "view";
    const restart = source !== this.logSource;
    this.logSource = source;
    if (!before || restart || this.logged === null || this.logged > events.length) {
      this.log.set(events);
    } else if (events.length > this.logged) {
      const fresh = events.slice(this.logged);
      this.log.set(events);
      for (const e of fresh) if (e.rail && e.seat !== me) this.arrive.add(e.rail);
      const theirs = fresh.filter((e) => e.seat !== me).map((e) => e.text);
      const turn = view.status === "over" ? t("underground.over") : (view.to_move || []).includes(me) ? t("underground.your_turn") : "";
      if (theirs.length || turn) this.log.announce([...theirs, turn].filter(Boolean).join(" "));
    }
    this.logged = events.length;
    const recent = this.#recentRails();
    this.log.markRecent((e) => (e.rail ? recent.has(e.rail) : false) && e.seat !== me);
  }

  // ---- the keyboard on the map -----------------------------------------------------------------

  /** The stations the cursor may visit: where a rail of the chosen line may start, or, once one
   *  is chosen, where it may go. */
  #cursorTargets() {
    if (this.#phase !== "build" || this.busy || !this.svg) return [];
    const { colour, from } = this.sel;
    const ids = new Set();
    for (const r of this.#legalRails) {
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
    const targets = this.#cursorTargets();
    const at = targets.find((t) => t.id === this.cursor) || null;
    const next = cursorStep(targets, at, key, (t) => t.id !== this.sel.from);
    this.cursor = next ? next.id : null;
    this.#paintCursor();
    if (next) this.log.announce(this.#cursorWords(next.id));
    else if (key) this.log.announce(this.#phase === "build" ? t("underground.pick_line_first") : t("underground.nothing_to_lay"));
  }

  #cursorWords(id) {
    const { colour, from } = this.sel;
    const name = this.stationEls.get(id)?.getAttribute("aria-label") || this.#n(id);
    if (from && id !== from) {
      const r = this.#legalRails.find((x) => x.colour === colour && ((x.a === from && x.b === id) || (x.b === from && x.a === id)));
      if (r) return t("underground.cursor_rail", { station: name, colour: cw(colour), from: this.#n(from), gains: gainWords(this.#preview(r), this.index) });
    }
    if (id === from) return t("underground.cursor_from", { station: name });
    return t("underground.cursor_start", { station: name, colour: cw(colour) });
  }

  #paintCursor() {
    if (!this.layers) return;
    const g = this.layers.cursor;
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
        const { colour, from } = this.sel;
        const r = from && id !== from
          ? this.#legalRails.find((x) => x.colour === colour && ((x.a === from && x.b === id) || (x.b === from && x.a === id)))
          : null;
        // The cursor already shows the rail and its points: Enter lays it.
        if (r) this.#layRail(r, { now: true });
        else this.#onStation(id);
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

  // ---- the map -------------------------------------------------------------------------------

  #xy(id) {
    const s = this.index.byId.get(id);
    return [(s.x - this.minX + PAD) * SCALE, (s.y - this.minY + PAD) * SCALE];
  }

  /** The two ends of slot `slot` of section a-b (offset across it, by the map's own a->b). */
  #slotLine(a, b, slot) {
    const sec = this.index.byKey.get(secKey(a, b));
    const [ax, ay] = this.#xy(sec.a);
    const [bx, by] = this.#xy(sec.b);
    const len = Math.hypot(bx - ax, by - ay) || 1;
    const nx = -(by - ay) / len;
    const ny = (bx - ax) / len;
    const o = (slot - (sec.spaces - 1) / 2) * SLOT_GAP;
    return { x1: ax + nx * o, y1: ay + ny * o, x2: bx + nx * o, y2: by + ny * o, sec };
  }

  #buildSvg() {
    const ix = this.index;
    const xs = ix.stations.map((s) => s.x);
    const ys = ix.stations.map((s) => s.y);
    this.minX = Math.min(...xs);
    this.minY = Math.min(...ys);
    const w = (Math.max(...xs) - this.minX + 2 * PAD) * SCALE;
    const h = (Math.max(...ys) - this.minY + 2 * PAD) * SCALE;
    const map = svg("svg", {
      class: "ug-map",
      viewBox: `0 0 ${w.toFixed(0)} ${h.toFixed(0)}`,
      role: "group",
      "aria-label": t("underground.map_label", { map: mapWord(ix.map), count: ix.stations.length }),
      "aria-describedby": "ug-map-keys",
      tabindex: 0,
    });
    map.addEventListener("keydown", (ev) => this.#mapKey(ev));
    // The keyboard's cursor, not a press of the mouse or a finger (which would move the map).
    map.addEventListener("focus", () => map.matches(":focus-visible") && this.#moveCursor(null));
    map.addEventListener("blur", () => this.#paintCursor());
    svg("rect", { class: "ug-water", x: 0, y: 0, width: w, height: h, rx: 14 }, map);
    this.layers = {};
    for (const name of ["beds", "recent", "rails", "owners", "hints", "cands", "marks", "halos", "stations", "labels", "tokens", "tags", "passenger", "cursor"]) {
      this.layers[name] = svg("g", { class: `ug-layer ug-${name}` }, map);
    }
    // Sections: a pale bed as wide as its spaces, a faint line per free space.
    for (const sec of ix.sections) {
      const [ax, ay] = this.#xy(sec.a);
      const [bx, by] = this.#xy(sec.b);
      svg("line", { class: `ug-bed spaces-${sec.spaces}`, x1: ax, y1: ay, x2: bx, y2: by, "data-section": sec.key }, this.layers.beds);
      for (let k = 0; k < sec.spaces; k++) {
        const l = this.#slotLine(sec.a, sec.b, k);
        svg("line", { class: "ug-slot", x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2 }, this.layers.beds);
      }
    }
    // Termini (a bar across the line's end) and national rail marks.
    for (const st of ix.stations) {
      const [x, y] = this.#xy(st.id);
      if (st.terminus) {
        const nb = ix.neighbours.get(st.id) || [];
        let dx = 0;
        let dy = 0;
        for (const o of nb) {
          const [ox, oy] = this.#xy(o);
          const l = Math.hypot(ox - x, oy - y) || 1;
          dx += (ox - x) / l;
          dy += (oy - y) / l;
        }
        const l = Math.hypot(dx, dy) || 1;
        const [px, py] = [-dy / l, dx / l];
        svg("line", { class: "ug-terminus", x1: x - px * 7, y1: y - py * 7, x2: x + px * 7, y2: y + py * 7 }, this.layers.marks);
      }
      if (st.rail) {
        const g = svg("g", { class: "ug-nr", transform: `translate(${(x + 6).toFixed(1)} ${(y - 6).toFixed(1)})` }, this.layers.marks);
        svg("rect", { x: -4.2, y: -3.2, width: 8.4, height: 6.4, rx: 1.6 }, g);
        svg("path", { d: "M-2.8 -1.1 H2.6 M1.2 -2.3 L2.6 -1.1 M2.8 1.1 H-2.6 M-1.2 2.3 L-2.6 1.1" }, g);
      }
    }
    // Stations: a disc (gold: express destination, white: normal, small: none) over a wider
    // transparent target; names on hover (title), on focus (aria-label) and for a few as labels.
    this.stationEls = new Map();
    this.labelEls = new Map();
    for (const st of ix.stations) {
      const [x, y] = this.#xy(st.id);
      const kind = st.destination || "plain";
      const words = [st.name];
      if (st.destination) words.push(t(`underground.destination.${st.destination}`));
      if (st.rail) words.push(t("underground.national_rail"));
      if (st.terminus) words.push(t("underground.terminus"));
      if (st.connection) words.push(t("underground.connection_spot"));
      const g = svg("g", { class: `ug-station dest-${kind}`, "data-station": st.id, id: `ug-st-${st.id}`, "aria-label": words.join(", ") }, this.layers.stations);
      svg("title", {}, g).textContent = words.join(" · ");
      svg("circle", { class: "ug-hit", cx: x, cy: y, r: 4.7 }, g);
      svg("circle", { class: "ug-disc", cx: x, cy: y, r: st.destination ? 3.7 : 2.5, "data-r": st.destination ? 3.7 : 2.5 }, g);
      this.stationEls.set(st.id, g);
      // Every station has its name, shown as the zoom leaves room for it (#layoutLabels).
      const label = svg("text", { class: "ug-label", "aria-hidden": "true", "data-station": st.id, visibility: "hidden" }, this.layers.labels);
      label.textContent = st.name;
      this.labelEls.set(st.id, label);
    }
    this.svg = map;
    this.loading.remove();
    this.scroll.appendChild(map);
    // Pan and zoom by the viewBox; a tap picks the nearest station that can be chosen.
    this.mapView = new MapView(map, {
      bounds: { x: 0, y: 0, w, h },
      maxScale: MAX_SCALE,
      onChange: () => this.#onCamera(),
      onTap: (ev) => this.#onTap(ev),
      onReady: () => this.#firstView(),
    });
  }

  /** What the map shows now: the live view, or a replay position. */
  #scene() {
    if (this.replayScene) return this.replayScene;
    const v = this.view;
    return {
      rails: v.rails || [],
      passenger: v.passenger,
      faceUp: v.face_up || [],
      pile: v.pile_count,
      connections: v.connections || {},
      net: this.analysis?.net || new Network(this.index, v.connections),
    };
  }

  /** Seats at this table (the line colours each holds follow from it, §2). */
  get #players() {
    return this.view?.rules?.players || this.view?.seats?.length || 2;
  }

  /** A line's swatch with the dash pattern its rails have on the map. */
  #swatch(colour, parent, size = 14) {
    return swatch(colour, parent, size, lineDash(this.#players, colour));
  }

  #renderMap() {
    if (!this.svg || !this.view) return;
    const scene = this.#scene();
    const L = this.layers;
    const net = scene.net;
    // Rails, each in its slot (the order they were laid on that section); white gets a casing.
    L.rails.replaceChildren();
    L.recent.replaceChildren();
    L.owners.replaceChildren();
    const recent = this.replayScene ? new Set() : this.#recentRails();
    const players = this.#players;
    const motion = !reducedMotion();
    const turnRails = new Set(
      !this.replayScene && this.view.turn ? (this.view.turn.rails || []).map((r) => `${r.colour}|${secKey(r.a, r.b)}`) : [],
    );
    for (const r of scene.rails) {
      const slot = Math.max(0, net.slotOf(r.a, r.b, r.colour));
      const l = this.#slotLine(r.a, r.b, slot);
      const fresh = turnRails.has(`${r.colour}|${secKey(r.a, r.b)}`);
      const attrs = { x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2 };
      if (r.colour === "white" || r.colour === "yellow" || r.colour === "pink") svg("line", { ...attrs, class: "ug-casing" }, L.rails);
      const id = `${r.colour}|${r.a}|${r.b}`;
      const arriving = motion && this.arrive.has(id);
      const dash = lineDash(players, r.colour); // which of its owner's lines, without colour
      const line = svg(
        "line",
        { ...attrs, class: `ug-rail${fresh ? " fresh" : ""}${arriving ? " arrive" : ""}${dash ? " patterned" : ""}`, stroke: LINE_HEX[r.colour] || "#888", "data-rail": id, ...(dash ? { "stroke-dasharray": dash } : {}) },
        L.rails,
      );
      const owner = ownerOf(players, r.colour);
      svg("title", {}, line).textContent = t("underground.rail_title", { colour: cw(r.colour), name: seatName(this.view, owner), symbol: seatGlyphName(owner), a: this.#n(r.a), b: this.#n(r.b) });
      if (recent.has(id)) {
        // laid since the viewer's last turn: a dashed halo in a colour no line has
        svg("line", { ...attrs, class: "ug-recent-halo" }, L.recent);
        svg("line", { ...attrs, class: "ug-recent", "data-recent": id }, L.recent);
      }
      // Whose rail it is, without colour: the owner's symbol in the middle.
      if (owner >= 0) {
        const mx = (l.x1 + l.x2) / 2;
        const my = (l.y1 + l.y2) / 2;
        const g = svg("g", { class: `ug-owner${arriving ? " arrive" : ""}`, "data-seat": owner }, L.owners);
        svg("circle", { cx: mx, cy: my, r: 2.7 }, g);
        seatSymbol(owner, mx.toFixed(1), my.toFixed(1), 1.55, { class: "ug-owner-symbol" }, g);
      }
    }
    // Candidate rails: dashed in the free slot they would take; the whole section is clickable.
    L.cands.replaceChildren();
    L.tags.replaceChildren();
    const cands = this.#candidates();
    const from = this.sel.from;
    for (const r of cands) {
      const l = this.#slotLine(r.a, r.b, net.used(r.a, r.b));
      const gains = this.#preview(r);
      const pts = sumPoints(gains);
      const pending = !!this.proposed && this.proposed.colour === r.colour && secKey(this.proposed.a, this.proposed.b) === secKey(r.a, r.b);
      const g = svg("g", { class: `ug-cand${pending ? " pending" : ""}`, "data-colour": r.colour, "data-a": r.a, "data-b": r.b, "data-points": pts }, L.cands);
      const attrs = { x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2 };
      svg("line", { ...attrs, class: "ug-cand-line", stroke: LINE_HEX[r.colour] }, g);
      svg("line", { ...attrs, class: "ug-cand-hit" }, g);
      svg("title", {}, g).textContent = t("underground.lay_title", { colour: cw(r.colour), a: this.#n(r.a), b: this.#n(r.b), gains: gainWords(gains, this.index) });
      g.addEventListener("click", () => this.#layRail(r));
      if (from && pts > 0) {
        const to = r.a === from ? r.b : r.a;
        const [x, y] = this.#xy(to);
        const t = svg("text", { class: "ug-tag", x, y: y - 7, "text-anchor": "middle" }, L.tags);
        t.textContent = `+${pts}`;
      }
    }
    // Stations: which can start a rail, which a rail from the chosen one can reach.
    const phase = this.#phase;
    const starts = new Set();
    const targets = new Set();
    if (phase === "build" && !this.busy && this.sel.colour) {
      for (const r of this.#legalRails) {
        if (r.colour !== this.sel.colour) continue;
        starts.add(r.a);
        starts.add(r.b);
        if (from && r.a === from) targets.add(r.b);
        if (from && r.b === from) targets.add(r.a);
      }
    }
    for (const [id, g] of this.stationEls) {
      const active = phase === "build" && !this.busy && (starts.has(id) || targets.has(id) || id === from);
      g.classList.toggle("startable", starts.has(id) && !from);
      g.classList.toggle("target", targets.has(id));
      g.classList.toggle("from", id === from);
      g.classList.toggle("active", active);
      // The map is one tab stop (arrow keys move over these): the stations are not in the tab order.
      if (active) {
        g.setAttribute("tabindex", "-1");
        g.setAttribute("role", "button");
      } else {
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
      }
    }
    // Connection tokens, the face-up destinations, the passenger.
    L.tokens.replaceChildren();
    for (const [spot, sym] of Object.entries(scene.connections || {})) {
      if (!this.index.byId.has(spot)) continue;
      const [x, y] = this.#xy(spot);
      const g = svg("g", { class: "ug-token", "data-symbol": sym, transform: `translate(${(x - 6.5).toFixed(1)} ${(y + 6.5).toFixed(1)})` }, L.tokens);
      svg("circle", { r: 4.6, fill: SYMBOL_HEX[sym] || "#555" }, g);
      svg("text", { y: 1.9, "text-anchor": "middle" }, g).textContent = sym.toUpperCase();
    }
    L.halos.replaceChildren();
    scene.faceUp.forEach((id, k) => {
      if (!this.index.byId.has(id)) return;
      const [x, y] = this.#xy(id);
      const kind = this.index.byId.get(id).destination;
      svg("circle", { class: `ug-faceup ${kind}`, cx: x, cy: y, r: 7.5, "data-card": id, "data-rank": k }, L.halos);
    });
    L.passenger.replaceChildren();
    if (scene.passenger && this.index.byId.has(scene.passenger)) {
      const [x, y] = this.#xy(scene.passenger);
      const g = svg("g", { class: "ug-passenger", transform: `translate(${x.toFixed(1)} ${(y - 4).toFixed(1)})`, "data-station": scene.passenger }, L.passenger);
      svg("title", {}, g).textContent = t("underground.passenger_title", { station: this.#n(scene.passenger) });
      svg("circle", { cx: 0, cy: -13, r: 3.2 }, g);
      svg("path", { d: "M-4 -1 L-3.2 -8.2 Q0 -10.2 3.2 -8.2 L4 -1 L1.6 -1 L1.4 4 L-1.4 4 L-1.6 -1 Z" }, g);
    }
    this.svg.dataset.rails = String(scene.rails.length);
    this.svg.classList.toggle("replaying", !!this.replayScene);
    this.svg.classList.toggle("choosing", phase === "build" && !this.busy);
    this.#renderHighlights();
    this.#paintCursor();
    this.#renderFinder();
    this.#firstView();
    this.#layoutLabels();
  }

  /** Hinted rails and the hovered route choice, over the map. */
  #renderHighlights() {
    if (!this.svg) return;
    const L = this.layers;
    L.hints.replaceChildren();
    if (!this.replayScene) {
      const net = this.analysis?.net;
      this.hints.forEach((h, rank) => {
        const m = plainMove(h);
        if (m?.step !== "rail" || !net) return;
        const l = this.#slotLine(m.a, m.b, net.used(m.a, m.b));
        svg("line", { class: "ug-hint-line", x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2, stroke: LINE_HEX[m.colour], "data-rank": rank }, L.hints);
        const t = svg("text", { class: "ug-hint-rank", x: (l.x1 + l.x2) / 2, y: (l.y1 + l.y2) / 2 - 5, "text-anchor": "middle" }, L.hints);
        t.textContent = String(rank + 1);
      });
    }
    for (const el of this.svg.querySelectorAll(".ug-faceup.way")) el.classList.remove("way");
    if (this.hoverWay) {
      const to = this.hoverWay.split("|")[0];
      this.svg.querySelector(`.ug-faceup[data-card="${CSS.escape(to)}"]`)?.classList.add("way");
    }
  }

  // ---- the controls --------------------------------------------------------------------------

  #render() {
    if (this.view && this.index && !this.analysis) this.#analyse();
    this.#renderMap();
    this.#renderControls();
  }

  #renderControls() {
    const c = this.controls;
    const focusKey = c.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    const phase = this.#phase;
    c.dataset.phase = phase;
    c.dataset.busy = String(this.busy);
    c.dataset.version = String(this.view?.version ?? "");
    c.dataset.laid = String(this.view?.turn?.rails?.length ?? 0);
    c.replaceChildren();
    if (this.settings) this.settings.hidden = this.#mySeat === null || this.view?.status === "over";
    if (!this.view || !this.index) return;
    if (phase === "replay") this.#replayNote(c);
    if (phase === "build") this.#buildBox(c);
    if (phase === "route") this.#routeBox(c);
    if (phase === "watch" || phase === "waiting") this.#watchBox(c);
    if (this.hints.length && !this.replayScene) this.#hintBox(c);
    this.#destBox(c);
    this.#linesBox(c);
    this.#breakdownBox(c);
    if (focusKey) c.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  }

  #section(parent, cls, title) {
    const s = html("section", { className: `ug-box ${cls}` }, parent);
    if (title) html("h3", {}, s, title);
    return s;
  }

  #buildBox(parent) {
    const v = this.view;
    const box = this.#section(parent, "ug-turn", null);
    const laid = v.turn?.rails || [];
    html("h3", {}, box, t("underground.build_title", { count: laid.length }));
    const rails = this.#legalRails;
    const row = html("div", { className: "ug-colours", role: "group", "aria-label": t("underground.your_lines") }, box);
    for (const colour of this.#myColours) {
      const n = rails.filter((r) => r.colour === colour).length;
      const b = html("button", {
        type: "button",
        className: "ug-colour-btn small",
        "data-action": "colour",
        "data-colour": colour,
        "data-key": `colour-${colour}`,
        "aria-pressed": String(this.sel.colour === colour),
        disabled: this.busy || !n,
        title: n ? t("underground.rails_possible", { count: n }) : t("underground.no_rail_possible"),
      });
      this.#swatch(colour, b);
      html("span", {}, b, `${cw(colour)} · ${n}`);
      row.appendChild(b);
    }
    const help = html("p", { className: "ug-help" }, box);
    const { colour, from } = this.sel;
    if (!rails.length) help.textContent = t("underground.help_no_more");
    else if (!colour) help.textContent = t("underground.help_pick_line");
    else if (!from) {
      const started = this.analysis?.net.railCount(colour) > 0;
      help.textContent = started
        ? t("underground.help_extend", { colour: cw(colour) })
        : t("underground.help_first_rail", { colour: cw(colour) });
    } else {
      help.textContent = t("underground.help_from", { station: this.#n(from) });
      const list = html("ul", { className: "ug-targets" }, box);
      const cands = this.#candidates();
      for (const r of cands) {
        const to = r.a === from ? r.b : r.a;
        const gains = this.#preview(r);
        const li = html("li", {}, list);
        const b = html("button", {
          type: "button",
          className: "ug-target-btn small",
          "data-action": "target",
          "data-colour": r.colour,
          "data-a": r.a,
          "data-b": r.b,
          "data-key": `target-${r.colour}-${r.a}-${r.b}`,
          "aria-pressed": String(!!this.proposed && this.proposed.colour === r.colour && secKey(this.proposed.a, this.proposed.b) === secKey(r.a, r.b)),
          disabled: this.busy,
        }, li);
        this.#swatch(r.colour, b);
        html("span", { className: "ug-to" }, b, `→ ${this.#n(to)}`);
        html("span", { className: `ug-pts${sumPoints(gains) ? " some" : ""}`, title: gainWords(gains, this.index) }, b, gainWords(gains, this.index).split(":")[0]);
        if (gains.some((g) => g.reason === "branch")) html("span", { className: "ug-branch" }, b, t("underground.branch_cost"));
      }
      html("button", { type: "button", className: "ghost-button small", "data-action": "clear", "data-key": "clear" }, box, t("underground.choose_another"));
    }
    if (this.proposed) {
      const r = this.proposed;
      const from = this.sel.from && (r.a === this.sel.from || r.b === this.sel.from) ? this.sel.from : r.a;
      const to = from === r.a ? r.b : r.a;
      const pend = html("div", { className: "ug-confirm", id: "confirm-box" }, box);
      html("p", { className: "ug-confirm-text", id: "confirm-text" }, pend,
        t("underground.confirm_lay", { colour: cw(r.colour), from: this.#n(from), to: this.#n(to), gains: gainWords(this.#preview(r), this.index) }));
      const row = html("div", { className: "ug-confirm-actions" }, pend);
      html("button", { type: "button", className: "primary", id: "confirm-button", "data-action": "confirm", "data-key": "confirm", disabled: this.busy }, row, t("underground.confirm"));
      html("button", { type: "button", className: "ghost-button", "data-action": "cancel", "data-key": "cancel" }, row, t("underground.cancel"));
    }
    if (laid.length) {
      html("h4", {}, box, t("underground.this_turn"));
      const ol = html("ol", { className: "ug-laid" }, box);
      const gainsAll = this.analysis?.railGains || [];
      const offset = gainsAll.length - laid.length;
      laid.forEach((r, k) => {
        const li = html("li", {}, ol);
        this.#swatch(r.colour, li);
        html("span", {}, li, `${this.#n(r.a)}–${this.#n(r.b)}: ${gainWords(gainsAll[offset + k] || [], this.index)}`);
      });
    }
    const me = this.#mySeat;
    const tokens = v.seats[me]?.branch_tokens ?? 0;
    html("p", { className: "ug-tokens" }, box, t("underground.branch_tokens", { count: tokens }));
    const canStop = this.legal.some((m) => m.step === "stop");
    html(
      "button",
      { type: "button", className: "primary ug-stop", "data-action": "stop", "data-key": "stop", disabled: this.busy || !canStop },
      box,
      laid.length ? t("underground.end_building") : t("underground.end_building_none"),
    );
  }

  #routeBox(parent) {
    const box = this.#section(parent, "ug-route", t("underground.route_title"));
    html("p", { className: "ug-help" }, box, t("underground.route_help"));
    const list = html("ul", { className: "ug-ways" }, box);
    const players = this.#players;
    for (const m of this.legal.filter((x) => x.step === "route")) {
      const li = html("li", {}, list);
      const lines = m.lines || [];
      const b = html("button", {
        type: "button",
        className: "ug-way",
        "data-action": "way",
        "data-to": m.to,
        "data-lines": lines.join("+"),
        "data-key": `way-${m.to}-${lines.join("+")}`,
        disabled: this.busy,
      }, li);
      destIcon(this.index.byId.get(m.to)?.destination, b);
      html("span", { className: "ug-to" }, b, t("underground.way_to", { station: this.#n(m.to) }));
      const by = html("span", { className: "ug-by" }, b);
      if (!lines.length) by.textContent = t("underground.on_foot");
      for (const c of lines) {
        this.#swatch(c, by, 12);
        const o = ownerOf(players, c);
        html("span", {}, by, `${cw(c)} (${seatGlyph(o)} ${seatName(this.view, o)})`);
      }
    }
  }

  #watchBox(parent) {
    const v = this.view;
    if (v.status !== "playing") return;
    const box = this.#section(parent, "ug-watch", null);
    const seat = v.turn?.seat ?? v.to_move?.[0];
    if (seat !== undefined && seat !== null) {
      const laid = v.turn?.rails || [];
      html("p", {}, box, t("underground.is_building", { name: seatName(v, seat), count: laid.length }));
    }
    const last = (v.moves || [])[v.moves.length - 1];
    if (last) this.#turnSummary(box, last, v.moves.length - 1);
  }

  /** One complete turn in words: its rails with their points, and the passenger's legs. */
  #turnSummary(box, move, k) {
    const v = this.view;
    html("h4", {}, box, t("underground.last_turn", { seat: `${seatGlyph(move.seat)} ${seatName(v, move.seat)}` }));
    const ul = html("ul", { className: "ug-laid" }, box);
    // The rails of turn k are at the right offset of the view's rail list.
    let offset = 0;
    for (let i = 0; i < k; i++) offset += (v.moves[i].rails || []).length;
    (move.rails || []).forEach((r, j) => {
      const li = html("li", {}, ul);
      this.#swatch(r.colour, li);
      html("span", {}, li, `${this.#n(r.a)}–${this.#n(r.b)}: ${gainWords(this.analysis?.railGains[offset + j] || [], this.index)}`);
    });
    if (!(move.rails || []).length) html("li", {}, ul, t("underground.no_rail_laid"));
    for (const leg of move.route || []) {
      html("li", {}, ul, leg.lines.length
        ? t("underground.passenger_to_by", { station: this.#n(leg.to), lines: riding(leg.lines) })
        : t("underground.passenger_to_walk", { station: this.#n(leg.to) }));
    }
  }

  #hintBox(parent) {
    const box = this.#section(parent, "ug-hints", t("underground.hints_title"));
    const ol = html("ol", { className: "ug-hint-list" }, box);
    const myTurn = this.#phase === "build" || this.#phase === "route";
    this.hints.forEach((h, rank) => {
      const m = plainMove(h);
      if (!m) return;
      let words = "";
      if (m.step === "rail") words = `${cw(m.colour)} ${this.#n(m.a)}–${this.#n(m.b)}`;
      else if (m.step === "stop") words = t("underground.end_building");
      else words = (m.lines || []).length
        ? t("underground.passenger_to_by", { station: this.#n(m.to), lines: riding(m.lines) })
        : t("underground.passenger_to_walk", { station: this.#n(m.to) });
      const li = html("li", {}, ol);
      const b = html("button", {
        type: "button",
        className: "ug-hint-btn small",
        "data-action": "hint",
        "data-rank": rank,
        "data-key": `hint-${rank}`,
        disabled: this.busy || !myTurn,
      }, li);
      if (m.step === "rail") this.#swatch(m.colour, b);
      html("span", {}, b, words);
      const val = signedValue(h.value);
      if (val) html("small", { className: "ug-hint-value" }, b, `${val}${h.visits ? ` · ${h.visits}` : ""}`);
    });
  }

  #destBox(parent) {
    const scene = this.#scene();
    const box = this.#section(parent, "ug-dest", t("underground.destinations"));
    const where = scene.passenger ? t("underground.passenger_at", { station: this.#n(scene.passenger) }) : t("underground.passenger_gone");
    html("p", { className: "ug-passenger-at" }, box, where);
    const ul = html("ul", { className: "ug-cards" }, box);
    for (const id of scene.faceUp) {
      const kind = this.index.byId.get(id)?.destination || "normal";
      const li = html("li", { "data-card": id, className: kind }, ul);
      destIcon(kind, li);
      html("span", {}, li, this.#n(id));
      html("small", {}, li, t(`underground.card_kind.${kind}`));
    }
    if (!scene.faceUp.length) html("li", { className: "empty" }, ul, t("underground.no_face_up"));
    html("p", { className: "ug-pile" }, box, t("underground.pile", { count: scene.pile ?? 0 }));
  }

  #linesBox(parent) {
    const v = this.view;
    const box = this.#section(parent, "ug-lines", t("underground.lines"));
    const ul = html("ul", { className: "ug-seat-lines" }, box);
    v.seats.forEach((s, i) => {
      const li = html("li", { "data-seat": i, className: i === this.#mySeat ? "mine" : "" }, ul);
      html("span", { className: "ug-seat-glyph", "aria-hidden": "true" }, li, seatGlyph(i));
      html("span", { className: "ug-seat-name" }, li, seatName(v, i) + (i === this.#mySeat ? ` ${t("seat.you_mark")}` : ""));
      const cs = html("span", { className: "ug-seat-colours" }, li);
      for (const c of s.colours || []) {
        const one = html("span", { className: "ug-seat-colour", title: t("underground.line_of", { colour: cw(c) }) }, cs);
        this.#swatch(c, one, 12);
        html("span", { className: "visually-hidden" }, one, cw(c));
      }
      const n = s.branch_tokens ?? 0;
      html("span", { className: "ug-seat-tokens" }, li, t("underground.tokens", { count: n }));
    });
  }

  #breakdownBox(parent) {
    const v = this.view;
    const a = this.analysis;
    if (!a) return;
    const box = this.#section(parent, "ug-breakdown", v.status === "over" ? t("underground.final_scores") : t("underground.scores"));
    // A region of its own: with long names the table scrolls sideways, and keys must reach it.
    const wrap = html("div", { className: "ug-table-wrap", tabindex: "0", role: "region",
      "aria-label": t("underground.breakdown_caption") }, box);
    const table = html("table", { className: "ug-breakdown-table" }, wrap);
    html("caption", { className: "visually-hidden" }, table, t("underground.breakdown_caption"));
    const cols = ["start", "rail", "terminus", "symbol", "enclosed", "ride"].map((key) => [
      key, t(`underground.col.${key}.short`), t(`underground.col.${key}`)]);
    const hr = html("tr", {}, html("thead", {}, table));
    html("th", { scope: "col" }, hr, t("underground.col.player"));
    html("th", { scope: "col", className: "total" }, hr, t("underground.col.total"));
    for (const [, short, long] of cols) {
      // The short heading is seen; the full words are its name for a screen reader and its tooltip.
      const th = html("th", { scope: "col", "aria-label": long }, hr);
      html("abbr", { title: long }, th, short);
    }
    const body = html("tbody", {}, table);
    const winners = new Set(v.winners || []);
    v.seats.forEach((s, i) => {
      const b = a.breakdown[i];
      const tr = html("tr", { "data-seat": i, className: winners.has(i) ? "winner" : "" }, body);
      const th = html("th", { scope: "row", title: seatName(v, i) }, tr);
      html("span", { className: "ug-seat-glyph", "aria-hidden": "true" }, th, `${seatGlyph(i)} `);
      th.append(seatName(v, i));
      // The total is the server's; the parts are this page's reading of the same rails.
      html("td", { className: "total", title: b.total === s.score ? null : t("underground.estimate") }, tr, String(s.score ?? 0));
      for (const [key] of cols) html("td", { className: key }, tr, String(b[key]));
    });
  }

  #replayNote(parent) {
    const r = this.replayScene;
    const box = this.#section(parent, "ug-replay-note", null);
    html("p", {}, box, r.index === 0 ? t("underground.replay_note_start") : t("underground.replay_note", { turn: r.index, length: r.length }));
    const ul = html("ul", { className: "ug-replay-scores" }, box);
    r.scores.forEach((s, i) => html("li", { "data-seat": i }, ul, `${r.names(i)}: ${s}`));
  }
}

export { COLOURS };
