// On the Underground's page module (RULES-UNDERGROUND.md), the glue of its parts, chessground's
// way (issue 31.3): the board (board.js: London drawn as an Underground diagram, draw.js, taking
// taps, keys and names), the side boxes (panel.js: building a turn rail by rail with what each
// candidate rail scores, the passenger's way among ties, the AI's hints, every seat's score
// breakdown) and the move log (log.js), over the page's state (state.js). This file turns their
// presses into changes of the state and moves sent, and answers the shell: update, showHints,
// moveWords and the replay of a finished game (its positions the server's, GET /positions). The
// shell owns the status line, scores, join, hint button and replay buttons.

import { confirmMoves, confirmToggle, ensureStylesheet, html } from "/kit.js";
import { t } from "/i18n.js";
import { Board, loadMap } from "./board.js";
import { GameLog } from "./log.js";
import { Lanes, MapIndex } from "./lines.js";
import { Panel } from "./panel.js";
import { PlayState } from "./state.js";
import { cw, gainWords, legWords, plainMove, railMove, seatName } from "./words.js";

export function mount(parts, host) {
  return new UndergroundPage(parts, host);
}

class UndergroundPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.host = host;
    const s = new PlayState(host);
    this.s = s;
    this.confirm = confirmMoves();
    this.board = new Board(parts.board, {
      now: () => s.now(),
      pick: (id) => this.#onStation(id),
      lay: (r, opts) => this.#layRail(r, opts),
      announce: (text) => this.log.announce(text),
    });
    this.panel = new Panel(parts.controls, this.#actions());
    // Kept outside the boxes the page redraws: the move log, its live region, the setting.
    const after = html("div", { className: "ug-after" }, parts.controls);
    this.log = new GameLog(after);
    this.settings = html("div", { className: "ug-settings" }, after);
    const box = confirmToggle(this.settings, (on) => {
      this.confirm = on;
      s.proposed = null;
      this.#render();
    });
    box.id = "confirm-moves";
    html("p", { id: "ug-map-keys", className: "visually-hidden" }, after, t("underground.keys"));

    this.onKey = (ev) => {
      if (ev.key === "Escape" && (s.sel.from || s.sel.colour || s.proposed)) {
        if (s.proposed) s.proposed = null;
        else s.sel.from = null;
        this.#render();
      }
    };
    document.addEventListener("keydown", this.onKey);

    loadMap().then(
      (map) => {
        if (this.board.detached) return;
        s.index = new MapIndex(map);
        this.board.build(s.index);
        if (s.view) {
          s.analyse();
          s.keepSelection(); // a view that came before the map: its line is chosen now
        }
        this.#render();
      },
      (err) => {
        this.board.failed(t("underground.map_failed", { reason: err.message }));
        this.host.notify(t("underground.map_failed", { reason: err.message }), "error");
      },
    );
  }

  // ---- the shell's interface -----------------------------------------------------------------

  update(view, legal) {
    const s = this.s;
    const changed = !s.view || s.view.version !== view.version;
    const before = s.view;
    s.view = view;
    s.legal = Array.isArray(legal) ? legal : [];
    if (changed) {
      s.analyse();
      s.keepSelection();
      s.proposed = null;
      if (s.index && s.analysis) {
        this.log.follow(before, view, { history: this.host.events, me: s.mySeat, gains: s.analysis.railGains || [], index: s.index, arrive: s.arrive });
      }
    }
    this.#render();
    if (changed) this.board.showChoice();
    // the game's end: the whole map, every line in sight
    if (view.status === "over" && before && before.status !== "over") this.board.fitAll();
    s.arrive = new Set();
  }

  showHints(suggestions) {
    this.s.hints = Array.isArray(suggestions) ? suggestions : [];
    this.#render();
  }

  /** A move object in words (the post-game analysis says moves with it): the rail laid, the
   * end of building, or the passenger's ride; stations by their names, never their ids. */
  moveWords(move) {
    if (!this.s.index) return "";
    if (move?.step === "rail") return t("underground.laid", { rails: this.#railWords(move) });
    if (move?.step === "stop") return t("underground.end_building");
    if (move?.step === "route") return this.#leg(move, "underground.leg_by", "underground.leg_on_foot");
    return "";
  }

  /** The replay of a finished game: `shown`, its positions as the rules core worked them out
   *  (GET /api/games/{id}/positions: every rail laid with its gains, and per position how many
   *  of them are down, the passenger, the cards and the scores). None without them. */
  replay(record, view, shown) {
    const s = this.s;
    const positions = Array.isArray(shown?.positions) ? shown.positions : null;
    if (!positions) return null;
    const rails = shown.rails || [];
    const names = (i) => record.seats?.[i]?.name || seatName(view, i);
    const length = positions.length - 1;
    return {
      length,
      moveWords: (move) => this.moveWords(move),
      describe: (i) => {
        if (i <= 0) return t("underground.replay_start", { station: s.index?.name(s.index.map.start) || "Euston" });
        const m = record.moves[i - 1];
        const rails = (m.rails || []).map((r) => this.#railWords(r)).join(", ");
        const route = (m.route || []).map((l) => this.#leg(l, "underground.leg_by", "underground.leg_on_foot")).join(t("underground.then"));
        const built = rails ? t("underground.laid", { rails }) : t("underground.laid_none");
        return t(route ? "underground.replay_turn_route" : "underground.replay_turn", { turn: i, name: names(m.seat), built, route });
      },
      show: (i) => {
        if (i >= length) {
          s.replayScene = null;
        } else {
          const p = positions[Math.max(0, i)];
          const down = rails.slice(0, p.rails);
          s.replayScene = {
            rails: down, lanes: new Lanes(down), passenger: p.passenger, faceUp: p.face_up || [], pile: p.pile_count,
            scores: p.scores, connections: record.connections, index: i, length, names,
          };
        }
        this.#render();
      },
      // Every seat's points after move i, so the shell's score table follows the replay.
      scores: (i) => positions[Math.max(0, Math.min(length, i))]?.scores ?? null,
    };
  }

  unmount() {
    document.removeEventListener("keydown", this.onKey);
    this.board.destroy();
    this.panel.remove();
  }

  /** "red Euston–Angel". */
  #railWords(r) {
    return `${cw(r.colour)} ${this.s.n(r.a)}–${this.s.n(r.b)}`;
  }

  /** The passenger's ride on `leg` ({to, lines}), with the given two word keys. */
  #leg(leg, byKey, footKey) {
    return legWords(leg.to, leg.lines, byKey, footKey, (id) => this.s.n(id));
  }

  // ---- input and sending ---------------------------------------------------------------------

  /** What a press in the side boxes does (panel.js). */
  #actions() {
    const s = this.s;
    return {
      colour: (colour) => {
        s.sel = { colour, from: null };
        this.#render();
      },
      target: (colour, a, b) => {
        const r = s.legalRail(colour, a, b);
        if (r) this.#layRail(r);
      },
      clear: () => {
        s.sel.from = null;
        s.proposed = null;
        this.#render();
      },
      confirm: () => s.proposed && this.#layRail(s.proposed, { now: true }),
      cancel: () => {
        s.proposed = null;
        this.#render();
      },
      stop: () => {
        s.sel.from = null;
        this.#send({ step: "stop" });
      },
      way: (to, lines) => {
        const m = s.legal.find((x) => x.step === "route" && x.to === to && (x.lines || []).join("+") === lines);
        if (m) this.#send({ step: "route", to: m.to, lines: [...(m.lines || [])] });
      },
      hint: (rank) => {
        const move = plainMove(s.hints[rank]);
        if (move?.step === "rail") {
          const r = s.legalRail(move.colour, move.a, move.b);
          if (r) this.#layRail(r);
        } else if (move) this.#send(move);
      },
      hover: (way) => this.board.hover(way),
    };
  }

  async #send(move, note = null) {
    const s = this.s;
    if (s.busy) return false;
    const at = s.view?.version;
    s.busyAt = at;
    this.#render();
    let ok = false;
    try {
      ok = await this.host.send(move);
    } finally {
      if (s.busyAt === at) s.busyAt = null;
    }
    if (ok && note) this.host.notify(note, "ok");
    this.#render();
    return ok;
  }

  /** Lay rail r; with "Confirm moves", a first choice only shows it with its points. */
  async #layRail(r, { now = false } = {}) {
    const s = this.s;
    const n = (id) => s.n(id);
    if (this.confirm && !now && !s.isProposed(r)) {
      s.proposed = r;
      this.#render();
      const to = s.sel.from && r.a === s.sel.from ? r.b : r.a;
      this.log.announce(t("underground.preview_again", { colour: cw(r.colour), from: n(s.sel.from || r.a), to: n(to === s.sel.from ? r.b : to), gains: gainWords(s.preview(r), s.index) }));
      return;
    }
    s.proposed = null;
    const from = s.sel.from && (r.a === s.sel.from || r.b === s.sel.from) ? s.sel.from : r.a;
    const to = from === r.a ? r.b : r.a;
    const gains = s.preview(r);
    s.lastSent = { colour: r.colour, to };
    // The line's colour in words of the page's language (the English id showed in hu/fr/es).
    const ok = await this.#send(railMove(r), `${cw(r.colour)} ${n(from)}–${n(to)}: ${gainWords(gains, s.index)}`);
    if (!ok) s.lastSent = null;
  }

  /** A station chosen on the map (a tap, the cursor, the finder). */
  #onStation(id) {
    const s = this.s;
    if (s.phase !== "build" || s.busy) return;
    const rails = s.legalRails;
    const { colour, from } = s.sel;
    if (from && from !== id) {
      const r = rails.find((x) => x.colour === colour && ((x.a === from && x.b === id) || (x.b === from && x.a === id)));
      if (r) {
        this.#layRail(r);
        return;
      }
    }
    if (from === id) {
      s.sel.from = null;
      this.#render();
      return;
    }
    const colours = s.myColours.filter((c) => rails.some((r) => r.colour === c && (r.a === id || r.b === id)));
    if (!colours.length) {
      this.host.notify(t("underground.no_rail_from", { station: s.n(id) }), "info");
      return;
    }
    s.sel.colour = colours.includes(colour) ? colour : colours[0];
    s.sel.from = id;
    this.host.notify("", "info");
    this.#render();
    this.board.showChoice();
  }

  #render() {
    const s = this.s;
    if (s.view && s.index && !s.analysis) s.analyse();
    this.board.draw();
    this.settings.hidden = s.mySeat === null || s.view?.status === "over";
    this.panel.render(s.now());
  }
}

