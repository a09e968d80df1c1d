// On the Underground's side boxes (issue 31.3, chessground's split): beside the map, drawn from the
// page's state: building a turn (the viewer's lines, where the chosen one may go with what each
// rail scores, the confirmation, this turn's rails, ending the building), the passenger's ways
// among ties, another seat's turn, the AI's hints, the destinations, every seat's lines and the
// score breakdown, and the replay's note. A press goes back to the page as an action (`act`).

import { html, seatGlyph, signedValue, svg } from "/kit.js";
import { t } from "/i18n.js";
import { lineDash, lineHex, ownerOf } from "./lines.js";
import { cw, gainWords, legWords, plainMove, pointsOf, seatName } from "./words.js";

const DARK_LINES = new Set(["blue", "purple", "black", "green", "brown"]);

/** A small line-colour swatch as SVG (colours go in attributes, never in style attributes),
 *  crossed by its line's dash pattern (`dash`, none when solid) as the map draws it. */
function swatch(colour, parent, size = 14, dash = "") {
  const root = svg("svg", { class: "ug-swatch", viewBox: "0 0 14 14", width: size, height: size, "aria-hidden": "true" }, parent);
  svg("rect", { x: 1, y: 1, width: 12, height: 12, rx: 3, fill: lineHex(colour), stroke: "#1c1c1c", "stroke-width": 1 }, root);
  if (dash) {
    const ink = DARK_LINES.has(colour) ? "#ffffff" : "#1c1c1c";
    const small = dash.split(" ").map((n) => (Number(n) / 2).toString()).join(" ");
    svg("line", { x1: 2.5, y1: 7, x2: 11.5, y2: 7, stroke: ink, "stroke-width": 2, "stroke-dasharray": small, class: "ug-swatch-dash" }, root);
  }
  return root;
}

function destIcon(kind, parent) {
  const root = svg("svg", { class: "ug-dest-icon", viewBox: "0 0 14 14", width: 14, height: 14, "aria-hidden": "true" }, parent);
  svg("circle", { cx: 7, cy: 7, r: 5.5, fill: kind === "express" ? "#f2b705" : "#fff", stroke: "#1c1c1c", "stroke-width": 1.4 }, root);
  return root;
}

function section(parent, cls, title) {
  const s = html("section", { className: `ug-box ${cls}` }, parent);
  if (title) html("h3", {}, s, title);
  return s;
}

export class Panel {
  /**
   * parent: where the boxes go. act: the page's side, one function per press: colour(c),
   * target(colour, a, b), clear(), confirm(), cancel(), stop(), way(to, lines), hint(rank), and
   * hover(way) with the route choice under the pointer ("to|lines", or null).
   */
  constructor(parent, act) {
    this.el = html("div", { className: "ug-controls", "data-phase": "loading", "data-busy": "false" });
    parent.appendChild(this.el);
    this.el.addEventListener("click", (ev) => {
      const btn = ev.target.closest("button");
      if (!btn || btn.disabled || !this.el.contains(btn)) return;
      const d = btn.dataset;
      if (d.action === "colour") act.colour(d.colour);
      else if (d.action === "target") act.target(d.colour, d.a, d.b);
      else if (d.action === "way") act.way(d.to, d.lines);
      else if (d.action === "hint") act.hint(Number(d.rank));
      else if (["clear", "confirm", "cancel", "stop"].includes(d.action)) act[d.action]();
    });
    const hover = (ev, on) => {
      const btn = ev.target.closest?.("[data-action='way']");
      act.hover(on && btn ? `${btn.dataset.to}|${btn.dataset.lines}` : null);
    };
    this.el.addEventListener("pointerover", (ev) => hover(ev, true));
    this.el.addEventListener("pointerout", (ev) => hover(ev, false));
  }

  remove() {
    this.el.remove();
  }

  /** Every box for the page's state `st` (page.js's `now()`); the focus stays on its button. */
  render(st) {
    const c = this.el;
    const focusKey = c.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    const phase = st.phase;
    c.dataset.phase = phase;
    c.dataset.busy = String(st.busy);
    c.dataset.version = String(st.view?.version ?? "");
    c.dataset.laid = String(st.view?.turn?.rails?.length ?? 0);
    c.replaceChildren();
    if (!st.view || !st.index) return;
    const box = new Boxes(st);
    if (phase === "replay") box.replayNote(c);
    if (phase === "build") box.build(c);
    if (phase === "route") box.route(c);
    if (phase === "watch" || phase === "waiting") box.watch(c);
    if (st.hints.length && !st.replaying) box.hints(c);
    box.destinations(c);
    box.lines(c);
    box.breakdown(c);
    if (focusKey) c.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  }
}

/** The boxes of one state: each method adds one to `parent`. */
class Boxes {
  constructor(st) {
    this.st = st;
    this.n = (id) => st.index.name(id);
    this.gw = (gains) => gainWords(gains, st.index);
  }

  /** A line's swatch with the dash pattern its rails have on the map. */
  swatch(colour, parent, size = 14) {
    return swatch(colour, parent, size, lineDash(this.st.lines, colour));
  }

  build(parent) {
    const { st, n } = this;
    const v = st.view;
    const box = section(parent, "ug-turn", null);
    const laid = v.turn?.rails || [];
    html("h3", {}, box, t("underground.build_title", { count: laid.length }));
    const rails = st.legalRails;
    const row = html("div", { className: "ug-colours", role: "group", "aria-label": t("underground.your_lines") }, box);
    for (const colour of st.myColours) {
      const count = rails.filter((r) => r.colour === colour).length;
      const possible = count ? t("underground.rails_possible", { count }) : t("underground.no_rail_possible");
      const b = html("button", {
        type: "button",
        className: "ug-colour-btn small",
        "data-action": "colour",
        "data-colour": colour,
        "data-key": `colour-${colour}`,
        "aria-pressed": String(st.sel.colour === colour),
        disabled: st.busy || !count,
        title: possible,
        // "red · 184" read out as words, the visible text first (a spoken name contains it)
        "aria-label": `${cw(colour)} · ${count}: ${possible}`,
      });
      this.swatch(colour, b);
      html("span", {}, b, `${cw(colour)} · ${count}`);
      row.appendChild(b);
    }
    const help = html("p", { className: "ug-help" }, box);
    const { colour, from } = st.sel;
    if (!rails.length) help.textContent = t("underground.help_no_more");
    else if (!colour) help.textContent = t("underground.help_pick_line");
    else if (!from) {
      const started = st.lanes?.railCount(colour) > 0;
      help.textContent = started
        ? t("underground.help_extend", { colour: cw(colour) })
        : t("underground.help_first_rail", { colour: cw(colour) });
    } else {
      help.textContent = t("underground.help_from", { station: n(from) });
      this.#targets(box, from);
    }
    if (st.proposed) this.#confirm(box);
    if (laid.length) {
      html("h4", {}, box, t("underground.this_turn"));
      const ol = html("ol", { className: "ug-laid" }, box);
      const gainsAll = st.railGains;
      const offset = gainsAll.length - laid.length;
      laid.forEach((r, k) => {
        const li = html("li", {}, ol);
        this.swatch(r.colour, li);
        html("span", {}, li, `${n(r.a)}–${n(r.b)}: ${this.gw(gainsAll[offset + k] || [])}`);
      });
    }
    const tokens = v.seats[st.mySeat]?.branch_tokens ?? 0;
    html("p", { className: "ug-tokens" }, box, t("underground.branch_tokens", { count: tokens }));
    const canStop = st.legal.some((m) => m.step === "stop");
    html(
      "button",
      { type: "button", className: "primary ug-stop", "data-action": "stop", "data-key": "stop", disabled: st.busy || !canStop },
      box,
      laid.length ? t("underground.end_building") : t("underground.end_building_none"),
    );
  }

  /** Where the chosen line may go from `from`, each with what it scores. */
  #targets(box, from) {
    const { st, n } = this;
    const list = html("ul", { className: "ug-targets" }, box);
    for (const r of st.candidates) {
      const to = r.a === from ? r.b : r.a;
      const gains = st.preview(r);
      const li = html("li", {}, list);
      const b = html("button", {
        type: "button",
        className: "ug-target-btn small",
        "data-action": "target",
        "data-colour": r.colour,
        "data-a": r.a,
        "data-b": r.b,
        "data-key": `target-${r.colour}-${r.a}-${r.b}`,
        "aria-pressed": String(st.isProposed(r)),
        disabled: st.busy,
      }, li);
      this.swatch(r.colour, b);
      html("span", { className: "ug-to" }, b, `→ ${n(to)}`);
      html("span", { className: `ug-pts${pointsOf(gains) ? " some" : ""}`, title: this.gw(gains) }, b, this.gw(gains).split(":")[0]);
      if (gains.some((g) => g.reason === "branch")) html("span", { className: "ug-branch" }, b, t("underground.branch_cost"));
    }
    html("button", { type: "button", className: "ghost-button small", "data-action": "clear", "data-key": "clear" }, box, t("underground.choose_another"));
  }

  /** The rail waiting for its confirmation ("Confirm moves"), with what it scores. */
  #confirm(box) {
    const { st, n } = this;
    const r = st.proposed;
    const from = st.sel.from && (r.a === st.sel.from || r.b === st.sel.from) ? st.sel.from : r.a;
    const to = from === r.a ? r.b : r.a;
    const pend = html("div", { className: "ug-confirm", id: "confirm-box" }, box);
    html("p", { className: "ug-confirm-text", id: "confirm-text" }, pend,
      t("underground.confirm_lay", { colour: cw(r.colour), from: n(from), to: n(to), gains: this.gw(st.preview(r)) }));
    const row = html("div", { className: "ug-confirm-actions" }, pend);
    html("button", { type: "button", className: "primary", id: "confirm-button", "data-action": "confirm", "data-key": "confirm", disabled: st.busy }, row, t("underground.confirm"));
    html("button", { type: "button", className: "ghost-button", "data-action": "cancel", "data-key": "cancel" }, row, t("underground.cancel"));
  }

  route(parent) {
    const { st, n } = this;
    const box = section(parent, "ug-route", t("underground.route_title"));
    html("p", { className: "ug-help" }, box, t("underground.route_help"));
    const list = html("ul", { className: "ug-ways" }, box);
    for (const m of st.legal.filter((x) => x.step === "route")) {
      const li = html("li", {}, list);
      const lines = m.lines || [];
      const b = html("button", {
        type: "button",
        className: "ug-way",
        "data-action": "way",
        "data-to": m.to,
        "data-lines": lines.join("+"),
        "data-key": `way-${m.to}-${lines.join("+")}`,
        disabled: st.busy,
      }, li);
      destIcon(st.index.byId.get(m.to)?.destination, b);
      html("span", { className: "ug-to" }, b, t("underground.way_to", { station: n(m.to) }));
      const by = html("span", { className: "ug-by" }, b);
      if (!lines.length) by.textContent = t("underground.on_foot");
      for (const c of lines) {
        this.swatch(c, by, 12);
        const o = ownerOf(st.lines, c);
        html("span", {}, by, `${cw(c)} (${seatGlyph(o)} ${seatName(st.view, o)})`);
      }
    }
  }

  watch(parent) {
    const v = this.st.view;
    if (v.status !== "playing") return;
    const box = section(parent, "ug-watch", null);
    const seat = v.turn?.seat ?? v.to_move?.[0];
    if (seat !== undefined && seat !== null) {
      const laid = v.turn?.rails || [];
      html("p", {}, box, t("underground.is_building", { name: seatName(v, seat), count: laid.length }));
    }
    const last = (v.moves || [])[v.moves.length - 1];
    if (last) this.#turnSummary(box, last, v.moves.length - 1);
  }

  /** One complete turn in words: its rails with their points, and the passenger's legs. */
  #turnSummary(box, move, k) {
    const { st, n } = this;
    const v = st.view;
    html("h4", {}, box, t("underground.last_turn", { seat: `${seatGlyph(move.seat)} ${seatName(v, move.seat)}` }));
    const ul = html("ul", { className: "ug-laid" }, box);
    // The rails of turn k are at the right offset of the view's rail list.
    let offset = 0;
    for (let i = 0; i < k; i++) offset += (v.moves[i].rails || []).length;
    (move.rails || []).forEach((r, j) => {
      const li = html("li", {}, ul);
      this.swatch(r.colour, li);
      html("span", {}, li, `${n(r.a)}–${n(r.b)}: ${this.gw(st.railGains[offset + j] || [])}`);
    });
    if (!(move.rails || []).length) html("li", {}, ul, t("underground.no_rail_laid"));
    for (const leg of move.route || []) {
      html("li", {}, ul, legWords(leg.to, leg.lines, "underground.passenger_to_by", "underground.passenger_to_walk", n));
    }
  }

  hints(parent) {
    const { st, n } = this;
    const box = section(parent, "ug-hints", t("underground.hints_title"));
    const ol = html("ol", { className: "ug-hint-list" }, box);
    const myTurn = st.phase === "build" || st.phase === "route";
    st.hints.forEach((h, rank) => {
      const m = plainMove(h);
      if (!m) return;
      let words = "";
      if (m.step === "rail") words = `${cw(m.colour)} ${n(m.a)}–${n(m.b)}`;
      else if (m.step === "stop") words = t("underground.end_building");
      else words = legWords(m.to, m.lines, "underground.passenger_to_by", "underground.passenger_to_walk", n);
      const li = html("li", {}, ol);
      const b = html("button", {
        type: "button",
        className: "ug-hint-btn small",
        "data-action": "hint",
        "data-rank": rank,
        "data-key": `hint-${rank}`,
        disabled: st.busy || !myTurn,
      }, li);
      if (m.step === "rail") this.swatch(m.colour, b);
      html("span", {}, b, words);
      const val = signedValue(h.value);
      if (val) html("small", { className: "ug-hint-value" }, b, `${val}${h.visits ? ` · ${h.visits}` : ""}`);
    });
  }

  destinations(parent) {
    const { st, n } = this;
    const scene = st.scene;
    const box = section(parent, "ug-dest", t("underground.destinations"));
    const where = scene.passenger ? t("underground.passenger_at", { station: n(scene.passenger) }) : t("underground.passenger_gone");
    html("p", { className: "ug-passenger-at" }, box, where);
    const ul = html("ul", { className: "ug-cards" }, box);
    for (const id of scene.faceUp) {
      const kind = st.index.byId.get(id)?.destination || "normal";
      const li = html("li", { "data-card": id, className: kind }, ul);
      destIcon(kind, li);
      html("span", {}, li, n(id));
      html("small", {}, li, t(`underground.card_kind.${kind}`));
    }
    if (!scene.faceUp.length) html("li", { className: "empty" }, ul, t("underground.no_face_up"));
    html("p", { className: "ug-pile" }, box, t("underground.pile", { count: scene.pile ?? 0 }));
  }

  lines(parent) {
    const { st } = this;
    const v = st.view;
    const box = section(parent, "ug-lines", t("underground.lines"));
    const ul = html("ul", { className: "ug-seat-lines" }, box);
    v.seats.forEach((s, i) => {
      const li = html("li", { "data-seat": i, className: i === st.mySeat ? "mine" : "" }, ul);
      html("span", { className: "ug-seat-glyph", "aria-hidden": "true" }, li, seatGlyph(i));
      html("span", { className: "ug-seat-name" }, li, seatName(v, i) + (i === st.mySeat ? ` ${t("seat.you_mark")}` : ""));
      const cs = html("span", { className: "ug-seat-colours" }, li);
      for (const c of s.colours || []) {
        const one = html("span", { className: "ug-seat-colour", title: t("underground.line_of", { colour: cw(c) }) }, cs);
        this.swatch(c, one, 12);
        html("span", { className: "visually-hidden" }, one, cw(c));
      }
      const count = s.branch_tokens ?? 0;
      html("span", { className: "ug-seat-tokens" }, li, t("underground.tokens", { count }));
    });
  }

  breakdown(parent) {
    const v = this.st.view;
    const a = this.st.analysis;
    if (!a) return;
    const box = section(parent, "ug-breakdown", v.status === "over" ? t("underground.final_scores") : t("underground.scores"));
    // A region of its own: with long names the table scrolls sideways, and keys must reach it.
    const wrap = html("div", { className: "ug-table-wrap", tabindex: "0", role: "region",
      "aria-label": t("underground.breakdown_caption") }, box);
    const table = html("table", { className: "ug-breakdown-table" }, wrap);
    html("caption", { className: "visually-hidden" }, table, t("underground.breakdown_caption"));
    const cols = ["start", "rail", "terminus", "symbol", "enclosed", "ride"].map((key) => [
      key, t(`underground.col.${key}.short`), t(`underground.col.${key}`)]);
    const hr = html("tr", {}, html("thead", {}, table));
    html("th", { scope: "col" }, hr, t("underground.col.player"));
    html("th", { scope: "col", className: "total" }, hr, t("underground.col.total"));
    for (const [, short, long] of cols) {
      // The short heading is seen; the full words are its name for a screen reader and its tooltip.
      const th = html("th", { scope: "col", "aria-label": long }, hr);
      html("abbr", { title: long }, th, short);
    }
    const body = html("tbody", {}, table);
    const winners = new Set(v.winners || []);
    v.seats.forEach((s, i) => {
      const b = a.breakdown[i];
      const tr = html("tr", { "data-seat": i, className: winners.has(i) ? "winner" : "" }, body);
      const th = html("th", { scope: "row", title: seatName(v, i) }, tr);
      html("span", { className: "ug-seat-glyph", "aria-hidden": "true" }, th, `${seatGlyph(i)} `);
      th.append(seatName(v, i));
      // The total and its parts are the server's (the view's `score_from`).
      html("td", { className: "total" }, tr, String(s.score ?? 0));
      for (const [key] of cols) html("td", { className: key }, tr, String(b?.[key] ?? 0));
    });
  }

  replayNote(parent) {
    const r = this.st.replayScene;
    const box = section(parent, "ug-replay-note", null);
    html("p", {}, box, r.index === 0 ? t("underground.replay_note_start") : t("underground.replay_note", { turn: r.index, length: r.length }));
    const ul = html("ul", { className: "ug-replay-scores" }, box);
    r.scores.forEach((s, i) => html("li", { "data-seat": i }, ul, `${r.names(i)}: ${s}`));
  }
}
