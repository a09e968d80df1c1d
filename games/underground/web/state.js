// On the Underground page's state (chessground keeps its own in state.ts): the view and the legal
// moves the shell gave, the map's index and the rails' lanes, the chosen line and station, the
// rail waiting for its confirmation, the hints, a replay position, and what follows from them (the
// phase, the viewer's lines, the candidate rails and their points, the scene on the map). Every
// number it shows is the server's (issue 31.2): a candidate's points are its legal move's
// `preview`, each rail's gains the view's `rail_gains`, each seat's parts its `score_from`.
// page.js changes it; board.js and panel.js read it through `now()`.

import { recentRails } from "./log.js";
import { Lanes, secKey, seatLines } from "./lines.js";

export class PlayState {
  constructor(host) {
    this.host = host;
    this.view = null;
    this.legal = [];
    this.index = null;
    this.analysis = null;
    this.sel = { colour: null, from: null };
    this.hints = [];
    this.busyAt = null; // the version a move in flight was made from (null: none)
    this.replayScene = null; // a replay position shown instead of the live view
    this.lastSent = null; // the rail just sent: where the next one may continue
    this.arrive = new Set(); // rails to fade in ("colour|a|b")
    this.proposed = null; // a rail waiting for its confirmation
  }

  /** A station's name (its id before the map came). */
  n(id) {
    return this.index ? this.index.name(id) : id;
  }

  /** What the view says about its rails and scores, read once per view: each rail's lane, each
   *  rail's gains (`rail_gains`) and each seat's score by source (`score_from`). */
  analyse() {
    if (!this.index || !this.view) return;
    const v = this.view;
    this.analysis = {
      lanes: new Lanes(v.rails || []),
      railGains: v.rail_gains || [],
      breakdown: (v.seats || []).map((s, i) => ({ seat: i, ...(s.score_from || {}), total: s.score })),
    };
  }

  /** A move made from the view shown is on its way. A newer view that the stream brings before
   *  the move's answer (the player's turn again) takes moves at once: a click is never dropped. */
  get busy() {
    return Number.isInteger(this.busyAt) && this.busyAt === this.view?.version;
  }

  get mySeat() {
    const s = this.host.seat;
    return s === null || s === undefined ? null : s;
  }

  get phase() {
    const v = this.view;
    if (this.replayScene) return "replay";
    if (!v || !this.index) return "loading";
    if (v.status === "over") return "over";
    if (v.status !== "playing") return "waiting";
    const me = this.mySeat;
    if (me === null || !(v.to_move || []).includes(me) || !this.legal.length) return "watch";
    return v.turn?.step === "route" ? "route" : "build";
  }

  get legalRails() {
    return this.legal.filter((m) => m.step === "rail");
  }

  get myColours() {
    const v = this.view;
    const me = this.mySeat;
    return me !== null && v?.seats?.[me]?.colours ? v.seats[me].colours : [];
  }

  /** Seats at this table. */
  get players() {
    return this.view?.rules?.players || this.view?.seats?.length || 2;
  }

  /** Each seat's line colours, as the view gives them. */
  get lines() {
    return seatLines(this.view, this.players);
  }

  /** The legal rail of `colour` on section a-b, if any. */
  legalRail(colour, a, b) {
    return this.legalRails.find((x) => x.colour === colour && secKey(x.a, x.b) === secKey(a, b));
  }

  /** Is `r` the rail waiting for its confirmation? */
  isProposed(r) {
    return !!this.proposed && this.proposed.colour === r.colour && secKey(this.proposed.a, this.proposed.b) === secKey(r.a, r.b);
  }

  /** After a view change: keep the colour; continue from where the last rail ended if it can. */
  keepSelection() {
    const rails = this.legalRails;
    if (this.phase !== "build") {
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
      this.sel.colour = this.myColours.find((c) => rails.some((r) => r.colour === c)) || null;
      this.sel.from = null;
    }
  }

  /** The candidate rails to draw: of the chosen colour, from the chosen station if any. */
  candidates() {
    if (this.phase !== "build" || this.busy) return [];
    const { colour, from } = this.sel;
    if (!colour) return [];
    // A line with no rail yet could start anywhere: draw its rails once a station is chosen.
    if (!from && !(this.analysis?.lanes.railCount(colour) > 0)) return [];
    return this.legalRails.filter((r) => r.colour === colour && (!from || r.a === from || r.b === from));
  }

  /** What rail r would score and change if laid now: its legal move's preview (the server's). */
  preview(r) {
    return this.legalRail(r.colour, r.a, r.b)?.preview?.gained || [];
  }

  /** What the map shows now: the live view, or a replay position. */
  scene() {
    if (this.replayScene) return this.replayScene;
    const v = this.view;
    return {
      rails: v.rails || [],
      passenger: v.passenger,
      faceUp: v.face_up || [],
      pile: v.pile_count,
      connections: v.connections || {},
      lanes: this.analysis?.lanes || new Lanes(v.rails || []),
    };
  }

  /** What the board and the boxes draw from, and read when a press comes: a snapshot, with the
   *  costlier parts (the candidates, the scene, the recent rails) worked out only when read. */
  now() {
    const s = this;
    return {
      view: this.view, index: this.index, legal: this.legal, phase: this.phase, busy: this.busy,
      sel: this.sel, proposed: this.proposed, hints: this.hints, arrive: this.arrive,
      replaying: !!this.replayScene, replayScene: this.replayScene, players: this.players,
      mySeat: this.mySeat, myColours: this.myColours, legalRails: this.legalRails,
      analysis: this.analysis, lanes: this.analysis?.lanes, railGains: this.analysis?.railGains || [],
      lines: this.lines,
      preview: (r) => this.preview(r),
      isProposed: (r) => this.isProposed(r),
      get candidates() { return s.candidates(); },
      get scene() { return s.scene(); },
      get recent() { return recentRails(s.view, s.mySeat); },
    };
  }
}
