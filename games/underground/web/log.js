// On the Underground's move log: every rail and passenger ride of the game in order, in words, with
// its seat and the points each rail scored, from the game's events (the shell's host.events, which
// also say who laid each rail, the player or the AI for them, and when seats timed out or came
// back), or from the view's own list of turns until the events have come; the others' moves are
// spoken and faded in, and the rails laid since the viewer's last turn are marked.

import { MoveLog, aiForPerson, moverWords, seatGlyph, tableEntries } from "/kit.js";
import { t } from "/i18n.js";
import { cw, gainWords, legWords, seatName } from "./words.js";

/** The rails laid by others since seat `me`'s last turn ("colour|a|b"): from the view's own list
 *  of turns, so a reload shows the same. */
export function recentRails(v, me) {
  const out = new Set();
  if (!v) return out;
  const moves = v.moves || [];
  let last = Math.max(-1, moves.length - 2); // a spectator: the last turn
  if (me !== null) {
    last = -1;
    for (let k = 0; k < moves.length; k++) if (moves[k].seat === me) last = k;
  }
  for (let k = last + 1; k < moves.length; k++) {
    if (moves[k].seat === me) continue;
    for (const r of moves[k].rails || []) out.add(`${r.colour}|${r.a}|${r.b}`);
  }
  if (v.status === "playing" && v.turn && v.turn.seat !== me) for (const r of v.turn.rails || []) out.add(`${r.colour}|${r.a}|${r.b}`);
  return out;
}

export class GameLog {
  constructor(parent) {
    this.log = new MoveLog(parent);
    this.logged = null; // how many of the view's events the log has
    this.source = null; // "events" or "view": where the entries came from
  }

  announce(text) {
    this.log.announce(text);
  }

  /**
   * New entries between two views: logged, spoken (others' moves, whose turn), and the others'
   * new rails added to `ctx.arrive` (to fade in). ctx: { history (the shell's events, or null),
   * me (the viewer's seat), gains (each rail's gains, in order), index }.
   */
  follow(before, view, ctx) {
    const events = ctx.history ? this.#events(view, ctx) : this.#viewEvents(view, ctx);
    const { me } = ctx;
    // The first look, or the game's events just came in place of the view's turns: no news.
    const source = ctx.history ? "events" : "view";
    const restart = source !== this.source;
    this.source = source;
    if (!before || restart || this.logged === null || this.logged > events.length) {
      this.log.set(events);
    } else if (events.length > this.logged) {
      const fresh = events.slice(this.logged);
      this.log.set(events);
      for (const e of fresh) if (e.rail && e.seat !== me) ctx.arrive.add(e.rail);
      const theirs = fresh.filter((e) => e.seat !== me).map((e) => e.text);
      const turn = view.status === "over" ? t("underground.over") : (view.to_move || []).includes(me) ? t("underground.your_turn") : "";
      if (theirs.length || turn) this.log.announce([...theirs, turn].filter(Boolean).join(" "));
    }
    this.logged = events.length;
    const recent = recentRails(view, me);
    this.log.markRecent((e) => (e.rail ? recent.has(e.rail) : false) && e.seat !== me);
  }

  /** A rail laid by `who` for `seat`, with the gains it scored. */
  #railEntry(seat, who, r, gains, index) {
    const n = (id) => index.name(id);
    return { seat, glyph: seatGlyph(seat), rail: `${r.colour}|${r.a}|${r.b}`,
      text: t("underground.log_laid", { name: who, colour: cw(r.colour), a: n(r.a), b: n(r.b), gains: gainWords(gains || [], index) }) };
  }

  /** The passenger's ride on `leg`, at the end of `seat`'s turn. */
  #legEntry(seat, leg, index) {
    return { seat, glyph: seatGlyph(seat),
      text: legWords(leg.to, leg.lines, "underground.log_passenger", "underground.log_passenger_walked", (id) => index.name(id)) };
  }

  /** From the game's events. */
  #events(view, { history, me, gains, index }) {
    const out = [];
    let k = 0;
    let laidThisTurn = 0;
    for (const event of history) {
      const seat = event.seat;
      if (!["rail", "stop", "route", "turn"].includes(event.action)) {
        out.push(...tableEntries(event, me, (p) => seatName(view, p)));
        continue;
      }
      const byAi = aiForPerson(event, view.seats);
      const by = event.by || undefined;
      const who = moverWords(seat === me ? t("underground.you") : seatName(view, seat), { byAi, mine: seat === me });
      for (const r of event.rails || []) {
        const entry = this.#railEntry(seat, who, r, gains[k], index);
        out.push({ seat, by, glyph: entry.glyph, rail: entry.rail, text: entry.text });
        k++;
        laidThisTurn++;
      }
      const ends = event.turn_complete === true || event.action === "turn";
      if (ends && !laidThisTurn) out.push({ seat, by, glyph: seatGlyph(seat), text: t("underground.log_no_rail", { name: who }) });
      if (ends) laidThisTurn = 0;
      for (const leg of event.route || []) out.push(this.#legEntry(seat, leg, index));
    }
    return out;
  }

  /** From the view's own list of turns (before the game's events have come). */
  #viewEvents(view, { me, gains, index }) {
    const out = [];
    let k = 0;
    const rails = (seat, list) => {
      for (const r of list || []) {
        const who = seat === me ? t("underground.you") : seatName(view, seat);
        out.push(this.#railEntry(seat, who, r, gains[k], index));
        k++;
      }
    };
    for (const m of view.moves || []) {
      if (m.action === "retire") continue; // a seat out of the game: the table's events say so
      rails(m.seat, m.rails);
      if (!(m.rails || []).length) out.push({ seat: m.seat, glyph: seatGlyph(m.seat), text: t("underground.log_no_rail", { name: m.seat === me ? t("underground.you") : seatName(view, m.seat) }) });
      for (const leg of m.route || []) out.push(this.#legEntry(m.seat, leg, index));
    }
    if (view.status === "playing" && view.turn) rails(view.turn.seat, view.turn.rails);
    return out;
  }
}
