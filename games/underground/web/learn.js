// On the Underground's rules for the "Learn to play" page (web/learn.js): the sections in plain
// words, with little diagrams in the board's own colours and dash patterns (lines.js, from the
// server's constants); which stations a loop encloses each picture says itself (the rules that
// score loops are the server's alone). The words are this game's catalogue part
// i18n/<lang>/learn.json.

import { ensureStylesheet, html, svg } from "/kit.js";
import { t } from "/i18n.js";
import { legend } from "./legend.js";
import { lineDash, lineHex, seatLines } from "./lines.js";

/** A little diagram: `stations` {id: [x, y, name?]}, `rails` [[a, b, colour]], optional empty
 *  sections `free` [[a, b]], the passenger's station and a destination's; the `enclosed`
 *  stations (inside a loop of the picture) get a "+1". Lines look as in a two-seat game. */
function diagram({ stations, rails = [], free = [], passenger = null, destination = null, enclosed = [], label }) {
  const lines = seatLines(null, 2);
  const root = svg("svg", { viewBox: "0 0 300 170", width: 300, height: 170, class: "learn-picture", role: "img",
    "aria-label": label });  // prettier-ignore
  svg("title", {}, root).textContent = label;
  const at = (id) => stations[id];
  for (const [a, b] of free) {
    svg("line", { x1: at(a)[0], y1: at(a)[1], x2: at(b)[0], y2: at(b)[1], class: "learn-section" }, root);
  }
  for (const [a, b, colour] of rails) {
    svg("line", { x1: at(a)[0], y1: at(a)[1], x2: at(b)[0], y2: at(b)[1], stroke: lineHex(colour),
      "stroke-width": 7, "stroke-linecap": "round", "stroke-dasharray": lineDash(lines, colour) || null }, root);  // prettier-ignore
  }
  for (const [id, [x, y, name]] of Object.entries(stations)) {
    svg("circle", { cx: x, cy: y, r: 8, class: id === destination ? "learn-ug-station destination" : "learn-ug-station" }, root);
    if (name) svg("text", { x, y: y + 24, class: "learn-ug-name" }, root).textContent = name;
    if (enclosed.includes(id)) svg("text", { x: x + 12, y: y - 10, class: "learn-ug-plus" }, root).textContent = "+1";
  }
  if (passenger) {
    const [x, y] = at(passenger);
    const g = svg("g", { class: "learn-ug-passenger", transform: `translate(${x - 7} ${y - 34})` }, root);
    svg("circle", { cx: 7, cy: 5, r: 5 }, g);
    svg("path", { d: "M0 22 Q0 11 7 11 Q14 11 14 22 Z" }, g);
  }
  return root;
}

function figure(picture, caption) {
  const box = html("figure", { className: "learn-figure" });
  box.append(picture);
  html("figcaption", {}, box, caption);
  return box;
}

function building() {
  const box = html("div", { className: "learn-stack" });
  const s = { a: [40, 90, "A"], b: [120, 60, "B"], c: [200, 90, "C"], d: [270, 50, "D"] };
  box.append(
    figure(diagram({ stations: s, rails: [["a", "b", "red"], ["b", "c", "red"]], free: [["c", "d"]],
      label: t("underground.learn.pic.rail") }), t("underground.learn.pic.rail")),  // prettier-ignore
  );
  const br = { a: [30, 110, "A"], b: [110, 110, "B"], c: [190, 110, "C"], d: [150, 40, "D"], e: [270, 110, "E"] };
  box.append(
    figure(diagram({ stations: br, rails: [["a", "b", "red"], ["b", "c", "red"], ["c", "e", "red"], ["b", "d", "red"]],
      label: t("underground.learn.pic.branch") }), t("underground.learn.pic.branch")),  // prettier-ignore
  );
  const lp = { a: [40, 40], b: [260, 40], c: [260, 140], d: [40, 140], x: [110, 90, "X"], y: [190, 90, "Y"] };
  box.append(
    figure(diagram({ stations: lp, rails: [["a", "b", "blue"], ["b", "c", "blue"], ["c", "d", "blue"], ["d", "a", "blue"]],
      enclosed: ["x", "y"], label: t("underground.learn.pic.loop") }), t("underground.learn.pic.loop")),  // prettier-ignore
  );
  return box;
}

function riding() {
  const s = { a: [40, 110, "A"], b: [120, 110, "B"], c: [200, 110, "C"], d: [270, 60, "D"] };
  const pic = diagram({ stations: s, rails: [["a", "b", "red"], ["b", "c", "red"]], free: [["c", "d"]],
    passenger: "a", destination: "c", label: t("underground.learn.pic.ride") });  // prettier-ignore
  return figure(pic, t("underground.learn.pic.ride"));
}

/** The learn page's sections: {id, title, paragraphs, picture} in reading order. */
export function rules() {
  ensureStylesheet(new URL("./page.css", import.meta.url).href);
  const p = (key) => t(key).split("\n");
  return [
    { id: "goal", title: t("underground.learn.goal.title"), paragraphs: p("underground.learn.goal.text") },
    { id: "build", title: t("underground.learn.build.title"), paragraphs: p("underground.learn.build.text"),
      picture: building() },  // prettier-ignore
    { id: "scoring", title: t("underground.learn.scoring.title"), paragraphs: p("underground.learn.scoring.text") },
    { id: "passenger", title: t("underground.learn.passenger.title"), paragraphs: p("underground.learn.passenger.text"),
      picture: riding() },  // prettier-ignore
    { id: "end", title: t("underground.learn.end.title"), paragraphs: p("underground.learn.end.text") },
    { id: "legend", title: t("underground.learn.legend.title"), paragraphs: p("underground.learn.legend.text"), picture: legend() },
  ];
}
