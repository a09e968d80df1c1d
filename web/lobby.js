// The lobby: create a game (2–6 seats, each you / open / AI with a level; the variants),
// and list open games to join. The engine allows one human seat at creation, the creator's:
// every other person takes an open seat with the invite link, with a token of their own.

import { api, rememberName, savedName, saveSeat } from "./api.js";

export const AI_LEVELS = ["random", "easy", "medium", "hard", "expert"];
const MAX_SEATS = 6;
const MIN_SEATS = 2;

const $ = (id) => document.getElementById(id);

export function initLobby(go) {
  const list = $("seat-list");
  const name = $("your-name");
  name.value = savedName();
  addSeatRow(list, "you");
  addSeatRow(list, "ai", "medium");
  $("add-seat").addEventListener("click", () => {
    addSeatRow(list, "open");
    syncSeatButtons(list);
  });
  syncSeatButtons(list);
  $("create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    create(go);
  });
  $("refresh-open").addEventListener("click", () => refreshOpen(go));
}

export function showLobby(go) {
  refreshOpen(go);
}

function addSeatRow(list, kind, level = "medium") {
  const li = document.createElement("li");
  li.className = "seat-row";
  const badge = document.createElement("span");
  badge.className = "seat-badge";
  const kindSelect = document.createElement("select");
  kindSelect.className = "seat-kind";
  kindSelect.setAttribute("aria-label", "Player kind");
  const kinds = [["you", "You"], ["open", "Open seat — invite"], ["ai", "AI"]];
  for (const [value, label] of kinds) kindSelect.add(new Option(label, value, false, value === kind));
  const levelSelect = document.createElement("select");
  levelSelect.className = "seat-level";
  levelSelect.setAttribute("aria-label", "AI level");
  for (const l of AI_LEVELS) levelSelect.add(new Option(l, l, false, l === level));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove-seat";
  remove.textContent = "×";
  remove.title = "Remove this player";
  remove.addEventListener("click", () => {
    li.remove();
    syncSeatButtons(list);
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

const COLOURS = ["yellow", "blue", "orange", "green", "purple", "black"];

function syncSeatButtons(list) {
  const n = list.children.length;
  [...list.children].forEach((li, i) => {
    const badge = li.querySelector(".seat-badge");
    badge.textContent = String(i + 1);
    badge.dataset.colour = COLOURS[i];
    badge.title = `Player ${i + 1}: ${COLOURS[i]}`;
  });
  $("add-seat").disabled = n >= MAX_SEATS;
  for (const b of list.querySelectorAll(".remove-seat")) b.disabled = n <= MIN_SEATS;
}

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
  const rules = {
    players: seats.length,
    rotation: $("opt-rotation").checked,
    hand_size: Number($("opt-hand").value),
    online: $("opt-online").checked,
  };
  const playing = rows.some((li) => li.querySelector(".seat-kind").value === "you");
  return { you, playing, body: { game: "metro", rules, seats } };
}

async function create(go) {
  const error = $("create-error");
  error.textContent = "";
  const { you, playing, body } = formBody();
  if (playing && !you) {
    error.textContent = "Please enter your name.";
    $("your-name").focus();
    return;
  }
  const button = $("create-button");
  button.disabled = true;
  try {
    const made = await api.create(body);
    if (you) rememberName(you);
    if (made.token) saveSeat(made.game_id, made.seat, made.token);
    go(made.game_id);
  } catch (err) {
    error.textContent = err.message;
  } finally {
    button.disabled = false;
  }
}

async function refreshOpen(go) {
  const ul = $("open-list");
  const error = $("open-error");
  error.textContent = "";
  let games;
  try {
    games = (await api.listOpen()).games || [];
  } catch (err) {
    error.textContent = err.message;
    return;
  }
  ul.replaceChildren();
  if (!games.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = "No open games right now — create one and share its link.";
    ul.appendChild(li);
    return;
  }
  for (const game of games) ul.appendChild(openGameItem(game, go));
}

function openGameItem(game, go) {
  const li = document.createElement("li");
  const seats = game.seats || [];
  const who = seats
    .map((s) => (s.kind === "open" ? "open" : s.kind === "ai" ? `AI ${s.level || ""}`.trim() : s.name || "human"))
    .join(" · ");
  const rules = game.rules || {};
  const variants = [rules.rotation && "rotation", rules.online && "online", rules.hand_size > 1 && `hand ${rules.hand_size}`]
    .filter(Boolean)
    .join(", ");
  const text = document.createElement("div");
  text.className = "open-text";
  const title = document.createElement("strong");
  title.textContent = `${seats.length} players`;
  const detail = document.createElement("span");
  detail.textContent = `${who}${variants ? " — " + variants : ""}`;
  text.append(title, detail);
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Open";
  button.addEventListener("click", () => go(game.game_id));
  li.append(text, button);
  return li;
}
