// On the Underground's rules page, the legend (issue 35, item 4): what the map's marks mean (the
// destinations' colours, national rail, termini, connection symbols, the face-up cards) drawn
// with the map's own classes (page.css) so they look as in a game, and what the game page's short
// labels mean: a line's button "red · 12" and the score table's columns St, NR, End, Sym, Loop, Ride.

import { html, svg } from "/kit.js";
import { t } from "/i18n.js";
import { SYMBOL_HEX } from "./draw.js";
import { lineHex } from "./lines.js";
import { cw } from "./words.js";

const COLUMNS = ["start", "rail", "terminus", "symbol", "enclosed", "ride"];

/** A mark as on the map, 28 px across; `draw(g)` adds its shapes in map units around 0,0. */
function icon(draw) {
  const root = svg("svg", { viewBox: "-9 -9 18 18", width: 28, height: 28, class: "learn-legend-icon", "aria-hidden": "true" });
  draw(root);
  return root;
}

const disc = (kind, r) => (g) => {
  const st = svg("g", { class: `ug-station dest-${kind}` }, g);
  svg("circle", { class: "ug-disc", cx: 0, cy: 0, r }, st);
};

const MARKS = {
  express: disc("express", 3.7),
  normal: disc("normal", 3.7),
  plain: disc("plain", 2.5),
  faceup: (g) => {
    svg("circle", { class: "ug-faceup express", cx: 0, cy: 0, r: 7.5 }, g);
    disc("express", 3.7)(g);
  },
  rail: (g) => {
    const nr = svg("g", { class: "ug-nr", transform: "scale(1.6)" }, g);
    svg("rect", { x: -4.2, y: -3.2, width: 8.4, height: 6.4, rx: 1.6 }, nr);
    svg("path", { d: "M-2.8 -1.1 H2.6 M1.2 -2.3 L2.6 -1.1 M2.8 1.1 H-2.6 M-1.2 2.3 L-2.6 1.1" }, nr);
  },
  terminus: (g) => {
    svg("line", { x1: -9, y1: 0, x2: 0, y2: 0, stroke: lineHex("red"), "stroke-width": 3 }, g);
    svg("line", { class: "ug-terminus", x1: 0, y1: -7, x2: 0, y2: 7 }, g);
  },
  symbol: (g) => {
    const tok = svg("g", { class: "ug-token", transform: "scale(1.6)" }, g);
    svg("circle", { r: 4.6, fill: SYMBOL_HEX.a }, tok);
    svg("text", { y: 1.9, "text-anchor": "middle" }, tok).textContent = "A";
  },
};

/** The legend: the map's marks, then the game page's short labels, each with its words. */
export function legend() {
  const box = html("div", { className: "learn-legend" });
  html("h3", {}, box, t("underground.learn.legend.map"));
  const marks = html("ul", { className: "learn-legend-list learn-legend-marks" }, box);
  for (const [key, draw] of Object.entries(MARKS)) {
    const li = html("li", { "data-mark": key }, marks);
    li.append(icon(draw));
    html("span", {}, li, t(`underground.learn.legend.${key}`));
  }
  html("h3", {}, box, t("underground.learn.legend.page"));
  const labels = html("ul", { className: "learn-legend-list learn-legend-labels" }, box);
  const chip = html("li", { "data-label": "chips" }, labels);
  html("span", { className: "learn-legend-chip" }, chip, `${cw("red")} · 12`);
  html("span", {}, chip, t("underground.learn.legend.chips", { colour: cw("red"), count: 12 }));
  for (const key of COLUMNS) {
    const li = html("li", { "data-label": key }, labels);
    const long = t(`underground.col.${key}`);
    html("abbr", { className: "learn-legend-chip", title: long }, li, t(`underground.col.${key}.short`));
    html("span", {}, li, `${long}: ${t(`underground.learn.legend.col.${key}`)}`);
  }
  return box;
}
