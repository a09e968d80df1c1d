// Metro X's rules for the "Learn to play" page (web/learn.js): the sections in plain words, with
// pictures drawn by the game's own code: the cards by page.js `cardFace`, and what a card does to
// a little line of six stations, as a rulebook's figure states it (RULES-METROX.md §3; the page
// applies no card: in play the server's previews say it). The words are this game's catalogue
// part i18n/<lang>/learn.json.

import { ensureStylesheet, html, svg } from "/kit.js";
import { t } from "/i18n.js";
import { cardFace } from "./page.js";
import { cardWords } from "./notation.js";

const LINE_COLOUR = "#0072b2";
const STEP = 52;

// Colours of the other lines that cross a transfer's station (not the strip's own blue).
const CROSSING_COLOURS = ["#d55e00", "#009e73", "#cc79a7"];

/** A little line of six stations: before (filled ones crossed) and after the card, with the new
 *  stations (`effect.stations`) ringed and a transfer's number (`effect.transfer`) written in.
 *  `degrees` draws the other lines crossing a station right through it (a transfer counts them). */
function lineStrip(filledBefore, effect, label, degrees = {}) {
  const ids = ["s1", "s2", "s3", "s4", "s5", "s6"];
  const sheet = { filled: new Set(filledBefore) };
  const width = STEP * ids.length + 20;
  const root = svg("svg", { viewBox: `0 0 ${width} 64`, width, height: 64, class: "learn-picture", role: "img",
    "aria-label": label });  // prettier-ignore
  svg("title", {}, root).textContent = label;
  const x = (i) => 10 + STEP / 2 + i * STEP;
  svg("line", { x1: x(0), y1: 30, x2: x(ids.length - 1), y2: 30, stroke: LINE_COLOUR, "stroke-width": 6 }, root);
  ids.forEach((id, i) => {
    for (let k = 1; k < (degrees[id] || 0); k++) {
      const dx = k === 1 ? 22 : -22; // the second line leans the other way: two lines cross here
      svg("line", { x1: x(i) - dx, y1: 2, x2: x(i) + dx, y2: 58, class: "learn-crossing",
        stroke: CROSSING_COLOURS[(k - 1) % CROSSING_COLOURS.length], "stroke-width": 5 }, root);  // prettier-ignore
    }
  });
  ids.forEach((id, i) => {
    const added = effect.stations.includes(id);
    const before = sheet.filled.has(id);
    svg("circle", { cx: x(i), cy: 30, r: 13, class: added ? "learn-stop added" : "learn-stop" }, root);
    if (added && effect.transfer !== null) {
      svg("text", { x: x(i), y: 35, class: "learn-stop-number" }, root).textContent = String(effect.transfer);
    } else if (before || added) {
      const d = 7;
      svg("path", { d: `M${x(i) - d} ${30 - d}L${x(i) + d} ${30 + d}M${x(i) + d} ${30 - d}L${x(i) - d} ${30 + d}`,
        class: added ? "learn-cross added" : "learn-cross" }, root);  // prettier-ignore
    }
  });
  return root;
}

/** A card (drawn by the board) with what it does, in words and in a little line. */
function cardExample(code, filledBefore, effect, effectKey, degrees = {}) {
  const figure = html("figure", { className: "learn-card-example" });
  const face = cardFace(code, "big");
  face.setAttribute("aria-label", cardWords(code));
  face.title = cardWords(code);
  figure.append(face);
  figure.append(lineStrip(filledBefore, effect, t(effectKey), degrees));
  html("figcaption", {}, figure, t(effectKey));
  return figure;
}

function cards() {
  const box = html("div", { className: "learn-stack" });
  box.append(
    // a 3 fills the next three empty stations in a row, stopping at a filled one
    cardExample("3", ["s3"], { stations: ["s1", "s2"], transfer: null }, "metrox.learn.pic.number"),
    // a skip 2 fills the next two empty stations, jumping filled ones
    cardExample("s2", ["s2"], { stations: ["s1", "s3"], transfer: null }, "metrox.learn.pic.skip"),
    // a transfer fills the next empty station and writes 2 × the lines through it (3 here)
    cardExample("t", ["s1", "s2"], { stations: ["s3"], transfer: 6 }, "metrox.learn.pic.transfer", { s3: 3 }),
    // a free card fills any one empty station
    cardExample("f", ["s1", "s2", "s4"], { stations: ["s5"], transfer: null }, "metrox.learn.pic.free"),
  );
  return box;
}

/** Amsterdam, a beginners' city sheet (the seed's advice), as the game draws it for the lobby
 *  (games/metrox/thumbnail.py), twice the lobby's size. */
function beginnerMap() {
  const figure = html("figure", { className: "learn-card-example" });
  const label = t("metrox.learn.pic.map");
  const root = svg("svg", { viewBox: "0 0 160 120", width: 320, height: 240, class: "learn-picture", role: "img",
    "aria-label": label });  // prettier-ignore
  svg("title", {}, root).textContent = label;
  svg("image", { href: new URL("./maps/amsterdam.svg", import.meta.url).href, x: 0, y: 0, width: 160, height: 120 }, root);
  figure.append(root);
  html("figcaption", {}, figure, label);
  return figure;
}

/** The learn page's sections: {id, title, paragraphs, picture} in reading order. */
export function rules() {
  ensureStylesheet(new URL("./page.css", import.meta.url).href);
  const p = (key) => t(key).split("\n");
  return [
    { id: "goal", title: t("metrox.learn.goal.title"), paragraphs: p("metrox.learn.goal.text") },
    { id: "maps", title: t("metrox.learn.maps.title"), paragraphs: p("metrox.learn.maps.text"), picture: beginnerMap() },
    { id: "turn", title: t("metrox.learn.turn.title"), paragraphs: p("metrox.learn.turn.text") },
    { id: "cards", title: t("metrox.learn.cards.title"), paragraphs: p("metrox.learn.cards.text"), picture: cards() },
    { id: "bonus", title: t("metrox.learn.bonus.title"), paragraphs: p("metrox.learn.bonus.text") },
    { id: "end", title: t("metrox.learn.end.title"), paragraphs: p("metrox.learn.end.text") },
  ];
}
