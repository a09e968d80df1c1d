// On the Underground's page module (RULES-UNDERGROUND.md), the glue of its parts, chessground's
// way (issue 31.3): the board (board.js: London drawn as an Underground diagram, draw.js, taking
// taps, keys and names), the side boxes (panel.js: building a turn rail by rail with what each
// candidate rail scores, the passenger's way among ties, the AI's hints, every seat's score
// breakdown) and the move log (log.js). This file holds the state (the view, the legal moves, the
// chosen line and station, the rail waiting for its confirmation), sends the moves, and answers
// the shell: update, showHints, moveWords and the replay of a finished game. The shell owns the
// status line, scores, join, hint button and replay buttons.

import { confirmMoves, confirmToggle, ensureStylesheet, html } from "/kit.js";
import { t } from "/i18n.js";
import { Board, loadMap } from "./board.js";
import { GameLog, recentRails } from "./log.js";
import { COLOURS, MapIndex, Network, analyse, gainWords, replayPositions, secKey } from "./network.js";
import { Panel } from "./panel.js";
import { cw, legWords, plainMove, railMove, seatName } from "./words.js";

export function mount(parts, host) {
  return new UndergroundPage(parts, host);
}

class UndergroundPage {
  constructor(parts, host) {
    ensureStylesheet(new URL("./page.css", import.meta.url).href);
    this.host = host;
    this.view = null;
    this.legal = [];
    this.index = null;
    this.analysis = null;
    this.sel = { colour: null, from: null };
    this.hints = [];
    this.busy = false;
    this.replayScene = null; // a replay position shown instead of the live view
    this.lastSent = null;
    this.arrive = new Set(); // rails to fade in ("colour|a|b")
    this.proposed = null; // a rail waiting for its confirmation
    this.confirm = confirmMoves();
    this.board = new Board(parts.board, {
      now: () => this.#now(),
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
      this.proposed = null;
      this.#render();
    });
    box.id = "confirm-moves";
    html("p", { id: "ug-map-keys", className: "visually-hidden" }, after, t("underground.keys"));

    this.onKey = (ev) => {
      if (ev.key === "Escape" && (this.sel.from || this.sel.colour || this.proposed)) {
        if (this.proposed) this.proposed = null;
        else this.sel.from = null;
        this.#render();
      }
    };
    document.addEventListener("keydown", this.onKey);

    loadMap().then(
      (map) => {
        if (this.board.detached) return;
        this.index = new MapIndex(map);
        this.board.build(this.index);
        if (this.view) {
          this.#analyse();
          this.#keepSelection(); // a view that came before the map: its line is chosen now
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
    const changed = !this.view || this.view.version !== view.version;
    const before = this.view;
    this.view = view;
    this.legal = Array.isArray(legal) ? legal : [];
    if (changed) {
      this.#analyse();
      this.#keepSelection();
      this.proposed = null;
      if (this.index && this.analysis) {
        const ctx = { history: this.host.events, me: this.#mySeat, gains: this.analysis.railGains || [], index: this.index, arrive: this.arrive };
        this.log.follow(before, view, ctx);
      }
    }
    this.#render();
    if (changed) this.board.showChoice();
    // the game's end: the whole map, every line in sight
    if (view.status === "over" && before && before.status !== "over") this.board.fitAll();
    this.arrive = new Set();
  }

  showHints(suggestions) {
    this.hints = Array.isArray(suggestions) ? suggestions : [];
    this.#render();
  }

  /** A move object in words (the post-game analysis says moves with it): the rail laid, the
   * end of building, or the passenger's ride; stations by their names, never their ids. */
  moveWords(move) {
    if (!this.index) return "";
    if (move?.step === "rail") return t("underground.laid", { rails: this.#railWords(move) });
    if (move?.step === "stop") return t("underground.end_building");
    if (move?.step === "route") return legWords(move.to, move.lines, "underground.leg_by", "underground.leg_on_foot", (id) => this.#n(id));
    return "";
  }

  replay(record, view) {
    const positions = this.index ? replayPositions(this.index, record) : null;
    const names = (i) => record.seats?.[i]?.name || seatName(view, i);
    const length = (record.moves || []).length;
    const all = () => positions || (this.index ? replayPositions(this.index, record) : null);
    return {
      length,
      moveWords: (move) => this.moveWords(move),
      describe: (i) => {
        if (i <= 0) return t("underground.replay_start", { station: this.index?.name(this.index.map.start) || "Euston" });
        const m = record.moves[i - 1];
        const rails = (m.rails || []).map((r) => this.#railWords(r)).join(", ");
        const n = (id) => this.#n(id);
        const route = (m.route || []).map((l) => legWords(l.to, l.lines, "underground.leg_by", "underground.leg_on_foot", n)).join(t("underground.then"));
        const built = rails ? t("underground.laid", { rails }) : t("underground.laid_none");
        return t(route ? "underground.replay_turn_route" : "underground.replay_turn", { turn: i, name: names(m.seat), built, route });
      },
      show: (i) => {
        const every = all();
        if (!every) return;
        if (i >= length) {
          this.replayScene = null;
        } else {
          const p = every[Math.max(0, i)];
          const net = new Network(this.index, record.connections);
          for (const r of p.rails) net.lay(r.colour, r.a, r.b);
          this.replayScene = { ...p, net, connections: record.connections, index: i, length, names };
        }
        this.#render();
      },
      // Every seat's points after move i, so the shell's score table follows the replay.
      scores: (i) => {
        const every = all();
        return every ? every[Math.max(0, Math.min(length, i))]?.scores ?? null : null;
      },
    };
  }

  unmount() {
    document.removeEventListener("keydown", this.onKey);
    this.board.destroy();
    this.panel.remove();
  }

  // ---- state ---------------------------------------------------------------------------------

  #n(id) {
    return this.index ? this.index.name(id) : id;
  }

  /** "red Euston–Angel". */
  #railWords(r) {
    return `${cw(r.colour)} ${this.#n(r.a)}–${this.#n(r.b)}`;
  }

  #analyse() {
    if (!this.index || !this.view) return;
    this.analysis = analyse(this.index, this.view);
  }

  get #mySeat() {
    const s = this.host.seat;
    return s === null || s === undefined ? null : s;
  }

  get #phase() {
    const v = this.view;
    if (this.replayScene) return "replay";
    if (!v || !this.index) return "loading";
    if (v.status === "over") return "over";
    if (v.status !== "playing") return "waiting";
    const me = this.#mySeat;
    if (me === null || !(v.to_move || []).includes(me) || !this.legal.length) return "watch";
    return v.turn?.step === "route" ? "route" : "build";
  }

  get #legalRails() {
    return this.legal.filter((m) => m.step === "rail");
  }

  get #myColours() {
    const v = this.view;
    const me = this.#mySeat;
    return me !== null && v?.seats?.[me]?.colours ? v.seats[me].colours : [];
  }

  /** Seats at this table (the line colours each holds follow from it, §2). */
  get #players() {
    return this.view?.rules?.players || this.view?.seats?.length || 2;
  }

  /** What the board and the boxes draw from, and read when a press comes. The costlier parts
   *  (the candidates, the scene, the recent rails) are worked out only when read. */
  #now() {
    const page = this;
    return {
      view: this.view, index: this.index, legal: this.legal, phase: this.#phase, busy: this.busy,
      sel: this.sel, proposed: this.proposed, hints: this.hints, arrive: this.arrive,
      replaying: !!this.replayScene, replayScene: this.replayScene, players: this.#players,
      mySeat: this.#mySeat, myColours: this.#myColours, legalRails: this.#legalRails,
      analysis: this.analysis, net: this.analysis?.net, railGains: this.analysis?.railGains || [],
      preview: (r) => this.#preview(r),
      get candidates() { return page.#candidates(); },
      get scene() { return page.#scene(); },
      get recent() { return recentRails(page.view, page.#mySeat); },
    };
  }

  /** After a view change: keep the colour; continue from where the last rail ended if it can. */
  #keepSelection() {
    const rails = this.#legalRails;
    if (this.#phase !== "build") {
      this.sel = { colour: this.sel.colour, from: null };
      return;
    }
    const { colour } = this.sel;
    const touches = (c, s) => rails.some((r) => r.colour === c && (r.a === s || r.b === s));
    if (this.lastSent && this.lastSent.colour === colour) {
      const next = this.lastSent.to;
      this.sel.from = touches(colour, next) ? next : null;
    } else if (this.sel.from && !touches(colour, this.sel.from)) {
      this.sel.from = null;
    }
    this.lastSent = null;
    if (!colour || !rails.some((r) => r.colour === colour)) {
      this.sel.colour = this.#myColours.find((c) => rails.some((r) => r.colour === c)) || null;
      this.sel.from = null;
    }
  }

  /** The candidate rails to draw: of the chosen colour, from the chosen station if any. */
  #candidates() {
    if (this.#phase !== "build" || this.busy) return [];
    const { colour, from } = this.sel;
    if (!colour) return [];
    // A line with no rail yet could start anywhere: draw its rails once a station is chosen.
    if (!from && !(this.analysis?.net.railCount(colour) > 0)) return [];
    return this.#legalRails.filter((r) => r.colour === colour && (!from || r.a === from || r.b === from));
  }

  #preview(r) {
    if (!this.analysis) return [];
    return this.analysis.net.preview(r.colour, r.a, r.b);
  }

  /** What the map shows now: the live view, or a replay position. */
  #scene() {
    if (this.replayScene) return this.replayScene;
    const v = this.view;
    return {
      rails: v.rails || [],
      passenger: v.passenger,
      faceUp: v.face_up || [],
      pile: v.pile_count,
      connections: v.connections || {},
      net: this.analysis?.net || new Network(this.index, v.connections),
    };
  }

  // ---- input and sending ---------------------------------------------------------------------

  /** The legal rail of `colour` on section a-b, if any. */
  #legalRail(colour, a, b) {
    return this.#legalRails.find((x) => x.colour === colour && secKey(x.a, x.b) === secKey(a, b));
  }

  /** What a press in the side boxes does (panel.js). */
  #actions() {
    return {
      colour: (colour) => {
        this.sel = { colour, from: null };
        this.#render();
      },
      target: (colour, a, b) => {
        const r = this.#legalRail(colour, a, b);
        if (r) this.#layRail(r);
      },
      clear: () => {
        this.sel.from = null;
        this.proposed = null;
        this.#render();
      },
      confirm: () => this.proposed && this.#layRail(this.proposed, { now: true }),
      cancel: () => {
        this.proposed = null;
        this.#render();
      },
      stop: () => {
        this.sel.from = null;
        this.#send({ step: "stop" });
      },
      way: (to, lines) => {
        const m = this.legal.find((x) => x.step === "route" && x.to === to && (x.lines || []).join("+") === lines);
        if (m) this.#send({ step: "route", to: m.to, lines: [...(m.lines || [])] });
      },
      hint: (rank) => {
        const move = plainMove(this.hints[rank]);
        if (move?.step === "rail") {
          const r = this.#legalRail(move.colour, move.a, move.b);
          if (r) this.#layRail(r);
        } else if (move) this.#send(move);
      },
      hover: (way) => this.board.hover(way),
    };
  }

  async #send(move, note = null) {
    if (this.busy) return false;
    this.busy = true;
    this.#render();
    let ok = false;
    try {
      ok = await this.host.send(move);
    } finally {
      this.busy = false;
    }
    if (ok && note) this.host.notify(note, "ok");
    this.#render();
    return ok;
  }

  /** Lay rail r; with "Confirm moves", a first choice only shows it with its points. */
  async #layRail(r, { now = false } = {}) {
    if (this.confirm && !now) {
      const same = this.proposed && this.proposed.colour === r.colour && secKey(this.proposed.a, this.proposed.b) === secKey(r.a, r.b);
      if (!same) {
        this.proposed = r;
        this.#render();
        const to = this.sel.from && r.a === this.sel.from ? r.b : r.a;
        this.log.announce(t("underground.preview_again", { colour: cw(r.colour), from: this.#n(this.sel.from || r.a), to: this.#n(to === this.sel.from ? r.b : to), gains: gainWords(this.#preview(r), this.index) }));
        return;
      }
    }
    this.proposed = null;
    const from = this.sel.from && (r.a === this.sel.from || r.b === this.sel.from) ? this.sel.from : r.a;
    const to = from === r.a ? r.b : r.a;
    const gains = this.#preview(r);
    this.lastSent = { colour: r.colour, to };
    // The line's colour in words of the page's language (the English id showed in hu/fr/es).
    const ok = await this.#send(railMove(r), `${cw(r.colour)} ${this.#n(from)}–${this.#n(to)}: ${gainWords(gains, this.index)}`);
    if (!ok) this.lastSent = null;
  }

  /** A station chosen on the map (a tap, the cursor, the finder). */
  #onStation(id) {
    if (this.#phase !== "build" || this.busy) return;
    const rails = this.#legalRails;
    const { colour, from } = this.sel;
    if (from && from !== id) {
      const r = rails.find((x) => x.colour === colour && ((x.a === from && x.b === id) || (x.b === from && x.a === id)));
      if (r) {
        this.#layRail(r);
        return;
      }
    }
    if (from === id) {
      this.sel.from = null;
      this.#render();
      return;
    }
    const colours = this.#myColours.filter((c) => rails.some((r) => r.colour === c && (r.a === id || r.b === id)));
    if (!colours.length) {
      this.host.notify(t("underground.no_rail_from", { station: this.#n(id) }), "info");
      return;
    }
    this.sel.colour = colours.includes(colour) ? colour : colours[0];
    this.sel.from = id;
    this.host.notify("", "info");
    this.#render();
    this.board.showChoice();
  }

  #render() {
    if (this.view && this.index && !this.analysis) this.#analyse();
    this.board.draw();
    this.settings.hidden = this.#mySeat === null || this.view?.status === "over";
    this.panel.render(this.#now());
  }
}

export { COLOURS };
