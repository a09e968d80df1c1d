// The side panel's read-only parts: status line, score table, final results. Pure rendering from
// a view, so the controller only decides *when* to call them.

import { colourHex, colourName } from "./board.js";

const $ = (id) => document.getElementById(id);

export function seatLabel(seat, i) {
  if (!seat) return `Seat ${i + 1}`;
  if (seat.kind === "open") return "Open seat";
  if (seat.kind === "ai") return seat.name || `AI ${seat.level || ""}`.trim();
  return seat.name || `Player ${i + 1}`;
}

function swatch(seats, i) {
  const s = document.createElement("span");
  s.className = "swatch";
  s.style.background = colourHex(colourName(seats, i));
  return s;
}

/** One sentence on what is happening, from the point of view of `mySeat` (null: spectator). */
export function statusText(view, mySeat) {
  if (view.status === "waiting") {
    const open = view.seats.filter((s) => s.kind === "open").length;
    return `Waiting for ${open} more player${open === 1 ? "" : "s"} — share the invite link.`;
  }
  if (view.status === "over") return "Game over.";
  if (view.turn === mySeat) return view.drawn ? "Your turn — place the tile you drew." : "Your turn.";
  const who = seatLabel(view.seats[view.turn], view.turn);
  return view.seats[view.turn]?.kind === "ai" ? `${who} (AI) is thinking…` : `${who} to play.`;
}

export function renderStatus(view, mySeat) {
  const el = $("status");
  el.textContent = statusText(view, mySeat);
  el.classList.toggle("mine", view.status === "playing" && view.turn === mySeat);
  const name = colourName(view.seats, view.turn);
  el.style.setProperty("--turn", view.status === "playing" ? colourHex(name) : "transparent");
}

export function renderScores(view, mySeat) {
  // After the game the final results say it all, best first.
  $("scores").hidden = view.status === "over";
  const body = $("scores").tBodies[0];
  body.replaceChildren();
  view.seats.forEach((seat, i) => {
    const tr = body.insertRow();
    tr.dataset.seat = String(i);
    if (view.status === "playing" && view.turn === i) tr.classList.add("turn");
    if (seat.out) tr.classList.add("out");
    const who = tr.insertCell();
    who.className = "who";
    who.append(swatch(view.seats, i));
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seatLabel(seat, i) + (i === mySeat ? " (you)" : "");
    who.append(name);
    const kind = tr.insertCell();
    kind.className = "kind";
    kind.textContent = seat.kind === "ai" ? `AI · ${seat.level || "?"}` : seat.kind === "open" ? "invite" : "human";
    if (seat.out) kind.textContent += " · out";
    const hand = tr.insertCell();
    hand.className = "hand-count";
    hand.title = "tiles in hand";
    hand.textContent = seat.hand_count !== undefined ? `${seat.hand_count} in hand` : "";
    const score = tr.insertCell();
    score.className = "score";
    score.textContent = String(seat.score ?? 0);
  });
  $("tiles-left").textContent = `${view.deck_count ?? "?"} tiles left in the deck · ${view.board.length}/60 placed`;
}

/** Final scores, best first, winners marked. */
export function renderFinal(view, mySeat) {
  const winners = new Set(view.winners || []);
  const order = view.seats.map((s, i) => i).sort((a, b) => (view.seats[b].score ?? 0) - (view.seats[a].score ?? 0));
  const ol = $("final-scores");
  ol.replaceChildren();
  for (const i of order) {
    const li = document.createElement("li");
    if (winners.has(i)) li.classList.add("winner");
    li.append(swatch(view.seats, i));
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seatLabel(view.seats[i], i) + (i === mySeat ? " (you)" : "");
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = `${view.seats[i].score ?? 0}`;
    li.append(name, score);
    if (winners.has(i)) {
      const cup = document.createElement("span");
      cup.className = "cup";
      cup.textContent = "★";
      cup.title = "winner";
      li.append(cup);
    }
    ol.appendChild(li);
  }
  const title = $("result-title");
  if (mySeat !== null && winners.has(mySeat)) title.textContent = winners.size > 1 ? "You share the win!" : "You win!";
  else if (winners.size) {
    title.textContent = `${[...winners].map((i) => seatLabel(view.seats[i], i)).join(" & ")} win${winners.size > 1 ? "" : "s"}.`;
  } else title.textContent = "Game over.";
}
