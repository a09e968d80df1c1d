// After the game: step through the metro-record/1 move by move and offer it as a download.
// Positions are rebuilt on the page from the record's placements (routes traced by routes.js).

import { boardFrom, scores, traceAll } from "./routes.js";
import { seatLabel } from "./panel.js";
import { parsePlacement } from "./tiles.js";

const $ = (id) => document.getElementById(id);

export class Replay {
  /** show(position | null): draw a replayed position, or null for the live final board. */
  constructor(show) {
    this.show = show;
    this.record = null;
    this.pos = 0;
    this.downloadUrl = null;
    $("replay-first").addEventListener("click", () => this.go(0));
    $("replay-prev").addEventListener("click", () => this.go(this.pos - 1));
    $("replay-next").addEventListener("click", () => this.go(this.pos + 1));
    $("replay-last").addEventListener("click", () => this.go(this.length));
    $("replay-range").addEventListener("input", (ev) => this.go(Number(ev.target.value)));
  }

  get length() {
    return this.record ? this.record.moves.length : 0;
  }

  load(record, gameId, seats) {
    this.record = record;
    this.seats = seats;
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
    this.downloadUrl = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
    const a = $("download-record");
    a.href = this.downloadUrl;
    a.download = `metro-${gameId}.json`;
    const range = $("replay-range");
    range.max = String(this.length);
    this.go(this.length);
  }

  go(pos) {
    if (!this.record) return;
    this.pos = Math.max(0, Math.min(this.length, pos));
    $("replay-range").value = String(this.pos);
    $("replay-pos").textContent = `${this.pos} / ${this.length}`;
    const moves = this.record.moves.slice(0, this.pos);
    const last = moves[moves.length - 1];
    $("replay-move").textContent = last ? describe(last, this.seats) : "The empty board.";
    if (this.pos === this.length) {
      this.show(null);
      return;
    }
    const board = boardFrom(moves.map((m) => m.placement));
    const routes = traceAll(board, this.seats);
    const p = last ? parsePlacement(last.placement) : null;
    this.show({
      board,
      routes,
      scores: scores(routes, this.seats.length),
      lastSquare: p ? `${p.row},${p.col}` : null,
    });
  }
}

function describe(move, seats) {
  const p = parsePlacement(move.placement);
  const who = seatLabel(seats[move.seat], move.seat);
  const how = move.action === "draw_place" ? "drew and placed" : "placed";
  return p ? `${who} ${how} ${p.code} on row ${p.row}, column ${p.col}.` : `${who}: ${move.action}`;
}
