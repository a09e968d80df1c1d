// A player's profile (#/player/<id>, issue 29): name and bot mark, per game kind the games, wins,
// mean score and rating, the rating's history drawn as an SVG graph with axes, and the finished
// games newest first with filters (game, result) and a "More" button (the API's cursor: pages stay
// put while new games arrive). Every player name on the page links here (playerLink).

import { call } from "./api.js";
import { ensureStylesheet, html } from "./dom.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { levelName, plainError } from "./panel.js";
import { gameName } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
const PAGE = 20;
const GRAPH = { width: 560, height: 220, left: 48, right: 12, top: 12, bottom: 32 };

let round = 0;
let shown = null; // {id, profile, filters, next}

/** The address of a player's profile. */
export const profileHash = (playerId) => `#/player/${encodeURIComponent(playerId)}`;

/** The player id a #/player/<id> address names; null for another address. */
export function profileAddress(hash) {
  const found = /^#\/player\/([A-Za-z0-9_-]{1,64})$/.exec(hash);
  return found ? found[1] : null;
}

/** A player's name as a link to their profile (plain text without an id: a guest, the AI). */
export function playerLink(name, playerId, parent = null) {
  if (!playerId || playerId.startsWith("ai:")) return html("span", {}, parent, name);
  return html("a", { href: profileHash(playerId), className: "player-link" }, parent, name);
}

/** Show the profile of `playerId` in `section` (built on first use). */
export async function showProfile(section, playerId, onTitle) {
  const mine = ++round;
  if (!section.firstChild) build(section);
  const $ = (id) => section.querySelector(`#${id}`);
  $("profile-error").textContent = "";
  $("profile-name").textContent = "…";
  try {
    const profile = await call("GET", `/api/players/${encodeURIComponent(playerId)}`);
    if (mine !== round) return;
    shown = { id: playerId, profile, filters: { game: "", result: "" }, next: null };
    $("profile-name").textContent = profile.name;
    $("profile-bot").hidden = !profile.bot;
    onTitle(profile.name);
    stats(section, profile);
    kindPick(section, profile);
    graph(section, profile);
    await history(section, true);
  } catch (err) {
    if (mine !== round) return;
    $("profile-name").textContent = t("profile.unknown");
    $("profile-stats").tBodies[0].replaceChildren();
    $("profile-graph").replaceChildren();
    $("profile-games").tBodies[0].replaceChildren();
    $("profile-error").textContent = err.status === 404 ? t("profile.no_games") : plainError(err, null, null)[0];
  }
}

function build(section) {
  ensureStylesheet("/profile.css");
  const card = html("div", { className: "card" }, section);
  const head = html("div", { className: "card-head" }, card);
  const title = html("h1", {}, head);
  html("span", { id: "profile-name" }, title);
  html("span", { id: "profile-bot", className: "bot-badge", hidden: true }, title, ` ${t("seat.bot_badge")}`);

  const stats = html("table", { id: "profile-stats", className: "board-table" }, card);
  const row = html("tr", {}, html("thead", {}, stats));
  for (const key of ["game", "games", "wins", "mean_score", "rating"]) html("th", {}, row, t(`profile.${key}`));
  html("tbody", {}, stats);

  const figure = html("figure", { className: "profile-figure" }, card);
  const label = html("label", {}, figure, `${t("profile.graph_of")} `);
  html("select", { id: "profile-graph-kind" }, label);
  const svg = document.createElementNS(SVG, "svg");
  svg.id = "profile-graph";
  svg.setAttribute("viewBox", `0 0 ${GRAPH.width} ${GRAPH.height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("class", "profile-graph");
  figure.append(svg);
  html("figcaption", { id: "profile-graph-caption" }, figure);

  html("h2", {}, card, t("profile.history"));
  const filters = html("form", { className: "profile-filters", id: "profile-filters" }, card);
  const gameLabel = html("label", {}, filters, `${t("profile.game")} `);
  const gamePick = html("select", { id: "profile-filter-game", name: "game" }, gameLabel);
  gamePick.add(new Option(t("profile.all"), ""));
  const resultLabel = html("label", {}, filters, `${t("profile.result")} `);
  const resultPick = html("select", { id: "profile-filter-result", name: "result" }, resultLabel);
  resultPick.add(new Option(t("profile.all"), ""));
  for (const r of ["win", "loss", "draw"]) resultPick.add(new Option(t(`profile.result_${r}`), r));
  for (const pick of [gamePick, resultPick]) {
    pick.addEventListener("change", () => {
      shown.filters = { game: gamePick.value, result: resultPick.value };
      history(section, true);
    });
  }
  filters.addEventListener("submit", (ev) => ev.preventDefault());

  const games = html("table", { id: "profile-games", className: "board-table profile-games" }, card);
  const head2 = html("tr", {}, html("thead", {}, games));
  for (const key of ["when", "game", "players", "result"]) html("th", {}, head2, t(`profile.${key}`));
  html("tbody", {}, games);
  html("p", { id: "profile-empty", hidden: true }, card, t("profile.no_games_filtered"));
  const more = html("button", { type: "button", id: "profile-more", className: "button ghost-button", hidden: true }, card, t("profile.more"));
  more.addEventListener("click", () => history(section, false));
  html("p", { id: "profile-error", className: "form-error", role: "alert" }, card);
  html("a", { href: "#/", className: "button" }, card, t("players.back"));
}

function stats(section, profile) {
  const body = section.querySelector("#profile-stats").tBodies[0];
  body.replaceChildren(
    ...Object.entries(profile.games).map(([kind, s]) => {
      const tr = html("tr", {});
      html("td", {}, tr, gameName(kind));
      html("td", { className: "num" }, tr, formatNumber(s.games));
      html("td", { className: "num" }, tr, formatNumber(s.wins));
      html("td", { className: "num" }, tr, formatNumber(s.mean_score, { maximumFractionDigits: 1 }));
      html("td", { className: "num" }, tr, s.rating === null ? "—" : formatNumber(s.rating, { maximumFractionDigits: 1 }));
      return tr;
    }),
  );
  const pick = section.querySelector("#profile-filter-game");
  pick.replaceChildren(new Option(t("profile.all"), ""), ...Object.keys(profile.games).map((k) => new Option(gameName(k), k)));
}

function kindPick(section, profile) {
  const pick = section.querySelector("#profile-graph-kind");
  const rated = Object.keys(profile.games).filter((k) => profile.games[k].rating_history.length);
  pick.replaceChildren(...rated.map((k) => new Option(gameName(k), k)));
  pick.closest("figure").hidden = rated.length === 0;
  pick.onchange = () => graph(section, profile);
}

/** The rating over time: a line through each rated game's rating after it, with a time axis
 *  (first and last game's dates) and a rating axis (lowest, highest and the middle). */
function graph(section, profile) {
  const svg = section.querySelector("#profile-graph");
  const kind = section.querySelector("#profile-graph-kind").value;
  const points = profile.games[kind]?.rating_history || [];
  svg.replaceChildren();
  if (!points.length) return;
  const g = GRAPH;
  const times = points.map((p) => p[0]);
  const values = points.map((p) => p[1]);
  let [lo, hi] = [Math.min(...values), Math.max(...values)];
  if (hi - lo < 1) [lo, hi] = [lo - 1, hi + 1];
  const [t0, t1] = [times[0], times[times.length - 1]];
  const x = (i) => g.left + (points.length === 1 ? 0.5 : i / (points.length - 1)) * (g.width - g.left - g.right);
  const y = (v) => g.top + (1 - (v - lo) / (hi - lo)) * (g.height - g.top - g.bottom);
  const add = (tag, attrs, text) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    svg.append(el);
    return el;
  };
  const bottom = g.height - g.bottom;
  add("line", { x1: g.left, y1: g.top, x2: g.left, y2: bottom, class: "axis axis-y" });
  add("line", { x1: g.left, y1: bottom, x2: g.width - g.right, y2: bottom, class: "axis axis-x" });
  for (const v of [lo, (lo + hi) / 2, hi]) {
    add("line", { x1: g.left - 4, y1: y(v), x2: g.width - g.right, y2: y(v), class: "grid" });
    add("text", { x: g.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, formatNumber(v, { maximumFractionDigits: 1 }));
  }
  const day = { dateStyle: "medium" };
  add("text", { x: g.left, y: g.height - 8, "text-anchor": "start", class: "tick" }, formatDate(new Date(t0), day));
  if (points.length > 1) add("text", { x: g.width - g.right, y: g.height - 8, "text-anchor": "end", class: "tick" }, formatDate(new Date(t1), day));
  add("polyline", { points: points.map((p, i) => `${x(i)},${y(p[1])}`).join(" "), class: "rating-line", fill: "none" });
  for (const [i, p] of points.entries()) {
    const dot = add("circle", { cx: x(i), cy: y(p[1]), r: 3, class: "rating-dot" });
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = `${formatDate(new Date(p[0]))}: ${formatNumber(p[1], { maximumFractionDigits: 1 })}`;
    dot.append(tip);
  }
  const now = values[values.length - 1];
  const words = t("profile.graph_caption", { game: gameName(kind), count: points.length, rating: formatNumber(now, { maximumFractionDigits: 1 }) });
  svg.setAttribute("aria-label", words);
  section.querySelector("#profile-graph-caption").textContent = words;
}

/** The first page of the history (`fresh`) or the next one after those shown. */
async function history(section, fresh) {
  const mine = round;
  const state = shown;
  const body = section.querySelector("#profile-games").tBodies[0];
  const more = section.querySelector("#profile-more");
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (state.filters.game) query.set("game", state.filters.game);
  if (state.filters.result) query.set("result", state.filters.result);
  if (!fresh && state.next) query.set("before", state.next);
  more.disabled = true;
  try {
    const page = await call("GET", `/api/players/${encodeURIComponent(state.id)}/games?${query}`);
    if (mine !== round || state !== shown) return;
    const rows = page.games.map((g) => gameRow(g, state.id));
    if (fresh) body.replaceChildren(...rows);
    else body.append(...rows);
    state.next = page.next;
    more.hidden = !page.next;
    section.querySelector("#profile-empty").hidden = body.rows.length > 0;
  } catch (err) {
    section.querySelector("#profile-error").textContent = plainError(err, null, null)[0];
  } finally {
    more.disabled = false;
  }
}

function gameRow(game, me) {
  const tr = html("tr", { className: `result-${game.result}` });
  tr.dataset.game = game.game_id;
  const when = html("td", {}, tr);
  html("a", { href: `#/game/${encodeURIComponent(game.game_id)}` }, when, formatDate(new Date(game.ended_at)));
  html("td", {}, tr, gameName(game.game));
  const who = html("td", { className: "profile-players" }, tr);
  game.seats.forEach((seat, i) => {
    if (i) who.append(", ");
    const name = seat.kind === "ai" ? t("players.ai_level", { level: levelName(seat.level || "") }) : seat.name;
    if (seat.player_id === me) html("strong", {}, who, name);
    else playerLink(name, seat.player_id, who);
    who.append(` ${formatNumber(game.scores[i] ?? 0)}`);
  });
  html("td", {}, tr, t(`profile.result_${game.result}`));
  return tr;
}

// ---- player names in a game's tables link to their profiles -----------------------------------

const tables = new Map(); // game id -> Promise of {seat: player id}

/** Turn the seat names of a game's score table and final results into profile links, once the
 *  game's table (GET /api/games/{id}/table: who sits where) is known. Names without a player
 *  (guests, the AI) stay text. Safe to call after every render. */
export function linkSeatNames(gameId, root) {
  if (!gameId || !root) return;
  if (!tables.has(gameId)) {
    tables.set(
      gameId,
      call("GET", `/api/games/${encodeURIComponent(gameId)}/table`)
        .then((table) => Object.fromEntries(table.seats.map((s) => [s.seat, s.player_id])))
        .catch(() => ({})),
    );
    if (tables.size > 50) tables.delete(tables.keys().next().value);
  }
  tables.get(gameId).then((players) => {
    for (const el of root.querySelectorAll("[data-seat] .label, li[data-seat] > .name")) {
      const id = players[el.closest("[data-seat]").dataset.seat];
      if (!id || id.startsWith("ai:") || el.querySelector("a.player-link")) continue;
      const text = el.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      const link = html("a", { href: profileHash(id), className: "player-link" }, null, text.textContent);
      el.replaceChild(link, text);
    }
  });
}
