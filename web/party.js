// Party mode (issue 23.2): a table for a room, people on their phones, one screen for everyone.
//
//   #/host          the host's form: a game whose seats move at once (GET /api/party/games), its
//                   options, the per-turn timer, and whether the host plays too.
//   #/host/<id>     the host screen, for a projector or TV (1920x1080): partyhost.js.
//   #/join[/<code>] the phones' join page: the code (filled in when the QR code opened it) and a
//                   name; then the player's own seat on the ordinary game page (#/game/<id>).
//
// The calls, the host token and the refusals in words are partyapi.js's. Nothing here names a
// game.

import { rememberName, saveSeat, savedName } from "./api.js";
import { ensureStylesheet, html } from "./dom.js";
import { t } from "./i18n.js";
import { gameMeta } from "./meta.js";
import { choiceLabel, gameName, optionLabel } from "./words.js";
import { mapPicture } from "./mappick.js";
import { partyApi, partyError, saveHostToken } from "./partyapi.js";
import { HostScreen } from "./partyhost.js";

const CODE = /^[A-Za-z0-9 -]{1,20}$/;
const TIMERS = [0, 20, 30, 45, 60, 90, 120]; // seconds a turn; 0: no timer
const DEFAULT_TIMER = 30;

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
