// Table clocks on the page: the create form's clock choice, every seat's time left (ticking once
// a second between updates), and the buttons that hand one's seat to the AI and take it back.
// The engine owns the clock (deadlines are absolute server times in the view's seats); the page
// only counts down towards them, corrected by how far this browser's clock is from the server's.

import { t } from "./i18n.js";

const MODES = ["none", "realtime", "correspondence"];
// The create form's presets: what tables on other sites choose most, in seconds.
const PRESETS = {
  realtime: { move_s: [15, 30, 60, 120], bank_s: [0, 60, 180, 300, 600], move: 30, bank: 180 },
  correspondence: { move_s: [3600, 43200, 86400, 259200], bank_s: [0], move: 86400, bank: 0 },
};

// ---- server time ---------------------------------------------------------------------------

let skewMs = 0; // server time minus this browser's time, when it is large enough to matter

/** Note a server `Date` header seen at `receivedAt` (local ms). The header has whole seconds,
 *  so only a difference over two seconds is believed (a browser whose clock is set wrong). */
export function noteServerDate(header, receivedAt = Date.now()) {
  const server = Date.parse(header || "");
  if (!Number.isFinite(server)) return;
  const skew = server + 500 - receivedAt;
  skewMs = Math.abs(skew) > 2000 ? skew : 0;
}

const serverNow = () => Date.now() + skewMs;

/** Milliseconds from now (the server's time) to `deadline` (server ms since 1970). */
export const msLeft = (deadline) => deadline - serverNow();

// ---- the create form -------------------------------------------------------------------------

function select(id, labelKey, options) {
  const label = document.createElement("label");
  label.className = "field clock-field";
  const text = document.createElement("span");
  text.textContent = t(labelKey);
  const sel = document.createElement("select");
  sel.id = id;
  for (const [value, words] of options) {
    const opt = document.createElement("option");
    opt.value = String(value);
    opt.textContent = words;
    sel.append(opt);
  }
  label.append(text, sel);
  return { label, sel };
}

/** The clock part of the create form, in `box`; `levels` are the AI levels ([value, words]).
 *  Returns a reader giving the request's `clock` (undefined for a table without one). */
export function clockForm(box, levels) {
  box.replaceChildren();
  const legend = document.createElement("legend");
  legend.textContent = t("clock.legend");
  const mode = select("clock-mode", "clock.mode", MODES.map((m) => [m, t(`clock.mode.${m}`)]));
  const details = document.createElement("div");
  details.className = "clock-details";
  box.append(legend, mode.label, details);
  let parts = null;
  const draw = () => {
    details.replaceChildren();
    parts = null;
    const preset = PRESETS[mode.sel.value];
    if (!preset) return;
    const move = select("clock-move", "clock.move_s", preset.move_s.map((s) => [s, duration(s * 1000)]));
    move.sel.value = String(preset.move);
    const bank = select("clock-bank", "clock.bank_s", preset.bank_s.map((s) => [s, s ? duration(s * 1000) : t("clock.no_bank")]));
    bank.sel.value = String(preset.bank);
    const then = select("clock-timeout", "clock.on_timeout", [["ai", t("clock.on_timeout.ai")], ["lose", t("clock.on_timeout.lose")]]);
    const level = select("clock-level", "clock.ai_level", levels);
    level.sel.value = levels.some(([v]) => v === "medium") ? "medium" : String(levels[0]?.[0] ?? "");
    const syncLevel = () => (level.label.hidden = then.sel.value !== "ai");
    then.sel.addEventListener("change", syncLevel);
    syncLevel();
    details.append(move.label, ...(preset.bank_s.length > 1 ? [bank.label] : []), then.label, level.label);
    parts = { move, bank, then, level };
  };
  mode.sel.addEventListener("change", draw);
  draw();
  return () => {
    if (!parts) return undefined;
    const clock = { mode: mode.sel.value, move_s: Number(parts.move.sel.value), bank_s: Number(parts.bank.sel.value), on_timeout: parts.then.sel.value };
    if (clock.on_timeout === "ai" && parts.level.sel.value) clock.ai_level = parts.level.sel.value;
    return clock;
  };
}

// ---- the seats' clocks -----------------------------------------------------------------------

/** A span of time in words: "0:23", "4:05", "1:02:00", "2 d 3 h". */
export function duration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 86400) {
    const d = Math.floor(s / 86400);
    const h = Math.floor((s % 86400) / 3600);
    return h ? t("clock.days_hours", { d, h }) : t("clock.days", { d });
  }
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** The text and state of one seat's clock now. */
function reading(seat) {
  if (seat.lost) return { text: t("clock.lost"), state: "lost" };
  const c = seat.clock;
  if (!c) return { text: "", state: "" };
  if (c.deadline_ms != null) {
    const left = c.deadline_ms - serverNow();
    return { text: duration(left), state: left <= 10000 ? "running low" : "running" };
  }
  return { text: c.bank_ms ? duration(c.bank_ms) : "", state: "idle" };
}

function paint(cell) {
  const seat = cell._seat;
  if (!seat) return;
  const { text, state } = reading(seat);
  cell.textContent = text;
  cell.className = `clock ${state}`;
  if (seat.away) {
    const mark = document.createElement("span");
    mark.className = "away-mark";
    mark.textContent = ` ${t("clock.ai_plays")}`;
    cell.append(mark);
  }
}

/** Fill a score table cell with `seat`'s clock; it keeps ticking until the table is redrawn. */
export function clockCell(cell, seat) {
  cell._seat = seat;
  cell.dataset.clock = "1";
  paint(cell);
}

/** Whether the view's table has a clock (the score table then shows a time column). */
export const hasClock = (view) => Boolean(view?.clock);

let ticker = null;
/** Start the once-a-second tick that repaints every running clock on the page. */
export function startTicking() {
  if (ticker) return;
  ticker = setInterval(() => {
    for (const cell of document.querySelectorAll("[data-clock]")) paint(cell);
  }, 1000);
}

// ---- leaving and coming back -----------------------------------------------------------------

/** The leave / take-back button for the player's own seat (hidden for spectators, AI seats and
 *  finished games). While the AI holds the seat the button is the page's main action, with a
 *  line above it saying so; leaving asks first (at a table whose time-out loses, that it is for
 *  good). `act(away)` asks the server; the view that comes back is shown by the page. */
export function renderSeatHandover(button, view, mySeat, act) {
  const seat = Number.isInteger(mySeat) ? view?.seats?.[mySeat] : null;
  const show = Boolean(seat) && view.status === "playing" && seat.kind === "human" && !seat.lost;
  const away = show && Boolean(seat.away);
  let note = document.getElementById("away-note");
  if (!note) {
    note = document.createElement("p");
    note.id = "away-note";
    note.className = "away-note";
    note.setAttribute("role", "status");
    button.before(note);
  }
  note.textContent = away ? t("table.away_note") : "";
  note.hidden = !away;
  button.hidden = !show;
  if (!show) return;
  button.textContent = away ? t("clock.take_back") : t("clock.leave");
  button.className = away ? "primary away-button take-back" : "ghost-button away-button";
  const lose = view.clock?.on_timeout === "lose";
  button.title = away ? t("clock.take_back_help") : lose ? t("clock.leave_lose_help") : t("clock.leave_help");
  button.onclick = async () => {
    if (!away && !window.confirm(lose ? t("clock.leave_lose_confirm") : t("table.leave_confirm"))) return;
    button.disabled = true;
    try {
      await act(!away);
    } finally {
      button.disabled = false;
    }
  };
}

/** The Resign button (issue 35): the reader's own seat gives up for good, after a confirmation;
 *  the seat retires (a loss) and the others play on. Shown while the game is being played and
 *  the seat is still in it, whoever plays it now (the AI while its player is away too). */
export function renderResign(button, view, mySeat, act) {
  const seat = Number.isInteger(mySeat) ? view?.seats?.[mySeat] : null;
  const show = Boolean(seat) && view.status === "playing" && seat.kind === "human" && !seat.lost;
  button.hidden = !show;
  if (!show) return;
  button.textContent = t("table.resign");
  button.title = t("table.resign_help");
  button.onclick = async () => {
    if (!window.confirm(t("table.resign_confirm"))) return;
    button.disabled = true;
    try {
      await act();
    } finally {
      button.disabled = false;
    }
  };
}
