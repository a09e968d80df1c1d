// A map choice's small picture and words (issue 33), for the lobby's and the party form's option
// controls: a game whose words name its map pictures (`<kind>.option.map.picture`) draws them
// into /games/<kind>/maps/<id>.svg (Metro X: games/metrox/thumbnail.py).

import { has, t } from "./i18n.js";
import { choiceLabel } from "./words.js";

/** The picture and description of the choice `select` shows, kept in step with it; null for an
 *  option that is not a map or a game without pictures. */
export function mapPicture(kind, spec, select) {
  if (spec.name !== "map" || !has(`${kind}.option.map.picture`)) return null;
  const box = document.createElement("span");
  box.className = "map-pick";
  const img = document.createElement("img");
  img.className = "map-pic";
  img.width = 160;
  img.height = 120;
  const about = document.createElement("small");
  about.className = "map-about";
  box.append(img, about);
  const show = () => {
    const choice = (spec.choices || []).find((c) => String(c.value) === select.value);
    if (!choice) return;
    img.src = `/games/${encodeURIComponent(kind)}/maps/${encodeURIComponent(String(choice.value))}.svg`;
    img.alt = t(`${kind}.option.map.picture`, { map: choiceLabel(kind, spec, choice) });
    box.dataset.map = String(choice.value);
    const key = `${kind}.option.map.about.${choice.value}`;
    about.textContent = has(key) ? t(key) : "";
  };
  select.addEventListener("change", show);
  show();
  return box;
}
