// The lobby's games as a gallery (issue 35 item 4): a picture-less drop-down hid what each game
// is; each game is now a button with a small picture of its board and its name, pressed for the
// game picked. The drop-down stays in the form (out of sight) as the form's value.

import { SAFE_SHADES, html, svg } from "./dom.js";
import { gameName } from "./words.js";

const INK = "#1f2a44";

// Small pictures on a 64x48 view: the ground ([tag, attributes] shapes), the lines (path data,
// stroked in the game's own colours, first to last: see lineColours) and the stops on them.
const PICTURES = {
  metro: {
    ground: [
      ["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#f3ead2", stroke: INK }],
      ...[0, 1, 2].flatMap((r) => [0, 1, 2, 3].map((c) => ["rect", { x: 6 + c * 14, y: 6 + r * 13, width: 12, height: 11, fill: "#fffdf6", stroke: "#c9bfa4" }])),
    ],
    lines: ["M6 17 C 20 17, 20 30, 34 30 S 48 43, 58 43", "M20 6 C 20 20, 46 14, 46 30"],
    stops: [],
  },
  metrox: {
    ground: [["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#fffdf6", stroke: INK }]],
    lines: ["M6 38 L26 24 L58 24", "M14 6 L26 24 L34 42", "M8 12 L44 12 L50 40"],
    stops: [[26, 24], [44, 12], [14, 6], [58, 24], [34, 42], [8, 12]],
  },
  underground: {
    ground: [["rect", { x: 2, y: 2, width: 60, height: 44, rx: 4, fill: "#e8f1f8", stroke: INK }]],
    lines: ["M6 30 L22 14 L42 14 L58 30", "M10 42 L32 28 L54 10", "M4 22 L60 22"],
    stops: [[22, 14], [42, 14], [32, 28], [32, 22]],
  },
};

/** A game's colours as its catalogue entry (GET /api/meta) gives them, in its own order: its
 *  lines' (`constants.colours`, their shades in `constants.line_hex`) where it has them, else its
 *  seats' (`colours`: a shade, or a name the kit's safe shades draw). Typed nowhere here. */
export function lineColours(game) {
  const shade = game?.constants?.line_hex ?? {};
  const names = game?.constants?.colours ?? game?.colours ?? [];
  return names.map((name) => shade[name] ?? SAFE_SHADES[name] ?? name);
}

function picture(game) {
  const root = svg("svg", { viewBox: "0 0 64 48", class: "game-tile-picture", "aria-hidden": "true" });
  const { ground, lines, stops } = PICTURES[game.game] ?? { ground: PICTURES.metrox.ground, lines: [], stops: [] };
  for (const [tag, attrs] of ground) svg(tag, attrs, root);
  const colours = lineColours(game);
  lines.forEach((d, i) => {
    const colour = colours[i % Math.max(colours.length, 1)] ?? INK;
    svg("path", { d, fill: "none", stroke: colour, "stroke-width": 3, class: "game-tile-line" }, root);
  });
  for (const [cx, cy] of stops) svg("circle", { cx, cy, r: 3, fill: "#fff", stroke: INK, "stroke-width": 1.5 }, root);
  return root;
}

/** The gallery of `games` (GET /api/meta's entries) after `select`'s label (made once; remade
 *  when the games change). `onPick(kind)` is called on a click. */
export function gameGallery(select, games, onPick) {
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
    ...games.map((game) => {
      const kind = game.game;
      const button = html("button", { type: "button", className: "game-tile", "aria-pressed": "false" });
      button.dataset.game = kind;
      button.append(picture(game));
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
