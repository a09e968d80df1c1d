// The leaderboard page (#/leaderboard/<kind>): the ratings of one game kind, best first, AI levels
// among the players (so a player sees how strong "hard" is). Ratings: docs/api-players.md.

import { html } from "./dom.js";
import { t } from "./i18n.js";
import { loadMeta } from "./meta.js";
import { levelName, plainError } from "./panel.js";
import { player, playersApi } from "./players.js";
import { playerLink } from "./profile.js";
import { gameName } from "./words.js";

const $ = (id) => document.getElementById(id);
let kinds = null;
let round = 0;

/** The address of a kind's leaderboard. */
export const leaderboardHash = (kind) => `#/leaderboard/${encodeURIComponent(kind)}`;

/** Show the leaderboard of `kind` (the first game when it names none we know). */
export async function showLeaderboard(kind) {
  const mine = ++round;
  const pick = $("board-game");
  const error = $("board-error");
  error.textContent = "";
  try {
    if (!kinds) {
      hideBotsBox(pick);
      const meta = await loadMeta();
      kinds = meta.games.map((x) => x.game);
      pick.replaceChildren(...kinds.map((k) => new Option(gameName(k), k)));
      pick.addEventListener("change", () => (location.hash = leaderboardHash(pick.value)));
    }
    const shown = kinds.includes(kind) ? kind : kinds[0];
    pick.value = shown;
    const board = await playersApi.leaderboard(shown, $("board-hide-bots").checked);
    if (mine !== round) return; // another kind was asked for meanwhile
    const me = player()?.id;
    $("board-table").tBodies[0].replaceChildren(...board.players.map((p) => row(p, me)));
    $("board-empty").hidden = board.players.length > 0;
  } catch (err) {
    if (mine !== round) return;
    $("board-table").tBodies[0].replaceChildren();
    error.textContent = plainError(err, null, null)[0];
  }
}

/** The "Hide bots" filter, next to the game picker (issue 24: bots are rated with people). */
function hideBotsBox(pick) {
  const label = html("label", { className: "board-hide-bots" });
  const box = html("input", { type: "checkbox", id: "board-hide-bots" }, label);
  label.append(` ${t("players.board_hide_bots")}`);
  pick.closest("label").after(label);
  box.addEventListener("change", () => showLeaderboard(pick.value));
}

function row(entry, me) {
  const tr = html("tr", { className: entry.player_id === me ? "players-me" : entry.ai ? "players-ai" : null });
  tr.dataset.player = entry.player_id;
  html("td", { className: "num" }, tr, String(entry.rank));
  const level = entry.player_id.startsWith("ai:") ? entry.player_id.slice(3) : "";
  const name = html("td", {}, tr);
  playerLink(entry.ai ? t("players.ai_level", { level: levelName(level) }) : entry.name, entry.ai ? null : entry.player_id, name);
  if (entry.bot) html("span", { className: "bot-badge" }, name, t("seat.bot_badge"));
  html("td", { className: "num" }, tr, entry.rating.toFixed(1));
  html("td", { className: "num" }, tr, String(entry.games));
  return tr;
}
