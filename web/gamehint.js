// The game page's Hint button (issue 35's hint row): the AI level it asks at (remembered), the
// question to the AI for the viewer's seat, the suggestions handed to the page module's
// showHints, and one sentence on what the best one's value means. Part of the game screen
// (web/game.js), whose view, seat and page module it reads.

import { api, saveSetting, setting } from "./api.js";
import { t } from "./i18n.js";
import { signedValue } from "./dom.js";
import { defaultLevel } from "./meta.js";
import { levelDescription, levelName, plainError } from "./panel.js";
import { mayMove } from "./gameseat.js";

const $ = (id) => document.getElementById(id);

/** What the best hint's value means, in one sentence. */
export function hintExplanation(value, level, players) {
  const shown = signedValue(value);
  if (!shown) return "";
  const level_ = level ? levelName(level) : "";
  const count = Number(Math.abs(value).toFixed(Math.abs(value) >= 10 ? 0 : 1));
  const params = { value: shown, level: level_, count };
  if (players <= 1) return t(level_ ? "hint.explain_solo_level" : "hint.explain_solo", params);
  const where = shown === "0" ? "level" : value > 0 ? "ahead" : "behind";
  return t(`hint.explain_${where}${level_ ? "_level" : ""}`, params);
}

export class HintRow {
  /** `screen`: the game screen (its id, mine, seat, view, legal, busy, page, message()). */
  constructor(screen) {
    this.screen = screen;
    this.hinting = false;
    $("hint-button").addEventListener("click", () => this.#hint());
    $("hint-level").addEventListener("change", (ev) => saveSetting("hint.level", ev.target.value));
  }

  /** A game opened: no hint asked, the row hidden until the view says. */
  reset() {
    this.hinting = false;
    $("hint-row").hidden = true;
    $("hint-meta").textContent = "";
    $("hint-explain").hidden = true;
  }

  /** The position changed: the hints shown were for the one before. */
  clear() {
    this.screen.page.showHints?.([]);
    $("hint-meta").textContent = "";
    $("hint-explain").hidden = true;
  }

  setupLevels(meta) {
    const select = $("hint-level");
    const levels = meta?.levels || [];
    select.replaceChildren();
    const saved = setting("hint.level");
    const pick = levels.some((l) => l.name === saved) ? saved : defaultLevel(levels);
    for (const l of levels) {
      const option = new Option(levelName(l.name), l.name, false, l.name === pick);
      const about = levelDescription(l.name);
      if (about) option.title = about;
      select.add(option);
    }
    select.closest("label").hidden = !levels.length;
  }

  render() {
    const s = this.screen;
    const view = s.view;
    $("hint-row").hidden = s.seat === null || view.status === "over" || typeof s.page?.showHints !== "function";
    const button = $("hint-button");
    button.disabled = s.busy || this.hinting || !mayMove(view, s.seat) || !s.legal.length;
    button.textContent = this.hinting ? t("hint.thinking") : t("hint.button");
  }

  async #hint() {
    const s = this.screen;
    if (s.busy || this.hinting || !s.mine) return;
    const id = s.id;
    const position = s.view?.turn_version;
    const level = $("hint-level").value || undefined;
    this.hinting = true;
    this.render();
    try {
      const answer = await api.hint(id, s.mine.token, level);
      // Hints belong to the position they were asked for: the turn, not the version (in a
      // simultaneous turn, other seats' hidden choices move the version, not the position).
      if (s.id === id && s.view?.turn_version === position) {
        const suggestions = answer.suggestions || [];
        s.page.showHints?.(suggestions);
        const used = answer.level || level || "";
        $("hint-meta").textContent = t("hint.meta", { level: levelName(used), ms: answer.elapsed_ms ?? "?" });
        const explain = $("hint-explain");
        explain.textContent = suggestions.length
          ? hintExplanation(suggestions[0].value, used, s.view.seats.length)
          : t("hint.none");
        explain.hidden = !explain.textContent;
      }
    } catch (err) {
      if (s.id === id) {
        const [text, tip] = plainError(err, s.view, s.seat);
        s.message(text, "error", err.code, tip);
      }
    } finally {
      this.hinting = false;
      if (s.id === id && s.view) this.render();
    }
  }
}
