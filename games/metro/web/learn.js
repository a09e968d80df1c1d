// Metro's rules for the "Learn to play" page (web/learn.js): the sections in plain words, each
// with a small picture drawn by the board's own code (tiles by board.js `tileGroup`, tracks by
// tiles.js `trackPath`), never a picture file. The routes in the pictures are traced by the rules
// core (learn_pictures.json, written by games/metro/learn_pictures.py): the page follows no
// track itself. The words are this game's catalogue part i18n/<lang>/learn.json.

import { ensureStylesheet } from "/kit.js";
import { t } from "/i18n.js";
import { colourHex, el, tileGroup } from "./board.js";
import { trackPath } from "./tiles.js";

const CELL = 60;
const PAD = 26; // room for the station markers around the little boards
// The pictures' tiles and routes, traced by the rules core (games/metro/learn_pictures.py).
const PICTURES = new URL("./learn_pictures.json", import.meta.url).href;

/** A little board, a window onto a real board (one of learn_pictures.json's): its tiles, the
 *  station's route drawn step by step in yellow as the rules core traced it, the station as a
 *  numbered marker at its departure, and the central block's part in the window, if any. */
function miniBoard({ rows, cols, tiles, station, depart, path, centre }, label) {
  const width = cols * CELL + 2 * PAD;
  const height = rows * CELL + 2 * PAD;
  const root = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "learn-picture metro-board-mini",
    role: "img", "aria-label": label, width, height });  // prettier-ignore
  el("title", {}, root).textContent = label;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      el("rect", { x: PAD + c * CELL, y: PAD + r * CELL, width: CELL, height: CELL, class: "learn-square" }, root);
    }
  }
  if (centre) {
    el("rect", { x: PAD + centre.c * CELL + 3, y: PAD + centre.r * CELL + 3, width: centre.w * CELL - 6,
      height: centre.h * CELL - 6, rx: 8, class: "learn-centre" }, root);  // prettier-ignore
    el("text", { x: PAD + (centre.c + centre.w / 2) * CELL, y: PAD + (centre.r + centre.h / 2) * CELL + 7,
      class: "learn-centre-mark" }, root).textContent = "\u00d72";  // prettier-ignore
  }
  for (const x of tiles) root.appendChild(tileGroup(x.code, PAD + x.c * CELL, PAD + x.r * CELL, CELL));
  for (const [r, c, enter, out] of path) {
    el("path", { d: trackPath(enter, out, CELL, PAD + c * CELL, PAD + r * CELL), class: "learn-route",
      stroke: colourHex("yellow") }, root);  // prettier-ignore
  }
  // The marker sits outside the departure's side, at its connector's third of the square.
  const x = depart.connector;
  const side = { 0: [0, -1], 6: [-1, 0], 4: [0, 1], 2: [1, 0] }[x];
  const [px, py] = [x === 6 ? 0 : x === 2 ? 1 : 1 / 3, x === 0 ? 0 : x === 4 ? 1 : 2 / 3];
  const cx = PAD + (depart.c + px) * CELL + side[0] * 13;
  const cy = PAD + (depart.r + py) * CELL + side[1] * 13;
  el("circle", { cx, cy, r: 11, fill: colourHex("yellow"), class: "learn-station" }, root);
  el("text", { x: cx, y: cy + 4.5, class: "learn-station-number" }, root).textContent = String(station);
  return root;
}

/** One tile, large, with its four tracks. */
function tilePicture(code, label) {
  const root = el("svg", { viewBox: "0 0 60 60", width: 96, height: 96, class: "learn-picture", role: "img",
    "aria-label": label });  // prettier-ignore
  el("title", {}, root).textContent = label;
  root.appendChild(tileGroup(code, 0, 0, 60));
  return root;
}

function tiles() {
  const box = document.createElement("div");
  box.className = "learn-row";
  box.append(
    tilePicture("aacb", t("metro.learn.pic.tile_a")),
    tilePicture("cbcb", t("metro.learn.pic.tile_b")),
    tilePicture("dddd", t("metro.learn.pic.tile_d")),
  );
  return box;
}

/** The learn page's sections: {id, title, paragraphs, picture} in reading order. */
export async function rules() {
  ensureStylesheet(new URL("./page.css", import.meta.url).href);
  const reply = await fetch(PICTURES);
  if (!reply.ok) throw new Error(`${PICTURES}: ${reply.status}`);
  const pictures = await reply.json();
  const p = (key) => t(key).split("\n");
  return [
    { id: "goal", title: t("metro.learn.goal.title"), paragraphs: p("metro.learn.goal.text") },
    { id: "tiles", title: t("metro.learn.tiles.title"), paragraphs: p("metro.learn.tiles.text"), picture: tiles() },
    {
      id: "turn", title: t("metro.learn.turn.title"), paragraphs: p("metro.learn.turn.text"),
    },
    {
      id: "scoring",
      title: t("metro.learn.scoring.title"),
      paragraphs: p("metro.learn.scoring.text"),
      picture: miniBoard(pictures.route_edge, t("metro.learn.pic.route_edge")),
    },
    {
      id: "centre",
      title: t("metro.learn.centre.title"),
      paragraphs: p("metro.learn.centre.text"),
      picture: miniBoard(pictures.route_centre, t("metro.learn.pic.route_centre")),
    },
    { id: "where", title: t("metro.learn.where.title"), paragraphs: p("metro.learn.where.text") },
    { id: "end", title: t("metro.learn.end.title"), paragraphs: p("metro.learn.end.text") },
  ];
}
