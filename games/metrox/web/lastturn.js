// Metro X's last turn on the map (RULES-METROX.md): which stations the last resolved turn filled on
// each seat's sheet, so that the board marks them (dashed) and others' new crosses fade in. Kept
// in sessionStorage too, so that a reload still shows the turn everyone has just played.

import { lastSeen, reducedMotion, saveLastSeen } from "/kit.js";

export class LastTurn {
  /** `settle` runs once the fade-in is over (the board drops its "arrive" marks). */
  constructor(settle) {
    this.settle = settle;
    this.prevFilled = new Map(); // seat -> stations filled before the last resolved turn
    this.lastFilled = new Map(); // seat -> stations the last resolved turn filled
    this.arriving = false;
  }

  /** The stations seat p's sheet got in the last resolved turn. */
  of(p) {
    return this.lastFilled.get(p) || new Set();
  }

  /** A new turn's view (`me`: the viewer's seat, or null): what each sheet got since the last. */
  track(view, me) {
    this.lastFilled = new Map();
    const stored = lastSeen("metrox", view.game_id, me);
    if (!this.prevFilled.size && stored?.turn === view.turn_index && stored.before) {
      for (const [seat, filled] of Object.entries(stored.before)) this.prevFilled.set(Number(seat), new Set(filled));
    }
    const before = {};
    let fresh = false;
    for (const s of view.sheets || []) {
      const had = this.prevFilled.get(s.seat);
      if (had) {
        this.lastFilled.set(s.seat, new Set(s.filled.filter((x) => !had.has(x))));
        before[s.seat] = [...had];
        fresh = true;
      }
      this.prevFilled.set(s.seat, new Set(s.filled));
    }
    if (fresh && me !== null) saveLastSeen("metrox", view.game_id, me, { turn: view.turn_index, before });
    // Other players' new crosses fade in (briefly), unless the player asked for less motion.
    this.arriving = fresh && !reducedMotion();
    clearTimeout(this.arriveTimer);
    if (this.arriving) this.arriveTimer = setTimeout(() => {
      this.arriving = false;
      this.settle();
    }, 900);
  }
}
