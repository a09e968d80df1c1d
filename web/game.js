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
//   page.replay(record, view, positions) -> {length, describe(i) -> string, show(i), scores(i)}
//     For a finished game (`record` from GET /record, `view` the final view, `positions` from GET
//     /positions: the rules core's positions in the game's own form, null when it has none):
//     positions 0..length,
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

import { ApiError, GAME_ID, api, forgetSeat, loadSeat, wasCreatedHere } from "./api.js";
import { t } from "./i18n.js";
import { gameMeta } from "./meta.js";
import { gameName, optionText } from "./words.js";
import { plainError, renderScores, renderStatus, seatLabel, turnSentence, withoutRuleRefs } from "./panel.js";
import { linkSeatNames } from "./profile.js";
import { learnHref } from "./learn.js";
import { startTicking } from "./clock.js";
import { ChatBox } from "./chat.js";
import { TurnAlerts } from "./notify.js";
import { LiveCopy } from "./live.js";
import { isPartyTable } from "./party.js";
import { GameFeed } from "./gamefeed.js";
import { HintRow } from "./gamehint.js";
import { SeatControls, mayMove, myTurn } from "./gameseat.js";
import { AfterGame } from "./gamerecord.js";

// The screen's parts (issue 31.3), each in its own file: the live stream and the AI's pace
// (gamefeed.js), the Hint button (gamehint.js), the viewer's seat: turn, join, share, rated,
// away, resign, offers (gameseat.js), and after the game: results, record, replay
// (gamerecord.js). This file glues them: the game's page module, the view shown, moves sent.
export { AI_PACE_MS, laterEvent } from "./gamefeed.js";
export { hintExplanation } from "./gamehint.js";
export { mayMove, myTurn } from "./gameseat.js";

const $ = (id) => document.getElementById(id);
const KIND = /^[A-Za-z0-9_-]{1,64}$/;

function newMoveId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class GameScreen {
  constructor({ onTitle, onMissing } = {}) {
    this.onTitle = onTitle || (() => {});
    this.onMissing = onMissing || (() => {});
    this.baseTitle = "";
    this.after = new AfterGame(this);
    this.boardArea = $("board-area");
    startTicking();
    this.controls = $("controls");
    this.hints = new HintRow(this);
    this.alerts = new TurnAlerts($("sound-row"), (text, kind) => this.message(text, kind));
    setInterval(() => this.alerts.tick(), 1000);
    this.seatControls = new SeatControls(this);
    this.feed = new GameFeed(this);
    this.id = null;
    this.page = null;
    this.kind = null;
    const screen = this;
    this.host = {
      send: (move) => this.#send(move),
      notify: (text, kind = "info") => {
        const [plain, refs] = withoutRuleRefs(text);
        this.message(plain, kind, "", refs.join("; "));
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
        return screen.feed.pageEvents;
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
    this.feed.reset();
    this.sentAt = null; // the version a move in flight was sent from (null: none)
    this.hints.reset();
    this.after.reset();
    this.seatControls.reset();
    this.alerts.reset();
    this.message("");
    $("watching").hidden = true;
    $("sound-row").hidden = true;
    $("how-to-play").hidden = true;
    $("status").textContent = t("game.loading");
    $("scores").tBodies[0].replaceChildren();
    // The stream starts from the game's first event: the page's move log is the whole game's
    // (its events), which a reload then reads the same.
    this.refresh().then(() => this.id === id && !this.feed.events && this.feed.connect());
  }

  /** The address names no game: leave it and let the router show "No such game". */
  missing(id) {
    if (this.id !== id) return;
    forgetSeat(id); // a seat kept for a game that is gone is of no use
    this.close();
    this.onMissing();
  }

  close() {
    this.feed.close();
    this.seatControls.close();
    this.#unmountPage();
    this.id = null;
    this.view = null;
    this.baseTitle = "";
  }

  get seat() {
    return this.mine ? this.mine.seat : null;
  }

  /** The viewer took seat `mine` ({seat, token}): the stream and the view now speak for it. */
  async seatTaken(mine) {
    this.mine = mine;
    this.view = null;
    this.legalVersion = null;
    this.copy = new LiveCopy();
    this.feed.reconnect();
    await this.refresh();
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
      this.hints.setupLevels(meta);
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
        this.feed.reconnect();
        return this.refresh();
      }
      if (err.status === 404 || err.code === "game_not_found" || (err.status === 400 && !this.view)) {
        this.missing(id);
        return;
      }
      // marked as the view's failure: the next view that arrives, or the stream, clears it
      this.message(plainError(err, this.view, this.seat)[0], "error", "view_failed");
      if (!this.view) $("status").textContent = "";
      return;
    }
    if (this.id !== id) return;
    if ($("message").dataset.code === "view_failed") this.message(""); // reached again
    await this.apply(view);
  }

  /** Show `view` (newer than or as new as the one shown). `fromMove`: a move's answer, whose
   *  legal moves the move's own event brings on a seat's stream. */
  async apply(view, fromMove = false) {
    const id = this.id;
    this.copy.set(view);
    if (this.view && view.version < this.view.version) return; // an older answer arriving late
    try {
      if (!(await this.#ensurePage(view.game))) return;
    } catch (err) {
      if (this.id === id) this.message(t("game.board_failed", { reason: err.message }), "error");
      return;
    }
    if (this.id !== id || (this.view && view.version < this.view.version)) return;
    this.feed.firstView(view);
    const moved = !this.view || view.turn_version !== this.view.turn_version;
    this.view = view;
    if (view.status === "over") this.feed.gameOver();
    if (moved) this.hints.clear();
    if (mayMove(view, this.seat)) {
      // One fetch of the legal moves per version, shared by every view of that version that
      // arrives meanwhile (a move's answer and the event it caused, say).
      if (this.legalVersion !== view.version) {
        this.legalVersion = view.version;
        this.legalFetch = this.feed.legalAt(view, fromMove);
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
    this.seatControls.askRated();
    renderScores(view, this.seat, this.meta, null, this.party);
    this.seatControls.renderJoin();
    this.hints.render();
    this.seatControls.renderCalls(view);
    this.chat ??= new ChatBox($("chat-box")); // (issue 35 item 2) the reader's own room
    this.chat.show(this.id, this.mine?.token, {
      party: this.party, mySeat: this.seat, nameOf: (seat) => seatLabel(view.seats[seat], seat),
    });
    this.after.render();
    linkSeatNames(this.id, $("game")); // each player's name leads to their profile
    this.page.update(view, this.legal);
    this.after.again();
  }

  /** The tab's title, with "● Your turn — " in front while it is the viewer's move. */
  #title() {
    if (!this.baseTitle) return;
    this.onTitle(myTurn(this.view, this.seat) ? t("game.your_turn_title", { title: this.baseTitle }) : this.baseTitle);
  }

  // ---- playing -------------------------------------------------------------------------------

  /** Whether a move sent from the view shown still awaits its answer. The page then takes no
   *  other move from that view (a double click); but when the stream brings a newer view first
   *  (the move's event, the AI's replies, the player's turn again) before the answer, the player's
   *  next move from it goes at once: on a loaded server the answer can come seconds after its
   *  event, and a click on a turn the page shows must never be dropped. */
  get busy() {
    return Number.isInteger(this.sentAt) && this.view !== null && this.view.version <= this.sentAt;
  }

  async #send(move) {
    if (!this.mine || !this.view) {
      this.message(
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
      this.message(waitingParty ? t("turn.party_not_started") : turnSentence(this.view, this.seat) || t("turn.not_yours"), "error");
      return false;
    }
    const sentAt = this.view.version;
    this.sentAt = sentAt;
    this.message("");
    const id = this.id;
    const body = { ...move, expected_version: this.view.version, move_id: newMoveId() };
    try {
      const answer = await api.move(id, this.mine.token, body, this.copy.view ? this.copy.version : null);
      if (this.sentAt === sentAt) this.sentAt = null;
      if (this.id === id) {
        // The answer (a delta against the copy, or the whole view) moves the copy on. When the
        // stream got here first and the AI's replies wait to be shown one at a time, the feed
        // shows them in turn: the copy's newest view now would show them all at once.
        const step = this.copy.answer(answer);
        if (step === "gap") await this.refresh();
        else if (step === "applied" || !this.feed.pacing) await this.apply(this.copy.view, true);
      }
      return true;
    } catch (err) {
      if (this.sentAt === sentAt) this.sentAt = null;
      if (this.id !== id) return false;
      if (err.status === 404 || err.code === "game_not_found") {
        this.missing(id);
        return false;
      }
      const [text, tip] = plainError(err, this.view, this.seat);
      this.message(text, "error", err.code, tip);
      if (err instanceof ApiError && err.status === 409) this.refresh();
      else if (this.view) this.#render();
      return false;
    }
  }

  /** Show `text` in the message line ("" hides it); `code` marks what it is about, `tip` its
   *  tooltip (a refusal's rule references). */
  message(text, kind = "info", code = "", tip = "") {
    const el = $("message");
    el.textContent = text || "";
    if (tip) el.title = tip;
    else el.removeAttribute("title");
    el.hidden = !text;
    el.className = `message ${["error", "ok", "info"].includes(kind) ? kind : "info"}`;
    el.dataset.code = code || "";
  }}
