// The daily puzzle's results page (#/daily/<kind>[/<date>]): a histogram of the day's scores with
// your bar marked, your rank, percentile and streak, a text to share that gives nothing away, and
// a past day to practise. Split from daily.js (the lobby's card, the link under a finished
// attempt, no hints in a scored one), which app.js routes through.

import { saveSeat } from "./api.js";
import { ensureStylesheet, html, svg } from "./dom.js";
import { t } from "./i18n.js";
import { ensurePlayer, player } from "./players.js";
import { gameName } from "./words.js";
import { dailyApi, errorText, openAttempt, remember, startToday } from "./dailyplay.js";

const $ = (id) => document.getElementById(id);

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
