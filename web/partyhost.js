// Party mode's host screen (#/host/<id>), for a projector or TV (1920x1080): the join code large
// with its QR code, players appearing as they join, Start, then each turn the card large with its
// words, the turn and the timer (readable across a room), the game's own board as a spectator sees
// it, who has chosen (never what), the scores, and the final ranking.
//
// It reads only the public view and the public events (no token is ever sent for the view, even
// in a browser that holds a seat of the table): it cannot show a hidden choice. The host token
// (kept in this browser) is sent to start the table, and with the event stream's ?chat=1 and GET
// .../chat, which prove the players' room for the feed of the phones' preset messages (the
// stream's events are the public ones whatever the token: no ?delta=1). The board is the game's own page module, mounted
// as the game page mounts it; the large card is its `cardFace(code)` (when it draws cards), scaled
// up, and worded by the face's own title. Split from party.js, which opens and closes it.

import { duration, msLeft } from "./clock.js";
import { html, seatGlyph } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { gameMeta, seatColour, textOn } from "./meta.js";
import { gameName } from "./words.js";
import { gamePath, hostToken, partyApi, partyError } from "./partyapi.js";
import { call } from "./api.js";
import { LiveStream } from "./live.js";

const KIND = /^[a-z0-9_-]{1,32}$/;
const REFRESH_MS = 150; // events come in bursts (50 phones choosing): one view fetch per burst
const POLL_MS = 5000; // besides the live stream, in case it is down
const FEED_LINES = 6; // the newest preset messages the host screen shows

/** The code as people read it: two groups of three. */
export const spacedCode = (code) => (code.length === 6 ? `${code.slice(0, 3)} ${code.slice(3)}` : code);

export class HostScreen {
  constructor(section, id) {
    this.id = id;
    this.token = hostToken(id);
    this.view = null;
    this.party = null;
    this.meta = null;
    this.page = null;
    this.kind = null;
    this.events = [];
    this.timers = [];
    this.closed = false;
    const root = html("div", { className: "party-host", id: "party-host" }, section);
    this.main = html("div", { className: "party-main" }, root);
    this.joinBox = html("div", { className: "party-join" }, this.main);
    html("p", { className: "party-how" }, this.joinBox, t("party.how_to_join", { address: `${location.origin}/#/join` }));
    this.codeEl = html("p", { className: "party-code", id: "party-code" }, this.joinBox);
    this.qr = html("img", { className: "party-qr", alt: t("party.qr_alt") }, this.joinBox);
    this.turnBox = html("section", { className: "party-turn", id: "party-turn", hidden: true, "aria-label": t("party.turn_card") }, this.main);
    this.cardSlot = html("div", { className: "party-card", id: "party-card" }, this.turnBox);
    const turnInfo = html("div", { className: "party-turn-info" }, this.turnBox);
    this.turnEl = html("p", { className: "party-turn-number", id: "party-turn-number" }, turnInfo);
    this.cardWords = html("p", { className: "party-card-words", id: "party-card-words" }, turnInfo);
    this.shownCard = null;
    // The card's slot is sized by party.css (a share of the screen's height); the face inside is
    // scaled to fit it whenever either box changes size: when the game's stylesheet arrives after
    // the face was drawn, when the slot is first shown, on a resize. A size read once, before the
    // layout settles, drew the card 104 px high or 2,000 px over the map (issue 35).
    this.cardSizer = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.#scaleCard()) : null;
    this.cardSizer?.observe(this.cardSlot);
    this.board = html("div", { className: "party-board", hidden: true }, this.main);
    const side = html("aside", { className: "party-side" }, root);
    this.title = html("h1", { className: "party-title" }, side);
    this.status = html("p", { className: "party-status", id: "party-status", role: "status" }, side);
    this.timer = html("p", { className: "party-timer", id: "party-timer-left", hidden: true }, turnInfo);
    // Disabled until the view says who has joined (a click before that would start an empty table).
    this.startButton = html("button", { type: "button", className: "primary party-start", id: "party-start", disabled: true, hidden: !this.token }, side, t("party.start"));
    this.startButton.addEventListener("click", () => this.#start());
    this.message = html("p", { className: "party-message", role: "alert" }, side);
    this.players = html("ol", { className: "party-players", id: "party-players" }, side);
    this.controls = html("div", { className: "party-controls" }, side);
    // The phones' preset messages (issue 35 item 2): the players' room, read with the host token.
    this.feedBox = html("section", { className: "party-feed", id: "party-feed", hidden: true, "aria-label": t("party.phones_feed") }, side);
    html("h2", { className: "party-feed-title" }, this.feedBox, t("party.phones_feed"));
    this.feedList = html("ol", { className: "party-feed-lines", "aria-live": "polite" }, this.feedBox);
    this.feedLines = [];
    this.#load();
    this.#listen();
    this.timers.push(setInterval(() => this.#refresh(), POLL_MS));
    this.timers.push(setInterval(() => this.#tick(), 250));
  }

  close() {
    this.closed = true;
    this.cardSizer?.disconnect();
    for (const id of this.timers) clearInterval(id);
    clearTimeout(this.pending);
    this.stream?.close();
    try {
      this.page?.unmount?.();
    } catch {
      /* the board's own clean-up failing must not keep the next page from opening */
    }
  }

  async #load() {
    try {
      this.party = await partyApi.info(this.id);
    } catch (err) {
      this.message.textContent = partyError(err);
      return;
    }
    const code = this.party.join_code;
    this.codeEl.textContent = spacedCode(code);
    this.codeEl.setAttribute("aria-label", t("party.code_label", { code: [...code].join(" ") }));
    this.qr.src = partyApi.qrUrl(code);
    await this.#refresh();
  }

  /** The live stream of the game's public events: each burst of them refreshes the view. With
   *  the host token (which holds no seat, or the host's own: either way the events are the
   *  public ones) it also brings the phones' preset messages (`?chat=1`, `event: chat`). */
  #listen() {
    const chat = this.token ? "?chat=1" : "";
    this.stream = new LiveStream(`${gamePath(this.id)}/events${chat}`, {
      token: this.token || null,
      onOpen: () => chat && this.#readFeed(), // the backlog, as it opens and after a break
      // After the end the server keeps a ?chat=1 stream for the presets sent after it, then ends
      // it: a finished game's stream is not opened again (it would end at once, again and again).
      onDown: () => {
        if (!this.ended) return;
        this.stream?.close();
        if (chat) this.#readFeed();
      },
      onMessage: (message) => {
        let data = null;
        try {
          data = JSON.parse(message.data);
        } catch {
          /* something unreadable: the refresh below still happens */
        }
        if (message.type === "chat") return this.#showFeed([data?.line]);
        if (message.type !== "message") return;
        if (data?.status === "over") this.ended = true;
        if (data) this.events.push(data);
        clearTimeout(this.pending);
        this.pending = setTimeout(() => this.#refresh(), REFRESH_MS);
      },
    });
  }

  async #readFeed() {
    try {
      const answer = await call("GET", `${gamePath(this.id)}/chat`, { token: this.token });
      this.#showFeed(answer?.lines || []);
    } catch {
      /* the feed stays as it is; the next opening reads it again */
    }
  }

  /** The newest presets, each "name: words" in the page's language (text, never HTML). */
  #showFeed(lines) {
    const known = new Set(this.feedLines.map((l) => l.id));
    for (const line of lines) {
      if (line && typeof line.id === "string" && typeof line.preset === "string" && !known.has(line.id)) {
        this.feedLines.push(line);
        known.add(line.id);
      }
    }
    this.feedLines.sort((a, b) => (a.id < b.id ? -1 : 1));
    this.feedLines = this.feedLines.slice(-FEED_LINES);
    const items = this.feedLines.reverse().map((line) => {
      const li = html("li", { className: "party-feed-line" });
      html("b", { className: "party-feed-name" }, li, `${line.name || ""}: `);
      html("span", { className: "party-feed-text" }, li, t(`chat.preset.${line.preset}`));
      return li;
    });
    this.feedLines.reverse();
    this.feedList.replaceChildren(...items);
    this.feedBox.hidden = !items.length;
  }

  async #refresh() {
    if (this.closed) return;
    let view;
    try {
      view = await partyApi.view(this.id);
    } catch (err) {
      this.message.textContent = partyError(err);
      return;
    }
    if (this.closed || (this.view && view.version < this.view.version)) return;
    this.view = view;
    if (!this.meta) this.meta = await gameMeta(view.game).catch(() => null);
    this.#render();
    if (view.status !== "waiting") await this.#board(view);
  }

  /** The game's own board, as a spectator sees it (seat null, no moves). */
  async #board(view) {
    if (!this.page) {
      if (!KIND.test(view.game || "")) return;
      const module = await import(`/games/${view.game}/page.js`);
      if (this.closed || this.page) return;
      this.cardFace = typeof module.cardFace === "function" ? module.cardFace : null;
      const screen = this;
      const host = {
        send: async () => false,
        notify: (text) => (screen.message.textContent = text || ""),
        get seat() {
          return null;
        },
        get events() {
          return screen.events;
        },
      };
      this.board.hidden = false;
      this.joinBox.hidden = true;
      this.page = module.mount({ board: this.board, controls: this.controls }, host);
    }
    this.page.update(this.view, []);
    this.#turnCard(this.view);
  }

  /** This turn's card, large, with its words and the turn's number (the timer sits beside). */
  #turnCard(view) {
    const playing = view.status === "playing";
    this.turnBox.hidden = !playing;
    if (!playing) return;
    const turn = Number.isInteger(view.turn_index) ? view.turn_index + 1 : null;
    this.turnEl.textContent = turn ? t("party.turn", { turn: formatNumber(turn) }) : "";
    const code = view.card ?? null;
    if (code === this.shownCard) return;
    this.shownCard = code;
    this.cardSlot.replaceChildren();
    const face = code !== null && this.cardFace ? this.cardFace(code, "big") : null;
    this.cardSlot.hidden = !face;
    this.cardWords.textContent = face?.title || "";
    if (!face) return;
    const inner = html("div", { className: "party-card-face" }, this.cardSlot);
    inner.append(face);
    this.cardSizer?.observe(inner); // its own size, before the transform: the game's drawing
    this.#scaleCard();
  }

  /** The game's own card face, scaled to fit the slot party.css sizes (a transform: the face
   *  keeps its own proportions and drawing, and the layout around it never depends on it). Both
   *  sizes are read as they are now; the observer calls this again whenever either changes. */
  #scaleCard() {
    const inner = this.cardSlot.firstElementChild;
    if (!inner) return;
    const w = inner.offsetWidth; // layout sizes: the transform does not change them
    const h = inner.offsetHeight;
    const room = this.cardSlot.clientWidth;
    const high = this.cardSlot.clientHeight;
    if (!w || !h || !room || !high) return;
    const k = Math.min(room / w, high / h);
    const left = (room - w * k) / 2;
    const top = (high - h * k) / 2;
    inner.style.transform = `translate(${left}px, ${top}px) scale(${k})`;
  }

  #render() {
    const view = this.view;
    const waiting = view.status === "waiting";
    const taken = view.seats.filter((s) => s.kind !== "open");
    this.title.textContent = gameName(view.game);
    this.joinBox.hidden = !waiting;
    this.startButton.hidden = !waiting || !this.token;
    this.startButton.disabled = !taken.length;
    if (waiting) {
      this.status.textContent = t("party.waiting", { count: taken.length, max: view.seats.length });
    } else if (view.status === "playing") {
      const left = view.to_move.length;
      this.status.textContent = t("party.choosing", { count: left, total: view.seats.length });
    } else {
      this.status.textContent = t("party.over");
    }
    this.#renderPlayers(view, taken);
    this.#tick();
  }

  /** The players: as they join; then who has chosen (never what) and the scores, and at the end
   *  the ranking, best first. */
  #renderPlayers(view, taken) {
    const over = view.status === "over";
    const rows = taken.map((s) => ({ ...s, i: s.seat }));
    if (over) rows.sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || a.i - b.i);
    const toMove = new Set(view.to_move);
    const winners = new Set(view.winners || []);
    this.players.classList.toggle("ranking", over);
    this.players.replaceChildren();
    let rank = 0;
    let last = null;
    rows.forEach((s, n) => {
      if (over && s.score !== last) rank = n + 1;
      last = s.score;
      const li = html("li", { className: "party-player" }, this.players);
      li.dataset.seat = String(s.i);
      const colour = seatColour(this.meta, s.i);
      const badge = html("span", { className: "party-badge", "aria-hidden": "true" }, li, seatGlyph(s.i));
      badge.style.backgroundColor = colour;
      badge.style.color = textOn(colour);
      if (over) html("span", { className: "party-rank" }, li, t("party.rank", { rank }));
      html("span", { className: "party-name" }, li, s.name || t("party.player_n", { n: s.i + 1 }));
      if (view.status === "playing") {
        const chosen = !toMove.has(s.i);
        li.classList.toggle("chosen", chosen);
        html("span", { className: "party-chosen" }, li, chosen ? t("party.has_chosen") : t("party.choosing_now"));
      }
      if (view.status !== "waiting") html("span", { className: "party-score" }, li, formatNumber(s.score ?? 0));
      if (over && winners.has(s.i)) li.classList.add("winner");
    });
  }

  /** The turn's timer: the deadline every seat still choosing shares (the table clock). */
  #tick() {
    const view = this.view;
    const deadlines = (view?.status === "playing" ? view.seats : [])
      .map((s) => s.clock?.deadline_ms)
      .filter((d) => Number.isFinite(d));
    this.timer.hidden = !deadlines.length;
    if (!deadlines.length) return;
    const left = msLeft(Math.max(...deadlines));
    this.timer.textContent = duration(Math.max(0, left));
    this.timer.classList.toggle("low", left < 10000);
  }

  async #start() {
    this.startButton.disabled = true;
    this.message.textContent = "";
    try {
      await partyApi.start(this.id, this.token);
      await this.#refresh();
    } catch (err) {
      this.message.textContent = partyError(err);
      this.startButton.disabled = false;
    }
  }
}
