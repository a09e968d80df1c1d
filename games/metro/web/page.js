// Metro's page module: the board, the hand and the moves of a seat, hints on the board and the
// replay of a finished game. The shell (web/game.js) loads it with
// `import("/games/metro/page.js")` and drives it through the interface documented there:
// mount(parts, host) -> page with update(view, legal), showHints(suggestions),
// replay(record, view) and unmount().

import { BoardView, deckIcon, formatValue, tileIcon } from "./board.js";
import { boardFrom, completions, traceAll } from "./routes.js";
import { isCentre, parsePlacement, placementText, rotate } from "./tiles.js";

const CSS_ID = "metro-page-css";

/** The page's own stylesheet, once (a <link>: the page's policy allows same-origin styles only). */
function ensureStyles() {
  if (document.getElementById(CSS_ID)) return;
  const link = document.createElement("link");
  link.id = CSS_ID;
  link.rel = "stylesheet";
  link.href = new URL("./page.css", import.meta.url).href;
  document.head.appendChild(link);
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}

const NS = "http://www.w3.org/2000/svg";

export function mount(parts, host) {
  return new MetroPage(parts, host);
}

class MetroPage {
  constructor(parts, host) {
    ensureStyles();
    this.parts = parts;
    this.host = host;
    this.view = null;
    this.legal = [];
    this.board = new Map();
    this.lastSquare = null;
    this.selected = 0;
    this.turns = 0;
    this.pending = false;
    this.hintAt = new Map(); // "r,c" -> the suggestion drawn on that square
    this.replaying = false;

    const svg = document.createElementNS(NS, "svg");
    svg.id = "board";
    svg.setAttribute("class", "board");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "Metro board");
    parts.board.replaceChildren(svg);
    this.boardView = new BoardView(svg, {
      hover: (r, c) => this.#hover(r, c),
      leave: () => this.#hover(null, null),
      click: (r, c) => this.#click(r, c),
    });

    this.handTitle = h("h3", { id: "hand-title", text: "Your hand" });
    this.drawnNote = h("span", { id: "drawn-note", class: "drawn-note", hidden: true, text: "drawn tile — place it" });
    this.hand = h("div", { id: "hand", class: "hand", role: "group", "aria-label": "Your tiles" });
    this.drawButton = h("button", { type: "button", id: "draw-button", text: "Draw & place" });
    this.rotateButton = h("button", {
      type: "button", id: "rotate-button", hidden: true, title: "Turn the tile 90° clockwise (R)", text: "↻ Rotate",
    });
    this.playBox = h(
      "div",
      { id: "play-box", class: "play-box", hidden: true },
      h("div", { class: "hand-head" }, this.handTitle, this.drawnNote),
      this.hand,
      h("div", { class: "actions" }, this.drawButton, this.rotateButton),
    );
    this.hintList = h("ol", { id: "hint-list", class: "hint-list" });
    this.hintBox = h(
      "div",
      { id: "hint-box", class: "hint-box", hidden: true },
      h("h3", { text: "AI suggestions" }),
      this.hintList,
    );
    this.tilesLeft = h("p", { id: "tiles-left", class: "tiles-left" });
    parts.controls.replaceChildren(this.playBox, this.hintBox, this.tilesLeft);

    this.drawButton.addEventListener("click", () => this.#send({ action: "draw" }));
    this.rotateButton.addEventListener("click", () => this.#rotate());
    this.onKey = (ev) => {
      const t = ev.target;
      const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
      if ((ev.key === "r" || ev.key === "R") && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) this.#rotate();
    };
    document.addEventListener("keydown", this.onKey);
  }

  unmount() {
    document.removeEventListener("keydown", this.onKey);
    this.parts.board.replaceChildren();
    this.parts.controls.replaceChildren();
    this.view = null;
  }

  // ---- the interface -------------------------------------------------------------------------

  update(view, legal) {
    const changed = !this.view || this.view.version !== view.version;
    if (changed) {
      // a new position: the selection and rotation were for the one before
      this.selected = 0;
      this.turns = 0;
    }
    const board = boardFrom(view.board || []);
    if (this.view) {
      for (const key of board.keys()) if (!this.board.has(key)) this.lastSquare = key;
    }
    this.view = view;
    this.legal = legal || [];
    this.board = board;
    if (!this.replaying) this.#drawLive();
    this.#renderHand();
    this.#updateHighlights();
    const placed = (view.board || []).length;
    this.tilesLeft.textContent = `${view.deck_count ?? "?"} tiles left in the deck · ${placed}/60 placed`;
  }

  showHints(suggestions) {
    const top = (suggestions || []).slice(0, 3);
    const onBoard = [];
    this.hintAt = new Map();
    this.hintList.replaceChildren();
    top.forEach((s, i) => {
      const move = s.move || stripHint(s);
      const p = move.action !== "draw" ? parsePlacement(move.placement) : null;
      const button = h("button", { type: "button", class: "hint-item" }, h("span", { class: "rank", text: String(i + 1) }));
      if (p) {
        onBoard.push({ ...p, placement: move.placement, value: s.value, rank: i + 1 });
        const key = `${p.row},${p.col}`;
        if (!this.hintAt.has(key)) this.hintAt.set(key, move);
        button.append(tileIcon(p.code, 30));
        button.title = "Select this tile and rotation; click its square to place it";
      } else {
        button.append(deckIcon(30));
        button.title = "Draw a tile and place it";
      }
      button.append(
        h("span", { text: p ? `${p.code} on (${p.row}, ${p.col})` : "Draw & place" }),
        h("span", { class: "value", text: formatValue(s.value, true) }),
      );
      button.addEventListener("click", () => this.#pickHint(move));
      this.hintList.appendChild(h("li", {}, button));
    });
    this.hintBox.hidden = top.length === 0;
    this.boardView.hints(onBoard);
  }

  replay(record, view) {
    const moves = record?.moves || [];
    const seats = view.seats;
    const length = moves.length;
    return {
      length,
      describe: (i) => {
        if (i <= 0) return "The empty board.";
        const move = moves[Math.min(i, length) - 1];
        const p = parsePlacement(move.placement);
        const who = seatName(seats, move.seat);
        const how = move.action === "draw_place" ? "drew and placed" : "placed";
        return p ? `${who} ${how} ${p.code} on row ${p.row}, column ${p.col}.` : `${who}: ${move.action}`;
      },
      show: (i) => {
        const pos = Math.max(0, Math.min(length, i));
        if (pos === length) {
          this.replaying = false;
          this.#drawLive();
        } else {
          this.replaying = true;
          const shown = moves.slice(0, pos);
          const board = boardFrom(shown.map((m) => m.placement));
          const last = shown.length ? parsePlacement(shown[shown.length - 1].placement) : null;
          this.boardView.render({
            board,
            seats,
            routes: traceAll(board, seats),
            lastSquare: last ? `${last.row},${last.col}` : null,
          });
        }
        this.#updateHighlights();
      },
    };
  }

  // ---- drawing -------------------------------------------------------------------------------

  #drawLive() {
    const view = this.view;
    if (!view) return;
    this.boardView.render({ board: this.board, seats: view.seats, routes: view.routes, lastSquare: this.lastSquare });
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
    const view = this.view;
    this.playBox.hidden = this.host.seat === null || view.status === "over";
    if (this.playBox.hidden) return;
    this.hand.replaceChildren();
    const tiles = this.#tiles;
    if (this.selected >= tiles.length) this.selected = 0;
    tiles.forEach((code, i) => {
      const shown = rotate(code, this.turns);
      const b = h("button", { type: "button", class: "hand-tile", "data-code": code, "data-shown": shown,
        "aria-pressed": String(i === this.selected), title: `tile ${i === this.selected ? shown : code}` });
      b.appendChild(tileIcon(i === this.selected ? shown : code, 64));
      b.addEventListener("click", () => {
        if (this.selected !== i) this.turns = 0;
        this.selected = i;
        this.#renderHand();
        this.#updateHighlights();
      });
      this.hand.appendChild(b);
    });
    if (!tiles.length) this.hand.appendChild(h("p", { class: "muted", text: "No tiles in hand." }));
    this.drawnNote.hidden = !view.drawn;
    this.handTitle.textContent = view.drawn ? "Drawn tile" : "Your hand";
    const canDraw = this.#myTurn && this.legal.some((m) => m.action === "draw");
    this.drawButton.disabled = !canDraw || this.pending;
    this.rotateButton.hidden = !view.rules?.rotation;
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

  #updateHighlights() {
    this.boardView.highlight(this.#myTurn && !this.replaying ? this.#legalSquares() : []);
    this.boardView.preview(null);
  }

  #rotate() {
    if (!this.view?.rules?.rotation || this.host.seat === null || this.view.status === "over") return;
    this.turns = (this.turns + 1) % 4;
    this.#renderHand();
    this.#updateHighlights();
  }

  /** Select the hand tile and rotation of a suggested placement (exactly its code). */
  #pickHint(move) {
    if (move.action === "draw") {
      this.drawButton.focus();
      return;
    }
    const p = parsePlacement(move.placement);
    if (!p) return;
    const tiles = this.#tiles;
    for (let i = 0; i < tiles.length; i++) {
      for (let t = 0; t < (this.view.rules?.rotation ? 4 : 1); t++) {
        if (rotate(tiles[i], t) === p.code) {
          this.selected = i;
          this.turns = t;
          this.#renderHand();
          this.#updateHighlights();
          return;
        }
      }
    }
  }

  // ---- playing -------------------------------------------------------------------------------

  #hover(r, c) {
    if (r === null || this.replaying || !this.view) {
      this.boardView.preview(null);
      return;
    }
    // A hinted square previews the hint itself: a click there plays exactly that move.
    const hinted = this.hintAt.get(`${r},${c}`);
    const code = hinted ? parsePlacement(hinted.placement).code : this.#selectedCode;
    if (!code || (!hinted && !this.#legalSquares().has(`${r},${c}`))) {
      this.boardView.preview(null);
      return;
    }
    const gains = completions(this.board, this.view.seats, code, r, c);
    this.boardView.preview(code, r, c, gains, this.view.seats);
  }

  #click(r, c) {
    const view = this.view;
    if (!view || this.host.seat === null || view.status === "over" || this.replaying || this.pending) return;
    if (this.board.has(`${r},${c}`) || isCentre(r, c)) return;
    const hinted = this.hintAt.get(`${r},${c}`);
    if (hinted) {
      this.#send(hinted);
      return;
    }
    const code = this.#selectedCode;
    if (!code) {
      this.host.notify("You have no tile to place.", "error");
      return;
    }
    // Even a square that is not highlighted goes to the server: its answer names the rule.
    this.#send({ action: "place", placement: placementText(code, r, c) });
  }

  async #send(move) {
    if (this.pending) return;
    this.pending = true;
    this.drawButton.disabled = true;
    try {
      await this.host.send(move);
    } finally {
      this.pending = false;
      if (this.view) this.#renderHand();
    }
  }
}

/** A suggestion without the search's own fields: the move to send. */
function stripHint(s) {
  const { value, visits, move, ...rest } = s;
  return rest;
}

function seatName(seats, i) {
  const seat = seats?.[i];
  if (!seat) return `Seat ${i + 1}`;
  return seat.name || (seat.kind === "ai" ? `AI ${seat.level || ""}`.trim() : `Player ${i + 1}`);
}
