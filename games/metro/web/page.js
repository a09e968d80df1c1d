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
// hover, the keyboard cursor over the targets state.js names), panel.js holds the side boxes
// (hand, confirmation, hints, tiles left, the move log), state.js the state and what follows from
// it (the choice in the hand, the legal squares), words.js says squares and points in words,
// replay.js replays a finished game; this file glues them: previews, the keys, sending a move.

import { confirmMoves, ensureStylesheet, registerParamWords } from "/kit.js";
import { BoardCursor, BoardView, boardSvg } from "./board.js";
import { MetroPanel } from "./panel.js";
import { moveWords, replaySteps } from "./replay.js";
import { t } from "/i18n.js";
import { describeTile, isCentre, parsePlacement, placementText, rotate, tileListWords } from "./tiles.js";
import { MetroState } from "./state.js";
import { labelSquares } from "./words.js";

// A refusal names tiles by code ("tile", "held"): the shell words them through this.
registerParamWords("metro", (name, value) => (name === "tile" || name === "held" ? tileListWords(value) : null));

const COMPACT = "(max-width: 600px)";

export function mount(parts, host) {
  return new MetroPage(parts, host);
}

class MetroPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.parts = parts;
    this.host = host;
    this.state = new MetroState(host); // the view, the choice in the hand, hints, a proposed move
    this.pendingAt = null; // the version a move in flight was made from (null: none)
    this.hovered = null; // the square under the mouse {r, c}
    this.confirm = confirmMoves();

    const svg = boardSvg(t("metro.board_label"), "board-keys");
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
      if (this.state.view) {
        if (!this.state.replaying) this.#drawLive();
        this.#updateHighlights();
      }
    };
    this.media?.addEventListener?.("change", this.onMedia);
    this.cursor = new BoardCursor(svg, this.boardView, {
      targets: () => this.state.targets(),
      act: (r, c) => this.#click(r, c, { keyboard: true }),
      escape: () => this.#escapeKey(),
      other: (key) => this.#otherKey(key),
      pending: (r, c) => !!this.state.proposed && this.state.proposed.r === r && this.state.proposed.c === c,
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
      else if (ev.key === "Escape" && this.state.proposed) this.#cancelProposal();
    };
    document.addEventListener("keydown", this.onKey);
  }

  unmount() {
    document.removeEventListener("keydown", this.onKey);
    this.media?.removeEventListener?.("change", this.onMedia);
    this.parts.board.replaceChildren();
    this.parts.controls.replaceChildren();
    this.state.view = null;
  }

  // ---- the interface -------------------------------------------------------------------------

  update(view, legal) {
    this.log.follow(this.state.view, view);
    this.state.take(view, legal);
    if (!this.state.replaying) this.#drawLive();
    this.log.arrive = new Set();
    this.#renderHand();
    this.#updateHighlights();
    this.panel.showTilesLeft(view);
  }

  showHints(suggestions) {
    const onBoard = [];
    this.state.hintAt = new Map();
    for (const { move, p, value, rank } of this.panel.showHints(suggestions)) {
      if (!p) continue;
      onBoard.push({ ...p, placement: move.placement, value, rank });
      const key = `${p.row},${p.col}`;
      if (!this.state.hintAt.has(key)) this.state.hintAt.set(key, move);
    }
    this.boardView.hints(onBoard);
    this.#labelSquares();
  }

  /** A move object in words (replay.js): the post-game analysis says moves with it. */
  moveWords(move) {
    return moveWords(move);
  }

  replay(record, view, positions) {
    return replaySteps(record, view, positions, {
      live: () => {
        this.state.replaying = false;
        this.#drawLive();
        this.#updateHighlights();
      },
      position: (state) => {
        this.state.replaying = true;
        this.boardView.render(state);
        this.#labelSquares(state.board);
        this.#updateHighlights();
      },
      hints: (list) => this.boardView.hints(list),
    });
  }

  // ---- the position and the seat's tiles ----------------------------------------------------

  #drawLive() {
    const view = this.state.view;
    if (!view) return;
    const arrive = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ? new Set() : this.log.arrive;
    this.boardView.render({ board: this.state.board, seats: view.seats, routes: view.routes, lastSquare: this.state.lastSquare,
      recent: this.log.recentSquares(view), arrive });
    this.#labelSquares();
  }

  #renderHand() {
    if (!this.panel.showPlay(this.state.view, this.host.seat)) return;
    const tiles = this.state.tiles;
    if (this.state.selected >= tiles.length) this.state.selected = 0;
    const canDraw = this.state.myTurn && this.state.legal.some((m) => m.action === "draw");
    this.panel.renderHand(this.state.view, tiles, { selected: this.state.selected, turns: this.state.turns, rotate, canDraw, pending: this.pending });
    this.#renderProposal();
  }

  #renderProposal() {
    const p = this.state.proposed;
    this.panel.renderProposal(p, p ? this.state.gainsAt(p.code, p.r, p.c) : [], this.state.view, this.pending);
  }

  #select(i) {
    if (i < 0 || i >= this.state.tiles.length) return;
    if (this.state.selected !== i) this.state.turns = 0;
    this.state.selected = i;
    this.state.proposed = null;
    this.#renderHand();
    this.#updateHighlights();
  }

  /** Every square's words for a screen reader (words.js): on `board`, else the live board. */
  #labelSquares(board = null) {
    const view = this.state.view;
    if (!view) return;
    const shown = board || (this.state.replaying ? null : this.state.board);
    if (!shown) return;
    const legal = this.state.myTurn && !this.state.replaying ? this.state.legalSquares() : new Set();
    const recent = this.state.replaying ? new Set() : this.log.recentSquares(view);
    const at = this.cursor.at;
    const gainsAt = (r, c) => (at && at.r === r && at.c === c ? this.state.gainsAt(this.state.selectedCode, r, c) : []);
    labelSquares(this.boardView, view.seats, shown, { legal, recent, hintAt: this.state.hintAt, gainsAt });
  }

  #updateHighlights() {
    this.boardView.highlight(this.state.myTurn && !this.state.replaying ? this.state.legalSquares() : []);
    // the keyboard stays on the board: keep its cursor on a square it may go to
    if (this.cursor.focused) this.cursor.keep();
    this.#labelSquares();
    this.#showPreview();
    this.cursor.draw();
  }

  #rotate() {
    if (!this.state.view?.rules?.rotation || this.host.seat === null || this.state.view.status === "over") return;
    this.state.turns = (this.state.turns + 1) % 4;
    this.state.proposed = null;
    this.#renderHand();
    this.#updateHighlights();
    this.log.announce(t("metro.turned", { tile: describeTile(this.state.selectedCode) }));
  }

  /** Select the hand tile and rotation of a suggested placement (exactly its code). */
  #pickHint(move) {
    if (move.action === "draw") {
      this.panel.drawButton.focus();
      return;
    }
    const p = parsePlacement(move.placement);
    if (!p) return;
    const tiles = this.state.tiles;
    for (let i = 0; i < tiles.length; i++) {
      for (let turn = 0; turn < (this.state.view.rules?.rotation ? 4 : 1); turn++) {
        if (rotate(tiles[i], turn) === p.code) {
          this.state.selected = i;
          this.state.turns = turn;
          this.state.proposed = null;
          this.#renderHand();
          this.#updateHighlights();
          // Exactly the hinted move, shown with its points and ready to confirm.
          if (this.state.myTurn) this.#propose(p.row, p.col, move);
          return;
        }
      }
    }
  }

  // ---- previews: hover, keyboard cursor, a move waiting for confirmation -----------------------

  #previewAt(r, c, pending = false) {
    const hinted = this.state.hintAt.get(`${r},${c}`);
    const code = this.state.codeAt(r, c);
    if (!code || (!hinted && !this.state.legalSquares().has(`${r},${c}`))) return false;
    const gains = this.state.gainsAt(code, r, c);
    this.boardView.preview(code, r, c, gains, this.state.view.seats, { pending });
    return true;
  }

  /** One preview at a time: the square under the mouse, else the one waiting for confirmation,
   *  else the keyboard cursor's. */
  #showPreview() {
    if (this.state.replaying || !this.state.view || !this.state.myTurn) {
      this.boardView.preview(null);
      return;
    }
    const h = this.hovered;
    if (h && !this.state.proposed && this.#previewAt(h.r, h.c)) return;
    if (this.state.proposed && this.#previewAt(this.state.proposed.r, this.state.proposed.c, true)) return;
    const k = this.cursor.at;
    if (k && this.cursor.focused && this.#previewAt(k.r, k.c)) return;
    this.boardView.preview(null);
  }

  #hover(r, c) {
    this.hovered = r === null ? null : { r, c };
    this.#showPreview();
  }

  // ---- the keyboard (board.js moves the cursor) ----------------------------------------------

  #escapeKey() {
    if (this.state.proposed) this.#cancelProposal();
    else if (this.state.turns) {
      this.state.turns = 0;
      this.#renderHand();
      this.#updateHighlights();
    } else return false;
  }

  #otherKey(key) {
    if (key === "r" || key === "R") this.#rotate();
    else if (/^[1-9]$/.test(key) && Number(key) - 1 < this.state.tiles.length) {
      this.#select(Number(key) - 1);
      this.log.announce(t("metro.selected", { tile: describeTile(this.state.selectedCode) }));
    } else return false;
  }

  // ---- playing -------------------------------------------------------------------------------

  #click(r, c, { keyboard = false } = {}) {
    const view = this.state.view;
    if (!view || this.host.seat === null || view.status === "over" || this.state.replaying || this.pending) return;
    if (this.state.board.has(`${r},${c}`) || isCentre(r, c)) return;
    const hinted = this.state.hintAt.get(`${r},${c}`);
    const code = this.state.selectedCode;
    const move = hinted || (code ? { action: "place", placement: placementText(code, r, c) } : null);
    if (!move) {
      this.host.notify(t("metro.no_tile_to_place"), "error");
      return;
    }
    // With "Confirm moves" a tap on a legal square shows the move and its points first; the same
    // square again (or Confirm) sends it. The keyboard cursor already previews: Enter sends.
    const legal = !!hinted || this.state.legalSquares().has(`${r},${c}`);
    if (this.confirm && !keyboard && legal && this.state.myTurn) {
      const same = this.state.proposed && this.state.proposed.r === r && this.state.proposed.c === c;
      if (!same) {
        this.#propose(r, c, move);
        return;
      }
    }
    // Even a square that is not highlighted goes to the server: its answer names the rule.
    this.state.proposed = null;
    this.#send(move);
  }

  #propose(r, c, move) {
    const p = parsePlacement(move.placement);
    this.state.proposed = { r, c, move, code: p.code };
    this.cursor.at = { r, c };
    this.#renderProposal();
    this.#showPreview();
    this.cursor.draw();
    this.log.announce(this.panel.confirmText.textContent);
  }

  #commitProposal() {
    const p = this.state.proposed;
    if (!p) return;
    this.state.proposed = null;
    this.#send(p.move);
  }

  #cancelProposal() {
    this.state.proposed = null;
    this.#renderProposal();
    this.#showPreview();
    this.cursor.draw();
  }

  async #draw() {
    const ok = await this.#send({ action: "draw" });
    // The drawn tile is placed on the board: take the keyboard there, on its first legal square.
    if (ok && this.state.view?.drawn && this.state.myTurn) {
      this.cursor.at = null;
      this.svg.focus();
    }
  }

  /** A move made from the view shown is on its way (the hand waits). A newer view that the
   *  stream brings before the move's answer (the player's turn again) takes moves at once. */
  get pending() {
    return Number.isInteger(this.pendingAt) && this.pendingAt === this.state.view?.version;
  }

  async #send(move) {
    if (this.pending) return false;
    const at = this.state.view?.version;
    this.pendingAt = at;
    this.panel.drawButton.disabled = true;
    let ok = false;
    try {
      ok = await this.host.send(move);
    } finally {
      if (this.pendingAt === at) this.pendingAt = null;
      if (this.state.view) this.#renderHand();
    }
    if (ok && move.action !== "draw" && this.state.view) {
      this.log.placedByMe(this.state.view, move); // "since your last move" starts after this tile
      if (!this.state.replaying) this.#drawLive();
      if (this.cursor.focused) this.cursor.refresh();
    }
    return ok;
  }
}
