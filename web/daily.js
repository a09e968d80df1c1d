// The daily puzzle (issue 23; docs/api-players.md "The daily puzzle"): "Today's puzzle" in the
// lobby (play, continue, or see how you did), the link to the results under a finished attempt,
// and the results page (#/daily/<kind>[/<date>]): a histogram of the day's scores with your bar
// marked, your rank, percentile and streak, and a text to share that gives nothing away. In a
// scored attempt the game page's Hint button is off, with the reason (the view's "hints": false:
// the AI service refuses them too).
//
// Which games have a daily puzzle is the server's to say: the lobby asks each game of the meta
// once (a 404 means none), so nothing here names a game. The calls and this browser's attempts
// are dailyplay.js's, the results page dailyresults.js's.

import { addressedGame, loadSeat } from "./api.js";
import { ensureStylesheet, html } from "./dom.js";
import { t } from "./i18n.js";
import { loadMeta } from "./meta.js";
import { player } from "./players.js";
import { choiceLabel, gameName } from "./words.js";
import { attempts, dailyApi, errorText, openAttempt, startToday } from "./dailyplay.js";
import { resultsAddress } from "./dailyresults.js";

// The results page lives in dailyresults.js; app.js (and a browser test, shareText) reach it here.
export { dailyAddress, shareText, showDaily } from "./dailyresults.js";

const $ = (id) => document.getElementById(id);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const KIND = /^[a-z0-9_-]{1,32}$/;

// ---- the lobby's card -------------------------------------------------------------------------------

let kindsWithDaily = null; // [kind] once asked

/** The games with a daily puzzle, as the catalogue says (GET /api/meta's `daily`): asking each
 *  game's /api/daily/<kind> cost a 404 for every game without one on every load (issue 35). */
async function dailyKinds() {
  if (!kindsWithDaily) {
    const meta = await loadMeta();
    kindsWithDaily = (meta.games || []).filter((g) => g.daily === true).map((g) => g.game);
  }
  return kindsWithDaily;
}

function mapName(meta, kind, rules) {
  const game = (meta.games || []).find((g) => g.game === kind);
  const spec = (game?.options || []).find((o) => o.name === "map");
  const choice = (spec?.choices || []).find((c) => c.value === rules?.map);
  return spec && choice ? choiceLabel(kind, spec, choice) : "";
}

function ensureCard() {
  let card = $("daily-card");
  if (card) return card;
  card = html("section", { className: "card daily-card", id: "daily-card", "aria-labelledby": "daily-title" });
  html("h2", { id: "daily-title" }, card, t("daily.title"));
  html("div", { id: "daily-games", className: "daily-games" }, card);
  const form = $("create-form");
  form.after(card);
  return card;
}

/** Draw "Today's puzzle" in the lobby (app.js calls it whenever the lobby shows). */
export async function showDailyCard(go) {
  ensureStylesheet("/daily.css");
  let kinds;
  try {
    kinds = await dailyKinds();
  } catch {
    return; // no meta: the lobby says so itself
  }
  if (!kinds.length) return;
  const card = ensureCard();
  const list = card.querySelector("#daily-games");
  const meta = await loadMeta();
  const mine = player();
  const blocks = await Promise.all(
    kinds.map(async (kind) => {
      const block = html("div", { className: "daily-game" });
      try {
        // A key the server no longer knows (players.js forgets it): today's puzzle as anyone's.
        const today = await dailyApi
          .today(kind, mine?.key)
          .catch((err) => (err.code === "bad_player_key" ? dailyApi.today(kind) : Promise.reject(err)));
        drawToday(block, kind, today, meta, go);
      } catch (err) {
        html("p", { className: "form-error", role: "alert" }, block, errorText(err));
      }
      return block;
    }),
  );
  list.replaceChildren(...blocks);
}

function drawToday(block, kind, today, meta, go) {
  const where = mapName(meta, kind, today.rules);
  const sub = [gameName(kind), today.date, where].filter(Boolean).join(" · ");
  html("p", { className: "daily-sub" }, block, sub);
  html("p", { className: "daily-text" }, block, t("daily.card_text"));
  const row = html("div", { className: "row daily-actions" }, block);
  const error = html("p", { className: "form-error", role: "alert" });
  const entry = { kind, date: today.date, scored: true };
  if (today.finished && today.counted === false) {
    html("p", { className: "daily-done daily-not-counted" }, block, t("daily.not_counted", { count: today.score }));
  } else if (today.finished) {
    html("p", { className: "daily-done" }, block, t("daily.you_scored", { count: today.score }));
  }
  if (today.finished) {
    const see = html("a", { className: "button primary", href: resultsAddress(kind, today.date) }, row, t("daily.see_results"));
    see.id = `daily-results-${kind}`;
  } else if (today.played) {
    const again = html("button", { type: "button", className: "primary", id: `daily-play-${kind}` }, row, t("daily.continue"));
    again.addEventListener("click", () => openAttempt(today.game_id, entry, go));
  } else {
    let name = null;
    if (!player()) {
      const label = html("label", { className: "field daily-name" });
      html("span", {}, label, t("lobby.your_name"));
      name = html("input", { maxlength: "24", autocomplete: "nickname", id: `daily-name-${kind}` }, label);
      name.value = $("your-name")?.value || "";
      row.before(label);
    }
    const play = html("button", { type: "button", className: "primary", id: `daily-play-${kind}` }, row, t("daily.play"));
    play.addEventListener("click", () => startToday(kind, name, play, error, go));
  }
  if (today.streak > 0) html("p", { className: "daily-streak" }, block, t("daily.streak", { count: today.streak }));
  block.append(error);
}

// ---- under a finished attempt -----------------------------------------------------------------------

function watchGameEnd() {
  const after = $("after");
  if (!after) return;
  const update = () => {
    const id = addressedGame() || "";
    const entry = id ? attempts()[id] : null;
    let link = $("daily-after");
    if (after.hidden || !entry || !KIND.test(entry.kind || "") || !DATE.test(entry.date || "")) {
      link?.remove();
      return;
    }
    if (link?.dataset.game === id) return;
    link?.remove();
    link = html("p", { id: "daily-after", className: "daily-after" });
    link.dataset.game = id;
    const words = entry.scored ? t("daily.see_results") : t("daily.see_day_results", { date: entry.date });
    html("a", { className: "button primary", href: resultsAddress(entry.kind, entry.date) }, link, words);
    after.prepend(link);
  };
  new MutationObserver(update).observe(after, { attributes: true, attributeFilter: ["hidden"] });
  window.addEventListener("hashchange", update);
}

// ---- no hints in a scored attempt -------------------------------------------------------------------

const hintsOff = new Map(); // game id -> Promise<boolean>: its view says "hints": false

function shownGame() {
  return addressedGame() || "";
}

/** Whether `id`'s view turns hints off (asked once per game: a scored attempt stays one). */
function hintsOffIn(id) {
  if (!hintsOff.has(id)) {
    const headers = { Accept: "application/json" };
    const seat = loadSeat(id);
    if (seat) headers.Authorization = `Bearer ${seat.token}`;
    const asked = fetch(`/api/games/${encodeURIComponent(id)}`, { headers })
      .then((res) => (res.ok ? res.json() : null))
      .then((view) => view?.hints === false)
      .catch(() => {
        hintsOff.delete(id); // ask again next time
        return false;
      });
    hintsOff.set(id, asked);
  }
  return hintsOff.get(id);
}

/** In a scored attempt of this browser's, keep the shell's Hint button and level off and say why
 *  beside them (the shell re-enables the button as it draws: it is turned off again at once). */
function watchHints() {
  const row = $("hint-row");
  const button = $("hint-button");
  const level = $("hint-level");
  if (!row || !button) return;
  let off = false;
  let shownFor = "";
  const apply = () => {
    let reason = $("daily-hints-off");
    if (!off) {
      if (reason) {
        reason.remove();
        if (level) level.disabled = false;
      }
      return;
    }
    if (!button.disabled) button.disabled = true;
    if (level && !level.disabled) level.disabled = true;
    if (!reason) {
      reason = html("small", { id: "daily-hints-off", className: "daily-hints-off" }, null, t("daily.hints_off"));
      button.after(reason);
    }
  };
  const update = async () => {
    const id = shownGame();
    const wanted = id && attempts()[id]?.scored ? id : "";
    if (wanted === shownFor) return apply();
    shownFor = wanted;
    off = false;
    apply();
    if (!wanted) return;
    const isOff = await hintsOffIn(wanted);
    if (shownFor === wanted) {
      off = isOff;
      apply();
    }
  };
  new MutationObserver(apply).observe(button, { attributes: true, attributeFilter: ["disabled"] });
  new MutationObserver(update).observe(row, { attributes: true, attributeFilter: ["hidden"] });
  window.addEventListener("hashchange", update);
  update();
}

/** Once, at start: the link under a finished attempt, and no hints in a scored one. */
export function initDaily() {
  watchGameEnd();
  watchHints();
}
