// Metro X's map words (RULES-METROX.md): the label beside each line's start (its badge, windows
// and two bonuses) and the station names. They live apart from board.js because placing words
// where they cover nothing is its own problem: labels once per map, names at every pan and zoom.

import { seatSymbol, svg } from "/kit.js";
import { t } from "/i18n.js";
import { shownMark } from "./notation.js";

export const STATION_R = 15;
const BOX = 20; // a window box
const BADGE_R = 15;
const NAME_PX = 13; // station names on screen at every zoom (a name that would overlap waits)

/** Line labels near each start: badge, windows, bonus [first, later]; pushed outward until they
 *  overlap neither another label nor a station. Returns each line's label and the boxes taken. */
export function placeLabels(map, pos, parent, on) {
  const labels = new Map();
  const placed = [];
  const stationBoxes = map.stations.map((s) => {
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
    const boxAt = (d) => {
      const ax = p0.x + dx * d;
      const ay = p0.y + dy * d;
      const x0 = dx < -0.3 ? ax - w : dx > 0.3 ? ax : ax - w / 2;
      const y0 = dy < -0.3 ? ay - h : dy > 0.3 ? ay : ay - h / 2;
      return { x0, y0, x1: x0 + w, y1: y0 + h };
    };
    let d = STATION_R + 10;
    let box = boxAt(d);
    for (let k = 0; k < 60; k++) {
      if (!placed.some((b) => overlaps(b, box)) && !stationBoxes.some((b) => overlaps(b, box))) break;
      d += 8;
      box = boxAt(d);
    }
    placed.push(box);
    const anchor = { x: p0.x + dx * Math.max(0, d - 6), y: p0.y + dy * Math.max(0, d - 6) };
    labels.set(line.id, buildLabel(parent, line, box, p0, anchor, on));
  }
  return { labels, boxes: placed };
}

/** On a phone the map opens zoomed in, so most line starts lie out of sight: each label whose
 *  box leaves the visible part `v.visible` slides back inside its edge (its tether hidden), so
 *  every line's windows and bonuses stay readable. `boxes` are the labels' own places (in the
 *  order of `lines`); returns where they are now, for the station names to avoid. */
export function pinLabels(v, labels, boxes, lines, pin) {
  const vis = v?.visible;
  const out = [];
  const hit = (a) => out.some((o) => a.x0 < o.x1 && o.x0 < a.x1 && a.y0 < o.y1 && o.y0 < a.y1);
  lines.forEach((line, i) => {
    const b = boxes[i];
    const g = labels.get(line.id)?.g;
    let dx = 0;
    let dy = 0;
    if (pin && vis) {
      const margin = 4 / (v.s || 1);
      const inside = (lo, size, from, span) => Math.max(from + margin, Math.min(lo, from + span - size - margin));
      dx = inside(b.x0, b.x1 - b.x0, vis.x, vis.w) - b.x0;
      dy = inside(b.y0, b.y1 - b.y0, vis.y, vis.h) - b.y0;
      // Two labels slid onto one edge: the later steps down (then up) past the others.
      const h = b.y1 - b.y0 + margin;
      for (let k = 1; k < 12 && (dx || dy) && hit({ x0: b.x0 + dx, y0: b.y0 + dy, x1: b.x1 + dx, y1: b.y1 + dy }); k++) {
        const step = (k % 2 ? 1 : -1) * Math.ceil(k / 2) * h;
        const y0 = inside(b.y0 + dy + step, b.y1 - b.y0, vis.y, vis.h);
        if (!hit({ x0: b.x0 + dx, y0, x1: b.x1 + dx, y1: y0 + b.y1 - b.y0 })) dy = y0 - b.y0;
      }
    }
    const moved = Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5;
    if (g) {
      if (moved) g.setAttribute("transform", `translate(${dx.toFixed(1)} ${dy.toFixed(1)})`);
      else g.removeAttribute("transform");
      g.classList.toggle("pinned", moved);
    }
    out.push(moved ? { x0: b.x0 + dx, y0: b.y0 + dy, x1: b.x1 + dx, y1: b.y1 + dy } : b);
  });
  return out;
}

/** One line's label; `on` gets its pointer's events (hover, leave, pick). */
function buildLabel(parent, line, box, p0, anchor, on) {
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
    const text = svg("text", { class: "mx-window-text", x: x + BOX / 2, y: cy, "text-anchor": "middle", dy: "0.35em" }, g);
    windows.push({ r, t: text });
    x += BOX + 3;
  }
  x += 4;
  const bonus = [];
  line.bonus.forEach((value, i) => {
    const r = svg("rect", { class: `mx-bonus ${i ? "later" : "first"}`, x, y: cy - 11, width: 27, height: 22, rx: 11, fill: "#ffffff" }, g);
    const text = svg("text", { class: "mx-bonus-text", x: x + 13.5, y: cy, "text-anchor": "middle", dy: "0.35em" }, g);
    text.textContent = String(value);
    const title = svg("title", {}, r);
    const mark = svg("g", { class: "mx-bonus-seat" }, g);
    bonus.push({ r, t: text, title, value, mark, x: x + 27, y: cy - 10 });
    x += 30;
  });
  const title = svg("title", {}, g);
  title.textContent = t("metrox.line_name", { line: line.id, name: line.name || "" });
  g.addEventListener("mouseenter", () => on.hover(line.id));
  g.addEventListener("mouseleave", () => on.hover(null));
  g.addEventListener("click", () => on.line(line.id));
  return { g, windows, bonus, title };
}

/** A label as seat p's sheet has it: the card marks in its windows (and the preview's), who
 *  took each bonus (colour and symbol), and its title in words. */
export function paintLabel(lab, line, s, preview) {
  const p = s.shown;
  const marks = s.sheet.windows[line.id] || [];
  lab.windows.forEach((w, i) => {
    const previewMark = preview?.line === line.id && i === marks.length ? preview.mark : null;
    w.t.textContent = shownMark(i < marks.length ? marks[i] : previewMark || "");
    w.r.classList.toggle("used", i < marks.length);
    w.r.classList.toggle("preview", previewMark !== null && previewMark !== undefined);
  });
  const done = s.lines.find((l) => l.line === line.id)?.completed || [];
  const paintBonus = (b, who, label) => {
    b.r.classList.toggle("taken", who.length > 0);
    b.r.classList.toggle("mine", who.some((e) => e.seat === p));
    if (who.length) b.r.setAttribute("fill", s.colour(who.some((e) => e.seat === p) ? p : who[0].seat));
    else b.r.setAttribute("fill", "#ffffff");
    b.t.classList.toggle("taken", who.length > 0);
    // the taker's symbol on the pill's corner: seats told apart without their colour
    b.mark.replaceChildren();
    if (who.length) {
      const seat = who.some((e) => e.seat === p) ? p : who[0].seat;
      svg("circle", { cx: b.x, cy: b.y, r: 6.5, fill: "#fff", stroke: "#222", "stroke-width": 1 }, b.mark);
      seatSymbol(seat, b.x, b.y, 3.8, { fill: "#222" }, b.mark);
    }
    const names = who.map((e) => t("metrox.bonus_taker", { name: s.seatName(e.seat), turn: e.turn + 1 })).join(", ");
    b.title.textContent = t(`metrox.bonus_${label}`, { value: b.value, names: names || t("metrox.not_taken") });
  };
  paintBonus(lab.bonus[0], done.filter((e) => e.first), "first");
  paintBonus(lab.bonus[1], done.filter((e) => !e.first), "later");
  lab.title.textContent = t("metrox.line_title", {
    line: line.id, name: line.name || "", marks: marks.join(" ") || t("metrox.empty"), used: marks.length,
    windows: line.windows, first: line.bonus[0], later: line.bonus[1] });
}

/** The stations `moves` (the selected move, or the only legal one) point at, named before all
 *  others: on a line, those from its first empty station to the last the card would fill (a
 *  skip's jumped ones too); a free card's station. The tutorial's coach names exactly these. */
export function pointedStations(index, sheet, moves, effect) {
  const out = new Set();
  for (const m of moves || []) {
    if (m.station) out.add(m.station);
    const line = m.line ? index.lines.get(m.line) : null;
    if (!line || !sheet) continue;
    const fill = effect(m.line).stations;
    if (!fill.length) continue;
    const from = line.stations.findIndex((id) => !sheet.filled.has(id));
    const to = line.stations.indexOf(fill[fill.length - 1]);
    for (const id of line.stations.slice(Math.max(from, 0), to + 1)) out.add(id);
  }
  return out;
}

/** Station names at NAME_PX on screen beside their stations, where they cover no station, no
 *  line label and no name already placed: the stations in `first` (what the card points at),
 *  then the interchanges, then the others; zooming in makes room for every name (a 90-station
 *  sheet names its crossings when fitted whole). */
export function layoutNames(v, index, pos, names, labelBoxes, widths, first = new Set()) {
  if (!v?.s || !names) return;
  const s = v.s;
  const size = NAME_PX / s;
  const vis = v.visible;
  const r = STATION_R + 2;
  const taken = [...pos.values()].map((p) => ({ x0: p.x - r, y0: p.y - r, x1: p.x + r, y1: p.y + r }));
  taken.push(...(labelBoxes || []));
  const hits = (b) => taken.some((o) => b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1);
  const degree = (st) => index.degree.get(st.id) || 0;
  const rank = (st) => (first.has(st.id) ? 1000 : 0) + degree(st);
  const order = [...index.map.stations].sort((a, b) => rank(b) - rank(a));
  const gap = r + 2 / s;
  const h = size * 1.15;
  for (const st of order) {
    const el = names.get(st.id);
    const p = pos.get(st.id);
    const w = nameWidth(widths, st.id, el) * size + 2 / s;
    const spots = [
      [p.x + gap, p.y - h / 2, "start"], [p.x - gap - w, p.y - h / 2, "end"],
      [p.x - w / 2, p.y + gap, "middle"], [p.x - w / 2, p.y - gap - h, "middle"],
    ];  // prettier-ignore
    const inSight = p.x >= vis.x && p.x <= vis.x + vis.w && p.y >= vis.y && p.y <= vis.y + vis.h;
    // A name cut by the map's edge cannot be read: only a spot wholly in sight will do.
    const fits = (x, y) => x >= vis.x && y >= vis.y && x + w <= vis.x + vis.w && y + h <= vis.y + vis.h;
    const spot = inSight && spots.find(([x, y]) => fits(x, y) && !hits({ x0: x, y0: y, x1: x + w, y1: y + h }));
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
function nameWidth(widths, id, el) {
  if (!widths.has(id)) {
    el.setAttribute("font-size", "100");
    const measured = el.getComputedTextLength() / 100;
    widths.set(id, measured > 0 ? measured : (el.textContent || "").length * 0.62);
  }
  return widths.get(id);
}
