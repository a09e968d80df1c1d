// After the game: the record as a download, and the replay controls stepping through it. What a
// position looks like is the page module's business: it returns {length, describe(i), show(i),
// scores(i)} from page.replay(record, view); these controls only move a position 0..length and
// tell `onStep(pos, scores)` (scores: the seats' scores at pos, or null) so the score table follows.

import { AnalysisPanel } from "./analysis.js";
import { addressedGame } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export class ReplayControls {
  constructor({ onStep } = {}) {
    this.onStep = onStep || (() => {});
    this.steps = null;
    this.pos = 0;
    this.downloadUrl = null;
    $("replay-first").addEventListener("click", () => this.go(0));
    $("replay-prev").addEventListener("click", () => this.go(this.pos - 1));
    $("replay-next").addEventListener("click", () => this.go(this.pos + 1));
    $("replay-last").addEventListener("click", () => this.go(this.length));
    $("replay-range").addEventListener("input", (ev) => this.go(Number(ev.target.value)));
    this.record = null;
    this.analysis = new AnalysisPanel(this);
    this.analysis.reset();
  }

  get length() {
    return this.steps ? this.steps.length : 0;
  }

  /** Whether a position before the end is on the board now. */
  get stepping() {
    return !!this.steps && this.pos !== this.length;
  }

  /** Offer `record` for download as `<filename>`. */
  offer(record, filename) {
    this.record = record;
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
    this.downloadUrl = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
    const a = $("download-record");
    a.href = this.downloadUrl;
    a.download = filename;
    a.hidden = false;
  }

  /** Drive the controls with a page's replay steps (null: the page has no replay). */
  load(steps) {
    this.steps = steps && Number.isInteger(steps.length) ? steps : null;
    $("replay").hidden = !this.steps;
    if (!this.steps) return;
    $("replay-range").max = String(this.length);
    this.go(this.length);
    this.analysis.load(gameOfAddress(), this.record);
  }

  /** Show position `pos` again (after the page redrew itself). */
  again() {
    if (this.stepping) this.steps.show(this.pos);
  }

  go(pos) {
    if (!this.steps) return;
    this.pos = Math.max(0, Math.min(this.length, Number.isFinite(pos) ? pos : 0));
    $("replay-range").value = String(this.pos);
    $("replay-pos").textContent = t("replay.pos", { pos: this.pos, length: this.length });
    let text = "";
    try {
      text = this.steps.describe(this.pos) || "";
    } catch {
      text = "";
    }
    $("replay-move").textContent = text;
    this.steps.show(this.pos);
    this.onStep(this.pos, this.scoresAt(this.pos));
    this.analysis.step(this.pos);
  }

  /** The seats' scores at position `pos` from the page's steps (null when it cannot say). */
  scoresAt(pos) {
    if (typeof this.steps?.scores !== "function") return null;
    try {
      const scores = this.steps.scores(pos);
      return Array.isArray(scores) ? scores : null;
    } catch (err) {
      console.error("replay scores:", err);
      return null;
    }
  }

  reset() {
    this.analysis.reset();
    this.record = null;
    this.steps = null;
    this.pos = 0;
    $("replay").hidden = true;
    $("replay-move").textContent = "";
    $("replay-pos").textContent = "";
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
    this.downloadUrl = null;
    const a = $("download-record");
    a.removeAttribute("href");
    a.hidden = true;
  }
}

/** The game id of the page's address (#/game/<id>), for its analysis. */
function gameOfAddress() {
  return addressedGame() || null;
}
