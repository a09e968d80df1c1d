// A game's options in the lobby (rendered from the game's option specs, GET /api/meta): one form
// control each, read back as the rules of POST /api/games, and the options an open game was made
// with, in words. Split from lobby.js, which owns the form around them.

import { t } from "./i18n.js";
import { mapPicture } from "./mappick.js";
import { choiceLabel, optionHelp, optionLabel } from "./words.js";

// The option that sets the number of seats (games/base.py `Option`): the seat rows set it.
export const PLAYERS_OPTION = "players";

/** One control per option spec of `game` in `box` (the seat count is the seat rows, not a
 *  control); returns a reader per control: () => [name, value | undefined]. */
export function drawOptions(box, game) {
  box.replaceChildren();
  const readers = [];
  for (const spec of (game.options || []).filter((o) => o.name !== PLAYERS_OPTION)) {
    const { node, read } = optionControl(game.game, spec);
    box.appendChild(node);
    readers.push(read);
  }
  return readers;
}

function helpText(kind, spec) {
  const text = optionHelp(kind, spec);
  if (!text) return null;
  const small = document.createElement("small");
  small.textContent = text;
  return small;
}

function optionControl(kind, spec) {
  const id = `opt-${spec.name}`;
  const label = document.createElement("label");
  label.dataset.option = spec.name;
  if (spec.kind === "bool") {
    label.className = "check";
    const input = document.createElement("input");
    input.type = "checkbox";
    input.id = id;
    input.name = spec.name;
    input.checked = spec.default === true;
    label.append(input, ` ${optionLabel(kind, spec)} `);
    const help = helpText(kind, spec);
    if (help) label.append(help);
    return { node: label, read: () => [spec.name, input.checked] };
  }
  label.className = "field inline";
  label.append(`${optionLabel(kind, spec)} `);
  let read;
  if (spec.kind === "choice") {
    const select = document.createElement("select");
    select.id = id;
    select.name = spec.name;
    const choices = spec.choices || [];
    for (const c of choices) {
      select.add(new Option(choiceLabel(kind, spec, c), String(c.value), false, c.value === spec.default));
    }
    label.append(select);
    const picture = mapPicture(kind, spec, select);
    if (picture) label.append(picture);
    // back to the choice's own value, number or string as the game wrote it
    read = () => [spec.name, choices.find((c) => String(c.value) === select.value)?.value];
  } else if (spec.kind === "int") {
    const input = document.createElement("input");
    input.type = "number";
    input.id = id;
    input.name = spec.name;
    input.step = "1";
    if (spec.min !== undefined) input.min = String(spec.min);
    if (spec.max !== undefined) input.max = String(spec.max);
    if (spec.default !== null && spec.default !== undefined) input.value = String(spec.default);
    label.append(input);
    read = () => [spec.name, input.value.trim() === "" ? undefined : Number(input.value)];
  } else {
    const input = document.createElement("input");
    input.type = "text";
    input.id = id;
    input.name = spec.name;
    input.maxLength = 64;
    input.value = spec.default === null || spec.default === undefined ? "" : String(spec.default);
    label.append(input);
    // an empty text leaves the option out: the game's default applies
    read = () => [spec.name, input.value.trim() === "" ? undefined : input.value.trim()];
  }
  const help = helpText(kind, spec);
  if (help) {
    label.title = optionHelp(kind, spec);
    label.append(help);
  }
  return { node: label, read };
}

/** The options a game was made with that differ from its game's defaults, in words. */
export function optionSummary(entry, rules) {
  const out = [];
  for (const spec of entry?.options || []) {
    if (spec.name === PLAYERS_OPTION || !(spec.name in (rules || {}))) continue;
    const value = rules[spec.name];
    if (value === spec.default || value === null) continue;
    const label = optionLabel(entry.game, spec);
    if (spec.kind === "bool") {
      if (value) out.push(label);
    } else if (spec.kind === "choice") {
      const choice = (spec.choices || []).find((c) => c.value === value);
      out.push(t("lobby.option_value", { label, value: choice ? choiceLabel(entry.game, spec, choice) : String(value) }));
    } else {
      out.push(t("lobby.option_value", { label, value: String(value) }));
    }
  }
  return out.join(t("lobby.option_separator"));
}
