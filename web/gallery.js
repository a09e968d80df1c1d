// The lobby's games as a gallery (issue 35 item 4): a picture-less drop-down hid what each game
// is; each game is now a button with a small picture of its board and its name, pressed for the
// game picked. The drop-down stays in the form (out of sight) as the form's value.

import { html } from "./dom.js";
import { gameName } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";

// Small pictures drawn from shapes: [tag, attributes] each, on a 64x48 view.
const PICTURES = {
  metro: [
    ["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#f3ead2", stroke: "#1f2a44" }],
    ...[0, 1, 2].flatMap((r) => [0, 1, 2, 3].map((c) => ["rect", { x: 6 + c * 14, y: 6 + r * 13, width: 12, height: 11, fill: "#fffdf6", stroke: "#c9bfa4" }])),
    ["path", { d: "M6 17 C 20 17, 20 30, 34 30 S 48 43, 58 43", fill: "none", stroke: "#e0007a", "stroke-width": 3 }],
    ["path", { d: "M20 6 C 20 20, 46 14, 46 30", fill: "none", stroke: "#0072b2", "stroke-width": 3 }],
  ],
  metrox: [
    ["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#fffdf6", stroke: "#1f2a44" }],
    ["path", { d: "M6 38 L26 24 L58 24", fill: "none", stroke: "#d55e00", "stroke-width": 3 }],
    ["path", { d: "M14 6 L26 24 L34 42", fill: "none", stroke: "#009e73", "stroke-width": 3 }],
    ["path", { d: "M8 12 L44 12 L50 40", fill: "none", stroke: "#0072b2", "stroke-width": 3 }],
    ...[[26, 24], [44, 12], [14, 6], [58, 24], [34, 42], [8, 12]].map(([cx, cy]) => ["circle", { cx, cy, r: 3, fill: "#fff", stroke: "#1f2a44", "stroke-width": 1.5 }]),
  ],
  underground: [
    ["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#e8f1f8", stroke: "#1f2a44" }],
    ["path", { d: "M6 30 L22 14 L42 14 L58 30", fill: "none", stroke: "#dc241f", "stroke-width": 3 }],
    ["path", { d: "M10 42 L32 28 L54 10", fill: "none", stroke: "#0019a8", "stroke-width": 3 }],
    ["path", { d: "M4 22 L60 22", fill: "none", stroke: "#00782a", "stroke-width": 3, "stroke-dasharray": "6 3" }],
    ...[[22, 14], [42, 14], [32, 28], [32, 22]].map(([cx, cy]) => ["circle", { cx, cy, r: 3.2, fill: "#fff", stroke: "#1f2a44", "stroke-width": 1.5 }]),
  ],
};

function picture(kind) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 64 48");
  svg.setAttribute("class", "game-tile-picture");
  svg.setAttribute("aria-hidden", "true");
  const shapes = PICTURES[kind] || [
    ["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#f3ead2", stroke: "#1f2a44" }],
  ];
  for (const [tag, attrs] of shapes) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.append(el);
  }
  return svg;
}

/** The gallery of `kinds` after `select`'s label (made once; remade when the kinds change).
 *  `onPick(kind)` is called on a click. */
export function gameGallery(select, kinds, onPick) {
  const label = select.closest("label");
  let gallery = document.getElementById("game-gallery");
  if (!gallery) {
    gallery = html("div", { id: "game-gallery", className: "game-gallery", role: "group" });
    label.after(gallery);
    // The drop-down stays for the form's value (and scripts), out of sight and out of the way
    // of the keyboard and screen readers: the gallery's buttons are the control.
    label.classList.add("game-pick-hidden");
    label.setAttribute("aria-hidden", "true");
    select.tabIndex = -1;
    const title = label.querySelector("span");
    if (title?.textContent) gallery.setAttribute("aria-label", title.textContent);
  }
  gallery.replaceChildren(
    ...kinds.map((kind) => {
      const button = html("button", { type: "button", className: "game-tile", "aria-pressed": "false" });
      button.dataset.game = kind;
      button.append(picture(kind));
      html("span", { className: "game-tile-name" }, button, gameName(kind));
      button.addEventListener("click", () => onPick(kind));
      return button;
    }),
  );
}

/** Mark the picked game's button as pressed. */
export function markPickedGame(kind) {
  for (const b of document.querySelectorAll("#game-gallery .game-tile")) {
    b.setAttribute("aria-pressed", b.dataset.game === kind ? "true" : "false");
  }
}
