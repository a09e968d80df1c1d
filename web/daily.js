// The daily puzzle (issue 23; docs/api-players.md "The daily puzzle"): "Today's puzzle" in the
// lobby (play, continue, or see how you did), the link to the results under a finished attempt,
// and the results page (#/daily/<kind>[/<date>]): a histogram of the day's scores with your bar
// marked, your rank, percentile and streak, and a text to share that gives nothing away. In a
// scored attempt the game page's Hint button is off, with the reason (the view's "hints": false:
// the AI service refuses them too).
//
// Which games have a daily puzzle is the server's to say: the lobby asks each game of the meta
// once (a 404 means none), so nothing here names a game.

import { addressedGame, loadSeat, saveSeat } from "./api.js";
import { ensureStylesheet, html, svg } from "./dom.js";
import { t } from "./i18n.js";
import { loadMeta } from "./meta.js";
import { ensurePlayer, player, playersApi } from "./players.js";
import { choiceLabel, gameName } from "./words.js";

const $ = (id) => document.getElementById(id);
const GAMES_KEY = "daily.games"; // game id -> {kind, date, scored}: this browser's attempts
const KEEP_GAMES = 60;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const KIND = /^[a-z0-9_-]{1,32}$/;

// ---- the HTTP calls ------------------------------------------------------------------------------

class DailyError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code || `http_${status}`;
    this.body = body?.error || {};
  }
}

async function call(method, path, key) {
  const headers = { Accept: "application/json" };
  if (key) headers["X-Player-Key"] = key;
  let res;
  try {
    res = await fetch(path, { method, headers });
  } catch {
    throw new DailyError(0, { error: { code: "network", message: t("error.network") } });
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new DailyError(res.status, data);
  return data;
}

const base = (kind) => `/api/daily/${encodeURIComponent(kind)}`;
const dateArg = (date) => (date ? `?date=${encodeURIComponent(date)}` : "");
const dailyApi = {
  today: (kind, key) => call("GET", base(kind), key),
  start: (kind, key, date = "") => call("POST", `${base(kind)}/games${dateArg(date)}`, key),
  results: (kind, key, date = "") => call("GET", `${base(kind)}/results${dateArg(date)}`, key),
};

// ---- this browser's attempts ------------------------------------------------------------------------

function attempts() {
  try {
    const found = JSON.parse(localStorage.getItem(GAMES_KEY) || "{}");
    return found && typeof found === "object" ? found : {};
  } catch {
    return {};
  }
}

function remember(id, entry) {
  const all = attempts();
  all[id] = { ...entry, at: Date.now() };
  const kept = Object.entries(all).sort((a, b) => (b[1].at || 0) - (a[1].at || 0)).slice(0, KEEP_GAMES);
  try {
    localStorage.setItem(GAMES_KEY, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    /* private mode: the results link shows only during this visit */
  }
}

/** Open an attempt: with this browser's seat token, or one claimed for this device (the attempt
 *  was started on another one). */
async function openAttempt(id, entry, go) {
  remember(id, entry);
  const mine = player();
  if (!loadSeat(id) && mine) {
    try {
      const claimed = await playersApi.claim(id, mine.key);
      saveSeat(claimed.game_id, claimed.seat, claimed.token);
    } catch (err) {
      console.warn(`daily: could not claim the seat in ${id}: ${err.message}`);
    }
  }
  go(id);
}

function errorText(err) {
  return err?.code === "network" ? t("error.network") : t("daily.error", { message: err?.message || "" });
}

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

async function startToday(kind, nameInput, button, error, go) {
  error.textContent = "";
  const typed = (nameInput?.value || $("your-name")?.value || "").trim();
  button.disabled = true;
  try {
    const mine = await ensurePlayer(typed);
    if (!mine) {
      error.textContent = t("daily.name_needed");
      nameInput?.focus();
      return;
    }
    const made = await dailyApi.start(kind, mine.key);
    remember(made.game_id, { kind, date: made.date, scored: made.scored });
    saveSeat(made.game_id, made.seat, made.token);
    go(made.game_id);
  } catch (err) {
    if (err.code === "already_played" && err.body.game_id) {
      await openAttempt(err.body.game_id, { kind, date: err.body.date, scored: true }, go);
      return;
    }
    error.textContent = errorText(err);
  } finally {
    button.disabled = false;
  }
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

// ---- the results page ---------------------------------------------------------------------------------

export function resultsAddress(kind, date = "") {
  return `#/daily/${encodeURIComponent(kind)}${date ? `/${date}` : ""}`;
}

/** {kind, date} of a results address, else null. */
export function dailyAddress(hash) {
  const m = /^#\/daily\/([a-z0-9_-]{1,32})(?:\/(\d{4}-\d{2}-\d{2}))?$/.exec(hash);
  return m ? { kind: m[1], date: m[2] || "" } : null;
}

/** Draw the results page into `section` (app.js routes #/daily/... here). */
export async function showDaily(section, { kind, date }, go, onTitle) {
  ensureStylesheet("/daily.css");
  const card = html("div", { className: "card daily-results" });
  section.replaceChildren(card);
  const title = html("h1", {}, card, t("daily.results_title", { game: gameName(kind) }));
  const status = html("p", { className: "daily-status", role: "status" }, card, t("daily.loading"));
  onTitle(title.textContent);
  const mine = player();
  let results;
  let today = null;
  try {
    results = await dailyApi.results(kind, mine?.key, date);
    if (!date || mine) today = await dailyApi.today(kind, mine?.key).catch(() => null);
  } catch (err) {
    status.textContent = errorText(err);
    html("a", { className: "button", href: "#/" }, card, t("players.back"));
    return;
  }
  const isToday = today && results.date === today.date;
  status.textContent = t("daily.results_date", { date: results.date });
  drawYou(card, kind, results, isToday ? today : null, go);
  drawHistogram(card, results);
  if (results.you) drawShare(card, kind, results);
  drawPractice(card, kind, today?.date || results.date, go);
  html("a", { className: "button ghost-button", href: "#/" }, card, t("players.back"));
}

function drawYou(card, kind, results, today, go) {
  const box = html("div", { className: "daily-you" }, card);
  const you = results.you;
  if (!you) {
    const uncounted = results.uncounted;
    if (uncounted) html("p", { className: "daily-not-counted" }, box, t("daily.not_counted", { count: uncounted.score }));
    else html("p", {}, box, t("daily.not_finished"));
    if (today && !today.finished) {
      const words = today.played ? t("daily.continue") : t("daily.play");
      const play = html("button", { type: "button", className: "primary" }, box, words);
      const error = html("p", { className: "form-error", role: "alert" }, box);
      play.addEventListener("click", () =>
        today.played
          ? openAttempt(today.game_id, { kind, date: today.date, scored: true }, go)
          : startToday(kind, null, play, error, go),
      );
    }
    return;
  }
  html("p", { className: "daily-score" }, box, t("daily.points", { count: you.score }));
  html("p", { className: "daily-rank" }, box, t("daily.rank", { rank: you.rank, count: results.players }));
  html("p", { className: "daily-percentile" }, box, t("daily.percentile", { percent: you.percentile }));
  if (you.streak > 0) html("p", { className: "daily-streak" }, box, t("daily.streak", { count: you.streak }));
}

/** Scores gathered into at most ~24 bars of a round width, so a wide spread stays legible; a
 *  narrow one is widened to MIN_BARS around it, so a lone score still sits among its neighbours. */
const MIN_BARS = 11;
export function bins(histogram) {
  if (!histogram.length) return { width: 1, bars: [] };
  let lo = histogram[0].score;
  let hi = histogram[histogram.length - 1].score;
  const width = [1, 2, 5, 10, 20, 50].find((w) => (hi - lo) / w < 24) || 100;
  const short = MIN_BARS - (Math.floor(hi / width) - Math.floor(lo / width) + 1);
  if (short > 0) {
    lo -= Math.floor(short / 2) * width;
    hi += Math.ceil(short / 2) * width;
  }
  const start = Math.floor(lo / width) * width;
  const bars = [];
  for (let from = start; from <= hi; from += width) bars.push({ from, to: from + width - 1, count: 0 });
  for (const { score, count } of histogram) bars[Math.floor((score - start) / width)].count += count;
  return { width, bars };
}

function drawHistogram(card, results) {
  const figure = html("figure", { className: "daily-chart" }, card);
  const caption = t("daily.chart_caption", { count: results.players, best: results.best ?? "–", mean: results.mean ?? "–" });
  if (!results.players) {
    html("p", {}, figure, t("daily.nobody_yet"));
    return;
  }
  // Drawn at the figure's own width (text stays legible on a phone), again when that changes.
  let drawnAt = 0;
  const draw = () => {
    const W = Math.round(Math.min(720, Math.max(300, figure.clientWidth || 640)));
    if (Math.abs(W - drawnAt) < 24) return;
    drawnAt = W;
    figure.querySelector("svg")?.remove();
    figure.prepend(chartOf(results, W));
  };
  draw();
  new ResizeObserver(() => requestAnimationFrame(draw)).observe(figure);
  html("figcaption", {}, figure, caption);
}

function chartOf(results, W) {
  const { width, bars } = bins(results.histogram);
  const mine = results.you?.score;
  const H = W < 480 ? 200 : 240;
  const left = 36;
  const bottom = 34;
  const top = 22;
  const most = Math.max(...bars.map((b) => b.count));
  const step = Math.min(56, (W - left - 8) / bars.length);
  const x0 = left + (W - left - 8 - step * bars.length) / 2;
  const range = (b) => (width === 1 ? String(b.from) : t("daily.range", { from: b.from, to: b.to }));
  const yours = bars.find((b) => mine !== undefined && mine >= b.from && mine <= b.to);
  const label = yours
    ? t("daily.chart_label_you", { count: results.players, range: range(yours), players: yours.count })
    : t("daily.chart_label", { count: results.players });
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "daily-svg" });
  svg("line", { x1: left, y1: H - bottom, x2: W - 4, y2: H - bottom, class: "daily-axis" }, chart);
  const yMax = svg("text", { x: left - 6, y: top + 4, "text-anchor": "end", class: "daily-tick" }, chart);
  yMax.textContent = String(most);
  const yZero = svg("text", { x: left - 6, y: H - bottom, "text-anchor": "end", class: "daily-tick" }, chart);
  yZero.textContent = "0";
  const everyLabel = Math.max(1, Math.ceil(bars.length / 8));
  bars.forEach((b, i) => {
    const h = b.count ? Math.max(2, ((H - bottom - top) * b.count) / most) : 0;
    const x = x0 + i * step + 2;
    const isYou = b === yours;
    const bar = svg("rect", {
      x, y: H - bottom - h, width: Math.max(1, step - 4), height: h, rx: 2,
      class: isYou ? "daily-bar daily-bar-you" : "daily-bar",
    }, chart);
    const tip = svg("title", {}, bar);
    tip.textContent = t(isYou ? "daily.bar_you" : "daily.bar", { range: range(b), count: b.count });
    if (isYou || i % everyLabel === 0) {
      const tick = svg("text", { x: x + (step - 4) / 2, y: H - bottom + 16, "text-anchor": "middle", class: "daily-tick" }, chart);
      tick.textContent = String(b.from);
    }
    if (isYou) {
      const mark = svg("text", { x: x + (step - 4) / 2, y: H - bottom - h - 6, "text-anchor": "middle", class: "daily-you-mark" }, chart);
      mark.textContent = t("daily.you_mark");
    }
  });
  const axis = svg("text", { x: (left + W) / 2, y: H - 4, "text-anchor": "middle", class: "daily-tick" }, chart);
  axis.textContent = t("daily.axis_points");
  return chart;
}

/** Where a score stands, in words: alone, "the first to finish"; in the top half "top N%" (N
 *  is at most 50 there, so never "top 100%" for the best); below that its rank ("rank 7 of 9"). */
export function standingWords(you, players) {
  if (players <= 1) return t("daily.standing_first");
  const top = Math.max(1, Math.ceil((100 * you.rank) / players));
  if (top <= 50) return t("daily.standing_top", { top });
  return t("daily.standing_rank", { rank: you.rank, count: players });
}

/** The text to share: the game, the day, the score and where it stands; never a card. */
export function shareText(kind, results) {
  const standing = standingWords(results.you, results.players);
  return t("daily.share_text", { game: gameName(kind), date: results.date, count: results.you.score, standing });
}

/** The day's results page as a whole address: a friend who opens it sees the day's chart and
 *  may play the puzzle (the shared text had no link, issue 35). */
export function shareLink(kind, date) {
  return `${location.origin}/${resultsAddress(kind, date)}`;
}

/** What Share copies: the text, then the link on a line of its own. */
export function shareMessage(kind, results) {
  return `${shareText(kind, results)}\n${shareLink(kind, results.date)}`;
}

function drawShare(card, kind, results) {
  const box = html("div", { className: "daily-share" }, card);
  const text = shareMessage(kind, results);
  const shown = html("textarea", { readonly: true, rows: 3, className: "daily-share-text", id: "daily-share-text", "aria-label": t("daily.share_label") }, box);
  shown.value = text;
  const button = html("button", { type: "button", className: "primary", id: "daily-share" }, box, t("daily.share"));
  const said = html("p", { className: "daily-share-status", role: "status" }, box);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      said.textContent = t("daily.copied");
    } catch {
      shown.select();
      said.textContent = t("daily.copy_by_hand");
    }
  });
}

function yesterdayOf(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function drawPractice(card, kind, today, go) {
  const form = html("form", { className: "daily-practice", novalidate: true }, card);
  html("h2", {}, form, t("daily.practice_title"));
  html("p", {}, form, t("daily.practice_text"));
  const label = html("label", { className: "field" }, form);
  html("span", {}, label, t("daily.practice_day"));
  const latest = yesterdayOf(today);
  const input = html("input", { type: "date", max: latest, required: true, id: "daily-practice-date" }, label);
  input.value = latest;
  html("button", { type: "submit" }, form, t("daily.practice_play"));
  const error = html("p", { className: "form-error", role: "alert" }, form);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const mine = await ensurePlayer($("your-name")?.value || "").catch(() => null);
    if (!mine) {
      error.textContent = t("daily.name_needed");
      return;
    }
    try {
      const made = await dailyApi.start(kind, mine.key, input.value);
      remember(made.game_id, { kind, date: made.date, scored: made.scored });
      saveSeat(made.game_id, made.seat, made.token);
      go(made.game_id);
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
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
