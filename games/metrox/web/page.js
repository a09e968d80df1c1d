// Metro X's page module (RULES-METROX.md), in chessground's way: board.js draws the sheet as a
// subway map and takes input given the legal targets, panel.js holds the side boxes (the card,
// the line list, hints, final scores, the move log), and this file glues them: it keeps the view,
// the legal moves, the selection and the replay, and hands both one state to draw. The shell owns
// the status line, scores, join, hint button and replay buttons; it hands this module a board
// element and a controls element.

import { ensureStylesheet, registerParamWords, seatLabel } from "/kit.js";
import { t } from "/i18n.js";
import { MetroXBoard } from "./board.js";
import { LastTurn } from "./lastturn.js";
import { MetroXPanel } from "./panel.js";
import { cardWords, indexMap, moveWords, plainMove, sameMove, sheetFrom } from "./notation.js";

export { cardFace } from "./panel.js"; // the party screen and the rules pages draw cards with it

// A refusal names the card by its code ("card"): the shell words it through this.
registerParamWords("metrox", (name, value) => (name === "card" ? cardWords(value) : null));

let metaColours = null;
let metaPromise = null;

/** Seat colours come from the registry (GET /api/meta), fetched once per page. */
function loadColours() {
  metaPromise ||= fetch("/api/meta", { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : null))
    .then((meta) => {
      const game = meta?.games?.find((g) => g.game === "metrox");
      metaColours = Array.isArray(game?.colours) ? game.colours : [];
      return metaColours;
    })
    .catch(() => {
      metaColours = [];
      return metaColours;
    });
  return metaPromise;
}

export function mount(parts, host) {
  return new MetroXPage(parts, host);
}

class MetroXPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.parts = parts;
    this.host = host;
    this.view = null;
    this.legal = [];
    this.previews = new Map(); // line or station id ("" for the pass) -> its legal move's preview
    this.index = null;
    this.mapId = null;
    this.sheetSeat = null; // chosen by the viewer; null: own (or seat 0)
    this.sel = null; // the selected move, not yet sent
    this.hints = [];
    this.busy = false;
    this.replayPos = null;
    this.turnKey = null;
    const select = (move, send = false) => this.#select(move, send);
    const clear = () => {
      if (!this.sel) return false;
      this.sel = null;
      this.#render();
    };
    this.panel = new MetroXPanel(parts.controls, {
      select, clear,
      confirm: () => this.#confirm(),
      sheet: (seat) => {
        this.sheetSeat = seat;
        this.#render();
      },
      hover: (lineId) => this.board.hoverLine(lineId),
      line: (lineId) => this.board.pickLine(lineId),
    });
    this.board = new MetroXBoard(parts.board, {
      select, clear,
      notify: (text, kind) => this.host.notify(text, kind),
      announce: (text) => this.panel.log.announce(text),
    });
    this.lastTurn = new LastTurn(() => this.board.settle());
    loadColours().then(() => this.view && this.#render());
  }

  // ---- the shell's interface -------------------------------------------------------------------

  update(view, legal) {
    const key = `${view.game_id}/${view.turn_index}/${view.status}`;
    const newTurn = key !== this.turnKey;
    if (view.map && view.map.id !== this.mapId) this.#useMap(view.map);
    if (newTurn) {
      this.lastTurn.track(view, this.#seat);
      this.turnKey = key;
      this.board.cursor = null;
      this.sel = null;
      this.hints = [];
    }
    this.view = view;
    if (this.index && this.host.events) this.panel.logTurns(view, this.host.events, this.index, this.#seat);
    this.legal = Array.isArray(legal) ? legal.map(plainMove).filter(Boolean) : [];
    // What each choice would do, as the server worked it out (games/metrox/preview.py).
    this.previews = new Map((Array.isArray(legal) ? legal : []).map((m) => [m.line ?? m.station ?? "", m.preview]));
    if (this.sel && !this.#isLegal(this.sel)) this.sel = null;
    this.#render();
  }

  showHints(suggestions) {
    this.hints = (suggestions || []).slice(0, 5).map((s, i) => ({
      rank: i + 1,
      move: plainMove(s),
      value: s.value,
      visits: s.visits,
    }));
    this.#render();
  }

  /** A move object in words (the post-game analysis says moves with it): the line, the
   * station by its name, or the pass; never a code. */
  moveWords(move) {
    const known = move && (move.pass || move.station !== undefined || move.line !== undefined);
    return this.index && known ? moveWords(this.index, move) : "";
  }

  /** The replay of `record` from `served` (GET /positions: the sheets and lines after each
   *  turn and the scores then, as the rules core replayed them; null: no replay to show). */
  replay(record, view, served) {
    if (view) this.view = view;
    const v = this.view;
    if (v?.map && v.map.id !== this.mapId) this.#useMap(v.map);
    const index = this.index;
    const cards = record.cards || [];
    const turns = record.turns || [];
    const positions = index && served?.positions ? served.positions.map((p, i) => ({
      turn: i,
      card: i < cards.length && i < turns.length ? cards[i] : null,
      sheets: p.sheets.map(sheetFrom),
      lines: p.lines,
    })) : [];  // prettier-ignore
    const totals = served?.scores || [];
    const length = Math.max(0, positions.length - 1);
    const names = (p) => this.#seatName(p);
    const at = (i) => Math.max(0, Math.min(length, i));
    return {
      length,
      moveWords: (move) => this.moveWords(move),
      describe: (i) => {
        if (!positions.length) return "";
        i = at(i);
        if (i === 0) return t("metrox.replay_start", { words: cardWords(record.cards[0]) });
        const code = record.cards[i - 1];
        const moves = record.turns[i - 1]
          .map((mv, p) => `${names(p)}: ${moveWords(index, mv)}`)
          .join("; ");
        const scores = (totals[i] || []).map((total, p) => `${names(p)} ${total}`).join(", ");
        return t("metrox.replay_turn", { turn: i, length, words: cardWords(code), moves, scores });
      },
      show: (i) => {
        if (!positions.length) return;
        i = at(i);
        this.replayPos = i === length ? null : { ...positions[i], index: i, length, record };
        this.#render();
      },
      // The post-game analysis (web/analysis.js) at turn i: each seat's best choice where it
      // was not the one made, marked on its sheet beside the line (or station) it chose.
      showBest: (i, decisions) => {
        this.analysisBest = decisions.filter((m) => m.label !== "best").map((m) => ({ ...m.best, seat: m.seat }));
        this.#render();
      },
      // Every seat's total at turn i, so the shell's score table follows the replay.
      scores: (i) => (positions.length ? totals[at(i)] || null : null),
    };
  }

  unmount() {
    this.parts.board.replaceChildren();
    this.parts.controls.replaceChildren();
    this.view = null;
  }

  // ---- what stands -----------------------------------------------------------------------------

  get #seat() {
    const s = this.host.seat;
    return Number.isInteger(s) ? s : null;
  }

  #useMap(map) {
    this.index = indexMap(map);
    this.mapId = map.id;
    this.board.build(this.index);
  }

  #seatName(p) {
    const s = this.view?.seats?.[p];
    return s ? seatLabel(s, p) : t("seat.player", { n: p + 1 });
  }

  #colour(p) {
    const s = this.view?.seats?.[p];
    return s?.colour || (metaColours && metaColours[p]) || "#555555";
  }

  #shownSeat() {
    const n = this.view?.sheets?.length || 0;
    if (this.sheetSeat !== null && this.sheetSeat < n) return this.sheetSeat;
    const own = this.#seat;
    return own !== null && own < n ? own : 0;
  }

  /** The viewer may choose now (or change its choice). */
  #canChoose() {
    const v = this.view;
    return !!v && v.status === "playing" && this.#seat !== null && !!v.card && this.replayPos === null;
  }

  /** Legal moves: the server's list (a seat that has chosen gets it too, to choose again). */
  #legalMoves() {
    return this.#canChoose() ? this.legal : [];
  }

  /** What choosing line `lineId` would do to the viewer's sheet, from its legal move's preview:
   *  {stations, transfer (its number or null), mark}; nothing for a line it may not choose. */
  #previewOf(lineId) {
    const p = this.#canChoose() ? this.previews.get(lineId) : null;
    return { stations: p?.fills || [], transfer: p?.transfer?.value ?? null, mark: p?.mark ?? null };
  }

  #isLegal(move) {
    return this.#legalMoves().some((m) => sameMove(m, move));
  }

  /** The sheet of seat p as drawn now (the replay's, or the view's). */
  #sheet(p) {
    const sheets = this.replayPos ? this.replayPos.sheets : this.view?.sheets;
    const s = sheets?.[p];
    if (!s) return null;
    return s.filled instanceof Set ? s : sheetFrom(s);
  }

  /** What the board and the panel draw: one snapshot of the page's state. */
  #state() {
    const v = this.view;
    const own = this.#seat;
    const shown = this.#shownSeat();
    const canChoose = this.#canChoose();
    const replay = this.replayPos;
    return {
      view: v, index: this.index, own, shown, canChoose, choosing: canChoose && shown === own,
      moves: this.#legalMoves(), sheet: this.#sheet(shown), ownSheet: own !== null ? this.#sheet(own) : null,
      lines: (replay ? replay.lines : v.lines) || [], sel: this.sel, busy: this.busy, replay,
      chosen: replay ? null : v.choice, fresh: replay ? new Set() : this.lastTurn.of(shown),
      arriving: this.lastTurn.arriving, best: replay ? (this.analysisBest || []).find((b) => b.seat === shown) : null,
      hints: this.hints, startsWhen: this.#startsWhen(), effect: (lineId) => this.#previewOf(lineId),
      seatName: (p) => this.#seatName(p), colour: (p) => this.#colour(p),
    };
  }

  /** What starts the waiting game: a party table's host (the game page's `host.party`), else
   *  the last open seat taken. */
  #startsWhen() {
    return this.host.party ? t("metrox.starts_when_host") : t("metrox.starts_when_full");
  }

  #render() {
    if (!this.view) return;
    if (!this.index) {
      this.panel.waitingFor(this.view.status === "waiting" ? this.#startsWhen() : "");
      return;
    }
    const state = this.#state();
    this.board.paint(state);
    this.panel.render(state);
  }

  // ---- input -----------------------------------------------------------------------------------

  /** Select a move (a second click on the selected one sends it; `send` sends at once). */
  #select(move, send = false) {
    if (!this.#canChoose() || !move) return;
    if (this.sheetSeat !== null && this.sheetSeat !== this.#seat) this.sheetSeat = null;
    if (!this.#isLegal(move)) {
      this.host.notify(t("metrox.not_possible", { move: moveWords(this.index, move) }), "error");
      return;
    }
    const again = sameMove(this.sel, move) && !sameMove(move, this.view.choice);
    this.sel = move;
    this.#render();
    this.board.showMove(move);
    if (send || again) this.#confirm();
  }

  async #confirm() {
    const move = this.sel;
    if (!move || this.busy || !this.#canChoose()) return;
    if (sameMove(move, this.view.choice)) return;
    this.busy = true;
    this.#render();
    try {
      await this.host.send(move);
    } catch {
      /* the shell shows the error; the view it refreshes says what stands */
    } finally {
      this.busy = false;
      if (this.view) this.#render();
    }
  }
}
