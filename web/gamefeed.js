// The game page's live stream (issue 21), wired for the game screen (web/game.js): it opens the
// game's stream for the viewer's seat, moves the screen's copy of the view on with each event's
// delta, keeps the game's history of events for the page module's move log, shows the AI's
// moves one at a time (issue 35), hands a move's answer the legal moves its event brings, and
// falls back to fetching the view on a gap or while the stream is down. The screen stays the
// owner of the view: this calls its refresh() and apply(view) to show what arrived.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { LiveStream } from "./live.js";
import { plainError } from "./panel.js";

const $ = (id) => document.getElementById(id);
// How long a move's answer waits for its event to bring the seat's legal moves before asking.
const LEGAL_WAIT_MS = 2000;
// Issue 35: the AI's own moves came 0.08-0.54 s apart, too fast to follow. Each AI move the
// stream brings is shown at least this long after the AI move before it (the first at once).
export const AI_PACE_MS = 900;

/** Whether stream event id `a` ("<ms>-<seq>") comes after `b` ("" is before every id). */
export function laterEvent(a, b) {
  if (!b) return true;
  const [am, as] = a.split("-").map(BigInt);
  const [bm, bs] = b.split("-").map(BigInt);
  return am > bm || (am === bm && as > bs);
}

export class GameFeed {
  /** `screen`: the game screen it feeds (its id, seat, mine, view, copy, refresh(), apply(view),
   *  message(text, kind)). */
  constructor(screen) {
    this.screen = screen;
    this.events = null; // the LiveStream while one is open
    this.reset();
  }

  /** A game opened: nothing of the last one's stream is kept. */
  reset() {
    this.stopPacing();
    this.seatStream = false; // whether the stream speaks for this seat (its events carry `legal`)
    this.legalWait = null;
    this.history = [];
    this.lastEventId = "";
    this.historyDone = false;
    this.historyTo = null; // the first view's last event: the history is whole from there on
    this.historyReady = false;
  }

  /** Every public event of the game so far, for the page module (host.events): null until the
   *  stream has caught up with the first view shown. */
  get pageEvents() {
    return this.historyReady ? this.history : null;
  }

  close() {
    if (this.events) this.events.close();
    this.events = null;
    this.legalWait?.resolve([]);
    this.legalWait = null;
    clearTimeout(this.retryTimer);
    clearTimeout(this.soonTimer);
    this.stopPacing();
    clearInterval(this.pollTimer);
    $("conn").textContent = "";
    $("conn").className = "conn";
  }

  /** The first view shown: the history is whole once the stream has reached its last event. */
  firstView(view) {
    if (this.historyTo !== null) return;
    this.historyTo = view.last_event_id || "";
    if (!this.historyTo || (this.lastEventId && !laterEvent(this.historyTo, this.lastEventId))) this.historyReady = true;
  }

  /** A finished game is shown: nothing more to poll for. The stream (it asks for chat) stays
   *  open for the lines said after the end until the server ends it, and is not opened again
   *  then (onDown). */
  gameOver() {
    if (!this.events || !this.historyDone) return;
    clearInterval(this.pollTimer);
    $("conn").textContent = "";
  }

  /** Open the stream (from the game's first event, or after the last one taken). */
  connect() {
    const s = this.screen;
    const id = s.id;
    // A finished game's stream is read once, for its history (the engine ends it at the end).
    if (s.view?.status === "over" && this.historyDone) return;
    this.events?.close();
    this.seatStream = false;
    let opened = false; // the chat read its backlog as it opened; a reopening may have missed lines
    const stream = new LiveStream(api.streamUrl(id), {
      token: s.mine?.token || null,
      lastEventId: this.lastEventId,
      onOpen: () => {
        if (this.events !== stream) return;
        if (opened) s.chat?.refresh();
        opened = true;
        this.#conn("live");
      },
      onMessage: (message) => this.events === stream && this.#streamMessage(message),
      onDown: () => {
        if (this.events !== stream) return;
        if (this.historyDone) {
          // The game is over and the server ended its chat time after the end (or the stream
          // broke): read the chat once more and stop, never reconnect to a finished game.
          stream.close();
          this.events = null;
          $("conn").textContent = "";
          s.chat?.refresh();
          return;
        }
        this.#conn("reconnecting");
      },
      onRefused: () => {
        if (this.events !== stream) return;
        // A game that is gone or a token no longer good: the view's fetch says which and acts.
        this.events = null;
        this.#conn("reconnecting");
        s.refresh().then(() => {
          if (s.id !== id || this.events) return;
          if (s.view?.status === "over") {
            $("conn").textContent = ""; // a finished game kept in the archive: nothing to follow
            return;
          }
          this.retryTimer = setTimeout(() => s.id === id && !this.events && this.connect(), 3000);
        });
      },
    });
    this.events = stream;
    clearInterval(this.pollTimer);
    // A slow safety net: while the stream is down the board still catches up.
    this.pollTimer = setInterval(() => {
      if (this.events && !this.events.open && navigator.onLine !== false && s.view?.status !== "over") s.refresh();
    }, 8000);
  }

  /** Open the stream again (the viewer took or lost a seat: the stream speaks for the new one). */
  reconnect() {
    if (!this.events) return;
    this.events.close();
    this.events = null;
    this.connect();
  }

  /** One message of the stream: the first whole view, or an event with its delta. */
  #streamMessage(message) {
    const s = this.screen;
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    if (!data || typeof data !== "object") return;
    if (message.type === "chat") return s.chat?.live(data); // a line of the reader's chat room
    if (message.type === "view") {
      // The audience's whole view as the stream opens: the copy every later delta chains from.
      // Only the viewer's own (a server that does not speak for seats sends the public one).
      const view = data.view;
      if (!view || typeof view !== "object" || (Number.isInteger(view.seat) ? view.seat : null) !== s.seat) return;
      this.seatStream = s.seat !== null;
      s.copy.set(view, data.legal);
      this.#legalArrived();
      this.#soon(false);
      return;
    }
    if (message.type !== "message") return; // a failure: the stream ends and opens again
    this.#took(data, message.id);
    if (s.seat !== null && !data.legal) {
      // A stream that does not speak for this seat: its patch is the public view's, not ours;
      // the event only says that something changed.
      this.seatStream = false;
      this.#soon(true);
      return;
    }
    if (s.seat !== null) this.seatStream = true;
    const step = s.copy.event(data.delta, data.legal);
    this.#legalArrived();
    if (step === "applied" && this.#paced(data)) return;
    if (step === "gap") this.stopPacing();
    this.#soon(step === "gap");
  }

  // ---- the AI's moves, one at a time (issue 35) ----------------------------------------------

  /** Queue the view after an AI's move (and whatever follows it while AI moves wait) to be
   *  shown in turn, each AI move AI_PACE_MS after the AI move before it. The view that makes it
   *  the reader's turn is the last AI move's own: it shows as that move does, no later. */
  #paced(data) {
    const s = this.screen;
    const view = s.copy.view;
    const seat = Number.isInteger(data.seat) ? view?.seats?.[data.seat] : null;
    const ai = Boolean(seat) && (seat.kind === "ai" || seat.away === true) && !["join", "create"].includes(data.action);
    this.paceQueue ??= [];
    if (!ai && !this.paceQueue.length) return false;
    this.paceQueue.push({ view, ai });
    this.#drainPace();
    return true;
  }

  #drainPace() {
    const s = this.screen;
    if (this.paceTimer || !this.paceQueue?.length) return;
    const first = this.paceQueue[0];
    const wait = first.ai ? Math.max(0, (this.paceShownAt || 0) + AI_PACE_MS - performance.now()) : 0;
    const timer = setTimeout(async () => {
      const next = this.paceQueue.shift();
      // The pause runs from when the move is on the board, however long drawing it took.
      if (next) await s.apply(next.view);
      if (next?.ai) this.paceShownAt = performance.now();
      if (this.paceTimer !== timer) return; // stopped meanwhile: a newer drain owns the queue
      this.paceTimer = null;
      this.#drainPace();
    }, wait);
    this.paceTimer = timer;
  }

  /** Whether AI moves are waiting to be shown (or one is being shown) in turn. */
  get pacing() {
    return Boolean(this.paceTimer) || Boolean(this.paceQueue?.length);
  }

  stopPacing() {
    clearTimeout(this.paceTimer);
    this.paceTimer = null;
    this.paceQueue = [];
  }

  /** The stream brought legal moves: a move's answer waiting for them has them now. */
  #legalArrived() {
    const s = this.screen;
    const wait = this.legalWait;
    const known = s.copy.legal;
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
      // The game ended: no more events. The stream stays for the chat lines said after the end
      // (the server keeps a ?chat=1 stream open CHAT_AFTER_END_S) and is not reopened once it
      // ends (onDown).
      this.historyDone = true;
      clearInterval(this.pollTimer);
      $("conn").textContent = "";
    }
  }

  #conn(state) {
    const s = this.screen;
    // The stream is open: the server is reached again, a "cannot be reached" is old news.
    if (state === "live" && $("message").dataset.code === "view_failed") s.message("");
    const el = $("conn");
    el.textContent = state === "live" ? t("conn.live") : t("conn.reconnecting");
    el.className = `conn ${state}`;
  }

  /** Show what the stream brought, once for a burst of events; `fetch`: the copy could not
   *  follow (a gap), so fetch the view (and the legal moves) once instead. */
  #soon(fetch) {
    const s = this.screen;
    this.soonFetch = this.soonFetch || fetch;
    clearTimeout(this.soonTimer);
    this.soonTimer = setTimeout(() => {
      const gap = this.soonFetch;
      this.soonFetch = false;
      if (gap || !s.copy.view) s.refresh();
      else if (!this.paceQueue?.length) s.apply(s.copy.view); // else the pacing shows it
    }, 30);
  }

  /** The viewer's legal moves at `view`'s version: the stream's when it brought them (or, for a
   *  move's answer, will bring them shortly), else GET /legal. */
  legalAt(view, wait) {
    const s = this.screen;
    const id = s.id;
    const known = s.copy.legalAt(view.version);
    if (known) return Promise.resolve(known);
    const ask = () =>
      api.legal(id, s.mine.token).then(
        (answer) => answer.moves || [],
        (err) => {
          if (s.id === id) s.message(plainError(err, view, s.seat)[0], "error");
          return [];
        },
      );
    if (!wait || !this.seatStream || !this.events?.open) return ask();
    this.legalWait?.resolve([]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.legalWait?.timer !== timer) return;
        this.legalWait = null;
        if (s.id === id && s.mine) ask().then(resolve);
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
}
