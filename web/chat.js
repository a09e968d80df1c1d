// Chat at the table (issue 35 item 2; the server's rules: services/engine/play/chat.py). A player's
// token writes and reads the players' room; a spectator (no token) the spectators' room: the
// server picks the room from the token, this page only shows what it is given. Lines are data:
// every piece is set with textContent, never as HTML, and a link stays plain text. A mute is
// the reader's own (kept in this browser, per game: a seat, or a spectator's mark `by`).
// A party table's phones send only preset messages (the words are the page's).
// Live, with no poll and no connection of its own: the game's own stream (web/gamefeed.js, opened
// with ?chat=1) brings each new line of the reader's room as `event: chat` (live()); one GET reads
// the backlog when the chat opens and again when the stream opens again after a break (refresh()).
import { call } from "./api.js";
import { t } from "./i18n.js";

export const MAX_CHARS = 280;
export const PRESETS = ["well_played", "good_luck", "one_more", "thanks", "oops", "wow"];
const KEPT = 50; // lines shown, as many as GET .../chat answers

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Whether line id `a` ("<ms>-<seq>") is after `b`. */
function laterId(a, b) {
  const [am, as] = String(a).split("-").map(Number);
  const [bm, bs] = String(b).split("-").map(Number);
  return am > bm || (am === bm && as > bs);
}

const muteKey = (id) => `metro.chat.mutes.${id}`;
const whoOf = (line) => (Number.isInteger(line.seat) ? `seat:${line.seat}` : `by:${line.by}`);

export class ChatBox {
  constructor(box) {
    this.box = box;
    this.id = null;
    this.lines = [];
  }

  /** Show the chat of game `id` for the reader (`token`: their seat's, else a spectator). */
  show(id, token, { party = false, mySeat = null, nameOf = (seat) => `#${seat + 1}` } = {}) {
    this.nameOf = nameOf;
    this.mySeat = mySeat;
    // A spectator has no token: compared as "", or every render would rebuild the box (losing
    // what they were typing) and read the chat again.
    if (this.id === id && this.token === (token || "") && this.party === party) return;
    this.id = id;
    this.token = token || "";
    this.party = party;
    this.lines = [];
    this.#build();
    this.refresh(); // the backlog; new lines come on the game's stream (live)
  }

  /** One line from the game's stream (`{room, line}`): the server sends the reader's room only. */
  live(data) {
    const line = data?.line;
    if (!this.id || !line || typeof line.id !== "string" || this.lines.some((l) => l.id === line.id)) return;
    this.lines = [...this.lines, line].slice(-KEPT);
    this.#draw();
  }

  get mutes() {
    try {
      return new Set(JSON.parse(localStorage.getItem(muteKey(this.id)) || "[]"));
    } catch {
      return new Set();
    }
  }

  #setMuted(who, muted) {
    const mutes = this.mutes;
    if (muted) mutes.add(who);
    else mutes.delete(who);
    localStorage.setItem(muteKey(this.id), JSON.stringify([...mutes]));
    this.#draw();
  }

  #build() {
    this.box.hidden = false;
    this.box.replaceChildren();
    const details = el("details", "chat-details");
    details.open = !matchMedia("(max-width: 700px)").matches; // folded on phones
    const summary = el("summary", "chat-title", t(this.token ? "chat.players_room" : "chat.spectators_room"));
    this.list = el("ol", "chat-lines");
    this.list.setAttribute("aria-live", "polite");
    this.note = el("p", "chat-note");
    this.note.setAttribute("role", "status");
    this.note.hidden = true;
    details.append(summary, this.list, this.note, this.party ? this.#presets() : this.#form());
    this.box.append(details);
  }

  #form() {
    const form = el("form", "chat-form");
    const input = el("input", "chat-input");
    input.type = "text";
    input.maxLength = MAX_CHARS;
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.placeholder"));
    const send = el("button", "chat-send", t("chat.send"));
    send.type = "submit";
    form.append(input, send);
    form.onsubmit = async (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      if (text.length > MAX_CHARS) return this.#say(t("chat.too_long", { max: MAX_CHARS }));
      send.disabled = true;
      try {
        if (await this.#post({ text })) input.value = "";
      } finally {
        send.disabled = false;
      }
    };
    return form;
  }

  #presets() {
    const row = el("div", "chat-presets");
    for (const id of PRESETS) {
      const b = el("button", "ghost-button chat-preset", t(`chat.preset.${id}`));
      b.type = "button";
      b.dataset.preset = id;
      b.onclick = () => this.#post({ preset: id });
      row.append(b);
    }
    return row;
  }

  #say(text) {
    this.note.textContent = text;
    this.note.hidden = !text;
  }

  async #post(body) {
    try {
      const answer = await call("POST", `/api/games/${this.id}/chat`, { token: this.token || undefined, body });
      this.#say("");
      this.#take(answer);
      return true;
    } catch (err) {
      this.#say(this.#refusal(err));
      return false;
    }
  }

  #refusal(err) {
    const status = err?.status;
    if (status === 429) return t("chat.too_fast");
    if (err?.code === "chat_too_long" || (status === 400 && err?.field === "text")) {
      return t("chat.too_long", { max: MAX_CHARS });
    }
    return t("chat.failed");
  }

  async refresh() {
    const id = this.id;
    try {
      const answer = await call("GET", `/api/games/${id}/chat`, { token: this.token || undefined });
      if (id === this.id) this.#take(answer);
    } catch {
      /* the stream's next opening reads it again */
    }
  }

  #take(answer) {
    // The answer's lines, and any the stream brought after them (a line may come either way).
    const lines = Array.isArray(answer?.lines) ? answer.lines : [];
    const known = new Set(lines.map((l) => l.id));
    const newest = lines.length ? lines[lines.length - 1].id : "";
    const later = this.lines.filter((l) => !known.has(l.id) && newest && laterId(l.id, newest));
    this.lines = [...lines, ...later].slice(-KEPT);
    this.#draw();
  }

  #draw() {
    const mutes = this.mutes;
    const items = this.lines.map((line) => {
      const who = whoOf(line);
      const li = el("li", "chat-line");
      li.dataset.lineId = line.id;
      const name = Number.isInteger(line.seat) ? line.name || this.nameOf(line.seat) : t("chat.spectator");
      li.append(el("b", "chat-name", `${name}: `));
      const muted = mutes.has(who);
      // A line of a player who deleted their account keeps its place, its words gone (archive).
      const words = line.deleted ? t("chat.deleted_line") : muted ? t("chat.muted_line")
        : line.preset ? t(`chat.preset.${line.preset}`) : line.text;
      li.append(el("span", muted || line.deleted ? "chat-text chat-muted" : "chat-text", words));
      const mine = Number.isInteger(line.seat) && this.token && line.seat === this.mySeat;
      if (!mine) {
        const mute = el("button", "link-button chat-mute", t(muted ? "chat.unmute" : "chat.mute"));
        mute.type = "button";
        mute.onclick = () => this.#setMuted(who, !muted);
        const report = el("button", "link-button chat-report", t("chat.report"));
        report.type = "button";
        report.onclick = async () => {
          try {
            await call("POST", `/api/games/${this.id}/chat/${encodeURIComponent(line.id)}/report`, {
              token: this.token || undefined,
            });
            this.#say(t("chat.reported"));
          } catch (err) {
            this.#say(this.#refusal(err));
          }
        };
        li.append(mute, report);
      }
      return li;
    });
    if (!items.length) items.push(el("li", "chat-empty", t("chat.empty")));
    this.list.replaceChildren(...items);
    this.list.scrollTop = this.list.scrollHeight;
  }
}
