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

import { aiForPerson, confirmMoves, confirmToggle, cursorKey, ensureStylesheet, lastSeen, MoveLog,
  moverWords, nearestInDirection, registerParamWords, saveLastSeen, seatGlyph, seatGlyphName,
  seatLabel, signedValue, tableEntries } from "/kit.js";
import { BoardView, colourName, colourWord, deckIcon, tileIcon } from "./board.js";
import { boardFrom, completions, scores as routeScores, traceAll } from "./routes.js";
import { t } from "/i18n.js";
import { SIZE, describeTile, isCentre, parsePlacement, placementText, rotate, tileListWords, tileName } from "./tiles.js";

// A refusal names tiles by code ("tile", "held"): the shell words them through this.
registerParamWords("metro", (name, value) => (name === "tile" || name === "held" ? tileListWords(value) : null));


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
    this.cursor = null; // the keyboard cursor {r, c}
    this.hovered = null; // the square under the mouse {r, c}
    this.proposed = null; // a move waiting for its confirmation: {r, c, move, code}
    this.confirm = confirmMoves();
    this.recentFrom = null; // placements from this index on are since the viewer's last move
    this.arrive = new Set(); // squares to fade in on the next drawing

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
    svg.addEventListener("keydown", (ev) => this.#boardKey(ev));
    svg.addEventListener("focus", () => this.#boardFocus());
    svg.addEventListener("blur", () => {
      this.svg.removeAttribute("aria-activedescendant");
      this.boardView.cursor(null);
      this.#showPreview(); // the cursor's ghost tile goes with the focus (issue 19.10)
    });

    this.keysNote = h("p", { id: "board-keys", class: "visually-hidden",
      text: t("metro.keys") });
    this.handTitle = h("h3", { id: "hand-title", text: t("metro.your_hand") });
    this.drawnNote = h("span", { id: "drawn-note", class: "drawn-note", hidden: true, text: t("metro.drawn_note") });
    this.hand = h("div", { id: "hand", class: "hand", role: "group", "aria-label": t("metro.your_tiles") });
    this.drawButton = h("button", { type: "button", id: "draw-button", text: t("metro.draw_place") });
    this.rotateButton = h("button", {
      type: "button", id: "rotate-button", hidden: true, title: t("metro.rotate_title"), text: t("metro.rotate"),
    });
    this.confirmBox = h("div", { id: "confirm-box", class: "confirm-box", hidden: true });
    this.confirmText = h("p", { id: "confirm-text", class: "confirm-text" });
    this.confirmButton = h("button", { type: "button", id: "confirm-button", class: "primary", text: t("metro.confirm") });
    this.cancelButton = h("button", { type: "button", id: "cancel-button", class: "ghost-button", text: t("metro.cancel") });
    this.confirmBox.append(this.confirmText, h("div", { class: "actions" }, this.confirmButton, this.cancelButton));
    this.playBox = h(
      "div",
      { id: "play-box", class: "play-box", hidden: true },
      h("div", { class: "hand-head" }, this.handTitle, this.drawnNote),
      this.hand,
      h("div", { class: "actions" }, this.drawButton, this.rotateButton),
      this.confirmBox,
    );
    this.hintList = h("ol", { id: "hint-list", class: "hint-list" });
    this.hintBox = h(
      "div",
      { id: "hint-box", class: "hint-box", hidden: true },
      h("h3", { text: t("metro.hints_title") }),
      this.hintList,
    );
    this.tilesLeft = h("p", { id: "tiles-left", class: "tiles-left" });
    this.settings = h("div", { class: "metro-settings" });
    this.confirmToggle = confirmToggle(this.settings, (on) => {
      this.confirm = on;
      this.#cancelProposal();
    });
    this.confirmToggle.id = "confirm-moves";
    parts.controls.replaceChildren(this.keysNote, this.playBox, this.hintBox, this.tilesLeft);
    this.log = new MoveLog(parts.controls);
    parts.controls.appendChild(this.settings);

    this.drawButton.addEventListener("click", () => this.#draw());
    this.rotateButton.addEventListener("click", () => this.#rotate());
    this.confirmButton.addEventListener("click", () => this.#commitProposal());
    this.cancelButton.addEventListener("click", () => this.#cancelProposal());
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
    this.#follow(before, view);
    this.view = view;
    this.legal = legal || [];
    this.board = board;
    if (!this.replaying) this.#drawLive();
    this.arrive = new Set();
    this.#renderHand();
    this.#updateHighlights();
    const placed = (view.board || []).length;
    this.tilesLeft.textContent = t("metro.tiles_left", { count: view.deck_count ?? 0, placed });
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
        button.append(tileIcon(p.code, 30, describeTile(p.code)));
        button.title = t("access.hint_pick_title");
      } else {
        button.append(deckIcon(30));
        button.title = t("metro.draw_place_title");
      }
      button.append(
        h("span", { text: p ? t("access.hint_at", { tile: tileName(p.code), row: p.row + 1, col: p.col + 1 }) : t("metro.draw_place") }),
        h("span", { class: "value", text: signedValue(s.value) }),
      );
      button.addEventListener("click", () => this.#pickHint(move));
      this.hintList.appendChild(h("li", {}, button));
    });
    this.hintBox.hidden = top.length === 0;
    this.boardView.hints(onBoard);
    this.#labelSquares();
  }

  /** A move object in words (the post-game analysis says moves with it): the tile by its
   * tracks and its square, or drawing a tile; never the placement code. */
  moveWords(move) {
    if (move?.action === "draw") return t("metro.draw_place_title");
    const p = parsePlacement(move?.placement || "");
    return p ? `${tileName(p.code)}, ${t("metro.square", { row: p.row + 1, col: p.col + 1 })}` : "";
  }

  replay(record, view) {
    const moves = record?.moves || [];
    const seats = view.seats;
    const length = moves.length;
    return {
      length,
      moveWords: (move) => this.moveWords(move),
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
          this.replaying = false;
          this.#drawLive();
        } else {
          this.replaying = true;
          const shown = moves.slice(0, pos);
          const board = boardFrom(shown.map((m) => m.placement));
          const last = shown.length ? parsePlacement(shown[shown.length - 1].placement) : null;
          const lastKey = last ? `${last.row},${last.col}` : null;
          this.boardView.render({
            board,
            seats,
            routes: traceAll(board, seats),
            lastSquare: lastKey,
            recent: new Set(lastKey ? [lastKey] : []),
          });
          this.#labelSquares(board);
        }
        this.#updateHighlights();
      },
      // The post-game analysis (web/analysis.js) at position i: the best placement instead of
      // the move just played, drawn beside it as the hints are (a ghost tile, ★, its value).
      showBest: (i, decisions) => {
        const d = decisions.filter((m) => m.best?.action === "place").pop();
        const p = d && d.label !== "best" ? parsePlacement(d.best.placement) : null;
        this.boardView.hints(p ? [{ ...p, placement: d.best.placement, rank: "★", value: d.best_value }] : []);
      },
      // Every seat's points at position i: its complete routes on the board as it was then.
      scores: (i) => {
        const shown = moves.slice(0, Math.max(0, Math.min(length, i)));
        const board = boardFrom(shown.map((m) => m.placement));
        return routeScores(traceAll(board, seats), seats.length);
      },
    };
  }

  // ---- other players' moves ------------------------------------------------------------------

  /** Who placed each new tile between two views, in words, logged, spoken and outlined. */
  #follow(before, view) {
    const me = this.host.seat;
    const placements = view.board || [];
    const seats = view.seats || [];
    const n = seats.length || 1;
    const stored = lastSeen("metro", view.game_id, me);
    const entries = this.#history(view);
    if (!before || before.game_id !== view.game_id) {
      if (stored && Number.isInteger(stored.placed) && stored.placed <= placements.length) this.recentFrom = stored.placed;
      else if (me !== null && Number.isInteger(view.turn)) {
        // Nothing remembered: the moves since the viewer's seat last had the turn.
        this.recentFrom = placements.length - ((((view.turn - me - 1) % n) + n) % n);
      } else this.recentFrom = Math.max(0, placements.length - 1);
    } else {
      const old = before.board || [];
      if (placements.length > old.length) {
        const fresh = entries.filter((e) => Number.isInteger(e.index) && e.index >= old.length);
        for (const entry of fresh) {
          if (entry.seat === me) {
            this.recentFrom = entry.index + 1;
            saveLastSeen("metro", view.game_id, me, { version: view.version, placed: entry.index + 1 });
          } else {
            const p = parsePlacement(placements[entry.index]);
            if (p) this.arrive.add(`${p.row},${p.col}`);
          }
        }
        const theirs = fresh.filter((e) => e.seat !== me).map((e) => e.text);
        const turn = this.#turnWords(view);
        if (theirs.length || turn) this.log.announce([...theirs, turn].filter(Boolean).join(" "));
      } else if (before.status !== view.status || JSON.stringify(before.to_move) !== JSON.stringify(view.to_move)) {
        this.log.announce(this.#turnWords(view));
      }
    }
    this.log.set(entries);
    if (this.recentFrom === null || this.recentFrom > placements.length) this.recentFrom = placements.length;
    this.log.markRecent((e) => e.index >= this.recentFrom && e.seat !== me);
  }

  /** The whole game's log: one entry per placed tile, in order, with the seats' time-outs and
   *  returns between them. Who placed a tile (and whether the AI did it for a person) comes from
   *  the game's events; tiles the view has and the events not yet are attributed by turn order. */
  #history(view) {
    const placements = view.board || [];
    const seats = view.seats || [];
    const n = seats.length || 1;
    const me = this.host.seat;
    const out = [];
    let j = 0;
    for (const event of this.host.events || []) {
      if (event.action === "place" && j < placements.length) {
        out.push(this.#entry(placements, j, event.seat, view, event));
        j++;
      } else {
        out.push(...tableEntries(event, me, (seat) => seatName(seats, seat)));
      }
    }
    const turn = Number.isInteger(view.turn) ? view.turn : placements.length % n;
    for (; j < placements.length; j++) {
      const seat = (((turn - (placements.length - j)) % n) + n) % n;
      out.push(this.#entry(placements, j, seat, view, null));
    }
    return out;
  }

  /** Placement j of `placements`, by `seat` (its move `event`, when known), as a log entry with
   *  the points it completed. */
  #entry(placements, j, seat, view, event) {
    const p = parsePlacement(placements[j]);
    const mine = this.host.seat === seat;
    // Who made it: the engine's `by`; without one (an event from before it was recorded, or a
    // tile the events have not brought yet), the viewer's own seat while the AI holds it.
    const byAi = event && "by" in event ? aiForPerson(event, view.seats) : mine && Boolean(view.seats?.[seat]?.away);
    const by = event?.by || undefined;
    const name = mine ? seatName(view.seats, seat) : moverWords(seatName(view.seats, seat), { byAi });
    if (!p) return { index: j, seat, by, text: t("metro.log_moved", { name }) };
    const board = boardFrom(placements.slice(0, j));
    const gains = completions(board, view.seats, p.code, p.row, p.col);
    const pts = gains
      .filter((g) => g.owner !== null && g.owner !== undefined)
      .map((g) => t("metro.log_gain", { points: g.points, name: seatName(view.seats, g.owner) }));
    // The viewer's seat played by the AI (while they were away): say so, not "You placed".
    const who = !mine ? "" : byAi ? "ai_placed_for_you" : "you_placed";
    const words = { name, tile: tileName(p.code), row: p.row + 1, col: p.col + 1, points: pts.join(", ") };
    const key = `metro.log_${who || "placed"}${pts.length ? "_points" : ""}`;
    const text = t(key, words);
    return { index: j, seat, by, text, glyph: seatGlyph(seat) };
  }

  #turnWords(view) {
    if (view.status === "over") return t("metro.over");
    if (view.status !== "playing") return "";
    const mover = (view.to_move || [])[0];
    if (mover === undefined) return "";
    return mover === this.host.seat ? t("metro.your_turn") : t("metro.to_play", { name: seatName(view.seats, mover) });
  }

  /** Squares placed since the viewer's last move. */
  #recentSquares() {
    const out = new Set();
    const placements = this.view?.board || [];
    if (this.host.seat === null) {
      const last = placements.length ? parsePlacement(placements[placements.length - 1]) : null;
      if (last) out.add(`${last.row},${last.col}`);
      return out;
    }
    for (let j = this.recentFrom ?? placements.length; j < placements.length; j++) {
      const p = parsePlacement(placements[j]);
      if (p) out.add(`${p.row},${p.col}`);
    }
    return out;
  }

  // ---- drawing -------------------------------------------------------------------------------

  #drawLive() {
    const view = this.view;
    if (!view) return;
    const arrive = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ? new Set() : this.arrive;
    this.boardView.render({ board: this.board, seats: view.seats, routes: view.routes, lastSquare: this.lastSquare,
      recent: this.#recentSquares(), arrive });
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
    const view = this.view;
    this.playBox.hidden = this.host.seat === null || view.status === "over";
    this.settings.hidden = this.playBox.hidden;
    if (this.playBox.hidden) return;
    const focusedTile = this.hand.contains(document.activeElement) ? [...this.hand.children].indexOf(document.activeElement) : -1;
    this.hand.replaceChildren();
    const tiles = this.#tiles;
    if (this.selected >= tiles.length) this.selected = 0;
    tiles.forEach((code, i) => {
      const shown = rotate(code, this.turns);
      const now = i === this.selected ? shown : code;
      const b = h("button", { type: "button", class: "hand-tile", "data-code": code, "data-shown": shown,
        "aria-pressed": String(i === this.selected), title: tileName(now),
        "aria-label": `${i + 1}: ${describeTile(now)}` });
      b.appendChild(tileIcon(now, 64, describeTile(now)));
      b.firstChild.setAttribute("aria-hidden", "true");
      b.addEventListener("click", () => this.#select(i));
      this.hand.appendChild(b);
    });
    if (focusedTile >= 0) this.hand.children[focusedTile]?.focus();
    if (!tiles.length) this.hand.appendChild(h("p", { class: "muted", text: t("metro.no_tiles") }));
    this.drawnNote.hidden = !view.drawn;
    this.handTitle.textContent = view.drawn ? t("metro.drawn_tile") : t("metro.your_hand");
    const canDraw = this.#myTurn && this.legal.some((m) => m.action === "draw");
    this.drawButton.disabled = !canDraw || this.pending;
    this.rotateButton.hidden = !view.rules?.rotation;
    this.#renderProposal();
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

  /** What a screen reader hears on each square: its place, what is on it, and whether the
   *  selected tile may go there (with the points it would complete). */
  #labelSquares(board = null) {
    const view = this.view;
    if (!view) return;
    const shown = board || (this.replaying ? null : this.board);
    if (!shown) return;
    const legal = this.#myTurn && !this.replaying ? this.#legalSquares() : new Set();
    const recent = this.replaying ? new Set() : this.#recentSquares();
    const stationsAt = stationsBySquare(view.seats);
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
          if (this.cursor && this.cursor.r === r && this.cursor.c === c) {
            const gains = completions(this.board, view.seats, this.#selectedCode, r, c);
            if (gains.length) words.push(t("metro.completes", { gains: gainWords(gains, view.seats) }));
          }
        }
        const hinted = this.hintAt.get(key);
        if (hinted) words.push(t("metro.hint_mark", { tile: tileName(parsePlacement(hinted.placement)?.code) }));
        for (const s of stationsAt.get(key) || []) words.push(s);
        this.boardView.label(r, c, words.join(", "));
      }
    }
  }

  #updateHighlights() {
    this.boardView.highlight(this.#myTurn && !this.replaying ? this.#legalSquares() : []);
    if (document.activeElement === this.svg) {
      // the keyboard stays on the board: keep its cursor on a square it may go to
      const targets = this.#targets();
      if (!this.cursor || !targets.some((t) => t.r === this.cursor.r && t.c === this.cursor.c)) {
        this.cursor = targets.length ? { r: targets[0].r, c: targets[0].c } : null;
      }
    }
    this.#labelSquares();
    this.#showPreview();
    this.#drawCursor();
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
      this.drawButton.focus();
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
    const k = this.cursor;
    if (k && document.activeElement === this.svg && this.#previewAt(k.r, k.c)) return;
    this.boardView.preview(null);
  }

  #hover(r, c) {
    this.hovered = r === null ? null : { r, c };
    this.#showPreview();
  }

  // ---- the keyboard --------------------------------------------------------------------------

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

  #boardFocus() {
    const targets = this.#targets();
    if (!this.cursor || !targets.some((t) => t.r === this.cursor.r && t.c === this.cursor.c)) {
      this.cursor = targets.length ? { r: targets[0].r, c: targets[0].c } : null;
    }
    this.#labelSquares();
    this.#drawCursor();
    this.#showPreview();
  }

  #drawCursor() {
    const k = this.cursor;
    const focused = document.activeElement === this.svg;
    if (!k || !focused) {
      this.boardView.cursor(null);
      if (!focused) this.svg.removeAttribute("aria-activedescendant");
      return;
    }
    const pending = !!this.proposed && this.proposed.r === k.r && this.proposed.c === k.c;
    this.boardView.cursor(k.r, k.c, { pending });
    this.svg.setAttribute("aria-activedescendant", this.boardView.cellId(k.r, k.c));
  }

  #boardKey(ev) {
    cursorKey(ev, {
      move: (key) => this.#stepCursor(key),
      act: () => {
        if (this.cursor) this.#click(this.cursor.r, this.cursor.c, { keyboard: true });
      },
      escape: () => {
        if (this.proposed) this.#cancelProposal();
        else if (this.turns) {
          this.turns = 0;
          this.#renderHand();
          this.#updateHighlights();
        } else return false;
      },
      other: (key) => {
        if (key === "Home" || key === "End") this.#stepCursor(key);
        else if (key === "r" || key === "R") this.#rotate();
        else if (/^[1-9]$/.test(key) && Number(key) - 1 < this.#tiles.length) {
          this.#select(Number(key) - 1);
          this.log.announce(t("metro.selected", { tile: describeTile(this.#selectedCode) }));
        } else return false;
      },
    });
  }

  /** Arrow keys (nearest square that way), Home and End move the cursor over the targets. */
  #stepCursor(key) {
    const targets = this.#targets();
    let next;
    if (key === "Home") next = targets[0];
    else if (key === "End") next = targets[targets.length - 1];
    else {
      const from = this.cursor ? { x: this.cursor.c, y: this.cursor.r } : null;
      next = nearestInDirection(targets, from, key);
    }
    if (next) this.cursor = { r: next.r, c: next.c };
    this.#labelSquares();
    this.#drawCursor();
    this.#showPreview();
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
    this.cursor = { r, c };
    this.#renderProposal();
    this.#showPreview();
    this.#drawCursor();
    this.log.announce(this.confirmText.textContent);
  }

  #renderProposal() {
    const p = this.proposed;
    this.confirmBox.hidden = !p;
    if (!p || !this.view) return;
    const gains = completions(this.board, this.view.seats, p.code, p.r, p.c);
    const where = { tile: tileName(p.code), row: p.r + 1, col: p.c + 1, gains: gains.length ? gainWords(gains, this.view.seats) : "" };
    this.confirmText.textContent = t(gains.length ? "metro.confirm_place" : "metro.confirm_place_none", where);
    this.confirmButton.disabled = this.pending;
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
    this.#drawCursor();
  }

  async #draw() {
    const ok = await this.#send({ action: "draw" });
    // The drawn tile is placed on the board: take the keyboard there, on its first legal square.
    if (ok && this.view?.drawn && this.#myTurn) {
      this.cursor = null;
      this.svg.focus();
    }
  }

  async #send(move) {
    if (this.pending) return false;
    this.pending = true;
    this.drawButton.disabled = true;
    let ok = false;
    try {
      ok = await this.host.send(move);
    } finally {
      this.pending = false;
      if (this.view) this.#renderHand();
    }
    if (ok && move.action !== "draw" && this.view) {
      // Remember where "since your last move" starts, also for a reload: just after this tile,
      // not at the end of the board, since the live stream may already have brought the next
      // player's reply before this request's answer came back.
      const placed = placedThrough(this.view.board || [], move.placement);
      const me = this.host.seat;
      this.recentFrom = placed;
      saveLastSeen("metro", this.view.game_id, me, { version: this.view.version, placed });
      this.log.markRecent((e) => e.index >= placed && e.seat !== me);
      if (!this.replaying) this.#drawLive();
      if (document.activeElement === this.svg) this.#boardFocus();
    }
    return ok;
  }
}

/** How many placements of `board` there are up to and including the tile on `placement`'s square
 *  (all of them when that square is not on the board). */
function placedThrough(board, placement) {
  const p = parsePlacement(placement || "");
  if (!p) return board.length;
  const at = board.findIndex((text) => {
    const q = parsePlacement(text);
    return q !== null && q.row === p.row && q.col === p.col;
  });
  return at < 0 ? board.length : at + 1;
}

/** Points completed, in words: "4 points for Ada (yellow ●), 2 for Bob (blue ▲)". */
function gainWords(gains, seats) {
  return gains
    .map((g, i) => {
      const who = g.owner === null || g.owner === undefined ? t("metro.nobody") : seatWords(seats, g.owner);
      return i === 0 ? t("metro.gain_first", { count: g.points, name: who }) : t("metro.log_gain_plain", { points: g.points, name: who });
    })
    .join(", ");
}

function seatWords(seats, i) {
  return t("metro.seat_words", { name: seatName(seats, i), colour: colourWord(colourName(seats, i)), symbol: seatGlyphName(i) });
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

/** A suggestion without the search's own fields: the move to send. */
function stripHint(s) {
  const { value, visits, move, ...rest } = s;
  return rest;
}

function seatName(seats, i) {
  return seatLabel(seats?.[i], i);
}
