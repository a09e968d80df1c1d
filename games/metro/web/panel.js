// Metro's side boxes (issue 31.3, after chessground's split): the seat's hand with Draw & place
// and Rotate, the confirmation of a move waiting for it, the AI's hint list, the tiles left,
// the "Confirm moves" setting, and the move log that follows other players' moves. They show
// what page.js hands them and call back on a click; the board and the game's state are the page's.

import { aiForPerson, confirmToggle, lastSeen, MoveLog, moverWords, saveLastSeen, seatGlyph, signedValue,
  tableEntries } from "/kit.js";
import { deckIcon, tileIcon } from "./board.js";
import { t } from "/i18n.js";
import { describeTile, parsePlacement, tileName } from "./tiles.js";
import { gainWords, seatName } from "./words.js";

/** The server's complete routes (`view.routes`) by the placement that completed each, an index
 *  into `placements`: the latest placed of the squares on its path (a complete route never
 *  changes afterwards, so the live view tells it for every earlier placement). */
function completedBy(view, placements) {
  const order = new Map();
  placements.forEach((text, i) => {
    const p = parsePlacement(text);
    if (p) order.set(`${p.row},${p.col}`, i);
  });
  const by = new Map();
  for (const route of view.routes || []) {
    if (route.end === "open" || !route.path?.length) continue;
    const last = Math.max(...route.path.map(([r, c]) => order.get(`${r},${c}`) ?? -1));
    if (!by.has(last)) by.set(last, []);
    by.get(last).push(route);
  }
  return by;
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}

/** A suggestion without the search's own fields: the move to send. */
function stripHint(s) {
  const { value, visits, move, ...rest } = s;
  return rest;
}

export class MetroPanel {
  /** `on`: {select(i), draw(), rotate(), confirm(), cancel(), pickHint(move), confirmMoves(on)}. */
  constructor(controls, host, on) {
    this.on = on;
    this.keysNote = h("p", { id: "board-keys", class: "visually-hidden",
      text: t("metro.keys") });
    this.handTitle = h("h3", { id: "hand-title", text: t("metro.your_hand") });
    this.drawnNote = h("span", { id: "drawn-note", class: "drawn-note", hidden: true, text: t("metro.drawn_note") });
    this.hand = h("div", { id: "hand", class: "hand", role: "group", "aria-label": t("metro.your_tiles") });
    this.drawButton = h("button", { type: "button", id: "draw-button", text: t("metro.draw_place") });
    this.rotateButton = h("button", {
      type: "button", id: "rotate-button", hidden: true, title: t("metro.rotate_title"), text: t("metro.rotate"),
    });
    this.confirmBox = h("div", { id: "confirm-box", class: "confirm-box", hidden: true });
    this.confirmText = h("p", { id: "confirm-text", class: "confirm-text" });
    this.confirmButton = h("button", { type: "button", id: "confirm-button", class: "primary", text: t("metro.confirm") });
    this.cancelButton = h("button", { type: "button", id: "cancel-button", class: "ghost-button", text: t("metro.cancel") });
    this.confirmBox.append(this.confirmText, h("div", { class: "actions" }, this.confirmButton, this.cancelButton));
    this.playBox = h(
      "div",
      { id: "play-box", class: "play-box", hidden: true },
      h("div", { class: "hand-head" }, this.handTitle, this.drawnNote),
      this.hand,
      h("div", { class: "actions" }, this.drawButton, this.rotateButton),
      this.confirmBox,
    );
    this.hintList = h("ol", { id: "hint-list", class: "hint-list" });
    this.hintBox = h(
      "div",
      { id: "hint-box", class: "hint-box", hidden: true },
      h("h3", { text: t("metro.hints_title") }),
      this.hintList,
    );
    this.tilesLeft = h("p", { id: "tiles-left", class: "tiles-left" });
    this.settings = h("div", { class: "metro-settings" });
    this.confirmToggle = confirmToggle(this.settings, (yes) => on.confirmMoves(yes));
    this.confirmToggle.id = "confirm-moves";
    controls.replaceChildren(this.keysNote, this.playBox, this.hintBox, this.tilesLeft);
    this.log = new MetroLog(controls, host);
    controls.appendChild(this.settings);

    this.drawButton.addEventListener("click", () => on.draw());
    this.rotateButton.addEventListener("click", () => on.rotate());
    this.confirmButton.addEventListener("click", () => on.confirm());
    this.cancelButton.addEventListener("click", () => on.cancel());
  }

  /** Show or hide the play box (and the settings) for `view`; whether it is shown. */
  showPlay(view, seat) {
    this.playBox.hidden = seat === null || view.status === "over";
    this.settings.hidden = this.playBox.hidden;
    return !this.playBox.hidden;
  }

  /** The hand: `tiles` (the drawn tile alone, else the hand), tile `selected` turned `turns`. */
  renderHand(view, tiles, { selected, turns, rotate, canDraw, pending }) {
    const focusedTile = this.hand.contains(document.activeElement) ? [...this.hand.children].indexOf(document.activeElement) : -1;
    this.hand.replaceChildren();
    tiles.forEach((code, i) => {
      const shown = rotate(code, turns);
      const now = i === selected ? shown : code;
      const b = h("button", { type: "button", class: "hand-tile", "data-code": code, "data-shown": shown,
        "aria-pressed": String(i === selected), title: tileName(now),
        "aria-label": `${i + 1}: ${describeTile(now)}` });
      b.appendChild(tileIcon(now, 64, describeTile(now)));
      b.firstChild.setAttribute("aria-hidden", "true");
      b.addEventListener("click", () => this.on.select(i));
      this.hand.appendChild(b);
    });
    if (focusedTile >= 0) this.hand.children[focusedTile]?.focus();
    if (!tiles.length) this.hand.appendChild(h("p", { class: "muted", text: t("metro.no_tiles") }));
    this.drawnNote.hidden = !view.drawn;
    this.handTitle.textContent = view.drawn ? t("metro.drawn_tile") : t("metro.your_hand");
    this.drawButton.disabled = !canDraw || pending;
    this.rotateButton.hidden = !view.rules?.rotation;
  }

  /** The move waiting for its confirmation ({r, c, code}, or null) and the routes it completes
   *  (`gains`, from its legal move's preview) for `view`'s seats. */
  renderProposal(p, gains, view, pending) {
    this.confirmBox.hidden = !p;
    if (!p || !view) return;
    const seats = view.seats;
    const where = { tile: tileName(p.code), row: p.r + 1, col: p.c + 1, gains: gains.length ? gainWords(gains, seats) : "" };
    this.confirmText.textContent = t(gains.length ? "metro.confirm_place" : "metro.confirm_place_none", where);
    this.confirmButton.disabled = pending;
  }

  /** The AI's top three suggestions as a list; each is returned as {move, p (its placement, null
   *  for drawing), value, rank} for the board. */
  showHints(suggestions) {
    const top = (suggestions || []).slice(0, 3);
    this.hintList.replaceChildren();
    const out = top.map((s, i) => {
      const move = s.move || stripHint(s);
      const p = move.action !== "draw" ? parsePlacement(move.placement) : null;
      const button = h("button", { type: "button", class: "hint-item" }, h("span", { class: "rank", text: String(i + 1) }));
      if (p) {
        button.append(tileIcon(p.code, 30, describeTile(p.code)));
        button.title = t("access.hint_pick_title");
      } else {
        button.append(deckIcon(30));
        button.title = t("metro.draw_place_title");
      }
      button.append(
        h("span", { text: p ? t("access.hint_at", { tile: tileName(p.code), row: p.row + 1, col: p.col + 1 }) : t("metro.draw_place") }),
        h("span", { class: "value", text: signedValue(s.value) }),
      );
      button.addEventListener("click", () => this.on.pickHint(move));
      this.hintList.appendChild(h("li", {}, button));
      return { move, p, value: s.value, rank: i + 1 };
    });
    this.hintBox.hidden = top.length === 0;
    return out;
  }

  showTilesLeft(view) {
    const placed = (view.board || []).length;
    this.tilesLeft.textContent = t("metro.tiles_left", { count: view.deck_count ?? 0, placed });
  }
}

/** The move log: one entry per placed tile, who placed it (from the game's events) and the points
 *  it completed; other players' moves since the viewer's last one are marked (`recentFrom`),
 *  announced, and their squares faded in on the next drawing (`arrive`). */
export class MetroLog {
  constructor(controls, host) {
    this.host = host;
    this.log = new MoveLog(controls);
    this.recentFrom = null; // placements from this index on are since the viewer's last move
    this.arrive = new Set(); // squares to fade in on the next drawing
  }

  announce(text) {
    this.log.announce(text);
  }

  /** Who placed each new tile between two views, in words, logged, spoken and outlined. */
  follow(before, view) {
    const me = this.host.seat;
    const placements = view.board || [];
    const seats = view.seats || [];
    const n = seats.length || 1;
    const stored = lastSeen("metro", view.game_id, me);
    const entries = this.#history(view);
    if (!before || before.game_id !== view.game_id) {
      if (stored && Number.isInteger(stored.placed) && stored.placed <= placements.length) this.recentFrom = stored.placed;
      else if (me !== null && Number.isInteger(view.turn)) {
        // Nothing remembered: the moves since the viewer's seat last had the turn.
        this.recentFrom = placements.length - ((((view.turn - me - 1) % n) + n) % n);
      } else this.recentFrom = Math.max(0, placements.length - 1);
    } else {
      const old = before.board || [];
      if (placements.length > old.length) {
        const fresh = entries.filter((e) => Number.isInteger(e.index) && e.index >= old.length);
        for (const entry of fresh) {
          if (entry.seat === me) {
            this.recentFrom = entry.index + 1;
            saveLastSeen("metro", view.game_id, me, { version: view.version, placed: entry.index + 1 });
          } else {
            const p = parsePlacement(placements[entry.index]);
            if (p) this.arrive.add(`${p.row},${p.col}`);
          }
        }
        const theirs = fresh.filter((e) => e.seat !== me).map((e) => e.text);
        const turn = this.#turnWords(view);
        if (theirs.length || turn) this.log.announce([...theirs, turn].filter(Boolean).join(" "));
      } else if (before.status !== view.status || JSON.stringify(before.to_move) !== JSON.stringify(view.to_move)) {
        this.log.announce(this.#turnWords(view));
      }
    }
    this.log.set(entries);
    if (this.recentFrom === null || this.recentFrom > placements.length) this.recentFrom = placements.length;
    this.log.markRecent((e) => e.index >= this.recentFrom && e.seat !== me);
  }

  /** The viewer placed a tile (`move`) and `view` has it: "since your last move" starts just after
   *  that tile, also for a reload (not at the end of the board: the live stream may already have
   *  brought the next player's reply before this request's answer came back). */
  placedByMe(view, move) {
    const placed = placedThrough(view.board || [], move.placement);
    const me = this.host.seat;
    this.recentFrom = placed;
    saveLastSeen("metro", view.game_id, me, { version: view.version, placed });
    this.log.markRecent((e) => e.index >= placed && e.seat !== me);
  }

  /** Squares placed since the viewer's last move (a spectator: the last tile). */
  recentSquares(view) {
    const out = new Set();
    const placements = view?.board || [];
    if (this.host.seat === null) {
      const last = placements.length ? parsePlacement(placements[placements.length - 1]) : null;
      if (last) out.add(`${last.row},${last.col}`);
      return out;
    }
    for (let j = this.recentFrom ?? placements.length; j < placements.length; j++) {
      const p = parsePlacement(placements[j]);
      if (p) out.add(`${p.row},${p.col}`);
    }
    return out;
  }

  /** The whole game's log: one entry per placed tile, in order, with the seats' time-outs and
   *  returns between them. Who placed a tile (and whether the AI did it for a person) comes from
   *  the game's events; tiles the view has and the events not yet are attributed by turn order. */
  #history(view) {
    const placements = view.board || [];
    const seats = view.seats || [];
    const n = seats.length || 1;
    const me = this.host.seat;
    const out = [];
    let j = 0;
    for (const event of this.host.events || []) {
      if (event.action === "place" && j < placements.length) {
        out.push(this.#entry(placements, j, event.seat, view, event));
        j++;
      } else {
        out.push(...tableEntries(event, me, (seat) => seatName(seats, seat)));
      }
    }
    const turn = Number.isInteger(view.turn) ? view.turn : placements.length % n;
    for (; j < placements.length; j++) {
      const seat = (((turn - (placements.length - j)) % n) + n) % n;
      out.push(this.#entry(placements, j, seat, view, null));
    }
    return out;
  }

  /** Placement j of `placements`, by `seat` (its move `event`, when known), as a log entry with
   *  the points it completed. */
  #entry(placements, j, seat, view, event) {
    const p = parsePlacement(placements[j]);
    const mine = this.host.seat === seat;
    // Who made it: the engine's `by`; without one (an event from before it was recorded, or a
    // tile the events have not brought yet), the viewer's own seat while the AI holds it.
    const byAi = event && "by" in event ? aiForPerson(event, view.seats) : mine && Boolean(view.seats?.[seat]?.away);
    const by = event?.by || undefined;
    const name = mine ? seatName(view.seats, seat) : moverWords(seatName(view.seats, seat), { byAi });
    if (!p) return { index: j, seat, by, text: t("metro.log_moved", { name }) };
    const pts = (completedBy(view, placements).get(j) || [])
      .filter((g) => g.owner !== null && g.owner !== undefined)
      .map((g) => t("metro.log_gain", { points: g.points, name: seatName(view.seats, g.owner) }));
    // The viewer's seat played by the AI (while they were away): say so, not "You placed".
    const who = !mine ? "" : byAi ? "ai_placed_for_you" : "you_placed";
    const words = { name, tile: tileName(p.code), row: p.row + 1, col: p.col + 1, points: pts.join(", ") };
    const key = `metro.log_${who || "placed"}${pts.length ? "_points" : ""}`;
    const text = t(key, words);
    return { index: j, seat, by, text, glyph: seatGlyph(seat) };
  }

  #turnWords(view) {
    if (view.status === "over") return t("metro.over");
    if (view.status !== "playing") return "";
    const mover = (view.to_move || [])[0];
    if (mover === undefined) return "";
    return mover === this.host.seat ? t("metro.your_turn") : t("metro.to_play", { name: seatName(view.seats, mover) });
  }
}

/** How many placements of `board` there are up to and including the tile on `placement`'s square
 *  (all of them when that square is not on the board). */
function placedThrough(board, placement) {
  const p = parsePlacement(placement || "");
  if (!p) return board.length;
  const at = board.findIndex((text) => {
    const q = parsePlacement(text);
    return q !== null && q.row === p.row && q.col === p.col;
  });
  return at < 0 ? board.length : at + 1;
}
