// The game's live stream as the page reads it (issue 21): Server-Sent Events read with fetch() and a
// ReadableStream, so a seat's stream can prove its token in the Authorization header (an
// EventSource cannot send one); resumption with Last-Event-ID, backoff when the server cannot be
// reached; and the view copy that the stream's deltas keep current (docs/api-deltas.md,
// ../shared/API.md), so the page fetches the view only on a gap ("reload on gap").

import { noteServerDate } from "./clock.js";

/** Apply a JSON Patch of docs/api-deltas.md (replace, add, remove) to `view`; a new object, `view`
 *  is left as it was. Throws when the patch does not fit the view (the caller fetches it then). */
export function applyPatch(view, patch) {
  if (!Array.isArray(patch)) throw new Error("patch: not-an-array");
  const root = { "": structuredClone(view) };
  for (const op of patch) {
    if (!op || typeof op.path !== "string" || (op.path && !op.path.startsWith("/"))) throw new Error("bad path");
    const keys = ["", ...op.path.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"))];
    if (keys.includes("__proto__")) throw new Error(`bad path ${op.path}`);
    const last = keys.pop();
    const parent = keys.reduce((node, key) => {
      if (node === null || typeof node !== "object" || !(key in node)) throw new Error(`no ${op.path}`);
      return node[key];
    }, root);
    if (parent === null || typeof parent !== "object") throw new Error(`no ${op.path}`);
    if (op.op === "remove") {
      if (Array.isArray(parent)) {
        if (Number(last) !== parent.length - 1) throw new Error(`remove ${op.path}: not-last-item`);
        parent.pop();
      } else {
        if (!(last in parent)) throw new Error(`remove ${op.path}: no-such-key`);
        delete parent[last];
      }
    } else if (op.op === "add" || op.op === "replace") {
      if (!("value" in op)) throw new Error(`${op.op} ${op.path}: no value`);
      if (Array.isArray(parent) && last === "-") parent.push(op.value);
      else if (Array.isArray(parent) && !(Number(last) >= 0 && Number(last) <= parent.length)) throw new Error(`no ${op.path}`);
      else parent[last] = op.value;
    } else {
      throw new Error(`unknown op ${op.op}`);
    }
  }
  return root[""];
}

/** One SSE message's fields, fed line by line (the text/event-stream format of the HTML standard). */
export class SseParser {
  constructor(onMessage) {
    this.onMessage = onMessage; // ({type, data, id}) for each complete message
    this.buffer = "";
    this.afterCR = false;
    this.reset();
    this.lastId = "";
    this.retry = null;
  }

  reset() {
    this.type = "";
    this.data = [];
    this.sawData = false;
  }

  /** Feed decoded text; whole lines are handled, a partial line waits for the rest. */
  feed(text) {
    // A chunk that ended in "\r" may have split a "\r\n": its "\n" ends no second line.
    if (this.afterCR && text.startsWith("\n")) text = text.slice(1);
    this.afterCR = text.endsWith("\r");
    this.buffer += text;
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop(); // a partial line waits for the rest
    for (const line of lines) this.#line(line);
  }

  #line(line) {
    if (line === "") {
      if (this.sawData) this.onMessage({ type: this.type || "message", data: this.data.join("\n"), id: this.lastId });
      this.reset();
      return;
    }
    if (line.startsWith(":")) return; // a comment: the server's keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.type = value;
    else if (field === "data") {
      this.data.push(value);
      this.sawData = true;
    } else if (field === "id" && !value.includes("\0")) this.lastId = value;
    else if (field === "retry" && /^[0-9]+$/.test(value)) this.retry = Number(value);
  }
}

/** Why a stream could not open: the answer's status and error code (404, 403, ...). */
export class StreamRefused extends Error {
  constructor(status, code) {
    super(`stream refused: ${status} ${code}`);
    this.status = status;
    this.code = code;
  }
}

const FIRST_BACKOFF_MS = 1000;
const MOST_BACKOFF_MS = 30_000;

/**
 * A live stream that stays open: read with fetch, reopened after it ends or breaks (the server's
 * `retry:` after a clean end, growing waits with some jitter after failures), resuming with
 * Last-Event-ID. Callbacks: onOpen(), onMessage({type, data, id}), onDown() when it broke and
 * waits to reopen, onRefused(StreamRefused) when the server answered an error (the stream then
 * stops: the caller decides, e.g. a 404 game is gone, a 403 token is no longer good).
 */
export class LiveStream {
  constructor(url, { token = null, lastEventId = "", onOpen, onMessage, onDown, onRefused } = {}) {
    this.url = url;
    this.token = token;
    this.lastEventId = lastEventId;
    this.onOpen = onOpen || (() => {});
    this.onMessage = onMessage || (() => {});
    this.onDown = onDown || (() => {});
    this.onRefused = onRefused || (() => {});
    this.closed = false;
    this.open = false;
    this.failures = 0;
    this.retryMs = 3000;
    this.controller = null;
    this.timer = null;
    // The device lost its network: the open stream is dead even if no error says so yet (a
    // connection can look open for minutes); when the network is back, open again at once
    // instead of after the backoff's wait.
    this.onOffline = () => this.controller?.abort();
    this.onOnline = () => {
      if (this.closed || this.open) return;
      clearTimeout(this.timer);
      this.failures = 0;
      this.#run(); // a try still under way is superseded (its generation is old)
    };
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    this.#run();
  }

  close() {
    this.closed = true;
    this.open = false;
    clearTimeout(this.timer);
    this.controller?.abort();
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
  }

  async #run() {
    if (this.closed) return;
    const generation = (this.generation = (this.generation || 0) + 1);
    const current = () => generation === this.generation && !this.closed;
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    const headers = { Accept: "text/event-stream" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
    let opened = false;
    try {
      const res = await fetch(this.url, { headers, cache: "no-store", signal: controller.signal });
      if (!res.ok) {
        let code = `http_${res.status}`;
        try {
          code = (await res.json())?.error?.code || code;
        } catch {
          /* not JSON */
        }
        // Busy or unavailable: the server asks to come back; anything else is the caller's.
        if (res.status !== 503 && res.status !== 429 && res.status < 500) {
          if (current()) {
            this.close();
            this.onRefused(new StreamRefused(res.status, code));
          }
          return;
        }
        throw new Error(code);
      }
      if (!res.body) throw new Error("no body");
      if (!current()) return;
      noteServerDate(res.headers.get("Date")); // the clocks' skew, as every API answer notes it
      opened = true;
      this.open = true;
      this.failures = 0;
      this.onOpen();
      const parser = new SseParser((message) => {
        if (!current()) return;
        if (message.id) this.lastEventId = message.id;
        this.onMessage(message);
      });
      parser.lastId = this.lastEventId;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done || !current()) break;
        parser.feed(value);
      }
      if (parser.retry !== null) this.retryMs = parser.retry;
    } catch {
      if (!opened) this.failures += 1;
    }
    if (!current()) return;
    this.open = false;
    this.onDown();
    // After a clean end the server's `retry:`; after failures a growing wait, so that a gateway
    // that is down is not asked by every page at once.
    const wait = this.failures
      ? Math.min(MOST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.failures - 1)) * (0.75 + Math.random() / 2)
      : this.retryMs;
    this.timer = setTimeout(() => this.#run(), wait);
  }
}

/** `view` with `patch` applied when that gives the view at `version`; null when it does not. */
function patched(view, patch, version) {
  try {
    const next = applyPatch(view, patch);
    return next && next.version === version ? next : null;
  } catch {
    return null;
  }
}

/**
 * The page's copy of its audience's view (a seat's own, or the public one) and that seat's legal
 * moves, kept current from the stream. Each step says what the page should do next:
 *   "same"    nothing new for the view (the copy was already there; the event is still news
 *             for the move log)
 *   "applied" the copy moved on (this.view)
 *   "gap"     the copy cannot follow (a missed version, a patch that does not fit, no delta):
 *             fetch the view and the legal moves once, then set() what came.
 */
export class LiveCopy {
  constructor() {
    this.view = null;
    this.legal = null; // {version, moves} from the stream, when it carries them
  }

  get version() {
    return this.view ? this.view.version : -1;
  }

  /** A whole view (a fetch, a move's answer, the stream's first message): the copy when newer. */
  set(view, legal = null) {
    if (view && (!this.view || view.version >= this.view.version)) this.view = view;
    this.#legal(legal);
  }

  /** A move's answer with `?since=`: a delta against the copy, or the full view. */
  answer(body) {
    if (body && Array.isArray(body.patch) && Number.isInteger(body.since) && !("status" in body)) {
      if (this.version >= body.version) return "same";
      if (this.version !== body.since) return "gap";
      const view = patched(this.view, body.patch, body.version);
      if (!view) return "gap";
      this.view = view;
      return "applied";
    }
    const before = this.version;
    this.set(body);
    return this.version > before ? "applied" : "same";
  }

  /** An event's `delta` (and a seat's `legal`). */
  event(delta, legal) {
    if (!delta || typeof delta !== "object" || !Number.isInteger(delta.since) || !Number.isInteger(delta.version)) return "gap";
    let step;
    if (this.view && this.version >= delta.version) step = "same"; // a move's answer got here first
    else if (!this.view || this.version !== delta.since) step = "gap";
    else {
      const view = patched(this.view, delta.patch, delta.version);
      if (view) this.view = view;
      step = view ? "applied" : "gap";
    }
    this.#legal(legal);
    return step;
  }

  #legal(legal) {
    if (legal && Number.isInteger(legal.version) && Array.isArray(legal.moves) && (!this.legal || legal.version >= this.legal.version)) {
      this.legal = { version: legal.version, moves: legal.moves };
    }
  }

  /** The legal moves the stream gave for view version `version`, or null. */
  legalAt(version) {
    return this.legal && this.legal.version === version ? this.legal.moves : null;
  }
}
