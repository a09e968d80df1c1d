// The side panel's read-only parts: status line, score table, final results. Pure rendering from
// a view's common fields (seats, to_move, status, winners) and the game's meta (seat colours), so
// the controller only decides *when* to call them. No game's own fields are read here.

import { seatGlyph } from "./dom.js";
import { seatColour, textOn } from "./meta.js";

const $ = (id) => document.getElementById(id);

export function seatLabel(seat, i) {
  if (!seat) return `Seat ${i + 1}`;
  if (seat.kind === "open") return "Open seat";
  if (seat.kind === "ai") return seat.name || `AI ${seat.level || ""}`.trim();
  return seat.name || `Player ${i + 1}`;
}

/** A seat's colour with its symbol on it: colour is never the only way to tell seats apart. */
function swatch(game, i) {
  const s = document.createElement("span");
  s.className = "swatch";
  s.style.background = seatColour(game, i);
  s.style.color = textOn(seatColour(game, i));
  s.textContent = seatGlyph(i);
  s.setAttribute("aria-hidden", "true");
  return s;
}

const toMove = (view) => (view.status === "playing" ? view.to_move || [] : []);

/** Whether seats choose at once (the view marks each seat's `chosen`). */
export const simultaneous = (view) => (view.seats || []).some((s) => s && "chosen" in s);

/** One sentence on what is happening, from the point of view of `mySeat` (null: spectator).
 *  `creator`: this browser created the game (only its creator is asked to share the invite). */
export function statusText(view, mySeat, creator = false) {
  if (view.status === "waiting") {
    const open = view.seats.filter((s) => s.kind === "open").length;
    const more = `Waiting for ${open} more player${open === 1 ? "" : "s"}`;
    if (creator) return `${more} — share the invite link.`;
    if (mySeat !== null && mySeat !== undefined) return `${more} to join. The game starts when every seat is taken.`;
    return `${more} to join.`;
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

// ---- messages for players --------------------------------------------------------------------

// A rule-file reference as the engine writes it: "(RULES.md §6(b))", "RULES-UNDERGROUND.md §3".
const RULE_REF = /\s*\(\s*RULES[\w-]*\.md[^()]*(?:\([^()]*\)[^()]*)*\)|\s*\bRULES[\w-]*\.md(?:\s*§\s*[\w.]+(?:\([\w]+\))?)?/g;

/** `text` without rule-file references: [plain text, the references removed (for a tooltip)]. */
export function withoutRuleRefs(text) {
  const refs = [];
  const plain = String(text || "").replace(RULE_REF, (m) => {
    refs.push(m.trim().replace(/^\(|\)$/g, ""));
    return "";
  });
  return [plain.replace(/\s+([.,;:])/g, "$1").replace(/\s{2,}/g, " ").trim(), refs];
}

/** A sentence: a capital first letter and a full stop. */
function sentence(text) {
  const t = String(text || "").trim();
  if (!t) return "";
  const first = t[0].toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/** The name the page shows for seat `i` of `view` (the engine's seats count from 0). */
function nameOf(view, i) {
  return seatLabel(view?.seats?.[i], i);
}

/** Whose turn it is, in words, for a refusal: "It is Ada's turn." / "The game is over." */
export function turnSentence(view, mySeat) {
  if (!view) return "";
  if (view.status === "waiting") return "The game has not started yet: it starts when every seat is taken.";
  if (view.status === "over") return "The game is over.";
  const moving = toMove(view).filter((i) => i !== mySeat);
  if (!moving.length) return "";
  const names = moving.map((i) => nameOf(view, i));
  if (names.length === 1) return `It is ${names[0]}'s turn, not yours.`;
  return `It is not your turn: waiting for ${names.join(", ")}.`;
}

/** A server's refusal `err` ({status, code, message, rule}) as plain words for a player:
 *  [text, tooltip]. Seats are named by name, rule-file references go to the tooltip. */
export function plainError(err, view, mySeat) {
  const code = err?.code || "";
  if (code === "version_conflict") {
    return ["Someone moved first — the board is updated.", ""];
  }
  const [plain, refs] = withoutRuleRefs(err?.message || "");
  if (err?.rule && !refs.includes(err.rule)) refs.push(err.rule);
  const tip = refs.length ? `Rule: ${refs.join("; ")}` : "";
  if (code === "not_your_turn") return [turnSentence(view, mySeat) || "It is not your turn.", tip];
  if (code === "game_not_found") return ["This game no longer exists.", ""];
  if (code === "network") return [err.message, ""];
  // "seat 1's" / "seat 1" (counted from 0) -> the player's name
  const named = plain.replace(/\bseat (\d+)('s)?(?=(\s+\w)?)/gi, (m, n, s, noun) => {
    const i = Number(n);
    if (!view?.seats?.[i]) return m;
    if (i !== mySeat) return `${nameOf(view, i)}${s || ""}`;
    return s ? (noun ? "your" : "yours") : "you";
  });
  // squares as the engine writes them, "(2,5)" counted from 0, as a player counts them
  const squares = named.replace(/\bsquare \((\d+),\s*(\d+)\)/gi, (m, r, c) => `the square in row ${Number(r) + 1}, column ${Number(c) + 1}`);
  const words = squares.replace(/^invalid (\w+): /i, "");
  return [sentence(words) || "The move was refused.", tip];
}

export function renderStatus(view, mySeat, game, creator = false) {
  const el = $("status");
  const moving = toMove(view);
  el.textContent = statusText(view, mySeat, creator);
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
  table.classList.toggle("choosing", choosing);
  const head = table.tHead || table.createTHead();
  head.replaceChildren();
  const hr = head.insertRow();
  for (const [text, cls] of [["Player", "who"], ["Kind", "kind"], ...(choosing ? [["Choice", "choice"]] : []), ["Score", "score"]]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.className = cls;
    th.textContent = text;
    hr.append(th);
  }
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
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = seatLabel(seat, i);
    name.append(label);
    if (i === mySeat) {
      const you = document.createElement("span");
      you.className = "you";
      you.textContent = " (you)";
      name.append(you);
    }
    if (moving.includes(i)) {
      const mark = document.createElement("span");
      mark.className = "turn-mark";
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = " ◀";
      name.append(mark);
    }
    name.title = seatLabel(seat, i);
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
