// The lobby, built from the catalogue (GET /api/meta): pick a game, fill in its seats (each you /
// open / AI with a level, as many as the game's players range allows) and its options (rendered
// from the game's option specs), and list open games to join. The engine allows one human seat at
// creation, the creator's: every other person takes an open seat with the invite link.
// The option controls are optionform.js's; the "My games" card is mygames.js's.

import { clockForm } from "./clock.js";
import { api, markCreated, rememberName, savedName, saveSeat } from "./api.js";
import { formatNumber, t } from "./i18n.js";
import { defaultLevel, loadMeta, seatColour, textOn } from "./meta.js";
import { levelDescription, levelName, plainError } from "./panel.js";
import { learnHref } from "./learn.js";
import { gameGallery, markPickedGame } from "./gallery.js";
import { drawOptions, optionSummary, PLAYERS_OPTION } from "./optionform.js";
import { refreshMine as refreshMyGames, seatName } from "./mygames.js";
import { gameName, optionText } from "./words.js";

const $ = (id) => document.getElementById(id);

let games = [];
let current = null; // the picked game's meta entry
let optionReaders = []; // per rendered option: () => [name, value | undefined]

export async function initLobby(go) {
  $("your-name").value = savedName();
  $("add-seat").addEventListener("click", () => {
    addSeatRow("open");
    syncSeats();
  });
  $("create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    create(go);
  });
  $("refresh-open").addEventListener("click", () => refreshOpen(go));
  $("game-pick").addEventListener("change", () => pickGame($("game-pick").value));
  window.addEventListener("metro:player", () => {
    if (!$("lobby").hidden) refreshMine(go);
  });
  await ensureCatalogue();
}

// ---- the form across a language switch (issue 19.7) ------------------------------------------
// A language switch reloads the page; the form as it was (the game, the name, the seats, the
// options) is kept for that one reload in sessionStorage and put back once the catalogue is in.

const DRAFT_KEY = "lobby.draft";

/** Keep the form as it is now, for the reload that follows (app.js calls it on a switch). */
export function keepDraft() {
  if (!current || $("lobby").hidden) return;
  const seats = [...$("seat-list").children].map((li) => ({
    kind: li.querySelector(".seat-kind").value,
    level: li.querySelector(".seat-level").value,
  }));
  const options = {};
  for (const el of $("options").querySelectorAll("input, select")) {
    options[el.name] = el.type === "checkbox" ? el.checked : el.value;
  }
  const draft = { game: current.game, name: $("your-name").value, seats, options, rated: $("rated-pick").checked };
  try {
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
  } catch {
    /* no storage: the form starts afresh */
  }
}

/** The kept form, once (null when there is none or it does not parse). */
function takeDraft() {
  try {
    const raw = sessionStorage.getItem(DRAFT_KEY);
    sessionStorage.removeItem(DRAFT_KEY);
    const draft = raw ? JSON.parse(raw) : null;
    return draft && typeof draft === "object" ? draft : null;
  } catch {
    return null;
  }
}

function restoreDraft(draft) {
  if (!games.some((g) => g.game === draft.game)) return;
  const list = $("seat-list");
  list.replaceChildren();
  const seats = Array.isArray(draft.seats) ? draft.seats : [];
  for (const seat of seats) {
    addSeatRow(["you", "open", "ai"].includes(seat?.kind) ? seat.kind : "open");
    if (seat?.kind === "ai") fillLevels(list.lastElementChild.querySelector(".seat-level"), seat.level);
  }
  pickGame(draft.game); // keeps the seat rows that fit the game's range
  if (typeof draft.name === "string") $("your-name").value = draft.name.slice(0, 24);
  for (const [name, value] of Object.entries(draft.options || {})) {
    const el = document.getElementById(`opt-${name}`);
    if (!el) continue;
    if (el.type === "checkbox") el.checked = value === true;
    else if (typeof value === "string" && (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === value))) el.value = value;
  }
  $("rated-pick").checked = draft.rated === true;
}

let mineTimer = null;

export function showLobby(go) {
  ensureCatalogue();
  refreshOpen(go);
  refreshMine(go);
  clearInterval(mineTimer);
  // While the lobby is shown, whose turn it is in my games keeps up (slowly).
  mineTimer = setInterval(() => {
    if ($("lobby").hidden) clearInterval(mineTimer);
    else refreshMine(go);
  }, 15000);
}

let catalogue = null;

/** The game picker filled once; tried again on the next visit of the lobby after a failure. */
function ensureCatalogue() {
  if (!catalogue) {
    catalogue = loadCatalogue().then((ok) => {
      if (!ok) catalogue = null;
    });
  }
  return catalogue;
}

async function loadCatalogue() {
  const error = $("create-error");
  let meta;
  try {
    meta = await loadMeta();
  } catch (err) {
    error.textContent = t("lobby.catalogue_failed");
    $("create-button").disabled = true;
    return false;
  }
  games = meta.games || [];
  error.textContent = "";
  $("create-button").disabled = !games.length;
  const pick = $("game-pick");
  pick.replaceChildren();
  for (const g of games) pick.add(new Option(gameName(g.game), g.game));
  gameGallery(pick, games, (kind) => pickGame(kind)); // (issue 35)
  if (games.length) pickGame(games[0].game);
  const draft = takeDraft();
  if (draft) restoreDraft(draft);
  return true;
}

/** Show `kind`'s description, options and seat range; keep the seat rows that still fit. */
let readClock = null; // the clock part of the create form (clock.js)

function pickGame(kind) {
  current = games.find((g) => g.game === kind) || games[0];
  $("game-pick").value = current.game;
  markPickedGame(current.game);
  $("game-description").textContent = optionText(current.game, "description");
  const learnLink = $("learn-link");
  learnLink.href = learnHref(current.game);
  learnLink.textContent = t("learn.link_game", { game: gameName(current.game) });
  const [min, max] = playersRange(current);
  $("seat-range").textContent = min === max ? t("lobby.range_one", { min }) : t("lobby.range", { min, max });
  const list = $("seat-list");
  if (!list.children.length) {
    const players = (current.options || []).find((o) => o.name === PLAYERS_OPTION);
    const want = Math.max(min, Math.min(max, Number(players?.default) || min || 2));
    addSeatRow("you");
    for (let i = 1; i < want; i++) addSeatRow("ai");
  }
  while (list.children.length > max) list.lastElementChild.remove();
  while (list.children.length < min) addSeatRow("open");
  for (const select of list.querySelectorAll(".seat-level")) fillLevels(select, select.value);
  optionReaders = drawOptions($("options"), current);
  $("options-box").hidden = !optionReaders.length;
  readClock = clockForm($("clock-box"), (current.levels || []).map((l) => [l.name, levelName(l.name)]));
  syncSeats();
}

function playersRange(game) {
  const [min, max] = game?.players || [1, 1];
  return [Math.max(1, Number(min) || 1), Math.max(1, Number(max) || Number(min) || 1)];
}

function fillLevels(select, wanted) {
  const levels = current?.levels || [];
  const keep = levels.some((l) => l.name === wanted) ? wanted : defaultLevel(levels);
  select.replaceChildren();
  for (const l of levels) {
    const option = new Option(levelName(l.name), l.name, false, l.name === keep);
    const about = levelDescription(l.name);
    if (about) option.title = about;
    select.add(option);
  }
}

function addSeatRow(kind) {
  const list = $("seat-list");
  const li = document.createElement("li");
  li.className = "seat-row";
  const badge = document.createElement("span");
  badge.className = "seat-badge";
  const kindSelect = document.createElement("select");
  kindSelect.className = "seat-kind";
  kindSelect.setAttribute("aria-label", t("lobby.seat_kind"));
  const kinds = [["you", t("lobby.kind_you")], ["open", t("lobby.kind_open")], ["ai", t("lobby.kind_ai")]];
  for (const [value, label] of kinds) kindSelect.add(new Option(label, value, false, value === kind));
  const levelSelect = document.createElement("select");
  levelSelect.className = "seat-level";
  levelSelect.setAttribute("aria-label", t("hint.level"));
  fillLevels(levelSelect, "");
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove-seat";
  remove.textContent = "×";
  remove.title = t("lobby.remove_player");
  remove.setAttribute("aria-label", t("lobby.remove_player"));
  remove.addEventListener("click", () => {
    li.remove();
    syncSeats();
  });
  const sync = () => {
    levelSelect.hidden = kindSelect.value !== "ai";
  };
  kindSelect.addEventListener("change", () => {
    // only one seat can be "you": picking it elsewhere turns the old one into an open seat
    if (kindSelect.value === "you") {
      for (const other of list.querySelectorAll(".seat-kind")) {
        if (other !== kindSelect && other.value === "you") {
          other.value = "open";
          other.dispatchEvent(new Event("change"));
        }
      }
    }
    sync();
  });
  sync();
  li.append(badge, kindSelect, levelSelect, remove);
  list.appendChild(li);
}

function syncSeats() {
  const list = $("seat-list");
  const n = list.children.length;
  const [min, max] = playersRange(current);
  [...list.children].forEach((li, i) => {
    const badge = li.querySelector(".seat-badge");
    const colour = seatColour(current, i);
    badge.textContent = formatNumber(i + 1);
    badge.style.background = colour;
    badge.style.color = textOn(colour);
    badge.title = t("seat.player", { n: i + 1 });
  });
  $("add-seat").disabled = n >= max;
  for (const b of list.querySelectorAll(".remove-seat")) b.disabled = n <= min;
}

// ---- creating --------------------------------------------------------------------------------

/** The POST /api/games body from the form. */
function formBody() {
  const you = $("your-name").value.trim();
  const rows = [...$("seat-list").children];
  const seats = rows.map((li) => {
    const kind = li.querySelector(".seat-kind").value;
    if (kind === "you") return { kind: "human", name: you };
    if (kind === "ai") return { kind: "ai", level: li.querySelector(".seat-level").value };
    return { kind: "open" };
  });
  const rules = {};
  if ((current.options || []).some((o) => o.name === PLAYERS_OPTION)) rules[PLAYERS_OPTION] = seats.length;
  for (const read of optionReaders) {
    const [name, value] = read();
    if (value !== undefined) rules[name] = value;
  }
  const playing = rows.some((li) => li.querySelector(".seat-kind").value === "you");
  const clock = readClock?.();
  return { you, playing, body: { game: current.game, rules, seats, ...(clock ? { clock } : {}) } };
}

async function create(go) {
  const error = $("create-error");
  error.textContent = "";
  if (!current) return;
  const { you, playing, body } = formBody();
  if (playing && !you) {
    error.textContent = t("lobby.name_needed");
    $("your-name").focus();
    return;
  }
  const button = $("create-button");
  button.disabled = true;
  try {
    const made = await api.create(body);
    if (you) rememberName(you);
    markCreated(made.game_id);
    if (made.token) saveSeat(made.game_id, made.seat, made.token);
    go(made.game_id);
  } catch (err) {
    error.textContent = plainError(err, null, null)[0];
  } finally {
    button.disabled = false;
  }
}

// ---- open games ------------------------------------------------------------------------------

async function refreshOpen(go) {
  const ul = $("open-list");
  const error = $("open-error");
  error.textContent = "";
  let open;
  try {
    [open] = await Promise.all([api.listOpen().then((r) => r.games || []), ensureCatalogue()]);
  } catch (err) {
    error.textContent = plainError(err, null, null)[0];
    return;
  }
  ul.replaceChildren();
  if (!open.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = t("lobby.no_open");
    ul.appendChild(li);
    return;
  }
  for (const game of open) ul.appendChild(openGameItem(game, go));
}

function openGameItem(game, go) {
  const entry = games.find((g) => g.game === game.game);
  const li = document.createElement("li");
  li.dataset.game = game.game || "";
  const seats = game.seats || [];
  const who = seats
    .map((s, i) => seatName(s, i))
    .join(" · ");
  const options = optionSummary(entry, game.rules);
  const text = document.createElement("div");
  text.className = "open-text";
  const title = document.createElement("strong");
  const name = entry ? gameName(entry.game) : t("lobby.a_game");
  title.textContent = t("lobby.open_title", { name, count: seats.length });
  const detail = document.createElement("span");
  detail.textContent = options ? t("lobby.open_detail", { who, options }) : who;
  text.append(title, detail);
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = t("lobby.open");
  button.setAttribute("aria-label", t("lobby.open_label", { action: t("lobby.open"), name, words: who }));
  button.addEventListener("click", () => go(game.game_id));
  li.append(text, button);
  return li;
}


// ---- my games (mygames.js) -------------------------------------------------------------------

/** Redraw "My games", its games named from the catalogue once that is in. */
function refreshMine(go) {
  return refreshMyGames(go, async () => {
    await ensureCatalogue();
    return games;
  });
}
