// Metro X's side boxes (RULES-METROX.md): the revealed card, whose sheet is shown, the list of
// lines with what the card would fill on each, the station list of a free card, the confirm and
// pass buttons, the AI's hints, the final breakdown and the move log. Like the board it decides
// nothing: the page hands it a state (render) and gets back through `on` select(move, send),
// confirm(), clear(), sheet(seat), hover(lineId) and line(id).

import { html, moverWords, MoveLog, seatBadge, seatGlyph, seatGlyphName, seatLabel, signedValue, svg,
  tableEntries } from "/kit.js";
import { t } from "/i18n.js";
import { cardInfo, cardWords, moveWords, sameMove, shownMark } from "./notation.js";

/** A card face: number, circled number (skip), star (transfer), circle (free), shuffle icon. */
export function cardFace(code, size = "big") {
  const c = cardInfo(code);
  const el = html("span", { className: `mx-card mx-card-${size} ${c ? `kind-${c.kind}` : "none"}` });
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", c ? t("metrox.card_label", { words: cardWords(code) }) : t("metrox.no_card"));
  el.title = c ? cardWords(code) : t("metrox.no_card");
  const face = html("span", { className: "mx-face", "aria-hidden": "true" }, el);
  if (!c) face.textContent = "–";
  else if (c.kind === "number") face.textContent = String(c.n);
  else if (c.kind === "skip") html("span", { className: "mx-circled" }, face, String(c.n));
  else if (c.kind === "transfer") face.textContent = "\u2605";
  else html("span", { className: "mx-ring" }, face);
  if (c?.shuffle) html("span", { className: "mx-shuffle", "aria-hidden": "true", title: t("metrox.shuffle_after") }, el, "\u21c4");
  return el;
}

/** A small coloured disc (with a letter), as SVG: colours go in attributes, never in styles. */
function badgeIcon(colour, text, className) {
  const root = svg("svg", { class: className, viewBox: "0 0 24 24", width: 24, height: 24, "aria-hidden": "true" });
  svg("circle", { cx: 12, cy: 12, r: 11, fill: colour }, root);
  if (text) svg("text", { x: 12, y: 12, dy: "0.35em", "text-anchor": "middle" }, root).textContent = text;
  return root;
}

export class MetroXPanel {
  constructor(parent, on) {
    this.on = on;
    const c = html("div", { className: "mx-controls" });
    this.root = c;
    parent.replaceChildren(c);

    const cardBox = html("section", { className: "mx-cardbox", "aria-label": t("metrox.card") }, c);
    this.cardSlot = html("div", { className: "mx-card-slot" }, cardBox);
    const info = html("div", { className: "mx-card-info" }, cardBox);
    this.cardWords = html("p", { className: "mx-card-words" }, info);
    this.revealed = html("div", { className: "mx-revealed", role: "group", "aria-label": t("metrox.revealed_label") }, info);
    this.counts = html("p", { className: "mx-counts" }, info);

    const pick = html("label", { className: "mx-sheet-pick" }, c, `${t("metrox.sheet")} `);
    this.sheetSelect = html("select", { className: "mx-sheet-select", "aria-label": t("metrox.whose_sheet") }, pick);
    this.sheetSelect.addEventListener("change", () => on.sheet(Number(this.sheetSelect.value)));

    html("p", { id: "mx-map-keys", className: "visually-hidden" }, c,
      t("metrox.keys"));
    const choose = html("section", { className: "mx-choose", "aria-label": t("metrox.your_choice") }, c);
    this.prompt = html("p", { className: "mx-prompt", "aria-live": "polite" }, choose);
    this.lineList = html("div", { className: "mx-line-list" }, choose);
    this.stationPick = html("label", { className: "mx-station-pick", hidden: true }, choose, `${t("metrox.station")} `);
    this.stationSelect = html("select", { className: "mx-station-select", "aria-label": t("metrox.station_to_fill") }, this.stationPick);
    this.stationSelect.addEventListener("change", () => {
      if (this.stationSelect.value) on.select({ station: this.stationSelect.value });
    });
    const actions = html("div", { className: "mx-actions" }, choose);
    this.confirmBtn = html("button", { type: "button", className: "primary mx-confirm" }, actions, t("metrox.confirm"));
    this.confirmBtn.addEventListener("click", () => on.confirm());
    this.passBtn = html("button", { type: "button", className: "mx-pass", hidden: true }, actions, t("metrox.pass"));
    this.passBtn.addEventListener("click", () => on.select({ pass: true }, true));
    this.clearBtn = html("button", { type: "button", className: "ghost-button mx-clear" }, actions, t("metrox.clear"));
    this.clearBtn.addEventListener("click", () => on.clear());
    this.waiting = html("p", { className: "mx-waiting", "aria-live": "polite" }, choose);

    this.hintBox = html("section", { className: "mx-hints", hidden: true, "aria-label": t("metrox.hints_title") }, c);
    html("h3", {}, this.hintBox, t("metrox.hints_title"));
    this.hintList = html("ol", { className: "mx-hint-list" }, this.hintBox);

    this.finalBox = html("section", { className: "mx-final", hidden: true, "aria-label": t("metrox.final_scores") }, c);
    this.replayNote = html("p", { className: "mx-replay-note", hidden: true }, c);
    this.log = new MoveLog(c);
  }

  /** Before the map is known: only what starts a waiting game. */
  waitingFor(text) {
    this.prompt.textContent = text;
  }

  render(s) {
    this.#renderCard(s);
    this.#renderSheetPicker(s);
    this.#renderChoose(s);
    this.#renderHints(s);
    this.#renderFinal(s);
  }

  /** A new card dealt while the panel beside the map (wide screens: it scrolls by itself) is
   *  scrolled down to the list of lines: scroll it back so the card shows under the status. */
  #cardInSight() {
    const box = this.cardSlot.parentElement;
    const panel = box.closest(".panel");
    if (!panel || box.hidden || panel.scrollHeight <= panel.clientHeight) return;
    const status = panel.querySelector(":scope > .status");
    const top = box.getBoundingClientRect().top - panel.getBoundingClientRect().top;
    const cover = (status?.getBoundingClientRect().height || 0) + 8;
    const bottom = box.getBoundingClientRect().bottom - panel.getBoundingClientRect().bottom;
    if (top < cover || bottom > 0) panel.scrollTop += top - cover;
  }

  #renderCard(s) {
    const v = s.view;
    const rp = s.replay;
    const code = rp ? rp.card : v.card;
    this.cardSlot.replaceChildren(cardFace(code, "big"));
    this.cardSlot.parentElement.hidden = v.status === "over" && !rp;
    const dealt = `${v.game_id}|${v.turn_index ?? 0}|${code}`;
    if (!rp && this.dealt && dealt !== this.dealt) requestAnimationFrame(() => this.#cardInSight());
    this.dealt = dealt;
    if (rp) {
      this.cardWords.textContent = code ? t("metrox.replay_card", { turn: rp.index + 1, words: cardWords(code) }) : t("metrox.replay");
    } else if (v.status === "over") {
      this.cardWords.textContent = t("metrox.over_filled");
    } else {
      this.cardWords.textContent = code ? t("metrox.turn_card", { turn: (v.turn_index ?? 0) + 1, words: cardWords(code) }) : t("metrox.no_card_yet");
    }
    this.revealed.replaceChildren();
    if (!rp) {
      const shown = (v.revealed || []).slice(0, -1);
      if (shown.length) html("span", { className: "mx-revealed-label" }, this.revealed, t("metrox.earlier"));
      for (const r of shown) this.revealed.appendChild(cardFace(r, "mini"));
    }
    this.counts.textContent = rp
      ? t("metrox.turn_resolved", { turn: rp.index, length: rp.length })
      : t("metrox.counts", { deck: v.deck_left ?? "?", windows: v.windows_left ?? "?" });
  }

  #renderSheetPicker(s) {
    const opts = (s.view.sheets || []).map((sh) => {
      const label = `${seatGlyph(sh.seat)} ${s.seatName(sh.seat)}${sh.seat === s.own ? ` ${t("seat.you_mark")}` : ""}`;
      return [String(sh.seat), label];
    });
    const key = JSON.stringify(opts);
    if (this.sheetSelect.dataset.key !== key) {
      this.sheetSelect.replaceChildren(...opts.map(([value, label]) => html("option", { value }, null, label)));
      this.sheetSelect.dataset.key = key;
    }
    this.sheetSelect.value = String(s.shown);
    this.sheetSelect.parentElement.hidden = opts.length < 2;
  }

  /** One button per line, with its windows and what the card would fill there. */
  #lineButton(s, line, isLegal) {
    const v = s.view;
    const marks = s.sheet.windows[line.id] || [];
    const b = html("button", {
      type: "button",
      className: "mx-line-btn",
      "data-line": line.id,
      "aria-pressed": String(s.sel?.line === line.id),
    });
    b.disabled = !isLegal || s.busy;
    b.classList.toggle("chosen", !s.replay && v.choice?.line === line.id);
    b.appendChild(badgeIcon(line.colour, line.id, "mx-line-badge"));
    html("span", { className: "mx-line-name" }, b, line.name || line.id);
    const w = html("span", { className: "mx-line-windows", "aria-hidden": "true" }, b);
    for (let i = 0; i < line.windows; i++) html("span", { className: `mx-win${i < marks.length ? " used" : ""}` }, w, shownMark(marks[i] || ""));
    const done = s.lines.find((l) => l.line === line.id)?.completed || [];
    const first = done.filter((e) => e.first).map((e) => s.seatName(e.seat));
    const later = done.filter((e) => !e.first).map((e) => s.seatName(e.seat));
    html("span", { className: `mx-line-bonus${first.length ? " taken" : ""}` }, b, `${line.bonus[0]}/${line.bonus[1]}`);
    let gain = "";
    if (isLegal && s.ownSheet) {
      const eff = s.effect(line.id);
      gain = eff.transfer !== null && eff.stations.length ? `★${eff.transfer}` : `+${eff.stations.length}`;
      html("span", { className: "mx-line-gain" }, b, gain);
      b.dataset.gain = String(eff.stations.length + (eff.transfer || 0));
      b.addEventListener("mouseenter", () => this.on.hover(line.id));
      b.addEventListener("mouseleave", () => this.on.hover(null));
      b.addEventListener("focus", () => this.on.hover(line.id));
      b.addEventListener("blur", () => this.on.hover(null));
      b.addEventListener("click", () => this.on.line(line.id));
    }
    const who = [first.length ? t("metrox.first_taken", { value: line.bonus[0], names: first.join(", ") }) : t("metrox.first_bonus", { value: line.bonus[0] }),
      later.length ? t("metrox.later_taken", { value: line.bonus[1], names: later.join(", ") }) : t("metrox.later_bonus", { value: line.bonus[1] })].join("; ");
    const fills = !gain ? "" : gain.startsWith("★") ? t("metrox.fills_transfer", { value: gain.slice(1) }) : t("metrox.fills_stations", { count: Number(gain.slice(1)) });
    const label = t(gain ? "metrox.line_button_fills" : "metrox.line_button", {
      line: line.id, name: line.name || "", used: marks.length, windows: line.windows, bonus: who, fills });
    // The name is the visible text (line and gain); the rest is its description.
    b.title = label;
    html("span", { className: "visually-hidden" }, b, `: ${label}`);
    return b;
  }

  #renderChoose(s) {
    const v = s.view;
    const own = s.own;
    const choosing = s.canChoose;
    const c = cardInfo(v.card);
    const legal = s.moves;
    const free = choosing && c?.kind === "free";
    const lineLegal = (id) => choosing && c?.kind !== "free" && legal.some((m) => m.line === id);
    this.lineList.replaceChildren(...s.index.map.lines.map((line) => this.#lineButton(s, line, lineLegal(line.id))));
    // A free card goes on no line: its turn lists none (issue 19), only the stations below.
    this.lineList.hidden = !!s.replay || v.status === "over" || free;

    // A free card: a station, from the map or from the list; a pass when none is empty.
    const stations = free ? legal.filter((m) => m.station).map((m) => m.station) : [];
    this.stationPick.hidden = !free || !stations.length;
    if (free && stations.length) {
      const key = stations.join(",");
      if (this.stationSelect.dataset.key !== key) {
        this.stationSelect.replaceChildren(
          html("option", { value: "" }, null, t("metrox.pick_station")),
          ...stations.map((id) => html("option", { value: id }, null, s.index.stations.get(id)?.name || id)),
        );
        this.stationSelect.dataset.key = key;
      }
      this.stationSelect.value = s.sel?.station || "";
    }
    this.passBtn.hidden = !(choosing && legal.some((m) => m.pass));
    this.passBtn.disabled = s.busy;

    const sel = s.sel;
    const pending = !s.replay ? v.choice : null;
    const unsent = sel && !sameMove(sel, pending);
    this.confirmBtn.hidden = !choosing;
    this.confirmBtn.disabled = !unsent || s.busy;
    this.confirmBtn.textContent = unsent ? t("metrox.confirm_move", { move: moveWords(s.index, sel) }) : t("metrox.confirm");
    this.confirmBtn.setAttribute("aria-label", unsent ? t("metrox.confirm_move", { move: moveWords(s.index, sel) }) : t("metrox.confirm_first"));
    this.clearBtn.hidden = !choosing || !unsent;

    // What to do now, and who has chosen.
    let prompt = "";
    if (s.replay) prompt = "";
    else if (v.status === "over") prompt = t("metrox.over");
    else if (v.status !== "playing") prompt = s.startsWhen;
    else if (own === null) prompt = t("metrox.watching");
    else if (!legal.length) prompt = t("metrox.nothing_now");
    else if (c.kind === "free") {
      prompt = stations.length ? t("metrox.prompt_free") : t("metrox.prompt_free_pass");
    } else {
      prompt = t("metrox.prompt_line", { words: cardWords(v.card) });
    }
    if (pending && choosing) prompt = t("metrox.prompt_chosen", { move: moveWords(s.index, pending) });
    this.prompt.textContent = prompt;
    this.prompt.hidden = !prompt;

    let waiting = "";
    if (v.status === "playing" && !s.replay && v.seats?.length > 1) {
      const parts = v.seats.map((seat, i) => `${seatGlyph(i)} ${s.seatName(i)} ${seat.chosen ? "✓" : "…"}`);
      const left = v.seats.filter((seat) => !seat.chosen).length;
      waiting = pending && choosing
        ? t("metrox.waiting_others", { count: left, seats: parts.join(" · ") })
        : t("metrox.chosen_so_far", { seats: parts.join(" · ") });
    }
    this.waiting.textContent = waiting;
    this.waiting.hidden = !waiting;

    // The phase, for tests and styles: choose / chosen / wait / watch / waiting / over / replay.
    let phase = "wait";
    if (s.replay) phase = "replay";
    else if (v.status === "over") phase = "over";
    else if (v.status !== "playing") phase = "waiting";
    else if (own === null) phase = "watch";
    else if (choosing && pending) phase = "chosen";
    else if (choosing && legal.length) phase = "choose";
    this.root.dataset.phase = phase;
    this.root.dataset.turn = String(v.turn_index ?? 0);
    this.root.dataset.card = v.card || "";
    this.root.dataset.busy = String(s.busy);
  }

  #renderHints(s) {
    const show = s.hints.length > 0 && s.canChoose;
    this.hintBox.hidden = !show;
    this.hintList.replaceChildren();
    if (!show) return;
    for (const h of s.hints) {
      const li = html("li", {}, this.hintList);
      let gain = "";
      if (h.move?.line) {
        const eff = s.effect(h.move.line);
        gain = eff.transfer !== null && eff.stations.length ? ` · ★${eff.transfer}` : ` · +${eff.stations.length}`;
      }
      const words = moveWords(s.index, h.move);
      const b = html("button", {
        type: "button",
        className: "mx-hint-btn",
        "data-rank": h.rank,
        // The visible text is the button's name (axe: label-content-name-mismatch); the sentence
        // that says what a click does is its description.
        title: t("metrox.select_hint", { rank: h.rank, move: words, value: signedValue(h.value) }),
        "aria-pressed": String(sameMove(s.sel, h.move)),
      }, li);
      html("span", { className: "mx-hint-rank-text" }, b, `${h.rank}.`);
      html("span", { className: "mx-hint-move" }, b, `${words}${gain}`);
      html("span", { className: "mx-hint-value" }, b, signedValue(h.value));
      b.addEventListener("click", () => this.on.select(h.move));
    }
  }

  #renderFinal(s) {
    const v = s.view;
    const over = v.status === "over" && Array.isArray(v.final);
    this.finalBox.hidden = !over;
    this.replayNote.hidden = !s.replay;
    if (s.replay) {
      const i = s.replay.index;
      const rec = s.replay.record;
      this.replayNote.textContent = i === 0
        ? t("metrox.replay_note_start")
        : t("metrox.replay_note", { turn: i, card: cardWords(rec.cards[i - 1]) });
    }
    if (!over) return;
    this.finalBox.replaceChildren();
    html("h3", {}, this.finalBox, t("metrox.final_score"));
    const table = html("table", { className: "mx-final-table" }, this.finalBox);
    const head = html("tr", {}, html("thead", {}, table));
    for (const col of ["player", "bonus", "transfer", "empty", "penalty", "total"]) {
      const full = t(`metrox.col.${col}`);
      html("th", { scope: "col", title: full, "aria-label": full }, head, t(`metrox.col.${col}.short`));
    }
    const body = html("tbody", {}, table);
    const winners = new Set(v.winners || []);
    const rows = [...v.final].sort((a, b) => b.total - a.total || a.seat - b.seat);
    for (const f of rows) {
      const tr = html("tr", { "data-seat": f.seat, className: winners.has(f.seat) ? "winner" : "" }, body);
      const name = html("th", { scope: "row" }, tr);
      const badge = seatBadge(f.seat, s.colour(f.seat), 16, name);
      badge.classList.add("mx-swatch");
      html("span", { className: "visually-hidden" }, name, `(${seatGlyphName(f.seat)}) `);
      name.append(`${s.seatName(f.seat)}${f.seat === s.own ? ` ${t("seat.you_mark")}` : ""}`);
      if (winners.has(f.seat) && rows.length > 1) html("span", { className: "mx-winner", title: t("final.winner"), "aria-label": t("final.winner") }, name, " ★");
      html("td", { className: "bonuses" }, tr, `+${f.bonuses}`);
      html("td", { className: "transfers" }, tr, `+${f.transfers}`);
      html("td", { className: "empty" }, tr, String(f.empty));
      html("td", { className: "penalty" }, tr, f.penalty ? `\u2212${f.penalty}` : "0");
      html("td", { className: "total" }, tr, f.total < 0 ? `\u2212${-f.total}` : String(f.total));
    }
  }

  // ---- the move log ----------------------------------------------------------------------------

  /** The whole game's log, rebuilt from its events on every update: one entry per resolved
   *  turn (every seat's choice, and who made it: the player, or the AI for them), with seats
   *  timing out or coming back in between. Turns not spoken yet are spoken (others' choices and
   *  the next card); the first look at a game speaks none. */
  logTurns(view, events, index, me) {
    const entries = history(view, events, index, me);
    const last = entries.reduce((m, e) => Math.max(m, e.turn || 0), 0);
    for (const e of entries) e.recent = e.turn === last && last > 0;
    this.log.set(entries);
    const first = this.spokenTurns === undefined || this.spokenGame !== view.game_id;
    const fresh = first ? [] : entries.filter((e) => e.turn > this.spokenTurns);
    this.spokenTurns = Math.max(first ? 0 : this.spokenTurns, last);
    this.spokenGame = view.game_id;
    if (!fresh.length) return;
    const next = view.status === "over" ? t("metrox.over") : view.card ? t("metrox.next_card", { words: cardWords(view.card) }) : "";
    this.log.announce([...fresh.map((e) => e.text), next].filter(Boolean).join(" "));
  }
}

/** Log entries from the game's events (the shell's host.events). */
function history(view, events, index, me) {
  const seats = view.seats || [];
  const name = (p) => (seats[p] ? seatLabel(seats[p], p) : t("seat.player", { n: p + 1 }));
  const out = [];
  let turn = 0;
  let by = {}; // seat -> who made its choice this turn ("player" / "ai"), from its last event
  const resolved = (r) => {
    if (r.by) by[r.seat] = r.by;
    out.push(turnEntry(++turn, r, by, seats, name, index, me));
    by = {};
  };
  for (const event of events || []) {
    if (event.action === "choose") by[event.seat] = event.by;
    else if (event.action === "resolve") resolved(event);
    else if (event.action === "retire" && event.resolved) resolved(event.resolved);
    else {
      out.push(...tableEntries(event, me, name));
      // A seat out of the game may be the last one the turn waited for.
      for (const r of event.retired || []) if (r?.resolved) resolved(r.resolved);
    }
  }
  return out;
}

/** One resolved turn (a resolve event) in words: "Turn 3 (card 5): You took line C; Ada…". */
function turnEntry(turn, r, by, seats, name, index, me) {
  const moves = [];
  let ai = false;
  (r.choices || []).forEach((c, p) => {
    if (!c) return; // a seat out of the game chose nothing
    let what = t("metrox.log_passed");
    if (c.line) what = t("metrox.log_took_line_only", { line: c.line });
    else if (c.station) what = t("metrox.log_filled", { station: index.stations.get(c.station)?.name || c.station });
    const byAi = by[p] === "ai" && seats[p]?.kind === "human";
    ai = ai || byAi;
    const who = moverWords(p === me ? t("metrox.you") : name(p), { byAi, mine: p === me });
    moves.push({ glyph: seatGlyph(p), text: t("metrox.log_seat_move", { name: who, what }) });
  });
  const mark = "\u0000"; // where the seats' moves go in the sentence
  const [head, tail = ""] = t("metrox.log_turn_moves", { turn, card: cardWords(r.card), moves: mark }).split(mark);
  const text = `${head}${moves.map((m) => m.text).join("; ")}${tail}`;
  return { turn, by: ai ? "ai" : undefined, text, head, tail, parts: moves };
}
