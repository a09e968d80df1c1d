// One game on the page, for any game: the shell around a game's own page module. The server's view
// is the truth; after any event or move the shell fetches it again and passes it to the page.
//
// ---- The page-module interface --------------------------------------------------------------
// Each game ships `games/<kind>/web/page.js`, served at `/games/<kind>/page.js` (its other files
// beside it, e.g. `new URL("./page.css", import.meta.url)`). The shell loads it with
// `await import(`/games/${kind}/page.js`)` once it knows the view's `game`, and calls:
//
//   export function mount(parts, host) -> page
//     parts.board     HTMLElement: the main area, empty; the page fills it (e.g. with an SVG).
//     parts.controls  HTMLElement: the page's own controls in the side panel, empty.
//     host.send(move) -> Promise<boolean>: posts `move` (the game's move object) for the viewer's
//                     seat. The shell adds expected_version and a fresh move_id, shows a refusal
//                     in its message line (and refetches the view on 409), and on success passes
//                     the new view to page.update before the promise settles. Resolves true when
//                     the move was accepted, false when refused or not sent (another move of this
//                     tab in flight, or the viewer has no seat). Never rejects.
//     host.notify(text, kind = "info")  shows `text` in the shell's message line; kind is
//                     "info", "error" or "ok"; "" clears it.
//     host.seat       getter: the viewer's seat number, or null for a spectator.
//
//   page.update(view, legal)
//     Render `view` (GET /api/games/{id}, common fields plus the game's own). `legal` is the
//     viewer's legal move objects (GET /legal's `moves`), [] when the viewer may not move now.
//     Called on every fetch, also with an unchanged version: keep the viewer's selection then.
//   page.showHints(suggestions)
//     Show the AI's ranked suggestions, best first: each is the move's own fields plus `move`
//     (the move object to send as it is), `value` and `visits`. [] clears them; the shell clears
//     them whenever the position changes, i.e. the view's `turn_version` (before calling update;
//     other seats' hidden choices in a simultaneous turn move the version, not the position).
//   page.replay(record, view) -> {length, describe(i) -> string, show(i)}
//     For a finished game (`record` from GET /record, `view` the final view): positions 0..length,
//     0 the start and `length` the final position. describe(i) says in words what position i is
//     (the move that led to it); show(i) renders it in parts.board. The shell calls show(length)
//     first, and again on update while a position before the end is shown.
//   page.unmount()
//     Remove listeners the page added outside its parts (the shell then empties the parts).
// showHints and replay are optional: without them the shell offers no Hint button or replay.
// ----------------------------------------------------------------------------------------------

import { ApiError, api, loadSeat, rememberName, savedName, saveSeat } from "./api.js";
import { defaultLevel, gameMeta } from "./meta.js";
import { renderFinal, renderScores, renderStatus } from "./panel.js";
import { ReplayControls } from "./replay.js";

const $ = (id) => document.getElementById(id);
const KIND = /^[A-Za-z0-9_-]{1,64}$/;

function newMoveId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether `seat` may move in `view` now: it must (to_move), or it may still change its choice. */
export function mayMove(view, seat) {
  if (!view || seat === null || seat === undefined || view.status !== "playing") return false;
  return (view.to_move || []).includes(seat) || view.seats?.[seat]?.chosen === true;
}

export class GameScreen {
  constructor({ onTitle } = {}) {
    this.onTitle = onTitle || (() => {});
    this.replay = new ReplayControls();
    this.boardArea = $("board-area");
    this.controls = $("controls");
    $("hint-button").addEventListener("click", () => this.#hint());
    $("share-button").addEventListener("click", () => this.#share());
    $("join-box").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.#join();
    });
    this.id = null;
    this.page = null;
    this.kind = null;
    const screen = this;
    this.host = {
      send: (move) => this.#send(move),
      notify: (text, kind = "info") => this.#message(text, kind),
      get seat() {
        return screen.seat;
      },
    };
  }

  /** Show game `id`; called on every route change to it. */
  open(id) {
    if (this.id === id) return;
    this.close();
    this.id = id;
    this.mine = loadSeat(id);
    this.view = null;
    this.legal = [];
    this.legalVersion = null;
    this.busy = false;
    this.hinting = false;
    this.recordLoaded = false;
    this.#message("");
    $("after").hidden = true;
    $("hint-row").hidden = true;
    $("hint-meta").textContent = "";
    $("status").textContent = "Loading…";
    $("scores").tBodies[0].replaceChildren();
    $("join-name").value = savedName();
    this.replay.reset();
    // The stream starts after the first view, from its last event: no replay of old events.
    this.refresh().then(() => this.id === id && !this.events && this.#connect());
  }

  close() {
    if (this.events) this.events.close();
    this.events = null;
    clearTimeout(this.retryTimer);
    clearTimeout(this.soonTimer);
    clearInterval(this.pollTimer);
    this.#unmountPage();
    this.id = null;
    this.view = null;
    $("conn").textContent = "";
    $("conn").className = "conn";
  }

  get seat() {
    return this.mine ? this.mine.seat : null;
  }

  // ---- the game's page module ------------------------------------------------------------------

  async #ensurePage(kind) {
    if (this.page && this.kind === kind) return true;
    if (this.loading?.kind === kind) return this.loading.done;
    const load = async () => {
      if (!KIND.test(kind || "")) throw new Error(`This game's kind (${kind}) is not known.`);
      const [module, meta] = await Promise.all([
        import(`/games/${kind}/page.js`),
        gameMeta(kind).catch(() => null),
      ]);
      if (this.loading?.kind !== kind) return false; // another game was opened meanwhile
      this.#unmountPage();
      this.meta = meta;
      this.kind = kind;
      this.page = module.mount({ board: this.boardArea, controls: this.controls }, this.host);
      this.#setupHintLevels();
      const name = meta?.name || kind;
      $("game-name").textContent = name;
      this.onTitle(`${name} — game`);
      return true;
    };
    const done = load().finally(() => {
      if (this.loading?.done === done) this.loading = null;
    });
    this.loading = { kind, done };
    return done;
  }

  #unmountPage() {
    this.loading = null;
    if (this.page) {
      try {
        this.page.unmount?.();
      } finally {
        this.page = null;
        this.kind = null;
      }
    }
    this.boardArea.replaceChildren();
    this.controls.replaceChildren();
    $("game-name").textContent = "";
  }

  #setupHintLevels() {
    const select = $("hint-level");
    const levels = this.meta?.levels || [];
    select.replaceChildren();
    for (const l of levels) {
      const option = new Option(l.name, l.name, false, l.name === defaultLevel(levels));
      if (l.description) option.title = l.description;
      select.add(option);
    }
    select.closest("label").hidden = !levels.length;
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
      if (this.id !== id) return;
      if (err.status === 403 && this.mine) {
        // A token this game no longer accepts: forget it and look on as a spectator.
        this.mine = null;
        return this.refresh();
      }
      this.#message(err.message, "error");
      if (!this.view) $("status").textContent = "";
      return;
    }
    if (this.id !== id) return;
    await this.#apply(view);
  }

  async #apply(view) {
    const id = this.id;
    if (this.view && view.version < this.view.version) return; // an older answer arriving late
    try {
      if (!(await this.#ensurePage(view.game))) return;
    } catch (err) {
      if (this.id === id) this.#message(`This game's board cannot be shown: ${err.message}`, "error");
      return;
    }
    if (this.id !== id || (this.view && view.version < this.view.version)) return;
    const moved = !this.view || view.turn_version !== this.view.turn_version;
    this.view = view;
    if (view.status === "over" && this.events) {
      // The engine ends the stream with the game: stop listening instead of reconnecting.
      this.events.close();
      this.events = null;
      clearInterval(this.pollTimer);
      $("conn").textContent = "";
    }
    if (moved) {
      this.page.showHints?.([]);
      $("hint-meta").textContent = "";
    }
    if (mayMove(view, this.seat)) {
      // One fetch of the legal moves per version, shared by every view of that version that
      // arrives meanwhile (a move's answer and the event it caused, say).
      if (this.legalVersion !== view.version) {
        this.legalVersion = view.version;
        this.legalFetch = api.legal(id, this.mine.token).then(
          (answer) => answer.moves || [],
          (err) => {
            if (this.id === id) this.#message(err.message, "error");
            return [];
          },
        );
      }
      const legal = await this.legalFetch;
      if (this.legalVersion === view.version) this.legal = legal;
    } else {
      this.legal = [];
      this.legalVersion = null;
    }
    // A newer version came while the legal moves loaded: its own call renders it.
    if (this.id !== id || this.view.version !== view.version) return;
    this.#render();
  }

  #render() {
    const view = this.view;
    renderStatus(view, this.seat, this.meta);
    renderScores(view, this.seat, this.meta);
    this.#renderJoin();
    this.#renderHintRow();
    this.#renderAfter();
    this.page.update(view, this.legal);
    this.replay.again();
  }

  #renderJoin() {
    const view = this.view;
    const open = view.seats.some((s) => s.kind === "open");
    $("join-box").hidden = !(this.seat === null && view.status === "waiting" && open);
    $("share-button").hidden = view.status === "over";
  }

  #renderHintRow() {
    const view = this.view;
    $("hint-row").hidden = this.seat === null || view.status === "over" || typeof this.page?.showHints !== "function";
    const button = $("hint-button");
    button.disabled = this.busy || this.hinting || !mayMove(view, this.seat) || !this.legal.length;
    button.textContent = this.hinting ? "Thinking…" : "Hint";
  }

  // ---- playing -------------------------------------------------------------------------------

  async #send(move) {
    if (!this.mine || !this.view) {
      this.#message("Join the game to play.", "error");
      return false;
    }
    if (this.busy) return false;
    this.busy = true;
    this.#message("");
    const id = this.id;
    const body = { ...move, expected_version: this.view.version, move_id: newMoveId() };
    try {
      const view = await api.move(id, this.mine.token, body);
      this.busy = false;
      if (this.id === id) await this.#apply(view);
      return true;
    } catch (err) {
      this.busy = false;
      if (this.id !== id) return false;
      this.#message(err.message || "The move was refused.", "error", err.code);
      if (err instanceof ApiError && err.status === 409) this.refresh();
      else if (this.view) this.#render();
      return false;
    }
  }

  async #hint() {
    if (this.busy || this.hinting || !this.mine) return;
    const id = this.id;
    const position = this.view?.turn_version;
    const level = $("hint-level").value || undefined;
    this.hinting = true;
    this.#renderHintRow();
    try {
      const answer = await api.hint(id, this.mine.token, level);
      // Hints belong to the position they were asked for: the turn, not the version (in a
      // simultaneous turn, other seats' hidden choices move the version, not the position).
      if (this.id === id && this.view?.turn_version === position) {
        this.page.showHints?.(answer.suggestions || []);
        $("hint-meta").textContent = `${answer.level || level || ""} · ${answer.elapsed_ms ?? "?"} ms`;
      }
    } catch (err) {
      if (this.id === id) this.#message(err.message, "error", err.code);
    } finally {
      this.hinting = false;
      if (this.id === id && this.view) this.#renderHintRow();
    }
  }

  async #join() {
    const name = $("join-name").value.trim();
    if (!name) {
      this.#message("Please enter your name to join.", "error");
      $("join-name").focus();
      return;
    }
    const id = this.id;
    $("join-button").disabled = true;
    try {
      const seat = await api.join(id, name);
      rememberName(name);
      saveSeat(id, seat.seat, seat.token);
      if (this.id !== id) return;
      this.mine = { seat: seat.seat, token: seat.token };
      this.#message(`You joined as seat ${seat.seat + 1}.`, "ok");
      this.view = null;
      this.legalVersion = null;
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
    const view = this.view;
    const over = view.status === "over";
    $("after").hidden = !over;
    if (!over) return;
    renderFinal(view, this.seat, this.meta);
    if (!this.recordLoaded) {
      this.recordLoaded = true;
      const id = this.id;
      api.record(id, this.mine?.token).then(
        (record) => {
          if (this.id !== id || !this.page) return;
          this.replay.offer(record, `${view.game}-${id}.json`);
          const steps = typeof this.page.replay === "function" ? this.page.replay(record, this.view) : null;
          this.replay.load(steps);
        },
        (err) => {
          if (this.id !== id) return;
          this.recordLoaded = false;
          this.#message(`The record is not available: ${err.message}`, "error");
        },
      );
    }
  }

  #message(text, kind = "info", code = "") {
    const el = $("message");
    el.textContent = text || "";
    el.hidden = !text;
    el.className = `message ${["error", "ok", "info"].includes(kind) ? kind : "info"}`;
    el.dataset.code = code || "";
  }
}
