// Metro's page state and what follows from it (issue 31.3, as chessground keeps state.ts): the
// view shown, the viewer's legal moves, the board as a map, the tile chosen in the hand and how
// it is turned, the hints on the board and a move waiting for its confirmation. page.js changes
// it; what the board and the side boxes show is read from it.

import { SIZE, boardFrom, isCentre, parsePlacement, placementText, rotate } from "./tiles.js";

export class MetroState {
  constructor(host) {
    this.host = host;
    this.view = null;
    this.legal = [];
    this.board = new Map(); // "r,c" -> tile code
    this.lastSquare = null;
    this.selected = 0;
    this.turns = 0;
    this.hintAt = new Map(); // "r,c" -> the suggestion drawn on that square
    this.replaying = false;
    this.proposed = null; // a move waiting for its confirmation: {r, c, move, code}
  }

  /** Show `view` with the viewer's `legal` moves; a new version drops the choice in the hand. */
  take(view, legal) {
    if (!this.view || this.view.version !== view.version) {
      // a new position: the selection and rotation were for the one before
      this.selected = 0;
      this.turns = 0;
      this.proposed = null;
    }
    const board = boardFrom(view.board || []);
    if (this.view) {
      for (const key of board.keys()) if (!this.board.has(key)) this.lastSquare = key;
    }
    this.view = view;
    this.legal = legal || [];
    this.board = board;
  }

  get myTurn() {
    const view = this.view;
    const seat = this.host.seat;
    return !!view && seat !== null && view.status === "playing" && (view.to_move || []).includes(seat);
  }

  /** The tiles this seat may place now: the drawn tile alone, else the hand. */
  get tiles() {
    if (!this.view) return [];
    if (this.view.drawn) return [this.view.drawn];
    return this.view.hand || [];
  }

  /** The code the selected tile has with the current rotation. */
  get selectedCode() {
    const code = this.tiles[this.selected];
    return code ? rotate(code, this.turns) : null;
  }

  /** Legal squares "r,c" for the selected tile as turned now. */
  legalSquares() {
    const code = this.selectedCode;
    const squares = new Set();
    if (!code) return squares;
    for (const m of this.legal) {
      const p = m.action === "place" ? parsePlacement(m.placement) : null;
      if (p && p.code === code) squares.add(`${p.row},${p.col}`);
    }
    return squares;
  }

  /** What placing `code` on (r, c) would complete ([{station, owner, end, points}]), as the
   *  server's `preview` of that legal move says (games/metro/preview.py): the page traces no
   *  route itself. [] for a square where that placement is not legal. */
  gainsAt(code, r, c) {
    if (!code) return [];
    const text = placementText(code, r, c);
    return this.legal.find((m) => m.placement === text)?.preview?.completed || [];
  }

  /** The code a placement on (r, c) would use: a hint's own there, else the selected tile. */
  codeAt(r, c) {
    const hinted = this.hintAt.get(`${r},${c}`);
    return hinted ? parsePlacement(hinted.placement).code : this.selectedCode;
  }

  /** Where the keyboard cursor may go: the legal squares (and hinted ones) on the viewer's turn,
   *  else every square (to read the board). */
  targets() {
    const keys = new Set(this.myTurn && !this.replaying ? this.legalSquares() : []);
    if (this.myTurn) for (const k of this.hintAt.keys()) keys.add(k);
    if (!keys.size) {
      for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) if (!isCentre(r, c)) keys.add(`${r},${c}`);
    }
    return [...keys].map((k) => {
      const [r, c] = k.split(",").map(Number);
      return { r, c, x: c, y: r };
    }).sort((a, b) => a.r - b.r || a.c - b.c);
  }
}
