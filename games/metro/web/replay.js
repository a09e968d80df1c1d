// A finished Metro game, position by position, for the shell's replay and the post-game analysis
// (page.replay in web/game.js's interface): each position in words, drawn on the board from the
// record's placements and the server's positions (GET /positions: each one's routes and every
// seat's points, worked out by the rules core, games/metro/positions.py), the best placement
// beside it. page.js hands it the board's drawing; this file traces no route.

import { signedValue } from "/kit.js";
import { t } from "/i18n.js";
import { boardFrom, parsePlacement, tileName } from "./tiles.js";
import { seatName } from "./words.js";

/** A move object in words (the post-game analysis says moves with it): the tile by its tracks
 *  and its square, or drawing a tile; never the placement code. */
export function moveWords(move) {
  if (move?.action === "draw") return t("metro.draw_place_title");
  const p = parsePlacement(move?.placement || "");
  return p ? `${tileName(p.code)}, ${t("metro.square", { row: p.row + 1, col: p.col + 1 })}` : "";
}

/** The analysis's best placement says what it is (issue 35): its bare "+2.4" read as a points
 *  preview. In words ("AI best +2.4"), explained on hover and to screen readers as an expected
 *  score difference, styled unlike the seat-coloured points preview (page.css). */
function labelBest(placement, value) {
  const g = document.querySelector(`.hint[data-hint="${CSS.escape(placement)}"]`);
  const text = g?.querySelector(".hint-text");
  const badge = g?.querySelector(".hint-badge");
  if (!text || !badge) return;
  const shown = signedValue(value);
  const words = t("analysis.best_badge", { value: shown });
  const explained = t("analysis.best_badge_title", { value: shown });
  g.classList.add("analysis-hint");
  g.setAttribute("role", "img");
  g.setAttribute("aria-label", `${words}. ${explained}`);
  text.textContent = words;
  const half = 6 + 2.9 * words.length;
  const x = Number(text.getAttribute("x"));
  badge.setAttribute("x", String(x - half));
  badge.setAttribute("width", String(2 * half));
  const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = explained;
  g.prepend(title);
}

/** The replay of `record` (GET /record) with `view` the final view and `served` its positions
 *  (GET /positions: {positions: [{routes}], scores}; null when they could not be had: the board
 *  is then drawn without routes and the shell's scores stay the final ones). `board`: {live()
 *  (show the live position again), position(state) (draw a past one: {board, seats, routes,
 *  lastSquare, recent}), hints(list) (ghost tiles as the hints are)}. */
export function replaySteps(record, view, served, board) {
  const moves = record?.moves || [];
  const seats = view.seats;
  const length = moves.length;
  return {
    length,
    moveWords,
    describe: (i) => {
      if (i <= 0) return t("metro.replay_start");
      const move = moves[Math.min(i, length) - 1];
      const p = parsePlacement(move.placement);
      const who = seatName(seats, move.seat);
      const how = move.action === "draw_place" ? "metro.replay_drew_placed" : "metro.replay_placed";
      return p ? t(how, { name: who, tile: tileName(p.code), row: p.row + 1, col: p.col + 1 }) : t("metro.log_moved", { name: who });
    },
    show: (i) => {
      const pos = Math.max(0, Math.min(length, i));
      if (pos === length) {
        board.live();
        return;
      }
      const shown = moves.slice(0, pos);
      const at = boardFrom(shown.map((m) => m.placement));
      const last = shown.length ? parsePlacement(shown[shown.length - 1].placement) : null;
      const lastKey = last ? `${last.row},${last.col}` : null;
      board.position({
        board: at,
        seats,
        routes: served?.positions?.[pos]?.routes || [],
        lastSquare: lastKey,
        recent: new Set(lastKey ? [lastKey] : []),
      });
    },
    // The post-game analysis (web/analysis.js) at position i: the best placement instead of
    // the move just played, drawn beside it as the hints are (a ghost tile, ★, its value).
    showBest: (i, decisions) => {
      const d = decisions.filter((m) => m.best?.action === "place").pop();
      const p = d && d.label !== "best" ? parsePlacement(d.best.placement) : null;
      board.hints(p ? [{ ...p, placement: d.best.placement, rank: "★", value: d.best_value }] : []);
      if (p) labelBest(d.best.placement, d.best_value);
    },
    // Every seat's points at position i, as the server counted them.
    scores: (i) => served?.scores?.[Math.max(0, Math.min(length, i))] ?? null,
  };
}
