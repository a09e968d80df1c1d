// A map a finger can use (issue 19): pan and zoom an SVG by its viewBox, with a mouse wheel, a
// drag, or two fingers (pointer events, no library), and taps handed to the page with the point
// in map units so it can snap them to the nearest thing that may be chosen. Shared by the games'
// page modules (import from "/mapview.js"); it owns only the viewBox and the gestures.

import { reducedMotion } from "./dom.js";

const DRAG_PX = { mouse: 4, pen: 6, touch: 8 }; // movement before a press becomes a drag

/**
 * The camera of one <svg>: its centre (cx, cy) in map units and its scale `s` in screen pixels per
 * map unit; the viewBox always has the element's own aspect, so one unit is `s` pixels both ways.
 *
 * options: bounds {x, y, w, h} (the whole map, map units), maxScale (px per unit), onChange(view)
 * after every camera change (once per frame), onTap(event, at) for a press that did not move, `at`
 * the point {x, y} (client pixels) where the finger or the pointer was lifted: true when the page
 * used it (the element's own click listeners then do not run), onReady(view)
 * once the element first has a size (the place to choose the first view); cooperative: on a touch
 * screen one finger scrolls the page (a map filling most of a phone's screen must not trap the
 * page, as mapping sites do it) and two fingers pan and zoom the map; onOneFinger() when a finger
 * slides over it (the page may say "use two fingers").
 */
export class MapView {
  constructor(svgEl, { bounds, maxScale = 4, onChange = null, onTap = null, onReady = null, cooperative = false, onOneFinger = null } = {}) {
    this.el = svgEl;
    this.cooperative = cooperative;
    this.onOneFinger = onOneFinger;
    this.onReady = onReady;
    this.bounds = bounds;
    this.maxScale = maxScale;
    this.onChange = onChange;
    this.onTap = onTap;
    this.cx = bounds.x + bounds.w / 2;
    this.cy = bounds.y + bounds.h / 2;
    this.s = 0; // 0 until fitted to a size
    this.pointers = new Map(); // pointerId -> {x, y}
    this.gesture = null; // {kind: "press" | "pan" | "pinch", ...}
    this.moved = false; // the last press became a drag or a pinch: its click is not a tap
    this.lifted = null; // where the last press that did not move ended: {id, x, y, t}
    this.frame = 0;
    this.anim = 0;
    this.target = null; // where a move under way is going: {cx, cy, s}
    this.pending = false;
    svgEl.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svgEl.classList.add("pannable");
    if (cooperative) {
      // the page may scroll over the map; a second finger keeps the gesture for the map
      svgEl.classList.add("cooperative");
      svgEl.addEventListener("touchmove", (ev) => ev.touches.length > 1 && ev.cancelable && ev.preventDefault(), { passive: false });
    }
    svgEl.addEventListener("pointerdown", (ev) => this.#down(ev));
    svgEl.addEventListener("pointermove", (ev) => this.#move(ev));
    svgEl.addEventListener("pointerup", (ev) => this.#up(ev));
    svgEl.addEventListener("pointercancel", (ev) => this.#up(ev, true));
    svgEl.addEventListener("wheel", (ev) => this.#wheel(ev), { passive: false });
    svgEl.addEventListener("click", (ev) => this.#click(ev), true);
    this.resizer = new ResizeObserver(() => this.#resized());
    this.resizer.observe(svgEl);
  }

  destroy() {
    this.resizer.disconnect();
    cancelAnimationFrame(this.frame);
    cancelAnimationFrame(this.anim);
  }

  /** The element's size on screen (CSS pixels). */
  get size() {
    const r = this.el.getBoundingClientRect();
    return { w: Math.max(1, r.width), h: Math.max(1, r.height) };
  }

  /** The scale at which the whole map just fits. */
  get fitScale() {
    const { w, h } = this.size;
    return Math.min(w / this.bounds.w, h / this.bounds.h);
  }

  get minScale() {
    return this.fitScale * 0.9;
  }

  /** The zoom relative to the whole map (1: all of it fits). */
  get zoom() {
    return this.s / this.fitScale;
  }

  /** The part of the map on screen now, in map units. */
  get visible() {
    const { w, h } = this.size;
    const vw = w / this.s;
    const vh = h / this.s;
    return { x: this.cx - vw / 2, y: this.cy - vh / 2, w: vw, h: vh };
  }

  /** A map point's position in client (viewport) pixels. */
  toScreen(x, y) {
    const r = this.el.getBoundingClientRect();
    return { x: r.left + r.width / 2 + (x - this.cx) * this.s, y: r.top + r.height / 2 + (y - this.cy) * this.s };
  }

  /** A client point (pixels) in map units. */
  toMap(clientX, clientY) {
    const r = this.el.getBoundingClientRect();
    return { x: this.cx + (clientX - r.left - r.width / 2) / this.s, y: this.cy + (clientY - r.top - r.height / 2) / this.s };
  }

  /** Show the box {x, y, w, h} (map units) whole, scaled between `minScale` and `maxScale` (px
   *  per unit, each optional), centred; animated unless the person asked for less motion. */
  fit(box, { minScale = 0, maxScale = this.maxScale, animate = false } = {}) {
    const { w, h } = this.size;
    const pad = 0.06;
    let s = Math.min(w / (box.w * (1 + pad) || 1), h / (box.h * (1 + pad) || 1));
    s = Math.min(Math.max(s, minScale), maxScale);
    this.#to(box.x + box.w / 2, box.y + box.h / 2, s, animate);
  }

  /** The whole map. */
  fitAll({ animate = false } = {}) {
    this.#to(this.bounds.x + this.bounds.w / 2, this.bounds.y + this.bounds.h / 2, this.fitScale, animate);
  }

  /** Zoom by `factor` around a client point (the element's centre by default). */
  zoomBy(factor, clientX = null, clientY = null, animate = false) {
    if (!this.s) return;
    const r = this.el.getBoundingClientRect();
    const px = clientX ?? r.left + r.width / 2;
    const py = clientY ?? r.top + r.height / 2;
    const at = this.toMap(px, py);
    const s = this.#clampScale(this.s * factor);
    // keep the map point under (px, py) where it is
    const cx = at.x - (px - r.left - r.width / 2) / s;
    const cy = at.y - (py - r.top - r.height / 2) / s;
    this.#to(cx, cy, s, animate);
  }

  /** Move the map by (dx, dy) screen pixels. */
  panBy(dx, dy) {
    if (!this.s) return;
    this.#set(this.cx - dx / this.s, this.cy - dy / this.s, this.s);
  }

  /** Bring a map point into view (with a margin of `margin` px) without changing the zoom. */
  ensureVisible(x, y, margin = 40) {
    if (!this.s) return;
    const v = this.visible;
    const m = margin / this.s;
    let { cx, cy } = this;
    if (x < v.x + m || x > v.x + v.w - m) cx = x;
    if (y < v.y + m || y > v.y + v.h - m) cy = y;
    if (cx !== this.cx || cy !== this.cy) this.#to(cx, cy, this.s, true);
  }

  /** Centre on a map point at scale `s` (px per unit; the current one by default). */
  centreOn(x, y, s = this.s, animate = true) {
    this.#to(x, y, this.#clampScale(s), animate);
  }

  get canZoomIn() {
    return this.s < this.maxScale * 0.999;
  }

  get canZoomOut() {
    return this.s > this.minScale * 1.001;
  }

  // ---- the camera ----------------------------------------------------------------------------

  #clampScale(s) {
    return Math.min(Math.max(s, this.minScale), Math.max(this.maxScale, this.minScale));
  }

  #set(cx, cy, s) {
    const b = this.bounds;
    this.s = this.#clampScale(s);
    // The view stays on the map: along an axis where it is narrower than the map it may not
    // leave it (a pan towards an edge station stops at the edge, no empty half shown); where it
    // is wider, the map sits in its middle.
    const { w, h } = this.size;
    const along = (c, lo, span, view) => {
      if (view >= span) return lo + span / 2;
      return Math.min(Math.max(c, lo + view / 2), lo + span - view / 2);
    };
    this.cx = along(cx, b.x, b.w, w / this.s);
    this.cy = along(cy, b.y, b.h, h / this.s);
    this.#apply();
  }

  #to(cx, cy, s, animate) {
    cancelAnimationFrame(this.anim);
    this.target = null;
    if (!animate || reducedMotion() || !this.s) {
      this.#set(cx, cy, s);
      return;
    }
    const from = { cx: this.cx, cy: this.cy, s: this.s };
    this.target = { cx, cy, s };
    const start = performance.now();
    const step = (now) => {
      const k = Math.min(1, (now - start) / 220);
      const e = 1 - (1 - k) ** 3;
      const sk = from.s * (s / from.s) ** e; // zoom evenly on a log scale
      this.#set(from.cx + (cx - from.cx) * e, from.cy + (cy - from.cy) * e, sk);
      if (k < 1) this.anim = requestAnimationFrame(step);
      else this.target = null;
    };
    this.anim = requestAnimationFrame(step);
  }

  #apply() {
    const { w, h } = this.size;
    const vw = w / this.s;
    const vh = h / this.s;
    this.el.setAttribute("viewBox", `${(this.cx - vw / 2).toFixed(2)} ${(this.cy - vh / 2).toFixed(2)} ${vw.toFixed(2)} ${vh.toFixed(2)}`);
    this.el.dataset.scale = this.s.toFixed(3);
    this.el.dataset.zoom = this.zoom.toFixed(2);
    if (this.onChange && !this.pending) {
      this.pending = true;
      this.frame = requestAnimationFrame(() => {
        this.pending = false;
        this.onChange(this);
      });
    }
  }

  #resized() {
    const box = this.el.getBoundingClientRect();
    if (!this.el.isConnected || !box.width || !box.height) return; // hidden: wait to be shown
    const first = !this.s;
    const fit = this.fitScale;
    // A move under way ends where it was going: its scales belong to the old size (finishing it
    // at the new one would zoom the map out past its whole).
    const at = this.target || this;
    cancelAnimationFrame(this.anim);
    this.target = null;
    // a new size keeps the zoom relative to the whole map (a phone turned keeps its view)
    this.s = first ? fit : at.s * (fit / (this.lastFit || fit));
    this.lastFit = fit;
    this.#set(at.cx, at.cy, this.s);
    if (first && this.onReady) this.onReady(this);
  }

  // ---- gestures ------------------------------------------------------------------------------

  #down(ev) {
    if (ev.pointerType === "mouse" && ev.button !== 0) return;
    this.pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (this.pointers.size === 1) {
      this.moved = false;
      this.gesture = { kind: "press", id: ev.pointerId, x: ev.clientX, y: ev.clientY, type: ev.pointerType };
    } else if (this.pointers.size === 2) {
      this.#startPinch();
    }
  }

  #startPinch() {
    const [a, b] = [...this.pointers.values()];
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    this.gesture = { kind: "pinch", d0: Math.hypot(a.x - b.x, a.y - b.y) || 1, s0: this.s, at: this.toMap(mid.x, mid.y) };
    this.moved = true;
    for (const id of this.pointers.keys()) this.#capture(id);
  }

  #capture(id) {
    try {
      this.el.setPointerCapture(id);
    } catch {
      /* the pointer is gone already */
    }
  }

  #move(ev) {
    const p = this.pointers.get(ev.pointerId);
    if (!p) return;
    const last = { ...p };
    p.x = ev.clientX;
    p.y = ev.clientY;
    const g = this.gesture;
    if (!g) return;
    if (g.kind === "press") {
      if (Math.hypot(p.x - g.x, p.y - g.y) < (DRAG_PX[g.type] ?? 6)) return;
      if (this.cooperative && g.type === "touch") {
        // one finger: the page scrolls (the browser does it), the map stays
        this.gesture = { kind: "scroll" };
        this.moved = true;
        this.onOneFinger?.();
        return;
      }
      this.gesture = { kind: "pan" };
      this.moved = true;
      this.#capture(ev.pointerId);
      this.panBy(p.x - g.x, p.y - g.y);
      return;
    }
    if (g.kind === "pan") {
      ev.preventDefault();
      this.panBy(p.x - last.x, p.y - last.y);
    } else if (g.kind === "pinch" && this.pointers.size >= 2) {
      ev.preventDefault();
      const [a, b] = [...this.pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      const s = this.#clampScale(g.s0 * (d / g.d0));
      const r = this.el.getBoundingClientRect();
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      // the map point first under the fingers' midpoint follows it
      this.#set(g.at.x - (mid.x - r.left - r.width / 2) / s, g.at.y - (mid.y - r.top - r.height / 2) / s, s);
    }
  }

  #up(ev, cancelled = false) {
    if (!this.pointers.has(ev.pointerId)) return;
    const g = this.gesture;
    if (!cancelled && g?.kind === "press" && g.id === ev.pointerId) {
      this.lifted = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, t: ev.timeStamp };
    }
    this.pointers.delete(ev.pointerId);
    if (cancelled) this.moved = true;
    if (this.gesture?.kind === "pinch" && this.pointers.size === 1) {
      // one finger left: it pans on from where it is (on a cooperative map it lets the page be)
      this.gesture = this.cooperative && ev.pointerType === "touch" ? { kind: "scroll" } : { kind: "pan" };
    } else if (!this.pointers.size) {
      this.gesture = null;
    }
  }

  #wheel(ev) {
    if (!this.s) return;
    ev.preventDefault();
    const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1;
    const dy = ev.deltaY * unit;
    if (ev.shiftKey && !ev.ctrlKey) {
      this.panBy(-dy, 0);
      return;
    }
    this.zoomBy(Math.exp(-dy * (ev.ctrlKey ? 0.01 : 0.0018)), ev.clientX, ev.clientY);
  }

  #click(ev) {
    const lifted = this.lifted;
    this.lifted = null;
    if (this.moved) {
      // the end of a drag or a pinch is not a tap
      this.moved = false;
      ev.stopPropagation();
      ev.preventDefault();
      return;
    }
    if (this.onTap && this.onTap(ev, this.#tapPoint(ev, lifted))) {
      ev.stopPropagation();
      ev.preventDefault();
    }
  }

  /** Where a tap was: where its press was lifted, not the click's own point, which a touch
   *  screen's browser moves onto a nearby element it thinks clickable (Chrome's touch
   *  adjustment: often another station than the one the page would snap to). A click from
   *  the keyboard, or one with no press of ours before it, keeps its own point. */
  #tapPoint(ev, lifted) {
    const same = lifted && (ev.pointerId === lifted.id || (ev.pointerId === undefined && ev.detail > 0));
    if (same && ev.timeStamp - lifted.t < 1000) return { x: lifted.x, y: lifted.y };
    return { x: ev.clientX, y: ev.clientY };
  }
}

/** The distance in pixels from point p to the segment a-b (all in the same pixels). */
export function segmentDistance(p, a, b) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const k = len2 ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2)) : 0;
  return Math.hypot(p.x - (a.x + k * dx), p.y - (a.y + k * dy));
}
