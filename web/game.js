// One game on the page, for any game: the shell around a game's own page module. The server's view
// is the truth; the page keeps a copy of it that the live stream's events and the moves' answers
// move on (web/live.js), and fetches it only on a gap (issue 21).
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
//   page.replay(record, view) -> {length, describe(i) -> string, show(i), scores(i) -> number[]}
//     For a finished game (`record` from GET /record, `view` the final view): positions 0..length,
//     0 the start and `length` the final position. describe(i) says in words what position i is
//     (the move that led to it); show(i) renders it in parts.board; scores(i) gives every seat's
//     score at position i, in seat order (the shell's score table follows the replay with it).
//     The shell calls show(length) first, and again on update while a position before the end
//     is shown.
//   page.unmount()
//     Remove listeners the page added outside its parts (the shell then empties the parts).
//   page.howToPlay() -> string
//     A short, plain-text (no HTML) "how to play" for the shell's collapsible panel; without it
//     the shell shows the game's `description` from GET /api/meta.
// showHints, replay and howToPlay are optional: without them the shell offers no Hint button or
// replay, and takes the "How to play" text from the catalogue.
//
// "Learn to play" (web/learn.js, #/learn/<kind>) uses this same interface for a game's first-game
// tutorial: mount, then update(view, legal) with each scripted step of GET /api/learn/<kind> (its
// one move as `legal`), through a host whose send() checks the move against the script. A game
// may also ship `games/<kind>/web/learn.js` exporting rules() -> [{id, title, paragraphs: [text],
// picture: Element or null}]: its rules in the page's words, with pictures its board code draws.
//
// host.send refuses (resolves false, with a plain message) while the viewer may not move: no
// seat, the game not started or over, another player's turn. Server refusals are shown as plain
// sentences: players named by name, rule-file references only in the message's tooltip.
//
// The kit: a page module (and every file of its folder) imports from the shell only "/kit.js",
// the page kit, and "/i18n.js"; nothing else of the shell (web/kit.js lists what the kit holds:
// drawing, seat glyphs and names, the keyboard cursor's moves, "Confirm moves", the move log, the
// map view; tests/test_page_kit.py keeps the boards to it).
//
// Words: a page module writes no sentence itself; it calls t(key, params) from /i18n.js
// (`import { t } from "/i18n.js"`) with keys from its own catalogue,
// games/<kind>/web/i18n/<lang>.json, every key starting with "<kind>.". A rule refusal's
// sentence is the catalogue's "<kind>.refusal.<code>" (the error's `refusal` field).
// ----------------------------------------------------------------------------------------------

import {
  ApiError,
  GAME_ID,
  api,
  forgetSeat,
  loadSeat,
  rememberName,
  savedName,
  saveSeat,
  saveSetting,
  setting,
  wasCreatedHere,
} from "./api.js";
import { t } from "./i18n.js";
import { signedValue } from "./dom.js";
import { defaultLevel, gameMeta } from "./meta.js";
import { gameName, optionText } from "./words.js";
import { levelDescription, levelName, plainError, renderFinal, renderScores, renderStatus, seatLabel, turnSentence, withoutRuleRefs } from "./panel.js";
import { linkSeatNames } from "./profile.js";
import { ReplayControls } from "./replay.js";
import { learnHref } from "./learn.js";
import { renderResign, renderSeatHandover, startTicking } from "./clock.js";
import { renderOffers } from "./offers.js";
import { ChatBox } from "./chat.js";
import { TurnAlerts } from "./notify.js";
import { LiveCopy, LiveStream } from "./live.js";
import { isPartyTable } from "./party.js";

const $ = (id) => document.getElementById(id);
const KIND = /^[A-Za-z0-9_-]{1,64}$/;
// How long a move's answer waits for its event to bring the seat's legal moves before asking.
const LEGAL_WAIT_MS = 2000;
// Issue 35: the AI's own moves came 0.08-0.54 s apart, too fast to follow. Each AI move the
// stream brings is shown at least this long after the AI move before it (the first at once).
export const AI_PACE_MS = 900;

function newMoveId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether it is `seat`'s move in `view` and it has not chosen yet (the your-turn alert). */
export function myTurn(view, seat) {
  if (!view || seat === null || seat === undefined || view.status !== "playing") return false;
  return (view.to_move || []).includes(seat) && view.seats?.[seat]?.chosen !== true;
}

/** What the best hint's value means, in one sentence. */
export function hintExplanation(value, level, players) {
  const shown = signedValue(value);
  if (!shown) return "";
  const level_ = level ? levelName(level) : "";
  const count = Number(Math.abs(value).toFixed(Math.abs(value) >= 10 ? 0 : 1));
  const params = { value: shown, level: level_, count };
  if (players <= 1) return t(level_ ? "hint.explain_solo_level" : "hint.explain_solo", params);
  const where = shown === "0" ? "level" : value > 0 ? "ahead" : "behind";
  return t(`hint.explain_${where}${level_ ? "_level" : ""}`, params);
}

/** Whether `seat` may move in `view` now: it must (to_move), or it may still change its choice. */
export function mayMove(view, seat) {
  if (!view || seat === null || seat === undefined || view.status !== "playing") return false;
  return (view.to_move || []).includes(seat) || view.seats?.[seat]?.chosen === true;
}

/** Whether stream event id `a` ("<ms>-<seq>") comes after `b` ("" is before every id). */
export function laterEvent(a, b) {
  if (!b) return true;
  const [am, as] = a.split("-").map(BigInt);
  const [bm, bs] = b.split("-").map(BigInt);
  return am > bm || (am === bm && as > bs);
}

export class GameScreen {
  constructor({ onTitle, onMissing } = {}) {
    this.onTitle = onTitle || (() => {});
    this.onMissing = onMissing || (() => {});
    this.baseTitle = "";
    this.replay = new ReplayControls({ onStep: (pos, scores) => this.#replayScores(scores) });
    this.boardArea = $("board-area");
    startTicking();
    this.controls = $("controls");
    $("hint-button").addEventListener("click", () => this.#hint());
    $("share-button").addEventListener("click", () => this.#share());
    $("hint-level").addEventListener("change", (ev) => saveSetting("hint.level", ev.target.value));
    this.alerts = new TurnAlerts($("sound-row"), (text, kind) => this.#message(text, kind));
    setInterval(() => this.alerts.tick(), 1000);
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
      notify: (text, kind = "info") => {
        const [plain, refs] = withoutRuleRefs(text);
        this.#message(plain, kind, "", refs.join("; "));
      },
      get seat() {
        return screen.seat;
      },
      // Whether the table is a party table (the host starts it; its open seats never all fill).
      get party() {
        return screen.party;
      },
      // Every public event of the game so far, oldest first (parsed; the stream starts from the
      // game's first event, so a reload has the whole story): page modules build their move log
      // from it. null until the stream has caught up with the first view shown (a log built
      // from half a history would announce old moves as news); then it grows as events arrive,
      // each arrival followed by a page.update.
      get events() {
        return screen.historyReady ? screen.history : null;
      },
    };
  }

  /** Show game `id`; called on every route change to it. */
  open(id) {
    if (this.id === id) return;
    this.close();
    if (typeof id !== "string" || !GAME_ID.test(id)) {
      this.onMissing();
      return;
    }
    this.id = id;
    this.mine = loadSeat(id);
    this.party = isPartyTable(id); // joined by a party code: the host starts it (party.js)
    this.view = null;
    this.legal = [];
    this.legalVersion = null;
    this.copy = new LiveCopy();
    this.#stopPacing();
    this.seatStream = false; // whether the stream speaks for this seat (its events carry `legal`)
    this.legalWait = null;
    this.busy = false;
    this.hinting = false;
    this.recordLoaded = false;
    this.history = [];
    this.lastEventId = "";
    this.historyDone = false;
    this.historyTo = null; // the first view's last event: the history is whole from there on
    this.historyReady = false;
    this.rated = null;
    this.ratedAsked = 0;
    this.alerts.reset();
    this.#renderRated();
    this.#message("");
    $("after").hidden = true;
    $("hint-row").hidden = true;
    $("hint-meta").textContent = "";
    $("hint-explain").hidden = true;
    $("watching").hidden = true;
    $("sound-row").hidden = true;
    $("how-to-play").hidden = true;
    $("status").textContent = t("game.loading");
    $("scores").tBodies[0].replaceChildren();
    $("join-name").value = savedName();
    this.replay.reset();
    // The stream starts from the game's first event: the page's move log is the whole game's
    // (its events), which a reload then reads the same.
    this.refresh().then(() => this.id === id && !this.events && this.#connect());
  }

  /** The address names no game: leave it and let the router show "No such game". */
  #missing(id) {
    if (this.id !== id) return;
    forgetSeat(id); // a seat kept for a game that is gone is of no use
    this.close();
    this.onMissing();
  }

  close() {
    if (this.events) this.events.close();
    this.events = null;
    this.legalWait?.resolve([]);
    this.legalWait = null;
    clearTimeout(this.retryTimer);
    clearTimeout(this.soonTimer);
    this.#stopPacing();
    clearInterval(this.pollTimer);
    clearTimeout(this.ratedTimer);
    this.#unmountPage();
    this.id = null;
    this.view = null;
    this.baseTitle = "";
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
      if (!KIND.test(kind || "")) throw new Error(t("game.unknown_kind", { kind }));
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
      const name = gameName(kind);
      $("game-title").textContent = name;
      let how = "";
      try {
        how = typeof this.page.howToPlay === "function" ? String(this.page.howToPlay() || "") : "";
      } catch {
        how = "";
      }
      how = how || optionText(kind, "description");
      $("how-text").textContent = how;
      $("how-to-play").hidden = !how;
      $("learn-table-link").href = learnHref(kind);
      this.baseTitle = t("game.doc_title", { title: name });
      this.#title();
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
    $("game-title").textContent = "";
    $("how-text").textContent = "";
  }

  #setupHintLevels() {
    const select = $("hint-level");
    const levels = this.meta?.levels || [];
    select.replaceChildren();
    const saved = setting("hint.level");
    const pick = levels.some((l) => l.name === saved) ? saved : defaultLevel(levels);
    for (const l of levels) {
      const option = new Option(levelName(l.name), l.name, false, l.name === pick);
      const about = levelDescription(l.name);
      if (about) option.title = about;
      select.add(option);
    }
    select.closest("label").hidden = !levels.length;
  }

  // ---- live updates ------------------------------------------------------------------------

  #connect() {
    const id = this.id;
    // A finished game's stream is read once, for its history (the engine ends it at the end).
    if (this.view?.status === "over" && this.historyDone) return;
    this.events?.close();
    this.seatStream = false;
    const stream = new LiveStream(api.streamUrl(id), {
      token: this.mine?.token || null,
      lastEventId: this.lastEventId,
      onOpen: () => this.events === stream && this.#conn("live"),
      onMessage: (message) => this.events === stream && this.#streamMessage(message),
      onDown: () => this.events === stream && this.#conn("reconnecting"),
      onRefused: () => {
        if (this.events !== stream) return;
        // A game that is gone or a token no longer good: the view's fetch says which and acts.
        this.events = null;
        this.#conn("reconnecting");
        this.refresh().then(() => {
          if (this.id !== id || this.events) return;
          if (this.view?.status === "over") {
            $("conn").textContent = ""; // a finished game kept in the archive: nothing to follow
            return;
          }
          this.retryTimer = setTimeout(() => this.id === id && !this.events && this.#connect(), 3000);
        });
      },
    });
    this.events = stream;
    clearInterval(this.pollTimer);
    // A slow safety net: while the stream is down the board still catches up.
    this.pollTimer = setInterval(() => {
      if (this.events && !this.events.open && navigator.onLine !== false && this.view?.status !== "over") this.refresh();
    }, 8000);
  }

  /** Open the stream again (the viewer took or lost a seat: the stream speaks for the new one). */
  #reconnect() {
    if (!this.events) return;
    this.events.close();
    this.events = null;
    this.#connect();
  }

  /** One message of the stream: the first whole view, or an event with its delta. */
  #streamMessage(message) {
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    if (!data || typeof data !== "object") return;
    if (message.type === "view") {
      // The audience's whole view as the stream opens: the copy every later delta chains from.
      // Only the viewer's own (a server that does not speak for seats sends the public one).
      const view = data.view;
      if (!view || typeof view !== "object" || (Number.isInteger(view.seat) ? view.seat : null) !== this.seat) return;
      this.seatStream = this.seat !== null;
      this.copy.set(view, data.legal);
      this.#legalArrived();
      this.#soon(false);
      return;
    }
    if (message.type !== "message") return; // a failure: the stream ends and opens again
    this.#took(data, message.id);
    if (this.seat !== null && !data.legal) {
      // A stream that does not speak for this seat: its patch is the public view's, not ours;
      // the event only says that something changed.
      this.seatStream = false;
      this.#soon(true);
      return;
    }
    if (this.seat !== null) this.seatStream = true;
    const step = this.copy.event(data.delta, data.legal);
    this.#legalArrived();
    if (step === "applied" && this.#paced(data)) return;
    if (step === "gap") this.#stopPacing();
    this.#soon(step === "gap");
  }

  // ---- the AI's moves, one at a time (issue 35) ----------------------------------------------

  /** Queue the view after an AI's move (and whatever follows it while AI moves wait) to be
   *  shown in turn, each AI move AI_PACE_MS after the AI move before it. The view that makes it
   *  the reader's turn is the last AI move's own: it shows as that move does, no later. */
  #paced(data) {
    const view = this.copy.view;
    const seat = Number.isInteger(data.seat) ? view?.seats?.[data.seat] : null;
    const ai = Boolean(seat) && (seat.kind === "ai" || seat.away === true) && !["join", "create"].includes(data.action);
    this.paceQueue ??= [];
    if (!ai && !this.paceQueue.length) return false;
    this.paceQueue.push({ view, ai });
    this.#drainPace();
    return true;
  }

  #drainPace() {
    if (this.paceTimer || !this.paceQueue?.length) return;
    const first = this.paceQueue[0];
    const wait = first.ai ? Math.max(0, (this.paceShownAt || 0) + AI_PACE_MS - performance.now()) : 0;
    this.paceTimer = setTimeout(() => {
      this.paceTimer = null;
      const next = this.paceQueue.shift();
      if (!next) return;
      if (next.ai) this.paceShownAt = performance.now();
      this.#apply(next.view);
      this.#drainPace();
    }, wait);
  }

  #stopPacing() {
    clearTimeout(this.paceTimer);
    this.paceTimer = null;
    this.paceQueue = [];
  }

  /** The stream brought legal moves: a move's answer waiting for them has them now. */
  #legalArrived() {
    const wait = this.legalWait;
    const known = this.copy.legal;
    if (!wait || !known || known.version < wait.version) return;
    this.legalWait = null;
    // Moves of a later version: the version waited for is gone, its render will be dropped.
    wait.resolve(known.version === wait.version ? known.moves : []);
  }

  /** Keep one event of the stream in the game's history (each once, in order). */
  #took(event, eventId) {
    const id = eventId || event.event_id || "";
    if (id && this.history.length && !laterEvent(id, this.lastEventId)) return; // seen already
    if (id) this.lastEventId = id;
    const { delta, legal, ...kept } = event; // what the view needed; the log reads the event
    this.history.push(kept);
    if (!this.historyReady && this.historyTo !== null && !laterEvent(this.historyTo, this.lastEventId)) this.historyReady = true;
    if (event.status === "over") {
      // The engine ends the stream with the game: stop listening instead of reconnecting.
      this.historyDone = true;
      this.events?.close();
      this.events = null;
      clearInterval(this.pollTimer);
      $("conn").textContent = "";
    }
  }

  #conn(state) {
    // The stream is open: the server is reached again, a "cannot be reached" is old news.
    if (state === "live" && $("message").dataset.code === "view_failed") this.#message("");
    const el = $("conn");
    el.textContent = state === "live" ? t("conn.live") : t("conn.reconnecting");
    el.className = `conn ${state}`;
  }

  /** Show what the stream brought, once for a burst of events; `fetch`: the copy could not
   *  follow (a gap), so fetch the view (and the legal moves) once instead. */
  #soon(fetch) {
    this.soonFetch = this.soonFetch || fetch;
    clearTimeout(this.soonTimer);
    this.soonTimer = setTimeout(() => {
      const gap = this.soonFetch;
      this.soonFetch = false;
      if (gap || !this.copy.view) this.refresh();
      else if (!this.paceQueue?.length) this.#apply(this.copy.view); // else the pacing shows it
    }, 30);
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
        this.copy = new LiveCopy();
        this.#reconnect();
        return this.refresh();
      }
      if (err.status === 404 || err.code === "game_not_found" || (err.status === 400 && !this.view)) {
        this.#missing(id);
        return;
      }
      // marked as the view's failure: the next view that arrives, or the stream, clears it
      this.#message(plainError(err, this.view, this.seat)[0], "error", "view_failed");
      if (!this.view) $("status").textContent = "";
      return;
    }
    if (this.id !== id) return;
    if ($("message").dataset.code === "view_failed") this.#message(""); // reached again
    await this.#apply(view);
  }

  /** Show `view` (newer than or as new as the one shown). `fromMove`: a move's answer, whose
   *  legal moves the move's own event brings on a seat's stream. */
  async #apply(view, fromMove = false) {
    const id = this.id;
    this.copy.set(view);
    if (this.view && view.version < this.view.version) return; // an older answer arriving late
    try {
      if (!(await this.#ensurePage(view.game))) return;
    } catch (err) {
      if (this.id === id) this.#message(t("game.board_failed", { reason: err.message }), "error");
      return;
    }
    if (this.id !== id || (this.view && view.version < this.view.version)) return;
    if (this.historyTo === null) {
      this.historyTo = view.last_event_id || "";
      if (!this.historyTo || (this.lastEventId && !laterEvent(this.historyTo, this.lastEventId))) this.historyReady = true;
    }
    const moved = !this.view || view.turn_version !== this.view.turn_version;
    this.view = view;
    if (view.status === "over" && this.events && this.historyDone) {
      // The engine ends the stream with the game: stop listening instead of reconnecting.
      this.events.close();
      this.events = null;
      clearInterval(this.pollTimer);
      $("conn").textContent = "";
    }
    if (moved) {
      this.page.showHints?.([]);
      $("hint-meta").textContent = "";
      $("hint-explain").hidden = true;
    }
    if (mayMove(view, this.seat)) {
      // One fetch of the legal moves per version, shared by every view of that version that
      // arrives meanwhile (a move's answer and the event it caused, say).
      if (this.legalVersion !== view.version) {
        this.legalVersion = view.version;
        this.legalFetch = this.#legalAt(view, fromMove);
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

  /** The viewer's legal moves at `view`'s version: the stream's when it brought them (or, for a
   *  move's answer, will bring them shortly), else GET /legal. */
  #legalAt(view, wait) {
    const id = this.id;
    const known = this.copy.legalAt(view.version);
    if (known) return Promise.resolve(known);
    const ask = () =>
      api.legal(id, this.mine.token).then(
        (answer) => answer.moves || [],
        (err) => {
          if (this.id === id) this.#message(plainError(err, view, this.seat)[0], "error");
          return [];
        },
      );
    if (!wait || !this.seatStream || !this.events?.open) return ask();
    this.legalWait?.resolve([]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.legalWait?.timer !== timer) return;
        this.legalWait = null;
        if (this.id === id && this.mine) ask().then(resolve);
        else resolve([]);
      }, LEGAL_WAIT_MS);
      this.legalWait = {
        version: view.version,
        timer,
        resolve: (moves) => {
          clearTimeout(timer);
          resolve(moves);
        },
      };
    });
  }

  #render() {
    const view = this.view;
    $("game").dataset.version = String(view.version); // the version shown (tests wait on it)
    renderStatus(view, this.seat, this.meta, wasCreatedHere(this.id), this.party);
    const watching = $("watching");
    watching.hidden = this.seat !== null;
    watching.textContent =
      view.status === "waiting" && view.seats.some((s) => s.kind === "open")
        ? t("game.watching_join")
        : t("game.watching");
    this.alerts.update(view, this.seat, myTurn(view, this.seat), gameName(view.game));
    this.#title();
    this.#askRated();
    renderScores(view, this.seat, this.meta, null, this.party);
    this.#renderJoin();
    this.#renderHintRow();
    renderSeatHandover($("away-button"), view, this.seat, (away) => this.#setAway(away));
    renderResign($("resign-button"), view, this.seat, () => this.#resign());
    renderOffers($("offer-row"), view, this.seat, {
      offer: (kind) => this.#seatCall((id, token) => api.offer(id, token, kind)),
      answer: (n, answer) => this.#seatCall((id, token) => api.answerOffer(id, token, n, answer)),
      nameOf: (seat) => seatLabel(view.seats[seat], seat),
    });
    this.chat ??= new ChatBox($("chat-box")); // (issue 35 item 2) the reader's own room
    this.chat.show(this.id, this.mine?.token, {
      party: this.party, mySeat: this.seat, nameOf: (seat) => seatLabel(view.seats[seat], seat),
    });
    this.#renderAfter();
    linkSeatNames(this.id, $("game")); // each player's name leads to their profile
    this.page.update(view, this.legal);
    this.replay.again();
    if (this.replay.steps) this.#replayScores(this.replay.scoresAt(this.replay.pos));
  }

  /** While a finished game is replayed before its end, the score table shows the scores at
   *  that position; at the end the final results alone say it. */
  #replayScores(scores) {
    if (this.view && scores) renderScores(this.view, this.seat, this.meta, this.replay.stepping ? scores : null, this.party);
  }

  /** The tab's title, with "● Your turn — " in front while it is the viewer's move. */
  #title() {
    if (!this.baseTitle) return;
    this.onTitle(myTurn(this.view, this.seat) ? t("game.your_turn_title", { title: this.baseTitle }) : this.baseTitle);
  }

  /** Whether the table is rated (GET /table): asked on opening and when the game starts or
   *  ends; a player makes a table rated just after creating it (players.js), so while it is not
   *  rated it is asked again a few times, 2 s apart. */
  #askRated() {
    const stage = this.view.status;
    if (this.rated === true || this.ratedAsked === stage) return;
    this.ratedAsked = stage;
    clearTimeout(this.ratedTimer);
    this.#fetchRated(stage === "over" ? 0 : 3);
  }

  #fetchRated(again) {
    const id = this.id;
    api.table(id, this.mine?.token).then(
      (table) => {
        if (this.id !== id) return;
        this.rated = table.rated === true;
        this.#renderRated();
        if (!this.rated && again > 0) this.ratedTimer = setTimeout(() => this.id === id && this.#fetchRated(again - 1), 2000);
      },
      () => {
        if (this.id === id) this.ratedAsked = 0; // ask again with the next view
      },
    );
  }

  /** "Rated game" beside the status while the table is rated (its rule in the tooltip). */
  #renderRated() {
    let note = $("rated-note");
    if (!note) {
      note = document.createElement("p");
      note.id = "rated-note";
      note.className = "rated-note";
      $("status").after(note);
    }
    note.textContent = this.rated ? t("table.rated") : "";
    note.title = this.rated ? t("table.rated_help") : "";
    note.hidden = !this.rated;
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
    button.textContent = this.hinting ? t("hint.thinking") : t("hint.button");
  }

  // ---- playing -------------------------------------------------------------------------------

  async #send(move) {
    if (!this.mine || !this.view) {
      this.#message(
        this.view?.status === "waiting" && this.view.seats.some((s) => s.kind === "open")
          ? t("game.watching_join_first")
          : t("game.watching"),
        "error",
      );
      return false;
    }
    if (this.busy) return false;
    if (!mayMove(this.view, this.seat)) {
      const waitingParty = this.party && this.view.status === "waiting";
      this.#message(waitingParty ? t("turn.party_not_started") : turnSentence(this.view, this.seat) || t("turn.not_yours"), "error");
      return false;
    }
    this.busy = true;
    this.#message("");
    const id = this.id;
    const body = { ...move, expected_version: this.view.version, move_id: newMoveId() };
    try {
      const answer = await api.move(id, this.mine.token, body, this.copy.view ? this.copy.version : null);
      this.busy = false;
      if (this.id === id) {
        // The answer (a delta against the copy, or the whole view) moves the copy on.
        if (this.copy.answer(answer) === "gap") await this.refresh();
        else await this.#apply(this.copy.view, true);
      }
      return true;
    } catch (err) {
      this.busy = false;
      if (this.id !== id) return false;
      if (err.status === 404 || err.code === "game_not_found") {
        this.#missing(id);
        return false;
      }
      const [text, tip] = plainError(err, this.view, this.seat);
      this.#message(text, "error", err.code, tip);
      if (err instanceof ApiError && err.status === 409) this.refresh();
      else if (this.view) this.#render();
      return false;
    }
  }

  /** Hand the seat to the AI (away) or take it back; the answer is the new view. */
  async #setAway(away) {
    const id = this.id;
    try {
      const view = await api.setAway(id, this.mine.token, away);
      if (this.id === id) await this.#apply(view);
      if (this.id === id && !away) ownRowInSight(this.seat); // its clock runs again (issue 35)
    } catch (err) {
      if (this.id === id) this.#message(plainError(err, this.view, this.seat)[0], "error");
    }
  }

  /** Give up for good (issue 35): the answer is the new view (the game over, for two). */
  #resign() {
    return this.#seatCall((id, token) => api.resign(id, token));
  }

  /** A call for the reader's seat whose answer is the new view (resign, offers to stop). */
  async #seatCall(call) {
    const id = this.id;
    try {
      const view = await call(id, this.mine.token);
      if (this.id === id) await this.#apply(view);
    } catch (err) {
      if (this.id === id) this.#message(plainError(err, this.view, this.seat)[0], "error");
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
        const suggestions = answer.suggestions || [];
        this.page.showHints?.(suggestions);
        const used = answer.level || level || "";
        $("hint-meta").textContent = t("hint.meta", { level: levelName(used), ms: answer.elapsed_ms ?? "?" });
        const explain = $("hint-explain");
        explain.textContent = suggestions.length
          ? hintExplanation(suggestions[0].value, used, this.view.seats.length)
          : t("hint.none");
        explain.hidden = !explain.textContent;
      }
    } catch (err) {
      if (this.id === id) {
        const [text, tip] = plainError(err, this.view, this.seat);
        this.#message(text, "error", err.code, tip);
      }
    } finally {
      this.hinting = false;
      if (this.id === id && this.view) this.#renderHintRow();
    }
  }

  async #join() {
    const name = $("join-name").value.trim();
    if (!name) {
      this.#message(t("join.name_needed"), "error");
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
      this.#message(t("join.joined", { name }), "ok");
      this.view = null;
      this.legalVersion = null;
      this.copy = new LiveCopy();
      this.#reconnect();
      await this.refresh();
    } catch (err) {
      if (err.status === 404 || err.code === "game_not_found") {
        this.#missing(id);
        return;
      }
      this.#message(err.status === 409 ? t("join.full") : plainError(err, this.view, this.seat)[0], "error");
      this.refresh();
    } finally {
      $("join-button").disabled = false;
    }
  }

  async #share() {
    const url = `${location.origin}${location.pathname}#/game/${encodeURIComponent(this.id)}`;
    try {
      await navigator.clipboard.writeText(url);
      this.#message(t("game.invite_copied", { url }), "ok");
    } catch {
      this.#message(t("game.invite_link", { url }), "ok");
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
          this.#message(t("final.record_failed", { reason: plainError(err, this.view, this.seat)[0] }), "error");
        },
      );
    }
  }

  #message(text, kind = "info", code = "", tip = "") {
    const el = $("message");
    el.textContent = text || "";
    if (tip) el.title = tip;
    else el.removeAttribute("title");
    el.hidden = !text;
    el.className = `message ${["error", "ok", "info"].includes(kind) ? kind : "info"}`;
    el.dataset.code = code || "";
  }
}

/** The reader's own row of the score table (with its clock) scrolled into the panel's sight:
 *  after taking the seat back the panel was still scrolled down to the button, the clock that
 *  runs again hidden above. Only the panel scrolls (wide screens); under the pinned status. */
function ownRowInSight(seat) {
  const row = Number.isInteger(seat) ? document.querySelector(`#scores tr[data-seat='${seat}']`) : null;
  const panel = row?.closest(".panel");
  if (!panel || panel.scrollHeight <= panel.clientHeight) return;
  const status = panel.querySelector(":scope > .status");
  const cover = (status ? status.getBoundingClientRect().bottom : panel.getBoundingClientRect().top) + 4;
  const r = row.getBoundingClientRect();
  if (r.top < cover) panel.scrollTop -= cover - r.top;
  else if (r.bottom > panel.getBoundingClientRect().bottom) panel.scrollTop += r.bottom - panel.getBoundingClientRect().bottom;
}
