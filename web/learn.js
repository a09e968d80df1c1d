// "Learn to play": each game's rules in the page (#/learn/<kind>) and its first-game tutorial
// (#/learn/<kind>/tutorial). The shell knows no game: the rules come from the game's optional
// module `games/<kind>/web/learn.js` (export `rules()` -> [{id, title, paragraphs, picture}],
// words from its catalogue, pictures drawn by its board code), the tutorial from
// GET /api/learn/<kind> (services/gateway/learn_api.py: the rules core's scripted game).
//
// The tutorial is shown by the game's own page module, exactly as a live table is: mount(parts,
// host), then update(view, legal) with each step's view and its one move as `legal`. The host
// here sends nothing to a server: send(move) checks the move against the script and moves on to
// the next step (a learner can only make the move the page offers, but a key or a stale click
// is still checked). A coach panel says what each step does; "Leave tutorial" works at any time.

import { ensureStylesheet, html } from "./dom.js";
import { has, t } from "./i18n.js";
import { loadMeta } from "./meta.js";
import { gameName, optionText } from "./words.js";

const KIND = /^[A-Za-z0-9_-]{1,64}$/;
const ADDRESS = /^#\/learn\/([A-Za-z0-9_-]{1,64})(\/tutorial)?$/;

/** {kind, tutorial} for a "Learn to play" address, else null. */
export function learnAddress(hash) {
  const m = ADDRESS.exec(hash || "");
  return m ? { kind: m[1], tutorial: !!m[2] } : null;
}

/** The address of a game's rules page: what the lobby and the tables link to. */
export const learnHref = (kind, tutorial = false) => `#/learn/${encodeURIComponent(kind)}${tutorial ? "/tutorial" : ""}`;

let shown = null; // {kind, tutorial, page?}: what the section shows now

/** Leave the learn pages: the tutorial's page module is unmounted. */
export function closeLearn() {
  if (shown?.page) {
    try {
      shown.page.unmount?.();
    } catch (err) {
      console.warn(err);
    }
  }
  shown = null;
}

/** Show `kind`'s rules (or its tutorial) in `section`; `onTitle(text)` sets the tab's title. */
export async function showLearn(section, { kind, tutorial }, onTitle = () => {}) {
  ensureStylesheet(new URL("./learn.css", import.meta.url).href);
  if (shown && shown.kind === kind && shown.tutorial === tutorial) return;
  closeLearn();
  const me = { kind, tutorial };
  shown = me;
  section.replaceChildren();
  if (!KIND.test(kind)) return;
  const meta = await loadMeta().catch(() => ({ games: [] }));
  if (shown !== me) return;
  const known = (meta.games || []).some((g) => g.game === kind);
  if (!known) {
    section.append(missingCard());
    onTitle(t("learn.doc_title", { game: kind }));
    return;
  }
  onTitle(t(tutorial ? "learn.tutorial_doc_title" : "learn.doc_title", { game: gameName(kind) }));
  if (tutorial) await showTutorial(section, me);
  else await showRules(section, me, meta.games.map((g) => g.game));
}

function missingCard() {
  const card = html("div", { className: "card" });
  html("h1", {}, card, t("learn.no_game"));
  const back = html("a", { className: "button primary", href: "#/" }, card, t("missing.back"));
  back.id = "learn-back";
  return card;
}

// ---- the rules -----------------------------------------------------------------------------------

async function showRules(section, me, kinds) {
  const { kind } = me;
  const page = html("article", { className: "learn-page card", "aria-labelledby": "learn-title" }, section);
  const nav = html("nav", { className: "learn-games", "aria-label": t("learn.other_games") }, page);
  for (const k of kinds) {
    const link = html("a", { href: learnHref(k), className: "learn-game-link" }, nav, gameName(k));
    if (k === kind) link.setAttribute("aria-current", "page");
  }
  html("h1", { id: "learn-title" }, page, t("learn.title", { game: gameName(kind) }));
  html("p", { className: "learn-intro" }, page, optionText(kind, "description"));
  const actions = html("div", { className: "row learn-actions" }, page);
  html("a", { className: "button primary", href: learnHref(kind, true), id: "start-tutorial" }, actions, t("learn.start"));
  html("a", { className: "button ghost-button", href: "#/" }, actions, t("learn.back_lobby"));
  let sections = [];
  try {
    const module = await import(`/games/${kind}/learn.js`);
    sections = typeof module.rules === "function" ? await module.rules() : [];
  } catch (err) {
    console.warn(err);
  }
  if (shown !== me) return;
  if (!sections.length) {
    html("p", { className: "notice" }, page, t("learn.no_rules"));
    return;
  }
  const toc = html("ol", { className: "learn-toc", "aria-label": t("learn.contents") }, page);
  for (const s of sections) {
    const id = `learn-${s.id}`;
    html("a", { href: `#${id}` }, html("li", {}, toc), s.title).addEventListener("click", (ev) => {
      ev.preventDefault(); // the hash is the router's: scroll instead
      document.getElementById(id)?.scrollIntoView({ block: "start" });
    });
    const part = html("section", { className: "learn-section", id, "aria-labelledby": `${id}-title` }, page);
    html("h2", { id: `${id}-title` }, part, s.title);
    for (const text of s.paragraphs || []) html("p", {}, part, text);
    if (s.picture) html("div", { className: "learn-pictures" }, part).append(s.picture);
  }
  const end = html("div", { className: "row learn-actions" }, page);
  html("a", { className: "button primary", href: learnHref(kind, true) }, end, t("learn.start"));
}

// ---- the tutorial --------------------------------------------------------------------------------

/** The same move: the same fields with the same values (key order aside). */
function sameMove(a, b) {
  // a listed move's `preview` (what it would do) is no part of the move
  const canon = (m) => JSON.stringify(Object.keys(m || {}).filter((k) => k !== "preview").sort().map((k) => [k, m[k]]));
  return !!a && !!b && canon(a) === canon(b);
}

/** A coach sentence: its key's text, with a parameter the game's catalogue has a word for
 *  ("<kind>.<param>.<value>": a line colour) said in that word. */
function sentence(kind, { key, params = {} }) {
  const words = {};
  for (const [k, v] of Object.entries(params)) {
    words[k] = typeof v === "string" && has(`${kind}.${k}.${v}`) ? t(`${kind}.${k}.${v}`) : v;
  }
  return t(key, words);
}

async function showTutorial(section, me) {
  const { kind } = me;
  // The coach comes first (on a phone it sits above the board), then the board, then the game's
  // controls; on a wide screen the coach and the controls share the column beside the board.
  const wrap = html("div", { className: "game learn-tutorial" }, section);
  const head = html("div", { className: "learn-head" }, wrap);
  const board = html("div", { className: "board-wrap", id: "learn-board" }, wrap);
  const panel = html("aside", { className: "panel", "aria-labelledby": "learn-tutorial-title" }, wrap);
  html("h1", { className: "game-title", id: "learn-tutorial-title" }, head, t("learn.tutorial_title", { game: gameName(kind) }));
  const coach = html("div", { className: "learn-coach", id: "learn-coach", role: "status", "aria-live": "polite" }, head);
  const counter = html("p", { className: "learn-counter", id: "learn-counter" }, coach);
  const words = html("div", { className: "learn-words", id: "learn-words" }, coach);
  const message = html("div", { className: "message", id: "learn-message", role: "alert", hidden: true }, head);
  const scores = html("p", { className: "learn-scores", id: "learn-scores" }, head);
  const controls = html("div", { className: "controls", id: "learn-controls" }, panel);
  // The way out, always beside the coach: "Leave the tutorial" at any step, then where to go next.
  const after = html("div", { className: "row learn-after", id: "learn-after", hidden: true }, head);
  html("a", { className: "button primary", href: "#/", id: "learn-play" }, after, t("learn.play_real"));
  html("a", { className: "button", href: learnHref(kind) }, after, t("learn.read_rules"));
  const leave = html("a", { className: "button ghost-button", href: learnHref(kind), id: "leave-tutorial" }, head, t("learn.leave"));
  counter.textContent = t("game.loading");

  let script;
  let module;
  try {
    [script, module] = await Promise.all([
      fetch(`/api/learn/${encodeURIComponent(kind)}`, { headers: { Accept: "application/json" } }).then((r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.json();
      }),
      import(`/games/${kind}/page.js`),
    ]);
  } catch (err) {
    if (shown !== me) return;
    counter.textContent = t("learn.failed", { reason: err.message });
    return;
  }
  if (shown !== me) return;
  const steps = script.steps || [];
  const seat = script.seat ?? 0;
  let at = 0;
  let busy = false;

  const notify = (text, kind_ = "info") => {
    message.textContent = text || "";
    message.hidden = !text;
    message.className = `message ${["error", "ok", "info"].includes(kind_) ? kind_ : "info"}`;
  };
  /** The step's view with the seats named in the page's words. */
  const viewOf = (step) => ({
    ...step.view,
    seats: step.view.seats.map((s, i) => ({ ...s, name: t(i === seat ? "learn.you" : "learn.opponent") })),
  });
  const render = () => {
    const step = steps[at];
    const last = at === steps.length - 1;
    counter.textContent = last ? t("learn.finished") : t("learn.step", { n: at + 1, count: steps.length - 1 });
    words.replaceChildren(...step.say.map((s) => html("p", {}, null, sentence(kind, s))));
    const view = viewOf(step);
    scores.textContent = t("learn.scores", {
      you: view.seats[seat]?.score ?? 0,
      them: view.seats.filter((_, i) => i !== seat).map((s) => s.score ?? 0).join(", "),
    });
    after.hidden = !last;
    leave.hidden = last; // "Read the rules" goes the same way
    page.update(view, step.legal || []);
  };
  const host = {
    async send(move) {
      const step = steps[at];
      if (busy || !step?.legal?.length) return false;
      if (!step.legal.some((m) => sameMove(m, move))) {
        notify(t("learn.not_this_move"), "error");
        return false;
      }
      busy = true;
      notify("");
      at += 1;
      render();
      busy = false;
      return true;
    },
    notify,
    get seat() {
      return seat;
    },
  };
  const page = module.mount({ board, controls }, host);
  me.page = page;
  render();
}
