// Metro's page module: the board, the hand and the moves of a seat, hints on the board and the
// replay of a finished game. The shell (web/game.js) loads it with
// `import("/games/metro/page.js")` and drives it through the interface documented there:
// mount(parts, host) -> page with update(view, legal), showHints(suggestions),
// replay(record, view) and unmount().
//
// Access (issue 11): the board is a keyboard grid (arrows over the legal squares, Enter places,
// R rotates, Escape cancels) whose cells name what is on them; other players' moves are
// outlined (dashed) since the viewer's last move, faded in, logged and spoken; with "Confirm
// moves" (on by default for touch screens) a first tap only previews a move and its points.
//
// Its parts (issue 31.3, after chessground): board.js draws the board and takes its input (clicks,
// hover, the keyboard cursor over the targets this file names), panel.js holds the side boxes
// (hand, confirmation, hints, tiles left, the move log), words.js says squares and points in
// words; this file glues them: the game's state, what may be played, previews and sending.

import { confirmMoves, ensureStylesheet, registerParamWords } from "/kit.js";
import { BoardCursor, BoardView } from "./board.js";
import { MetroPanel } from "./panel.js";
import { moveWords, replaySteps } from "./replay.js";
import { boardFrom, completions } from "./routes.js";
import { t } from "/i18n.js";
import { SIZE, describeTile, isCentre, parsePlacement, placementText, rotate, tileListWords } from "./tiles.js";
import { labelSquares } from "./words.js";

// A refusal names tiles by code ("tile", "held"): the shell words them through this.
registerParamWords("metro", (name, value) => (name === "tile" || name === "held" ? tileListWords(value) : null));

const NS = "http://www.w3.org/2000/svg";
const COMPACT = "(max-width: 600px)";

export function mount(parts, host) {
  return new MetroPage(parts, host);
}

class MetroPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.parts = parts;
    this.host = host;
    this.view = null;
    this.legal = [];
    this.board = new Map();
    this.lastSquare = null;
    this.selected = 0;
    this.turns = 0;
    this.pending = false; // a move in flight
    this.hintAt = new Map(); // "r,c" -> the suggestion drawn on that square
    this.replaying = false;
    this.hovered = null; // the square under the mouse {r, c}
    this.proposed = null; // a move waiting for its confirmation: {r, c, move, code}
    this.confirm = confirmMoves();

    const svg = document.createElementNS(NS, "svg");
    svg.id = "board";
    svg.setAttribute("class", "board");
    svg.setAttribute("role", "grid");
    svg.setAttribute("tabindex", "0");
    svg.setAttribute("aria-label", t("metro.board_label"));
    svg.setAttribute("aria-describedby", "board-keys");
    parts.board.replaceChildren(svg);
    this.svg = svg;
    this.media = window.matchMedia?.(COMPACT) || null;
    this.boardView = new BoardView(svg, {
      hover: (r, c) => this.#hover(r, c),
      leave: () => this.#hover(null, null),
      click: (r, c) => this.#click(r, c),
    }, { compact: !!this.media?.matches });
    this.onMedia = () => {
      this.boardView.setCompact(!!this.media.matches);
      if (this.view) {
        if (!this.replaying) this.#drawLive();
        this.#updateHighlights();
      }
    };
    this.media?.addEventListener?.("change", this.onMedia);
    this.cursor = new BoardCursor(svg, this.boardView, {
      targets: () => this.#targets(),
      act: (r, c) => this.#click(r, c, { keyboard: true }),
      escape: () => this.#escapeKey(),
      other: (key) => this.#otherKey(key),
      pending: (r, c) => !!this.proposed && this.proposed.r === r && this.proposed.c === c,
      moved: () => {
        this.#labelSquares();
        this.#showPreview();
      },
      left: () => this.#showPreview(), // the cursor's ghost tile goes with the focus (issue 19.10)
    });
    this.panel = new MetroPanel(parts.controls, host, {
      select: (i) => this.#select(i),
      draw: () => this.#draw(),
      rotate: () => this.#rotate(),
      confirm: () => this.#commitProposal(),
      cancel: () => this.#cancelProposal(),
      pickHint: (move) => this.#pickHint(move),
      confirmMoves: (on) => {
        this.confirm = on;
        this.#cancelProposal();
      },
    });
    this.log = this.panel.log;
    this.onKey = (ev) => {
      const t = ev.target;
      const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
      if (typing || ev.ctrlKey || ev.metaKey || ev.altKey || t === this.svg) return;
      if (ev.key === "r" || ev.key === "R") this.#rotate();
      else if (ev.key === "Escape" && this.proposed) this.#cancelProposal();
    };
    document.addEventListener("keydown", this.onKey);
  }

  unmount() {
    document.removeEventListener("keydown", this.onKey);
    this.media?.removeEventListener?.("change", this.onMedia);
    this.parts.board.replaceChildren();
    this.parts.controls.replaceChildren();
    this.view = null;
  }

  // ---- the interface -------------------------------------------------------------------------

  update(view, legal) {
    const changed = !this.view || this.view.version !== view.version;
    const before = this.view;
    if (changed) {
      // a new position: the selection and rotation were for the one before
      this.selected = 0;
      this.turns = 0;
      this.proposed = null;
    }
    const board = boardFrom(view.board || []);
    if (this.view) {
      for (const key of board.keys()) if (!this.board.has(key)) this.lastSquare = key;
    }
    this.log.follow(before, view);
    this.view = view;
    this.legal = legal || [];
    this.board = board;
    if (!this.replaying) this.#drawLive();
    this.log.arrive = new Set();
    this.#renderHand();
    this.#updateHighlights();
    this.panel.showTilesLeft(view);
  }

  showHints(suggestions) {
    const onBoard = [];
    this.hintAt = new Map();
    for (const { move, p, value, rank } of this.panel.showHints(suggestions)) {
      if (!p) continue;
      onBoard.push({ ...p, placement: move.placement, value, rank });
      const key = `${p.row},${p.col}`;
      if (!this.hintAt.has(key)) this.hintAt.set(key, move);
    }
    this.boardView.hints(onBoard);
    this.#labelSquares();
  }

  /** A move object in words (replay.js): the post-game analysis says moves with it. */
  moveWords(move) {
    return moveWords(move);
  }

  replay(record, view) {
    return replaySteps(record, view, {
      live: () => {
        this.replaying = false;
        this.#drawLive();
        this.#updateHighlights();
      },
      position: (state) => {
        this.replaying = true;
        this.boardView.render(state);
        this.#labelSquares(state.board);
        this.#updateHighlights();
      },
      hints: (list) => this.boardView.hints(list),
    });
  }

  // ---- the position and the seat's tiles ----------------------------------------------------

  #drawLive() {
    const view = this.view;
    if (!view) return;
    const arrive = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ? new Set() : this.log.arrive;
    this.boardView.render({ board: this.board, seats: view.seats, routes: view.routes, lastSquare: this.lastSquare,
      recent: this.log.recentSquares(view), arrive });
    this.#labelSquares();
  }

  get #myTurn() {
    const view = this.view;
    const seat = this.host.seat;
    return !!view && seat !== null && view.status === "playing" && (view.to_move || []).includes(seat);
  }

  /** The tiles this seat may place now: the drawn tile alone, else the hand. */
  get #tiles() {
    if (!this.view) return [];
    if (this.view.drawn) return [this.view.drawn];
    return this.view.hand || [];
  }

  #renderHand() {
    if (!this.panel.showPlay(this.view, this.host.seat)) return;
    const tiles = this.#tiles;
    if (this.selected >= tiles.length) this.selected = 0;
    const canDraw = this.#myTurn && this.legal.some((m) => m.action === "draw");
    this.panel.renderHand(this.view, tiles, { selected: this.selected, turns: this.turns, rotate, canDraw, pending: this.pending });
    this.#renderProposal();
  }

  #renderProposal() {
    this.panel.renderProposal(this.proposed, this.board, this.view, this.pending);
  }

  #select(i) {
    if (i < 0 || i >= this.#tiles.length) return;
    if (this.selected !== i) this.turns = 0;
    this.selected = i;
    this.proposed = null;
    this.#renderHand();
    this.#updateHighlights();
  }

  /** The code the selected tile has with the current rotation. */
  get #selectedCode() {
    const code = this.#tiles[this.selected];
    return code ? rotate(code, this.turns) : null;
  }

  /** Legal squares "r,c" for the selected tile as turned now. */
  #legalSquares() {
    const code = this.#selectedCode;
    const squares = new Set();
    if (!code) return squares;
    for (const m of this.legal) {
      const p = m.action === "place" ? parsePlacement(m.placement) : null;
      if (p && p.code === code) squares.add(`${p.row},${p.col}`);
    }
    return squares;
  }

  /** Every square's words for a screen reader (words.js): on `board`, else the live board. */
  #labelSquares(board = null) {
    const view = this.view;
    if (!view) return;
    const shown = board || (this.replaying ? null : this.board);
    if (!shown) return;
    const legal = this.#myTurn && !this.replaying ? this.#legalSquares() : new Set();
    const recent = this.replaying ? new Set() : this.log.recentSquares(view);
    const at = this.cursor.at;
    const gainsAt = (r, c) => (at && at.r === r && at.c === c ? completions(this.board, view.seats, this.#selectedCode, r, c) : []);
    labelSquares(this.boardView, view.seats, shown, { legal, recent, hintAt: this.hintAt, gainsAt });
  }

  #updateHighlights() {
    this.boardView.highlight(this.#myTurn && !this.replaying ? this.#legalSquares() : []);
    // the keyboard stays on the board: keep its cursor on a square it may go to
    if (this.cursor.focused) this.cursor.keep();
    this.#labelSquares();
    this.#showPreview();
    this.cursor.draw();
  }

  #rotate() {
    if (!this.view?.rules?.rotation || this.host.seat === null || this.view.status === "over") return;
    this.turns = (this.turns + 1) % 4;
    this.proposed = null;
    this.#renderHand();
    this.#updateHighlights();
    this.log.announce(t("metro.turned", { tile: describeTile(this.#selectedCode) }));
  }

  /** Select the hand tile and rotation of a suggested placement (exactly its code). */
  #pickHint(move) {
    if (move.action === "draw") {
      this.panel.drawButton.focus();
      return;
    }
    const p = parsePlacement(move.placement);
    if (!p) return;
    const tiles = this.#tiles;
    for (let i = 0; i < tiles.length; i++) {
      for (let turn = 0; turn < (this.view.rules?.rotation ? 4 : 1); turn++) {
        if (rotate(tiles[i], turn) === p.code) {
          this.selected = i;
          this.turns = turn;
          this.proposed = null;
          this.#renderHand();
          this.#updateHighlights();
          // Exactly the hinted move, shown with its points and ready to confirm.
          if (this.#myTurn) this.#propose(p.row, p.col, move);
          return;
        }
      }
    }
  }

  // ---- previews: hover, keyboard cursor, a move waiting for confirmation -----------------------

  /** The code a placement on (r, c) would use: a hint's own there, else the selected tile. */
  #codeAt(r, c) {
    const hinted = this.hintAt.get(`${r},${c}`);
    return hinted ? parsePlacement(hinted.placement).code : this.#selectedCode;
  }

  #previewAt(r, c, pending = false) {
    const hinted = this.hintAt.get(`${r},${c}`);
    const code = this.#codeAt(r, c);
    if (!code || (!hinted && !this.#legalSquares().has(`${r},${c}`))) return false;
    const gains = completions(this.board, this.view.seats, code, r, c);
    this.boardView.preview(code, r, c, gains, this.view.seats, { pending });
    return true;
  }

  /** One preview at a time: the square under the mouse, else the one waiting for confirmation,
   *  else the keyboard cursor's. */
  #showPreview() {
    if (this.replaying || !this.view || !this.#myTurn) {
      this.boardView.preview(null);
      return;
    }
    const h = this.hovered;
    if (h && !this.proposed && this.#previewAt(h.r, h.c)) return;
    if (this.proposed && this.#previewAt(this.proposed.r, this.proposed.c, true)) return;
    const k = this.cursor.at;
    if (k && this.cursor.focused && this.#previewAt(k.r, k.c)) return;
    this.boardView.preview(null);
  }

  #hover(r, c) {
    this.hovered = r === null ? null : { r, c };
    this.#showPreview();
  }

  // ---- the keyboard (board.js moves the cursor) ----------------------------------------------

  /** Where the cursor may go: the legal squares (and hinted ones) on the viewer's turn, else
   *  every square (to read the board). */
  #targets() {
    const keys = new Set(this.#myTurn && !this.replaying ? this.#legalSquares() : []);
    if (this.#myTurn) for (const k of this.hintAt.keys()) keys.add(k);
    if (!keys.size) {
      for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) if (!isCentre(r, c)) keys.add(`${r},${c}`);
    }
    return [...keys].map((k) => {
      const [r, c] = k.split(",").map(Number);
      return { r, c, x: c, y: r };
    }).sort((a, b) => a.r - b.r || a.c - b.c);
  }

  #escapeKey() {
    if (this.proposed) this.#cancelProposal();
    else if (this.turns) {
      this.turns = 0;
      this.#renderHand();
      this.#updateHighlights();
    } else return false;
  }

  #otherKey(key) {
    if (key === "r" || key === "R") this.#rotate();
    else if (/^[1-9]$/.test(key) && Number(key) - 1 < this.#tiles.length) {
      this.#select(Number(key) - 1);
      this.log.announce(t("metro.selected", { tile: describeTile(this.#selectedCode) }));
    } else return false;
  }

  // ---- playing -------------------------------------------------------------------------------

  #click(r, c, { keyboard = false } = {}) {
    const view = this.view;
    if (!view || this.host.seat === null || view.status === "over" || this.replaying || this.pending) return;
    if (this.board.has(`${r},${c}`) || isCentre(r, c)) return;
    const hinted = this.hintAt.get(`${r},${c}`);
    const code = this.#selectedCode;
    const move = hinted || (code ? { action: "place", placement: placementText(code, r, c) } : null);
    if (!move) {
      this.host.notify(t("metro.no_tile_to_place"), "error");
      return;
    }
    // With "Confirm moves" a tap on a legal square shows the move and its points first; the same
    // square again (or Confirm) sends it. The keyboard cursor already previews: Enter sends.
    const legal = !!hinted || this.#legalSquares().has(`${r},${c}`);
    if (this.confirm && !keyboard && legal && this.#myTurn) {
      const same = this.proposed && this.proposed.r === r && this.proposed.c === c;
      if (!same) {
        this.#propose(r, c, move);
        return;
      }
    }
    // Even a square that is not highlighted goes to the server: its answer names the rule.
    this.proposed = null;
    this.#send(move);
  }

  #propose(r, c, move) {
    const p = parsePlacement(move.placement);
    this.proposed = { r, c, move, code: p.code };
    this.cursor.at = { r, c };
    this.#renderProposal();
    this.#showPreview();
    this.cursor.draw();
    this.log.announce(this.panel.confirmText.textContent);
  }

  #commitProposal() {
    const p = this.proposed;
    if (!p) return;
    this.proposed = null;
    this.#send(p.move);
  }

  #cancelProposal() {
    this.proposed = null;
    this.#renderProposal();
    this.#showPreview();
    this.cursor.draw();
  }

  async #draw() {
    const ok = await this.#send({ action: "draw" });
    // The drawn tile is placed on the board: take the keyboard there, on its first legal square.
    if (ok && this.view?.drawn && this.#myTurn) {
      this.cursor.at = null;
      this.svg.focus();
    }
  }

  async #send(move) {
    if (this.pending) return false;
    this.pending = true;
    this.panel.drawButton.disabled = true;
    let ok = false;
    try {
      ok = await this.host.send(move);
    } finally {
      this.pending = false;
      if (this.view) this.#renderHand();
    }
    if (ok && move.action !== "draw" && this.view) {
      this.log.placedByMe(this.view, move); // "since your last move" starts after this tile
      if (!this.replaying) this.#drawLive();
      if (this.cursor.focused) this.cursor.refresh();
    }
    return ok;
  }
}
