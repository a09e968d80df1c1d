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
