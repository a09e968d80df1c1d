// The viewer's seat on the game page: whether it is their turn, the join box and the invitation
// link, the "Rated game" note, and the seat's own calls beside the board (hand the seat to the
// AI and take it back, resign, offers to stop). Part of the game screen (web/game.js): each call's
// answer is the new view, which the screen shows (apply).

import { api, rememberName, savedName, saveSeat } from "./api.js";
import { t } from "./i18n.js";
import { plainError, seatLabel } from "./panel.js";
import { renderResign, renderSeatHandover } from "./clock.js";
import { renderOffers } from "./offers.js";

const $ = (id) => document.getElementById(id);

/** Whether it is `seat`'s move in `view` and it has not chosen yet (the your-turn alert). */
export function myTurn(view, seat) {
  if (!view || seat === null || seat === undefined || view.status !== "playing") return false;
  return (view.to_move || []).includes(seat) && view.seats?.[seat]?.chosen !== true;
}

/** Whether `seat` may move in `view` now: it must (to_move), or it may still change its choice. */
export function mayMove(view, seat) {
  if (!view || seat === null || seat === undefined || view.status !== "playing") return false;
  return (view.to_move || []).includes(seat) || view.seats?.[seat]?.chosen === true;
}

export class SeatControls {
  /** `screen`: the game screen (its id, mine, seat, view, apply(view), refresh(), message(),
   *  missing(id), seatTaken(mine)). */
  constructor(screen) {
    this.screen = screen;
    this.rated = null;
    this.ratedAsked = 0;
    $("share-button").addEventListener("click", () => this.#share());
    $("join-box").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.#join();
    });
  }

  /** A game opened: its table's rating is asked anew, the join box offers the saved name. */
  reset() {
    this.rated = null;
    this.ratedAsked = 0;
    this.renderRated();
    $("join-name").value = savedName();
  }

  close() {
    clearTimeout(this.ratedTimer);
  }

  /** The seat's calls for `view`: away and back, resign, the offers to stop. */
  renderCalls(view) {
    const s = this.screen;
    renderSeatHandover($("away-button"), view, s.seat, (away) => this.#setAway(away));
    renderResign($("resign-button"), view, s.seat, () => this.#resign());
    renderOffers($("offer-row"), view, s.seat, {
      offer: (kind) => this.#seatCall((id, token) => api.offer(id, token, kind)),
      answer: (n, answer) => this.#seatCall((id, token) => api.answerOffer(id, token, n, answer)),
      nameOf: (seat) => seatLabel(view.seats[seat], seat),
    });
  }

  /** Whether the table is rated (GET /table): asked on opening and when the game starts or
   *  ends; a player makes a table rated just after creating it (players.js), so while it is not
   *  rated it is asked again a few times, 2 s apart. */
  askRated() {
    const s = this.screen;
    const stage = s.view.status;
    if (this.rated === true || this.ratedAsked === stage) return;
    this.ratedAsked = stage;
    clearTimeout(this.ratedTimer);
    this.#fetchRated(stage === "over" ? 0 : 3);
  }

  #fetchRated(again) {
    const s = this.screen;
    const id = s.id;
    api.table(id, s.mine?.token).then(
      (table) => {
        if (s.id !== id) return;
        this.rated = table.rated === true;
        this.renderRated();
        if (!this.rated && again > 0) this.ratedTimer = setTimeout(() => s.id === id && this.#fetchRated(again - 1), 2000);
      },
      () => {
        if (s.id === id) this.ratedAsked = 0; // ask again with the next view
      },
    );
  }

  /** "Rated game" beside the status while the table is rated (its rule in the tooltip). */
  renderRated() {
    let note = $("rated-note");
    if (!note) {
      note = document.createElement("p");
      note.id = "rated-note";
      note.className = "rated-note";
      $("status").after(note);
    }
    note.textContent = this.rated ? t("table.rated") : "";
    note.title = this.rated ? t("table.rated_help") : "";
    note.hidden = !this.rated;
  }

  /** The join box while a seat is open and the viewer has none; Share until the game is over. */
  renderJoin() {
    const s = this.screen;
    const view = s.view;
    const open = view.seats.some((x) => x.kind === "open");
    $("join-box").hidden = !(s.seat === null && view.status === "waiting" && open);
    $("share-button").hidden = view.status === "over";
  }

  /** Hand the seat to the AI (away) or take it back; the answer is the new view. */
  async #setAway(away) {
    const s = this.screen;
    const id = s.id;
    try {
      const view = await api.setAway(id, s.mine.token, away);
      if (s.id === id) await s.apply(view);
      if (s.id === id && !away) ownRowInSight(s.seat); // its clock runs again (issue 35)
    } catch (err) {
      if (s.id === id) s.message(plainError(err, s.view, s.seat)[0], "error");
    }
  }

  /** Give up for good (issue 35): the answer is the new view (the game over, for two). */
  #resign() {
    return this.#seatCall((id, token) => api.resign(id, token));
  }

  /** A call for the reader's seat whose answer is the new view (resign, offers to stop). */
  async #seatCall(call) {
    const s = this.screen;
    const id = s.id;
    try {
      const view = await call(id, s.mine.token);
      if (s.id === id) await s.apply(view);
    } catch (err) {
      if (s.id === id) s.message(plainError(err, s.view, s.seat)[0], "error");
    }
  }

  async #join() {
    const s = this.screen;
    const name = $("join-name").value.trim();
    if (!name) {
      s.message(t("join.name_needed"), "error");
      $("join-name").focus();
      return;
    }
    const id = s.id;
    $("join-button").disabled = true;
    try {
      const seat = await api.join(id, name);
      rememberName(name);
      saveSeat(id, seat.seat, seat.token);
      if (s.id !== id) return;
      s.message(t("join.joined", { name }), "ok");
      await s.seatTaken({ seat: seat.seat, token: seat.token });
    } catch (err) {
      if (err.status === 404 || err.code === "game_not_found") {
        s.missing(id);
        return;
      }
      s.message(err.status === 409 ? t("join.full") : plainError(err, s.view, s.seat)[0], "error");
      s.refresh();
    } finally {
      $("join-button").disabled = false;
    }
  }

  async #share() {
    const s = this.screen;
    const url = `${location.origin}${location.pathname}#/game/${encodeURIComponent(s.id)}`;
    try {
      await navigator.clipboard.writeText(url);
      s.message(t("game.invite_copied", { url }), "ok");
    } catch {
      s.message(t("game.invite_link", { url }), "ok");
    }
  }
}

/** The reader's own row of the score table (with its clock) scrolled into the panel's sight:
 *  after taking the seat back the panel was still scrolled down to the button, the clock that
 *  runs again hidden above. Only the panel scrolls (wide screens); under the pinned status. */
function ownRowInSight(seat) {
  const row = Number.isInteger(seat) ? document.querySelector(`#scores tr[data-seat='${seat}']`) : null;
  const panel = row?.closest(".panel");
  if (!panel || panel.scrollHeight <= panel.clientHeight) return;
  const status = panel.querySelector(":scope > .status");
  const cover = (status ? status.getBoundingClientRect().bottom : panel.getBoundingClientRect().top) + 4;
  const r = row.getBoundingClientRect();
  if (r.top < cover) panel.scrollTop -= cover - r.top;
  else if (r.bottom > panel.getBoundingClientRect().bottom) panel.scrollTop += r.bottom - panel.getBoundingClientRect().bottom;
}
