// On the Underground page's shared words and move shapes: what its board (board.js, draw.js), its
// side boxes (panel.js), its move log (log.js) and its glue (page.js) all say the same way, so it
// is written once: a line's colour and the map's name in the page's language, the lines a leg
// rides, a seat's name, and a move (or a hint's move) reduced to what the server takes.

import { seatLabel } from "/kit.js";
import { has, t } from "/i18n.js";

/** A line's colour in the page's language ("red" -> "piros"). */
export const cw = (c) => (has(`underground.colour.${c}`) ? t(`underground.colour.${c}`) : String(c ?? ""));

/** The map's name in the page's language ("London" -> "Londres"): the lobby's map choice words. */
export const mapWord = (m) => (has(`underground.option.map.choice.${m?.id}`) ? t(`underground.option.map.choice.${m.id}`) : m?.name || "");

/** The lines a leg rides, in words ("red + blue"), or on foot. */
export const riding = (lines) => (lines?.length ? lines.map(cw).join(" + ") : "");

/** Seat i's name at this table ("Player 2" when the view has no such seat yet). */
export const seatName = (view, i) => {
  const s = view?.seats?.[i];
  return s ? seatLabel(s, i) : t("seat.player", { n: i + 1 });
};

/** A rail as the server takes it. */
export const railMove = (r) => ({ step: "rail", colour: r.colour, a: r.a, b: r.b });

/** A move, or a hint that carries one, as the server takes it; null for anything else. */
export function plainMove(m) {
  const src = m?.move && typeof m.move === "object" ? m.move : m;
  if (!src || typeof src !== "object") return null;
  if (src.step === "rail") return railMove(src);
  if (src.step === "stop") return { step: "stop" };
  if (src.step === "route") return { step: "route", to: src.to, lines: [...(src.lines || [])] };
  return null;
}

/** The passenger's ride to `to` on `lines` (on foot when none), with the given two word keys. */
export function legWords(to, lines, byKey, footKey, n) {
  return lines?.length ? t(byKey, { station: n(to), lines: riding(lines) }) : t(footKey, { station: n(to) });
}
