// On the Underground map as SVG (RULES-UNDERGROUND.md §1): built once from the map (sections with
// their 1-3 spaces, termini, national rail, the stations and their names), then drawn again for
// each position given what the page decides to show: rails in their slots in line colours with
// their owners' symbols, candidate rails with their points, connection tokens, the face-up
// destinations, the passenger, the hinted rails, and the station names laid out for the zoom.
// Drawing only: board.js takes the input and says what to draw.

import { reducedMotion, seatGlyphName, seatSymbol, svg } from "/kit.js";
import { t } from "/i18n.js";
import { lineDash, lineHex, ownerOf, secKey } from "./lines.js";
import { cw, gainWords, mapWord, plainMove, pointsOf, seatName } from "./words.js";

export const SCALE = 12; // svg units per map unit
const PAD = 4; // map units around the stations
const SLOT_GAP = 3.4; // between the parallel spaces of a section
const LABEL_PX = 12.5; // station names on screen, whatever the zoom
export const SYMBOL_HEX = { a: "#6a1b9a", b: "#00838f", c: "#d84315", d: "#2e7d32" };
const LAYERS = ["beds", "recent", "rails", "owners", "hints", "cands", "marks", "halos", "stations", "labels", "tokens", "tags", "passenger", "cursor"];
// Stations named first (when names would overlap, these keep theirs; zoomed in, all are named).
const MAJOR = new Set([
  "euston", "kings_cross_st_pancras", "paddington", "victoria", "waterloo", "bank", "oxford_circus",
  "liverpool_street", "hammersmith", "stratford", "wimbledon", "brixton", "ealing_broadway", "richmond",
  "morden", "golders_green", "wembley_park", "walthamstow_central", "highgate", "north_greenwich",
  "elephant_and_castle", "canary_wharf", "london_bridge", "clapham_junction",
]);

/** The map's picture: `svg` (not yet in the page), its layers, its stations and their names. */
export class MapDrawing {
  /** `onRail(r)`: a candidate rail was clicked. */
  constructor(index, onRail) {
    this.index = index;
    this.onRail = onRail;
    const xs = index.stations.map((s) => s.x);
    const ys = index.stations.map((s) => s.y);
    this.minX = Math.min(...xs);
    this.minY = Math.min(...ys);
    this.w = (Math.max(...xs) - this.minX + 2 * PAD) * SCALE;
    this.h = (Math.max(...ys) - this.minY + 2 * PAD) * SCALE;
    this.svg = svg("svg", {
      class: "ug-map",
      viewBox: `0 0 ${this.w.toFixed(0)} ${this.h.toFixed(0)}`,
      role: "group",
      "aria-label": t("underground.map_label", { map: mapWord(index.map), count: index.stations.length }),
      "aria-describedby": "ug-map-keys",
      tabindex: 0,
    });
    svg("rect", { class: "ug-water", x: 0, y: 0, width: this.w, height: this.h, rx: 14 }, this.svg);
    this.layers = {};
    for (const name of LAYERS) this.layers[name] = svg("g", { class: `ug-layer ug-${name}` }, this.svg);
    this.#sections();
    this.#marks();
    this.#stations();
  }

  xy(id) {
    const s = this.index.byId.get(id);
    return [(s.x - this.minX + PAD) * SCALE, (s.y - this.minY + PAD) * SCALE];
  }

  /** The two ends of slot `slot` of section a-b (offset across it, by the map's own a->b). */
  slotLine(a, b, slot) {
    const sec = this.index.byKey.get(secKey(a, b));
    const [ax, ay] = this.xy(sec.a);
    const [bx, by] = this.xy(sec.b);
    const len = Math.hypot(bx - ax, by - ay) || 1;
    const nx = -(by - ay) / len;
    const ny = (bx - ax) / len;
    const o = (slot - (sec.spaces - 1) / 2) * SLOT_GAP;
    return { x1: ax + nx * o, y1: ay + ny * o, x2: bx + nx * o, y2: by + ny * o, sec };
  }

  /** Sections: a pale bed as wide as its spaces, a faint line per free space. */
  #sections() {
    for (const sec of this.index.sections) {
      const [ax, ay] = this.xy(sec.a);
      const [bx, by] = this.xy(sec.b);
      svg("line", { class: `ug-bed spaces-${sec.spaces}`, x1: ax, y1: ay, x2: bx, y2: by, "data-section": sec.key }, this.layers.beds);
      for (let k = 0; k < sec.spaces; k++) {
        const l = this.slotLine(sec.a, sec.b, k);
        svg("line", { class: "ug-slot", x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2 }, this.layers.beds);
      }
    }
  }

  /** Termini (a bar across the line's end) and national rail marks. */
  #marks() {
    const ix = this.index;
    for (const st of ix.stations) {
      const [x, y] = this.xy(st.id);
      if (st.terminus) {
        let dx = 0;
        let dy = 0;
        for (const o of ix.neighbours.get(st.id) || []) {
          const [ox, oy] = this.xy(o);
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
  }

  /** Stations: a disc (gold: express destination, white: normal, small: none) over a wider
   *  transparent target; names on hover (title), on focus (aria-label) and as labels. */
  #stations() {
    this.stationEls = new Map();
    this.labelEls = new Map();
    for (const st of this.index.stations) {
      const [x, y] = this.xy(st.id);
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
      // Every station has its name, shown as the zoom leaves room for it (layoutLabels).
      const label = svg("text", { class: "ug-label", "aria-hidden": "true", "data-station": st.id, visibility: "hidden" }, this.layers.labels);
      label.textContent = st.name;
      this.labelEls.set(st.id, label);
    }
  }

  /** One position, as the page's state `st` has it (board.js's `now()`). */
  draw(st) {
    const scene = st.scene;
    const lanes = scene.lanes;
    this.#rails(st, scene, lanes);
    this.#candidates(st, lanes);
    this.#stationStates(st);
    this.#pieces(scene);
    this.svg.dataset.rails = String(scene.rails.length);
    this.svg.classList.toggle("replaying", st.replaying);
    this.svg.classList.toggle("choosing", st.phase === "build" && !st.busy);
  }

  /** Rails, each in its slot (the order they were laid on that section); white gets a casing. */
  #rails(st, scene, lanes) {
    const L = this.layers;
    const n = (id) => this.index.name(id);
    L.rails.replaceChildren();
    L.recent.replaceChildren();
    L.owners.replaceChildren();
    const recent = st.replaying ? new Set() : st.recent;
    const lines = st.lines;
    const motion = !reducedMotion();
    const turnRails = new Set(
      !st.replaying && st.view.turn ? (st.view.turn.rails || []).map((r) => `${r.colour}|${secKey(r.a, r.b)}`) : [],
    );
    for (const r of scene.rails) {
      const slot = Math.max(0, lanes.slotOf(r.a, r.b, r.colour));
      const l = this.slotLine(r.a, r.b, slot);
      const fresh = turnRails.has(`${r.colour}|${secKey(r.a, r.b)}`);
      const attrs = { x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2 };
      if (r.colour === "white" || r.colour === "yellow" || r.colour === "pink") svg("line", { ...attrs, class: "ug-casing" }, L.rails);
      const id = `${r.colour}|${r.a}|${r.b}`;
      const arriving = motion && st.arrive.has(id);
      const dash = lineDash(lines, r.colour); // which of its owner's lines, without colour
      const line = svg(
        "line",
        { ...attrs, class: `ug-rail${fresh ? " fresh" : ""}${arriving ? " arrive" : ""}${dash ? " patterned" : ""}`, stroke: lineHex(r.colour), "data-rail": id, ...(dash ? { "stroke-dasharray": dash } : {}) },
        L.rails,
      );
      const owner = ownerOf(lines, r.colour);
      svg("title", {}, line).textContent = t("underground.rail_title", { colour: cw(r.colour), name: seatName(st.view, owner), symbol: seatGlyphName(owner), a: n(r.a), b: n(r.b) });
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
  }

  /** Candidate rails: dashed in the free slot they would take; the whole section is clickable. */
  #candidates(st, lanes) {
    const L = this.layers;
    const n = (id) => this.index.name(id);
    L.cands.replaceChildren();
    L.tags.replaceChildren();
    const from = st.sel.from;
    for (const r of st.candidates) {
      const l = this.slotLine(r.a, r.b, lanes.used(r.a, r.b));
      const gains = st.preview(r);
      const pts = pointsOf(gains);
      const pending = st.isProposed(r);
      const g = svg("g", { class: `ug-cand${pending ? " pending" : ""}`, "data-colour": r.colour, "data-a": r.a, "data-b": r.b, "data-points": pts }, L.cands);
      const attrs = { x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2 };
      svg("line", { ...attrs, class: "ug-cand-line", stroke: lineHex(r.colour) }, g);
      svg("line", { ...attrs, class: "ug-cand-hit" }, g);
      svg("title", {}, g).textContent = t("underground.lay_title", { colour: cw(r.colour), a: n(r.a), b: n(r.b), gains: gainWords(gains, this.index) });
      g.addEventListener("click", () => this.onRail(r));
      if (from && pts > 0) {
        const to = r.a === from ? r.b : r.a;
        const [x, y] = this.xy(to);
        const tag = svg("text", { class: "ug-tag", x, y: y - 7, "text-anchor": "middle" }, L.tags);
        tag.textContent = `+${pts}`;
      }
    }
  }

  /** Stations: which can start a rail, which a rail from the chosen one can reach. */
  #stationStates(st) {
    const { phase, busy } = st;
    const from = st.sel.from;
    const starts = new Set();
    const targets = new Set();
    if (phase === "build" && !busy && st.sel.colour) {
      for (const r of st.legalRails) {
        if (r.colour !== st.sel.colour) continue;
        starts.add(r.a);
        starts.add(r.b);
        if (from && r.a === from) targets.add(r.b);
        if (from && r.b === from) targets.add(r.a);
      }
    }
    for (const [id, g] of this.stationEls) {
      const active = phase === "build" && !busy && (starts.has(id) || targets.has(id) || id === from);
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
  }

  /** Connection tokens, the face-up destinations, the passenger. */
  #pieces(scene) {
    const L = this.layers;
    const has = (id) => this.index.byId.has(id);
    L.tokens.replaceChildren();
    for (const [spot, sym] of Object.entries(scene.connections || {})) {
      if (!has(spot)) continue;
      const [x, y] = this.xy(spot);
      const g = svg("g", { class: "ug-token", "data-symbol": sym, transform: `translate(${(x - 6.5).toFixed(1)} ${(y + 6.5).toFixed(1)})` }, L.tokens);
      svg("circle", { r: 4.6, fill: SYMBOL_HEX[sym] || "#555" }, g);
      svg("text", { y: 1.9, "text-anchor": "middle" }, g).textContent = sym.toUpperCase();
    }
    L.halos.replaceChildren();
    scene.faceUp.forEach((id, k) => {
      if (!has(id)) return;
      const [x, y] = this.xy(id);
      const kind = this.index.byId.get(id).destination;
      svg("circle", { class: `ug-faceup ${kind}`, cx: x, cy: y, r: 7.5, "data-card": id, "data-rank": k }, L.halos);
    });
    L.passenger.replaceChildren();
    if (scene.passenger && has(scene.passenger)) {
      const [x, y] = this.xy(scene.passenger);
      const g = svg("g", { class: "ug-passenger", transform: `translate(${x.toFixed(1)} ${(y - 4).toFixed(1)})`, "data-station": scene.passenger }, L.passenger);
      svg("title", {}, g).textContent = t("underground.passenger_title", { station: this.index.name(scene.passenger) });
      svg("circle", { cx: 0, cy: -13, r: 3.2 }, g);
      svg("path", { d: "M-4 -1 L-3.2 -8.2 Q0 -10.2 3.2 -8.2 L4 -1 L1.6 -1 L1.4 4 L-1.4 4 L-1.6 -1 Z" }, g);
    }
  }

  /** Hinted rails (none in a replay: `lanes` null) and the hovered route choice (`way` "to|lines"). */
  highlights(hints, lanes, way) {
    const L = this.layers;
    L.hints.replaceChildren();
    if (lanes) {
      hints.forEach((h, rank) => {
        const m = plainMove(h);
        if (m?.step !== "rail") return;
        const l = this.slotLine(m.a, m.b, lanes.used(m.a, m.b));
        svg("line", { class: "ug-hint-line", x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2, stroke: lineHex(m.colour), "data-rank": rank }, L.hints);
        const label = svg("text", { class: "ug-hint-rank", x: (l.x1 + l.x2) / 2, y: (l.y1 + l.y2) / 2 - 5, "text-anchor": "middle" }, L.hints);
        label.textContent = String(rank + 1);
      });
    }
    for (const el of this.svg.querySelectorAll(".ug-faceup.way")) el.classList.remove("way");
    if (way) {
      const to = way.split("|")[0];
      this.svg.querySelector(`.ug-faceup[data-card="${CSS.escape(to)}"]`)?.classList.add("way");
    }
  }

  /** A disc never shrinks below a few pixels at `s` screen px per unit, whatever the zoom (taps
   *  find stations by their distance: the transparent targets stay small, never covering a
   *  neighbour's centre). */
  sizeDiscs(s) {
    this.discs ||= [...this.stationEls.values()].map((g) => g.querySelector(".ug-disc"));
    for (const disc of this.discs) {
      const base = Number(disc.dataset.r);
      disc.setAttribute("r", Math.max(base, (base > 3 ? 5 : 3.6) / s).toFixed(2));
    }
  }

  /** Station names at LABEL_PX on screen (`s` px per unit, `vis` the part in sight), placed
   *  around their dots where they overlap nothing already named: `first` (the chosen station
   *  and its targets, the passenger's, the face-up cards) first, then the big stations, the
   *  destinations; zooming in makes room for every name. */
  layoutLabels(s, vis, first) {
    const size = LABEL_PX / s;
    const rank = (st) => (first.has(st.id) ? 0 : MAJOR.has(st.id) || st.id === this.index.map.start ? 1 : st.destination ? 2 : st.terminus || st.rail ? 3 : 4);
    const order = [...this.index.stations].sort((a, b) => rank(a) - rank(b));
    const taken = [];
    const hits = (b) => taken.some((o) => b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1);
    // the dots themselves are not covered by names
    for (const st of this.index.stations) {
      const [x, y] = this.xy(st.id);
      const r = Math.max(st.destination ? 3.7 : 2.5, 3.6 / s);
      taken.push({ x0: x - r, y0: y - r, x1: x + r, y1: y + r });
    }
    const gap = Math.max(4, 7 / s);
    const h = size * 1.05;
    for (const st of order) {
      const el = this.labelEls.get(st.id);
      const [x, y] = this.xy(st.id);
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
}
