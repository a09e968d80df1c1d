// Metro in words (issue 11): what a screen reader hears on each square, the points a placement
// completes, and a seat by name, colour and symbol. Shared by the board's labels (page.js), the
// move log and the confirmation line (panel.js), so that all three say a thing the same way.

import { seatGlyphName, seatLabel } from "/kit.js";
import { t } from "/i18n.js";
import { colourName, colourWord } from "./board.js";
import { SIZE, describeTile, isCentre, parsePlacement, tileName } from "./tiles.js";

/** Seat i's name as the shell writes it (a person's name, or "AI (level)"). */
export function seatName(seats, i) {
  return seatLabel(seats?.[i], i);
}

/** Seat i by name, colour and symbol: "Ada (yellow ●)". */
export function seatWords(seats, i) {
  return t("metro.seat_words", { name: seatName(seats, i), colour: colourWord(colourName(seats, i)), symbol: seatGlyphName(i) });
}

/** Points completed, in words: "4 points for Ada (yellow ●), 2 for Bob (blue ▲)". */
export function gainWords(gains, seats) {
  return gains
    .map((g, i) => {
      const who = g.owner === null || g.owner === undefined ? t("metro.nobody") : seatWords(seats, g.owner);
      return i === 0 ? t("metro.gain_first", { count: g.points, name: who }) : t("metro.log_gain_plain", { points: g.points, name: who });
    })
    .join(", ");
}

/** For each border square, the stations beside it in words ("station 8 above: Ada's, yellow circle"). */
function stationsBySquare(seats) {
  const out = new Map();
  const owner = new Map();
  (seats || []).forEach((seat, i) => (seat.stations || []).forEach((s) => owner.set(s, i)));
  const where = (side) => t(`metro.where.${side}`);
  for (let s = 1; s <= 32; s++) {
    let row;
    let col;
    let side;
    if (s <= 8) [row, col, side] = [0, 8 - s, "top"];
    else if (s <= 16) [row, col, side] = [s - 9, 0, "left"];
    else if (s <= 24) [row, col, side] = [7, s - 17, "bottom"];
    else [row, col, side] = [32 - s, 7, "right"];
    const key = `${row},${col}`;
    const o = owner.get(s);
    const text = o === undefined
      ? t("metro.station_at", { n: s, where: where(side) })
      : t("metro.station_owned", { n: s, where: where(side), owner: seatWords(seats, o) });
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(text);
  }
  return out;
}

/** Label every square of `boardView`: its place, what is on `shown` there, whether it changed
 *  since the viewer's last move (`recent`), whether the selected tile may go there (`legal`,
 *  with `gainsAt(r, c)`: the points it would complete, for the cursor's square), a hint on it
 *  (`hintAt`: "r,c" -> move) and the stations beside it. */
export function labelSquares(boardView, seats, shown, { legal, recent, hintAt, gainsAt }) {
  const stationsAt = stationsBySquare(seats);
  for (let r = 0; r < SIZE; r++) {
    for (let c = 0; c < SIZE; c++) {
      if (isCentre(r, c)) continue;
      const key = `${r},${c}`;
      const words = [t("metro.square", { row: r + 1, col: c + 1 })];
      const code = shown.get(key);
      if (code) words.push(describeTile(code));
      else words.push(t("metro.empty"));
      if (recent.has(key)) words.push(t("metro.since_last"));
      if (legal.has(key)) {
        words.push(t("metro.legal"));
        const gains = gainsAt(r, c);
        if (gains.length) words.push(t("metro.completes", { gains: gainWords(gains, seats) }));
      }
      const hinted = hintAt.get(key);
      if (hinted) words.push(t("metro.hint_mark", { tile: tileName(parsePlacement(hinted.placement)?.code) }));
      for (const s of stationsAt.get(key) || []) words.push(s);
      boardView.label(r, c, words.join(", "));
    }
  }
}
