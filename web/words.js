// The words for what the catalogue of games (GET /api/meta) describes in English: each game's
// name, description and options come from that game's own message catalogue instead, under keys
// built from the meta's data (so the shell still names no game):
//   <kind>.name, <kind>.description, <kind>.option.<option>, <kind>.option.<option>.help,
//   and for a choice whose label is a word (not a proper name or number),
//   <kind>.option.<option>.choice.<value>.
// tests/browser/test_languages.py checks every such key exists in every language.

import { has, t } from "./i18n.js";

/** A game's name in the page's language. */
export function gameName(kind) {
  return t(`${kind}.name`);
}

/** A game's text `part` ("description"). */
export function optionText(kind, part) {
  return t(`${kind}.${part}`);
}

/** An option's label. */
export function optionLabel(kind, spec) {
  return t(`${kind}.option.${spec.name}`);
}

/** An option's help line ("" when the game gives none). */
export function optionHelp(kind, spec) {
  return spec.help ? t(`${kind}.option.${spec.name}.help`) : "";
}

/** A choice's label: the catalogue's word when it has one, else the game's label as it is (a
 *  map's proper name such as "London", or a number). */
export function choiceLabel(kind, spec, choice) {
  const key = `${kind}.option.${spec.name}.choice.${choice.value}`;
  return has(key) ? t(key) : String(choice.label ?? choice.value);
}

// A refused field (the API's 400 with `field`, `reason`, `params`: services/gateway/field_errors.py)
// in the page's words: "<what>: <why>", where <what> is the option's own label for a game option
// ("Daily puzzle") and a shell word otherwise ("Name"), never the API's field path.
const FIELD_WORDS = { name: "name", seats: "seats", kind: "seat_kind", level: "level", game: "game", rules: "rules" };

/** The label of a refused field: a game option's label, or the shell's word for the field. */
function fieldLabel(field, params) {
  const option = /^rules\.(.+)$/.exec(field || "");
  if (option && params.game && has(`${params.game}.option.${option[1]}`)) {
    return t(`${params.game}.option.${option[1]}`);
  }
  const last = String(field || "").split(".").pop().replace(/\[\d+\]$/, "");
  const word = FIELD_WORDS[last] || (last.endsWith("_name") ? "name" : "other");
  return t(`error.field.${word}`);
}

/** A field error in words, or "" when the error has no reason the catalogue words. */
export function fieldErrorWords(err) {
  const reason = typeof err?.reason === "string" ? err.reason : "";
  if (!reason || !has(`error.reason.${reason}`)) return "";
  const params = err.params && typeof err.params === "object" ? err.params : {};
  const option = /^rules\.(.+)$/.exec(err.field || "");
  const helpKey = option && params.game ? `${params.game}.option.${option[1]}.help` : "";
  const help = helpKey && has(helpKey) ? t(helpKey) : "";
  const { field: _path, game: _game, option: _option, ...numbers } = params;
  return t(`error.reason.${reason}`, { ...numbers, what: fieldLabel(err.field, params), help }).trim();
}

// Values a game sends in a refusal's params that only the game can word (a Metro tile's code, a
// Metro X card's code): each game's page registers its own wording, so the shell names no game
// and no code reaches a person.
const PARAM_WORDS = new Map();

/** Register `fn(name, value)` -> words (or null: not the game's to word) for game `kind`. */
export function registerParamWords(kind, fn) {
  PARAM_WORDS.set(kind, fn);
}

/** A refusal parameter in words, by its game's registered wording; null when it has none. */
export function paramWords(kind, name, value) {
  const fn = PARAM_WORDS.get(kind);
  const words = fn ? fn(name, value) : null;
  return typeof words === "string" ? words : null;
}
