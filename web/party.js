// Party mode (issue 23.2): a table for a room, people on their phones, one screen for everyone.
//
//   #/host          the host's form: a game whose seats move at once (GET /api/party/games), its
//                   options, the per-turn timer, and whether the host plays too.
//   #/host/<id>     the host screen, for a projector or TV (1920x1080): the join code large with
//                   its QR code, players appearing as they join, Start, then each turn the card
//                   large with its words, the turn and the timer (readable across a room), the
//                   game's own board as a spectator sees it, who has chosen (never what), the
//                   scores, and the final ranking (each sheet through the board's own picker).
//   #/join[/<code>] the phones' join page: the code (filled in when the QR code opened it) and a
//                   name; then the player's own seat on the ordinary game page (#/game/<id>).
//
// The host screen reads only the public view and the public events (no token is ever sent for
// them, even in a browser that holds a seat of the table): it cannot show a hidden choice. The
// host token (kept in this browser) is sent only to start the table. Nothing here names a game:
// the board is the game's own page module, mounted as the game page mounts it; the large card is
// its `cardFace(code)` (when it draws cards), scaled up, and worded by the face's own title.

import { ApiError, api, call, rememberName, saveSeat, savedName } from "./api.js";
import { duration, msLeft } from "./clock.js";
import { ensureStylesheet, html, seatGlyph } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { gameMeta, seatColour, textOn } from "./meta.js";
import { choiceLabel, gameName, optionLabel } from "./words.js";
import { mapPicture } from "./mappick.js";

const HOST_KEY = (id) => `host.${id}`;
const CODE = /^[A-Za-z0-9 -]{1,20}$/;
const KIND = /^[a-z0-9_-]{1,32}$/;
const TIMERS = [0, 20, 30, 45, 60, 90, 120]; // seconds a turn; 0: no timer
const DEFAULT_TIMER = 30;
const REFRESH_MS = 150; // events come in bursts (50 phones choosing): one view fetch per burst
const POLL_MS = 5000; // besides the live stream, in case it is down

// ---- the HTTP calls ------------------------------------------------------------------------------

const g = (id) => `/api/games/${encodeURIComponent(id)}`;
export const partyApi = {
  games: () => call("GET", "/api/party/games"),
  create: (body) => call("POST", "/api/games", { body }),
  join: (code, name) => call("POST", `/api/join/${encodeURIComponent(code)}`, { body: { name } }),
  info: (id) => call("GET", `${g(id)}/party`),
  start: (id, token) => call("POST", `${g(id)}/start`, { token }),
  view: (id) => call("GET", g(id)), // the public view: never with a token
  qrUrl: (code) => `/api/join/${encodeURIComponent(code)}/qr.svg`,
};

function hostToken(id) {
  try {
    return localStorage.getItem(HOST_KEY(id)) || "";
  } catch {
    return "";
  }
}

function saveHostToken(id, token) {
  try {
    localStorage.setItem(HOST_KEY(id), token);
  } catch {
    /* private mode: the host screen can still show the table, not start it after a reload */
  }
}

const PARTY_KEY = (id) => `party.${id}`;

/** Remember that game `id` is a party table this browser joined (or hosts with a seat): its game
 *  page then says that the host starts it, not that it starts when every seat is taken (a party
 *  table has room for a whole room and never fills). The public view does not say it. */
export function markPartyTable(id) {
  try {
    localStorage.setItem(PARTY_KEY(id), "1");
  } catch {
    /* private mode: the page says the ordinary words */
  }
}

/** Whether this browser joined game `id` as a party table (markPartyTable). */
export function isPartyTable(id) {
  try {
    return localStorage.getItem(PARTY_KEY(id)) === "1";
  } catch {
    return false;
  }
}

/** The code as people read it: two groups of three. */
export const spacedCode = (code) => (code.length === 6 ? `${code.slice(0, 3)} ${code.slice(3)}` : code);

/** Where an address goes: {page: "new"} (#/host), {page: "host", id}, {page: "join", code}; null
 *  when it is no party address. */
export function partyAddress(hash) {
  if (hash === "#/host") return { page: "new" };
  const host = /^#\/host\/([A-Za-z0-9_-]{1,64})$/.exec(hash);
  if (host) return { page: "host", id: host[1] };
  const join = /^#\/join(?:\/([^/?#]*))?$/.exec(hash);
  if (join) {
    let code = "";
    try {
      code = decodeURIComponent(join[1] || "");
    } catch {
      code = "";
    }
    return { page: "join", code: CODE.test(code) ? code.toUpperCase() : "" };
  }
  return null;
}

/** A refusal in the page's words (the codes of services/engine/party.py). */
function partyError(err) {
  const known = {
    party_not_found: "party.error_not_found",
    party_started: "party.error_started",
    party_full: "party.error_full",
    party_empty: "party.error_empty",
    rate_limited: "party.error_rate",
    permission_denied: "party.error_not_host",
  };
  if (err instanceof ApiError && known[err.code]) return t(known[err.code], { seconds: err.retryAfter || 60 });
  if (err instanceof ApiError && err.status === 400 && err.field === "code") return t("party.error_code");
  return t("party.error", { message: err?.message || String(err) });
}

let current = null; // the page shown now (a HostScreen, or a form): closed when another opens

/** Show the party page for `where` in `section` (app.js routes here). */
export function showParty(section, where, onTitle) {
  closeParty();
  ensureStylesheet("/party.css");
  section.replaceChildren();
  if (where.page === "new") {
    onTitle(t("party.new_title"));
    current = newPartyForm(section);
  } else if (where.page === "host") {
    onTitle(t("party.host_title"));
    current = new HostScreen(section, where.id);
  } else {
    onTitle(t("party.join_title"));
    current = joinForm(section, where.code);
  }
}

export function closeParty() {
  current?.close?.();
  current = null;
}

// ---- #/host: a new party table ---------------------------------------------------------------

function newPartyForm(section) {
  const form = html("form", { className: "card party-form", id: "party-form", noValidate: true }, section);
  html("h1", {}, form, t("party.new_title"));
  html("p", { className: "hint-text-muted" }, form, t("party.new_text"));
  const gameLabel = html("label", { className: "field" }, form);
  html("span", {}, gameLabel, t("lobby.game"));
  const gamePick = html("select", { id: "party-game", name: "game" }, gameLabel);
  const options = html("div", { className: "party-options" }, form);
  const timerLabel = html("label", { className: "field" }, form);
  html("span", {}, timerLabel, t("party.timer"));
  const timer = html("select", { id: "party-timer", name: "timer" }, timerLabel);
  for (const s of TIMERS) timer.add(new Option(s ? t("party.timer_s", { seconds: s }) : t("party.no_timer"), String(s), false, s === DEFAULT_TIMER));
  const playsLabel = html("label", { className: "field inline" }, form);
  const plays = html("input", { type: "checkbox", id: "party-plays" }, playsLabel);
  playsLabel.append(` ${t("party.host_plays")}`);
  const nameLabel = html("label", { className: "field" }, form);
  html("span", {}, nameLabel, t("lobby.your_name"));
  const name = html("input", { id: "party-name", maxLength: 24, autocomplete: "nickname", value: savedName() }, nameLabel);
  const syncName = () => (nameLabel.hidden = !plays.checked);
  plays.addEventListener("change", syncName);
  syncName();
  const submit = html("button", { type: "submit", className: "primary", id: "party-create" }, form, t("party.create"));
  const message = html("p", { className: "party-message", role: "alert" }, form);
  html("p", {}, form).append(html("a", { href: "#/join" }, null, t("party.join_link")));

  let readOptions = () => ({});
  const drawOptions = async () => {
    options.replaceChildren();
    const kind = gamePick.value;
    const meta = await gameMeta(kind).catch(() => null);
    const reads = [];
    for (const spec of meta?.options || []) {
      if (spec.kind !== "choice") continue; // players come from the joins; no other kind here
      const label = html("label", { className: "field" }, options);
      html("span", {}, label, optionLabel(kind, spec));
      const sel = html("select", { name: spec.name, id: `party-option-${spec.name}` }, label);
      for (const c of spec.choices || []) sel.add(new Option(choiceLabel(kind, spec, c), String(c.value), false, c.value === spec.default));
      const picture = mapPicture(kind, spec, sel);
      if (picture) label.append(picture);
      reads.push(() => [spec.name, (spec.choices || []).find((c) => String(c.value) === sel.value)?.value]);
    }
    readOptions = () => Object.fromEntries(reads.map((r) => r()));
  };
  partyApi
    .games()
    .then(({ games }) => {
      for (const game of games) gamePick.add(new Option(gameName(game.game), game.game));
      drawOptions();
    })
    .catch((err) => (message.textContent = partyError(err)));
  gamePick.addEventListener("change", drawOptions);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const who = name.value.trim();
    if (plays.checked && !who) {
      message.textContent = t("join.name_needed");
      name.focus();
      return;
    }
    const seconds = Number(timer.value);
    const body = { game: gamePick.value, party: true, rules: readOptions(), host_only: !plays.checked };
    if (plays.checked) body.name = who;
    if (seconds) body.clock = { mode: "realtime", move_s: seconds, bank_s: 0, on_timeout: "ai" };
    submit.disabled = true;
    message.textContent = "";
    try {
      const made = await partyApi.create(body);
      saveHostToken(made.game_id, made.host_token);
      if (made.token) {
        saveSeat(made.game_id, made.seat, made.token);
        markPartyTable(made.game_id);
        rememberName(who);
      }
      location.hash = `#/host/${encodeURIComponent(made.game_id)}`;
    } catch (err) {
      message.textContent = partyError(err);
      submit.disabled = false;
    }
  });
  return { close() {} };
}

// ---- #/join: a phone takes a seat --------------------------------------------------------------

function joinForm(section, code) {
  const form = html("form", { className: "card party-form party-join-form", id: "join-form", noValidate: true }, section);
  html("h1", {}, form, t("party.join_title"));
  html("p", { className: "hint-text-muted" }, form, t("party.join_text"));
  const codeLabel = html("label", { className: "field" }, form);
  html("span", {}, codeLabel, t("party.code"));
  const codeInput = html("input", {
    id: "join-code", name: "code", value: code, maxLength: 9, autocomplete: "off",
    autocapitalize: "characters", spellcheck: false, className: "party-code-input",
  }, codeLabel); // prettier-ignore
  const nameLabel = html("label", { className: "field" }, form);
  html("span", {}, nameLabel, t("lobby.your_name"));
  const name = html("input", { id: "join-party-name", name: "name", maxLength: 24, autocomplete: "nickname", value: savedName() }, nameLabel);
  const submit = html("button", { type: "submit", className: "primary", id: "join-party" }, form, t("party.join"));
  const message = html("p", { className: "party-message", role: "alert" }, form);
  (code ? name : codeInput).focus();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const typed = codeInput.value.trim();
    const who = name.value.trim();
    if (!CODE.test(typed)) {
      message.textContent = t("party.error_code");
      codeInput.focus();
      return;
    }
    if (!who) {
      message.textContent = t("join.name_needed");
      name.focus();
      return;
    }
    submit.disabled = true;
    message.textContent = "";
    try {
      const joined = await partyApi.join(typed, who);
      saveSeat(joined.game_id, joined.seat, joined.token);
      markPartyTable(joined.game_id);
      rememberName(who);
      location.hash = `#/game/${encodeURIComponent(joined.game_id)}`;
    } catch (err) {
      message.textContent = partyError(err);
      submit.disabled = false;
    }
  });
  return { close() {} };
}

// ---- #/host/<id>: the host screen --------------------------------------------------------------

class HostScreen {
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

  /** The live stream of the game's public events: each burst of them refreshes the view. */
  #listen() {
    if (typeof EventSource !== "function") return;
    this.stream = new EventSource(`${g(this.id)}/events`);
    this.stream.onmessage = (ev) => {
      try {
        this.events.push(JSON.parse(ev.data));
      } catch {
        /* a keep-alive or something unreadable: the refresh below still happens */
      }
      clearTimeout(this.pending);
      this.pending = setTimeout(() => this.#refresh(), REFRESH_MS);
    };
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
