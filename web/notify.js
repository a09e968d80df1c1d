// Turn alerts (issue 19, item 9): a short sound and, when the player asks for them, browser
// notifications (the Notification API) when it becomes their turn and when their clock runs low.
// Sound is on by default at tables with a clock (a missed turn there costs time), off elsewhere
// until chosen; notifications are opt-in only (the browser asks for permission on that click).
// Correspondence tables notify too: their turns come hours apart, when the tab is in the back.

import { saveSetting, setting } from "./api.js";
import { t } from "./i18n.js";
import { duration, msLeft } from "./clock.js";

const SOUND = "turn.sound";
const NOTIFY = "turn.notify";
// How little time left counts as running low: real time (a move of seconds), correspondence.
const LOW_MS = { realtime: 10_000, correspondence: 3_600_000 };

let audio = null;

/** A short beep (WebAudio, no file); `high` for the clock running low. */
export function beep(high = false) {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = high ? 1320 : 880;
    const now = audio.currentTime;
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.2, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.3);
  } catch {
    /* no audio here */
  }
}

const supported = () => typeof window.Notification === "function";

/** Whether the player turned notifications on and the browser still allows them. */
export const notifying = () => supported() && setting(NOTIFY) === "on" && Notification.permission === "granted";

/** The sound and notification choices under the score table, and the alerts themselves. */
export class TurnAlerts {
  /** `row`: the page's sound row (a label holding the #sound-toggle checkbox); `say(text,
   *  kind)`: the shell's message line. */
  constructor(row, say) {
    this.row = row;
    this.say = say;
    this.sound = row.querySelector("input");
    this.sound.addEventListener("change", () => {
      saveSetting(SOUND, this.sound.checked ? "on" : "off");
      if (this.sound.checked) beep(); // a user gesture: lets the browser play later beeps
    });
    const label = document.createElement("label");
    label.className = "check sound-row notify-row";
    label.id = "notify-row";
    label.hidden = true;
    this.notify = document.createElement("input");
    this.notify.type = "checkbox";
    this.notify.id = "notify-toggle";
    label.append(this.notify, ` ${t("notify.toggle")}`);
    row.after(label);
    this.notifyRow = label;
    this.notify.addEventListener("change", () => this.#choose());
    this.reset();
  }

  /** A new game is shown: nothing alerted yet. */
  reset() {
    this.wasMine = null;
    this.lowFor = null; // the deadline already alerted as running low
    this.view = null;
    this.seat = null;
    this.name = "";
  }

  async #choose() {
    if (!this.notify.checked) {
      saveSetting(NOTIFY, "off");
      return;
    }
    if (!supported()) {
      this.notify.checked = false;
      this.say(t("notify.unsupported"), "error");
      return;
    }
    let permission = Notification.permission;
    if (permission === "default") {
      try {
        permission = await Notification.requestPermission();
      } catch {
        permission = "denied";
      }
    }
    const on = permission === "granted";
    this.notify.checked = on;
    saveSetting(NOTIFY, on ? "on" : "off");
    if (!on) this.say(t("notify.denied"), "error");
  }

  /** Show the choices for `view` and alert when the turn just became the viewer's. `mine`:
   *  whether it is their move now; `name`: the game's name for the notification. */
  update(view, seat, mine, name) {
    this.view = view;
    this.seat = seat;
    this.name = name;
    const playing = seat !== null && view.status !== "over";
    this.row.hidden = !playing;
    this.notifyRow.hidden = !playing;
    const saved = setting(SOUND);
    this.sound.checked = saved ? saved === "on" : Boolean(view.clock);
    this.notify.checked = notifying();
    if (mine && this.wasMine === false) this.#alert(t("notify.your_turn"), t("notify.your_turn_body", { game: name }), false);
    this.wasMine = mine;
    this.tick();
  }

  /** Once a second (and on every update): alert once per move when the viewer's clock runs
   *  low while it is their move. */
  tick() {
    const view = this.view;
    const seat = Number.isInteger(this.seat) ? view?.seats?.[this.seat] : null;
    const deadline = seat?.clock?.deadline_ms;
    if (!seat || view.status !== "playing" || seat.away || deadline == null || !(view.to_move || []).includes(this.seat)) return;
    if (seat.chosen === true || this.lowFor === deadline) return;
    const left = msLeft(deadline);
    const low = LOW_MS[view.clock?.mode] ?? LOW_MS.realtime;
    if (left > low || left <= 0) return;
    this.lowFor = deadline;
    this.#alert(t("notify.low"), t("notify.low_body", { game: this.name, left: duration(left) }), true);
  }

  #alert(title, body, low) {
    if (this.sound.checked) beep(low);
    // A notification is for a player looking elsewhere: another tab, window or application.
    if (!notifying() || (document.visibilityState === "visible" && document.hasFocus())) return;
    try {
      const note = new Notification(title, { body, tag: `metro-${this.view?.game_id || ""}`, renotify: true, lang: document.documentElement.lang || undefined });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    } catch {
      /* a browser that only notifies from a service worker: the sound and the title still say it */
    }
  }
}
