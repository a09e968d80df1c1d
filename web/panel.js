// The side panel's read-only parts: status line, score table, final results. Pure rendering from
// a view's common fields (seats, to_move, status, winners) and the game's meta (seat colours), so
// the controller only decides *when* to call them. No game's own fields are read here.

import { seatColour } from "./meta.js";

const $ = (id) => document.getElementById(id);

export function seatLabel(seat, i) {
  if (!seat) return `Seat ${i + 1}`;
  if (seat.kind === "open") return "Open seat";
  if (seat.kind === "ai") return seat.name || `AI ${seat.level || ""}`.trim();
  return seat.name || `Player ${i + 1}`;
}

function swatch(game, i) {
  const s = document.createElement("span");
  s.className = "swatch";
  s.style.background = seatColour(game, i);
  return s;
}

const toMove = (view) => (view.status === "playing" ? view.to_move || [] : []);

/** Whether seats choose at once (the view marks each seat's `chosen`). */
export const simultaneous = (view) => (view.seats || []).some((s) => s && "chosen" in s);

/** One sentence on what is happening, from the point of view of `mySeat` (null: spectator). */
export function statusText(view, mySeat) {
  if (view.status === "waiting") {
    const open = view.seats.filter((s) => s.kind === "open").length;
    return `Waiting for ${open} more player${open === 1 ? "" : "s"} — share the invite link.`;
  }
  if (view.status === "over") return "Game over.";
  const moving = toMove(view);
  if (!moving.length) return "";
  if (moving.length === 1 && !simultaneous(view)) {
    const [i] = moving;
    return i === mySeat ? "Your turn." : `${seatLabel(view.seats[i], i)} to play.`;
  }
  if (mySeat !== null && moving.includes(mySeat)) return "Your choice.";
  const names = moving.map((i) => seatLabel(view.seats[i], i)).join(", ");
  return `Waiting for ${moving.length} player${moving.length === 1 ? "" : "s"}: ${names}.`;
}

export function renderStatus(view, mySeat, game) {
  const el = $("status");
  const moving = toMove(view);
  el.textContent = statusText(view, mySeat);
  el.classList.toggle("mine", mySeat !== null && moving.includes(mySeat));
  const marked = moving.includes(mySeat) ? mySeat : moving.length === 1 ? moving[0] : null;
  el.style.setProperty("--turn", marked !== null ? seatColour(game, marked) : "transparent");
}

export function renderScores(view, mySeat, game) {
  // After the game the final results say it all, best first.
  const table = $("scores");
  table.hidden = view.status === "over";
  const body = table.tBodies[0];
  body.replaceChildren();
  const moving = toMove(view);
  const choosing = view.status === "playing" && simultaneous(view);
  view.seats.forEach((seat, i) => {
    const tr = body.insertRow();
    tr.dataset.seat = String(i);
    if (moving.includes(i)) tr.classList.add("turn");
    const who = tr.insertCell();
    who.className = "who";
    const inner = document.createElement("span");
    inner.className = "who-inner";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seatLabel(seat, i) + (i === mySeat ? " (you)" : "");
    inner.append(swatch(game, i), name);
    who.append(inner);
    const kind = tr.insertCell();
    kind.className = "kind";
    kind.textContent = seat.kind === "ai" ? `AI · ${seat.level || "?"}` : seat.kind === "open" ? "invite" : "human";
    if (choosing) {
      const choice = tr.insertCell();
      choice.className = "choice";
      if (seat.chosen === true) {
        choice.textContent = "chosen ✓";
        tr.classList.add("chosen");
      } else if (moving.includes(i)) {
        choice.textContent = "choosing…";
      }
    }
    const score = tr.insertCell();
    score.className = "score";
    score.textContent = String(seat.score ?? 0);
  });
}

/** Final scores, best first, winners marked. */
export function renderFinal(view, mySeat, game) {
  const winners = new Set(view.winners || []);
  const order = view.seats.map((s, i) => i).sort((a, b) => (view.seats[b].score ?? 0) - (view.seats[a].score ?? 0));
  const ol = $("final-scores");
  ol.replaceChildren();
  for (const i of order) {
    const li = document.createElement("li");
    li.dataset.seat = String(i);
    if (winners.has(i)) li.classList.add("winner");
    li.append(swatch(game, i));
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
