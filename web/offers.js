// Agreeing to stop (issue 35): at a table of people only, a player offers the others to abort
// the game (no result) or to end it now (scored as it stands); every player still in the game
// must accept, and a decline or any move ends the offer (the server's rule; the view's `offer`
// says where it stands). This module draws the offer row under the Resign button.
import { t } from "./i18n.js";

/** Whether the table may agree to stop: every seat still in play a person's own. */
const peopleOnly = (view) => view.seats.every((s) => s.lost || (s.kind === "human" && !s.bot && !s.away));

function button(text, className, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  b.onclick = async () => {
    b.disabled = true;
    try {
      await onclick();
    } finally {
      b.disabled = false;
    }
  };
  return b;
}

/** Draw the offer row in `box` for the reader's seat. `offer(kind)` makes an offer,
 *  `answer(n, "accept"|"decline")` answers one; both resolve once the server has answered. */
export function renderOffers(box, view, mySeat, { offer, answer, nameOf }) {
  const seat = Number.isInteger(mySeat) ? view?.seats?.[mySeat] : null;
  const show = Boolean(seat) && view.status === "playing" && !seat.lost && view.seats.length > 1 && peopleOnly(view);
  box.hidden = !show;
  box.replaceChildren();
  if (!show) return;
  const open = view.offer;
  if (!open) {
    box.append(
      button(t("offer.abort"), "ghost-button offer-abort", () => offer("abort")),
      button(t("offer.end"), "ghost-button offer-end", () => offer("end")),
    );
    return;
  }
  const inPlay = view.seats.filter((s) => !s.lost).length;
  const note = document.createElement("p");
  note.className = "offer-note";
  note.setAttribute("role", "status");
  note.textContent = t(open.kind === "abort" ? "offer.open_abort" : "offer.open_end", {
    name: nameOf(open.by),
    yes: open.accepted.length,
    total: inPlay,
  });
  box.append(note);
  if (open.accepted.includes(mySeat)) {
    const wait = document.createElement("small");
    wait.className = "offer-wait";
    wait.textContent = t("offer.waiting");
    box.append(wait);
  } else {
    box.append(
      button(t("offer.accept"), "primary offer-accept", () => answer(open.n, "accept")),
      button(t("offer.decline"), "ghost-button offer-decline", () => answer(open.n, "decline")),
    );
  }
}

const OFFER_ACTIONS = {
  offer: (e) => (e.offer?.kind === "abort" ? "offer.log_abort" : "offer.log_end"),
  offer_accepted: () => "offer.log_accepted",
  offer_declined: () => "offer.log_declined",
  offer_agreed: (e) => (e.offer?.kind === "abort" ? "offer.log_agreed_abort" : "offer.log_agreed_end"),
};

/** The move log's entry for an offer's event (or null for any other event). */
export function offerText(event, nameOf) {
  const key = OFFER_ACTIONS[event?.action]?.(event);
  return key ? t(key, { name: nameOf(event.seat) }) : null;
}
