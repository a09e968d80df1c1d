// After the game, on the game page: the final results, the record (to download) and its replay
// through the page module's replay(), with the score table following the position replayed.
// Part of the game screen (web/game.js), whose view, seat and page module it reads.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { plainError, renderFinal, renderScores } from "./panel.js";
import { ReplayControls } from "./replay.js";

const $ = (id) => document.getElementById(id);

export class AfterGame {
  /** `screen`: the game screen (its id, mine, seat, meta, party, view, page, message()). */
  constructor(screen) {
    this.screen = screen;
    this.recordLoaded = false;
    this.replay = new ReplayControls({ onStep: (pos, scores) => this.#scores(scores) });
  }

  /** A game opened: its record is not loaded yet, no replay offered. */
  reset() {
    this.recordLoaded = false;
    $("after").hidden = true;
    this.replay.reset();
  }

  /** The final results once the game is over, and its record for the replay (fetched once). */
  render() {
    const s = this.screen;
    const view = s.view;
    const over = view.status === "over";
    $("after").hidden = !over;
    if (!over) return;
    renderFinal(view, s.seat, s.meta);
    if (!this.recordLoaded) {
      this.recordLoaded = true;
      const id = s.id;
      // The positions (GET /positions) come with the record: the page draws them and replays
      // no rule itself; a game without them (404) replays from the record alone.
      const positions = api.positions(id, s.mine?.token).catch(() => null);
      Promise.all([api.record(id, s.mine?.token), positions]).then(
        ([record, shown]) => {
          if (s.id !== id || !s.page) return;
          this.replay.offer(record, `${view.game}-${id}.json`);
          this.replay.meta = s.meta; // the seats' colours, for the analysis graph's lines and legend
          const steps = typeof s.page.replay === "function" ? s.page.replay(record, s.view, shown) : null;
          this.replay.load(steps);
        },
        (err) => {
          if (s.id !== id) return;
          this.recordLoaded = false;
          s.message(t("final.record_failed", { reason: plainError(err, s.view, s.seat)[0] }), "error");
        },
      );
    }
  }

  /** The view was shown again: the replay keeps its position, the scores theirs. */
  again() {
    this.replay.again();
    if (this.replay.steps) this.#scores(this.replay.scoresAt(this.replay.pos));
  }

  /** While a finished game is replayed before its end, the score table shows the scores at
   *  that position; at the end the final results alone say it. */
  #scores(scores) {
    const s = this.screen;
    if (s.view && scores) renderScores(s.view, s.seat, s.meta, this.replay.stepping ? scores : null, s.party);
  }
}
