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

/** The points of a list of gains as the server gave them (a preview's `gained`, a rail's
 *  `rail_gains` entry). */
export const pointsOf = (gains) => (gains || []).reduce((n, g) => n + (g.points || 0), 0);

/** "+3: national rail Euston, terminus Morden (+1 token)" or "no points": a list of gains as the
 *  server gave them, in words. */
export function gainWords(gains, index) {
  const pts = pointsOf(gains);
  const name = (id) => (index ? index.name(id) : id);
  const parts = [];
  const enclosed = gains.filter((g) => g.reason === "enclosed").length;
  for (const g of gains) {
    if (g.reason === "enclosed" || g.reason === "skip") continue;
    if (g.reason === "branch") parts.push(t("underground.gain.branch"));
    else if (g.reason === "terminus") parts.push(t("underground.gain.terminus", { station: name(g.station) }));
    else if (g.reason === "symbol") parts.push(t("underground.gain.symbol", { symbol: g.symbol.toUpperCase() }));
    else if (has(`underground.gain.${g.reason}`)) parts.push(t(`underground.gain.${g.reason}`, { station: g.station ? name(g.station) : "" }).trim());
    else parts.push(`${g.reason} ${g.station ? name(g.station) : ""}`.trim());
  }
  if (enclosed) parts.push(t("underground.gain.enclosed", { count: enclosed }));
  const head = pts ? `+${pts}` : t("underground.no_points");
  return parts.length ? `${head}: ${parts.join(", ")}` : head;
}
