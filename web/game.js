// One game on the page: the board, your hand and moves, hints, live updates and the end of game.
// The server's view is the truth; after any event or move the page fetches it again.

import { ApiError, api, loadSeat, rememberName, savedName, saveSeat } from "./api.js";
import { BoardView, deckIcon, formatValue, tileIcon } from "./board.js";
import { renderFinal, renderScores, renderStatus } from "./panel.js";
import { Replay } from "./replay.js";
import { boardFrom, completions } from "./routes.js";
import { isCentre, parsePlacement, placementText, rotate } from "./tiles.js";

const $ = (id) => document.getElementById(id);

function newMoveId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class GameScreen {
  constructor() {
    this.boardView = new BoardView($("board"), {
      hover: (r, c) => this.#hover(r, c),
      leave: () => this.#hover(null, null),
      click: (r, c) => this.#click(r, c),
    });
    this.replay = new Replay((pos) => this.#showReplay(pos));
    $("draw-button").addEventListener("click", () => this.#send({ action: "draw" }));
    $("rotate-button").addEventListener("click", () => this.#rotate());
    $("hint-button").addEventListener("click", () => this.#hint());
    $("share-button").addEventListener("click", () => this.#share());
    $("join-box").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.#join();
    });
    document.addEventListener("keydown", (ev) => {
      if (this.id && (ev.key === "r" || ev.key === "R") && !(ev.target instanceof HTMLInputElement)) this.#rotate();
    });
    this.id = null;
  }

  /** Show game `id`; called on every route change to it. */
  open(id) {
    if (this.id === id) return;
    this.close();
    this.id = id;
    this.mine = loadSeat(id);
    this.view = null;
    this.legal = [];
    this.selected = 0;
    this.turns = 0;
    this.hints = [];
    this.busy = false;
    this.replayShown = false;
    this.recordLoaded = false;
    this.lastBoard = null;
    this.lastSquare = null;
    this.#message("");
    $("hint-box").hidden = true;
    $("after").hidden = true;
    $("join-name").value = savedName();
    this.boardView.hints([]);
    this.boardView.highlight([]);
    // The stream starts after the first view, from its last event: no replay of old events.
    this.refresh().then(() => this.id === id && !this.events && this.#connect());
  }

  close() {
    if (this.events) this.events.close();
    this.events = null;
    clearTimeout(this.retryTimer);
    clearInterval(this.pollTimer);
    this.id = null;
    $("conn").textContent = "";
  }

  get seat() {
    return this.mine ? this.mine.seat : null;
  }

  // ---- live updates ------------------------------------------------------------------------

  #connect() {
    const id = this.id;
    if (this.view?.status === "over") return; // nothing more will happen
    const es = new EventSource(api.eventsUrl(id, this.view?.last_event_id));
    this.events = es;
    es.onopen = () => this.#conn("live");
    es.onmessage = () => this.#soon();
    es.onerror = () => {
      if (this.events !== es) return;
      this.#conn("reconnecting");
      // The browser retries by itself (sending Last-Event-ID); if it gave up, start again.
      if (es.readyState === EventSource.CLOSED) {
        this.events = null;
        this.retryTimer = setTimeout(() => this.id === id && !this.events && this.#connect(), 3000);
      }
    };
    clearInterval(this.pollTimer);
    // A slow safety net: while the stream is down the board still catches up.
    this.pollTimer = setInterval(() => {
      if (this.events?.readyState !== EventSource.OPEN && this.view?.status !== "over") this.refresh();
    }, 8000);
  }

  #conn(state) {
    const el = $("conn");
    el.textContent = state === "live" ? "● live" : "○ reconnecting…";
    el.className = `conn ${state}`;
  }

  #soon() {
    clearTimeout(this.soonTimer);
    this.soonTimer = setTimeout(() => this.refresh(), 30);
  }

  // ---- the view ------------------------------------------------------------------------------

  async refresh() {
    const id = this.id;
    if (!id) return;
    let view;
    try {
      view = await api.view(id, this.mine?.token);
    } catch (err) {
      if (err.status === 403 && this.mine) {
        // A token this game no longer accepts: forget it and look on as a spectator.
        this.mine = null;
        return this.refresh();
      }
      this.#message(err.message, "error");
      return;
    }
    if (this.id !== id) return;
    await this.#apply(view);
  }

  async #apply(view) {
    if (this.view && view.version < this.view.version) return; // an older answer arriving late
    const changed = !this.view || view.version !== this.view.version;
    const prev = this.lastBoard;
    this.view = view;
    if (view.status === "over" && this.events) {
      // The engine ends the stream with the game: stop listening instead of reconnecting.
      this.events.close();
      this.events = null;
      clearInterval(this.pollTimer);
      $("conn").textContent = "";
    }
    this.board = boardFrom(view.board);
    if (prev) {
      for (const key of this.board.keys()) if (!prev.has(key)) this.lastSquare = key;
    }
    this.lastBoard = this.board;
    if (changed) {
      this.hints = [];
      this.boardView.hints([]);
      $("hint-box").hidden = true;
    }
    const myTurn = view.status === "playing" && view.turn === this.seat;
    if (myTurn && changed) {
      try {
        this.legal = (await api.legal(this.id, this.mine.token)).moves || [];
      } catch (err) {
        this.legal = [];
        this.#message(err.message, "error");
      }
    } else if (!myTurn) {
      this.legal = [];
    }
    if (this.view !== view) return; // a newer view came while legal moves loaded
    this.#render();
  }

  #render() {
    const view = this.view;
    if (!this.replayShown) {
      this.boardView.render({ board: this.board, seats: view.seats, routes: view.routes, lastSquare: this.lastSquare });
    }
    renderStatus(view, this.seat);
    renderScores(view, this.seat);
    this.#renderJoin();
    this.#renderHand();
    this.#renderAfter();
    this.#updateHighlights();
  }

  #renderJoin() {
    const view = this.view;
    const open = view.seats.some((s) => s.kind === "open");
    $("join-box").hidden = !(this.seat === null && view.status === "waiting" && open);
    $("share-button").hidden = view.status === "over";
  }

  /** The tiles this seat may place now: the drawn tile alone, else the hand. */
  get #tiles() {
    if (!this.view) return [];
    if (this.view.drawn) return [this.view.drawn];
    return this.view.hand || [];
  }

  #renderHand() {
    const view = this.view;
    const box = $("play-box");
    box.hidden = this.seat === null || view.status === "over";
    if (box.hidden) return;
    const myTurn = view.status === "playing" && view.turn === this.seat;
    const hand = $("hand");
    hand.replaceChildren();
    const tiles = this.#tiles;
    if (this.selected >= tiles.length) this.selected = 0;
    tiles.forEach((code, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "hand-tile";
      b.dataset.code = code;
      const shown = rotate(code, this.turns);
      b.dataset.shown = shown;
      b.setAttribute("aria-pressed", String(i === this.selected));
      b.title = `tile ${shown}`;
      b.appendChild(tileIcon(i === this.selected ? shown : code, 64));
      b.addEventListener("click", () => {
        if (this.selected !== i) this.turns = 0;
        this.selected = i;
        this.#renderHand();
        this.#updateHighlights();
      });
      hand.appendChild(b);
    });
    if (!tiles.length) {
      const empty = document.createElement("p");
      empty.className = "muted";
      empty.textContent = "No tiles in hand.";
      hand.appendChild(empty);
    }
    $("drawn-note").hidden = !view.drawn;
    $("hand-title").textContent = view.drawn ? "Drawn tile" : "Your hand";
    const canDraw = myTurn && this.legal.some((m) => m.action === "draw");
    $("draw-button").disabled = !canDraw || this.busy;
    $("rotate-button").hidden = !view.rules?.rotation;
    $("hint-button").disabled = !myTurn || this.busy;
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
    const myTurn = this.view?.status === "playing" && this.view.turn === this.seat && !this.replayShown;
    this.boardView.highlight(myTurn ? this.#legalSquares() : []);
    this.boardView.preview(null);
  }

  #rotate() {
    if (!this.view?.rules?.rotation || this.seat === null) return;
    this.turns = (this.turns + 1) % 4;
    this.#renderHand();
    this.#updateHighlights();
  }

  // ---- playing -------------------------------------------------------------------------------

  #hover(r, c) {
    const code = this.#selectedCode;
    if (r === null || !code || this.replayShown || !this.#legalSquares().has(`${r},${c}`)) {
      this.boardView.preview(null);
      return;
    }
    const gains = completions(this.board, this.view.seats, code, r, c);
    this.boardView.preview(code, r, c, gains, this.view.seats);
  }

  #click(r, c) {
    const view = this.view;
    if (!view || this.seat === null || view.status === "over" || this.replayShown || this.busy) return;
    if (this.board.has(`${r},${c}`) || isCentre(r, c)) return;
    const code = this.#selectedCode;
    if (!code) {
      this.#message("You have no tile to place.", "error");
      return;
    }
    // Even a square that is not highlighted goes to the server: its answer names the rule.
    this.#send({ action: "place", placement: placementText(code, r, c) });
  }

  async #send(move) {
    if (this.busy) return;
    this.busy = true;
    this.#message("");
    const body = { ...move, expected_version: this.view.version, move_id: newMoveId() };
    try {
      const view = await api.move(this.id, this.mine.token, body);
      this.turns = 0;
      this.selected = 0;
      this.busy = false;
      await this.#apply(view);
    } catch (err) {
      this.busy = false;
      this.#message(err.message || "The move was refused.", "error", err.code);
      if (err instanceof ApiError && err.status === 409) this.refresh();
      else this.#render();
    }
  }

  async #hint() {
    if (this.busy) return;
    const button = $("hint-button");
    button.disabled = true;
    button.textContent = "Thinking…";
    try {
      const answer = await api.hint(this.id, this.mine.token);
      this.#showHints(answer);
    } catch (err) {
      this.#message(err.message, "error", err.code);
    } finally {
      button.textContent = "Hint";
      button.disabled = false;
    }
  }

  #showHints(answer) {
    const top = (answer.suggestions || []).slice(0, 3);
    const onBoard = [];
    const list = $("hint-list");
    list.replaceChildren();
    top.forEach((s, i) => {
      const li = document.createElement("li");
      const p = s.action !== "draw" ? parsePlacement(s.placement) : null;
      if (p) {
        onBoard.push({ ...p, placement: s.placement, value: s.value, rank: i + 1 });
        li.append(tileIcon(p.code, 30));
      } else {
        li.append(deckIcon(30));
      }
      const text = document.createElement("span");
      text.textContent = p ? `${p.code} on (${p.row}, ${p.col})` : "Draw & place";
      const value = document.createElement("span");
      value.className = "value";
      value.textContent = formatValue(s.value, true);
      li.append(text, value);
      list.appendChild(li);
    });
    $("hint-meta").textContent = `${answer.level || ""} · ${answer.elapsed_ms ?? "?"} ms`;
    $("hint-box").hidden = false;
    this.boardView.hints(onBoard);
  }

  async #join() {
    const name = $("join-name").value.trim();
    if (!name) {
      this.#message("Please enter your name to join.", "error");
      $("join-name").focus();
      return;
    }
    $("join-button").disabled = true;
    try {
      const seat = await api.join(this.id, name);
      rememberName(name);
      saveSeat(this.id, seat.seat, seat.token);
      this.mine = { seat: seat.seat, token: seat.token };
      this.#message(`You joined as seat ${seat.seat + 1}.`, "ok");
      this.view = null;
      await this.refresh();
    } catch (err) {
      this.#message(err.status === 409 ? "Every seat of this game is taken." : err.message, "error");
      this.refresh();
    } finally {
      $("join-button").disabled = false;
    }
  }

  async #share() {
    const url = `${location.origin}${location.pathname}#/game/${encodeURIComponent(this.id)}`;
    try {
      await navigator.clipboard.writeText(url);
      this.#message(`Invite link copied: ${url}`, "ok");
    } catch {
      this.#message(`Invite link: ${url}`, "ok");
    }
  }

  // ---- after the game ------------------------------------------------------------------------

  #renderAfter() {
    const over = this.view.status === "over";
    $("after").hidden = !over;
    if (!over) return;
    renderFinal(this.view, this.seat);
    if (!this.recordLoaded) {
      this.recordLoaded = true;
      api.record(this.id, this.mine?.token).then(
        (record) => this.replay.load(record, this.id, this.view.seats),
        (err) => {
          this.recordLoaded = false;
          this.#message(`The record is not available: ${err.message}`, "error");
        },
      );
    }
  }

  #showReplay(pos) {
    this.replayShown = pos !== null;
    const view = this.view;
    if (!view) return;
    if (pos === null) {
      this.boardView.render({ board: this.board, seats: view.seats, routes: view.routes, lastSquare: this.lastSquare });
    } else {
      this.boardView.render({ board: pos.board, seats: view.seats, routes: pos.routes, lastSquare: pos.lastSquare });
    }
    this.#updateHighlights();
  }

  #message(text, kind = "info", code = "") {
    const el = $("message");
    el.textContent = text;
    el.hidden = !text;
    el.className = `message ${kind}`;
    el.dataset.code = code || "";
  }
}
