// The side panel's read-only parts: status line, score table, final results. Pure rendering from
// a view's common fields (seats, to_move, status, winners) and the game's meta (seat colours), so
// the controller only decides *when* to call them. No game's own fields are read here.

import { clockCell, hasClock } from "./clock.js";
import { seatGlyph } from "./dom.js";
import { formatList, formatNumber, has, t } from "./i18n.js";
import { seatColour, textOn } from "./meta.js";
import { fieldErrorWords, paramWords } from "./words.js";

const $ = (id) => document.getElementById(id);

/** An AI level's name for people: "medium" -> "közepes"; "mcts-500" -> "search 500". */
export function levelName(level) {
  const name = String(level || "");
  if (has(`level.${name}`)) return t(`level.${name}`);
  const m = /^mcts-(\d+)$/.exec(name);
  return m ? t("level.mcts", { n: Number(m[1]) }) : name;
}

/** What a level does, in words (the level picker's tooltip). */
export function levelDescription(level) {
  return has(`level.${level}.description`) ? t(`level.${level}.description`) : "";
}

export function seatLabel(seat, i) {
  if (!seat) return t("seat.numbered", { n: i + 1 });
  if (seat.kind === "open") return t("seat.open");
  if (seat.kind === "ai") {
    // "AI 2" is the engine's own name for an unnamed AI seat: said in the page's language
    const engineName = /^AI (\d+)$/.exec(seat.name || "");
    if (engineName) return t("seat.ai_numbered", { n: Number(engineName[1]) });
    return seat.name || t("seat.ai", { level: levelName(seat.level) });
  }
  return seat.name || t("seat.player", { n: i + 1 });
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
 *  `creator`: this browser created the game (only its creator is asked to share the invite).
 *  `party`: a party table (party.js), which its host starts: how many have joined, not how many
 *  seats are still open. */
export function statusText(view, mySeat, creator = false, party = false) {
  if (view.status === "waiting" && party) {
    return t("status.party_waiting", { count: view.seats.filter((s) => s.kind !== "open").length });
  }
  if (view.status === "waiting") {
    const count = view.seats.filter((s) => s.kind === "open").length;
    if (creator) return t("status.waiting_share", { count });
    if (mySeat !== null && mySeat !== undefined) return t("status.waiting_seated", { count });
    return t("status.waiting", { count });
  }
  if (view.status === "over") return t("status.over");
  const moving = toMove(view);
  if (!moving.length) return "";
  if (moving.length === 1 && !simultaneous(view)) {
    const [i] = moving;
    return i === mySeat ? t("status.your_turn") : t("status.to_play", { name: seatLabel(view.seats[i], i) });
  }
  if (mySeat !== null && moving.includes(mySeat)) return t("status.your_choice");
  const names = formatList(moving.map((i) => seatLabel(view.seats[i], i)));
  return t("status.waiting_for", { count: moving.length, names });
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
  if (view.status === "waiting") return t("turn.not_started");
  if (view.status === "over") return t("turn.over");
  const moving = toMove(view).filter((i) => i !== mySeat);
  if (!moving.length) return "";
  const names = moving.map((i) => nameOf(view, i));
  if (names.length === 1) return t("turn.theirs", { name: names[0] });
  return t("turn.waiting_for", { names: formatList(names) });
}

// Error codes (API.md's `code`) the page words itself; any other is shown with the server's
// sentence inside "error.server_said".
const WORDED_CODES = new Set([
  "network", "game_not_found", "game_over", "no_open_seat", "rate_limited", "busy", "unavailable",
  "deadline_exceeded", "storage_full", "backend_error", "internal_error", "permission_denied",
  "hints_off", "limits_unavailable",
]);

/** The catalogue key of a rule refusal code: "metro.square_taken" -> "metro.refusal.square_taken"
 *  (the game's own catalogue), "game_over" -> "refusal.game_over" (the shell's). */
export function refusalKey(refusal) {
  const code = String(refusal || "");
  const dot = code.indexOf(".");
  return dot < 0 ? `refusal.${code}` : `${code.slice(0, dot)}.refusal.${code.slice(dot + 1)}`;
}

/** A refusal's parameters for the catalogue's sentence (the game sends rows and columns
 *  counted from 1, names as its board shows them): seats become names ("you" for the viewer),
 *  and a value the game's catalogue has a word for, "<kind>.<param>.<value>" (a line's colour:
 *  "underground.colour.red"), is said in that word. */
function refusalParams(refusal, params, view, mySeat) {
  const dot = String(refusal || "").indexOf(".");
  const kind = dot < 0 ? "" : refusal.slice(0, dot);
  const out = { ...(params || {}) };
  for (const [k, v] of Object.entries(out)) {
    if (k === "seat" || k.endsWith("_seat")) {
      out[k] = v === mySeat ? t("refusal.you") : nameOf(view, Number(v));
    } else if (kind && typeof v === "string" && paramWords(kind, k, v) !== null) {
      out[k] = paramWords(kind, k, v); // a game's own value (a tile, a card) in words
    } else if (kind && typeof v === "string" && has(`${kind}.${k}.${v}`)) {
      out[k] = t(`${kind}.${k}.${v}`);
    }
  }
  return out;
}

/** A server's refusal `err` ({status, code, message, rule, refusal, params}) as plain words for a
 *  player, in the page's language: [text, tooltip]. A rule refusal is the catalogue's sentence
 *  for its `refusal` code; rule-file references go to the tooltip. */
export function plainError(err, view, mySeat) {
  const code = err?.code || "";
  if (code === "version_conflict") return [t("error.version_conflict"), ""];
  const [, refs] = withoutRuleRefs(err?.message || "");
  if (err?.rule && !refs.includes(err.rule)) refs.push(err.rule);
  const tip = refs.length ? t("error.rule_tip", { rule: refs.join("; ") }) : "";
  if (code === "not_your_turn" && err?.refusal !== "game_over") {
    return [turnSentence(view, mySeat) || t("turn.not_yours"), tip];
  }
  if (err?.refusal && has(refusalKey(err.refusal))) {
    return [t(refusalKey(err.refusal), refusalParams(err.refusal, err.params, view, mySeat)), tip];
  }
  if (WORDED_CODES.has(code)) return [t(`error.${code}`), ""];
  const fieldWords = fieldErrorWords(err);
  if (fieldWords) return [fieldWords, ""];
  const words = sentence(englishWords(withoutRuleRefs(err?.message || "")[0], view, mySeat));
  return [words ? t("error.server_said", { message: words }) : t("error.refused"), tip];
}

/** A server sentence that came without a refusal code (the API's English), with the engine's
 *  seat numbers and squares as a player reads them: "seat 1's" -> "Bob's", "(2,5)" -> row 3. */
function englishWords(plain, view, mySeat) {
  const named = plain.replace(/\bseat (\d+)('s)?(?=(\s+\w)?)/gi, (m, n, s, noun) => {
    const i = Number(n);
    if (!view?.seats?.[i]) return m;
    if (i !== mySeat) return `${nameOf(view, i)}${s || ""}`;
    return s ? (noun ? "your" : "yours") : "you";
  });
  // i18n-ok: rewords the API's English sentence, shown only for an error without a refusal code
  const squares = named.replace(/\bsquare \((\d+),\s*(\d+)\)/gi, (m, r, c) => `the square in row ${Number(r) + 1}, column ${Number(c) + 1}`); // i18n-ok
  return squares.replace(/^invalid (\w+): /i, "");
}

export function renderStatus(view, mySeat, game, creator = false, party = false) {
  const el = $("status");
  const moving = toMove(view);
  el.textContent = statusText(view, mySeat, creator, party);
  el.classList.toggle("mine", mySeat !== null && moving.includes(mySeat));
  el.classList.toggle("over", view.status === "over"); // unpinned: it covered the replay buttons (issue 35)
  const marked = moving.includes(mySeat) ? mySeat : moving.length === 1 ? moving[0] : null;
  el.style.setProperty("--turn", marked !== null ? seatColour(game, marked) : "transparent");
}

/** Seat `i`'s score: from `scores` (a replay position's, one number per seat) when given. */
function scoreOf(seat, i, scores) {
  const v = Array.isArray(scores) ? scores[i] : undefined;
  return typeof v === "number" && Number.isFinite(v) ? v : seat.score ?? 0;
}

/** The score table. `scores`: the seats' scores at a replay position (the table then follows the
 *  replay, and stays shown after the game), else the view's. `party`: a party table, whose open
 *  seats (dozens, never all taken) are not listed. */
export function renderScores(view, mySeat, game, scores = null, party = false) {
  // After the game the final results say it all, best first.
  const table = $("scores");
  table.hidden = view.status === "over" && !scores;
  const body = table.tBodies[0];
  body.replaceChildren();
  const moving = toMove(view);
  const choosing = view.status === "playing" && simultaneous(view);
  table.classList.toggle("choosing", choosing);
  const head = table.tHead || table.createTHead();
  head.replaceChildren();
  const hr = head.insertRow();
  const timed = hasClock(view);
  for (const [text, cls] of [[t("scores.player"), "who"], ...(choosing ? [[t("scores.choice"), "choice"]] : []), ...(timed ? [[t("clock.time"), "clock"]] : []), [t("scores.score"), "score"]]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.className = cls;
    th.textContent = text;
    hr.append(th);
  }
  view.seats.forEach((seat, i) => {
    if (party && seat.kind === "open") return;
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
    if (seat.bot) {
      const bot = document.createElement("span");
      bot.className = "bot-badge";
      bot.textContent = t("seat.bot_badge");
      name.append(bot);
    }
    if (i === mySeat) {
      const you = document.createElement("span");
      you.className = "you";
      you.textContent = ` ${t("seat.you_mark")}`;
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
    // What the seat is (human, AI and its level, invite) on a line under the name, not in a
    // column of its own: the table then fits its panel with a clock and a choice column.
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = seat.kind === "ai" ? t("scores.kind_ai", { level: levelName(seat.level) }) : seat.kind === "open" ? t("scores.kind_open") : t("scores.kind_human");
    who.append(inner, kind);
    if (moving.includes(i)) {
      // the arrow is for the eye; a screen reader hears whose turn it is in words
      const said = document.createElement("span");
      said.className = "visually-hidden turn-note";
      said.textContent = `, ${t("scores.turn_note")}`;
      who.append(said);
    }
    if (choosing) {
      const choice = tr.insertCell();
      choice.className = "choice";
      if (seat.chosen === true) {
        choice.textContent = t("scores.chosen");
        tr.classList.add("chosen");
      } else if (moving.includes(i)) {
        choice.textContent = t("scores.choosing");
      }
      // The same words under the name, shown instead of the column on a phone (style.css): the
      // column took the name's room there, and names were cut to "P…" (issue 35).
      if (choice.textContent) {
        const inline = document.createElement("span");
        inline.className = "choice-inline";
        inline.textContent = ` · ${choice.textContent}`;
        kind.append(inline);
      }
    }
    if (timed) clockCell(tr.insertCell(), seat);
    const score = tr.insertCell();
    score.className = "score";
    score.textContent = formatNumber(scoreOf(seat, i, scores));
  });
}

/** Final scores, best first, winners marked. */
export function renderFinal(view, mySeat, game) {
  const winners = new Set(view.winners || []);
  const order = view.seats.map((s, i) => i).sort((a, b) => (view.seats[b].score ?? 0) - (view.seats[a].score ?? 0));
  const ol = $("final-scores");
  ol.replaceChildren();
  // A game of one seat (a daily puzzle attempt) has nobody to beat: its score, not "You win!".
  const solo = view.seats.length === 1;
  for (const i of order) {
    const li = document.createElement("li");
    li.dataset.seat = String(i);
    if (winners.has(i)) li.classList.add("winner");
    li.append(swatch(game, i));
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seatLabel(view.seats[i], i) + (i === mySeat ? ` ${t("seat.you_mark")}` : "");
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = formatNumber(view.seats[i].score ?? 0);
    li.append(name, score);
    if (winners.has(i) && !solo) {
      const cup = document.createElement("span");
      cup.className = "cup";
      cup.textContent = "★";
      cup.title = t("final.winner");
      li.append(cup);
    }
    ol.appendChild(li);
  }
  const title = $("result-title");
  if (solo) title.textContent = t("final.solo", { count: view.seats[0].score ?? 0 });
  else if (mySeat !== null && winners.has(mySeat)) title.textContent = winners.size > 1 ? t("final.you_share") : t("final.you_win");
  else if (winners.size) {
    const names = formatList([...winners].map((i) => seatLabel(view.seats[i], i)));
    title.textContent = t("final.they_win", { count: winners.size, names });
  } else title.textContent = t("status.over");
  if (view.ended === "abort") title.textContent = t("offer.ended_abort"); // agreed: no result
}
