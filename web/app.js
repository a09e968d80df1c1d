// The page's entry: a hash router between the lobby (#/), a game (#/game/<id>) and, for an
// address that names no game, a "No such game" page with the way back.
// A game's address carries only its id, so sharing it shares no secret.

import { GAME_ID } from "./api.js";
import { GameScreen } from "./game.js";
import { initLobby, showLobby } from "./lobby.js";

const TITLE = "Board games";
const lobby = document.getElementById("lobby");
const gameSection = document.getElementById("game");
const missing = document.getElementById("missing");

function show(section) {
  for (const s of [lobby, gameSection, missing]) s.hidden = s !== section;
}

function showMissing() {
  game.close();
  show(missing);
  document.title = `No such game — ${TITLE}`;
}

export const game = new GameScreen({
  onTitle: (text) => (document.title = text),
  onMissing: showMissing,
});

const go = (id) => {
  location.hash = `#/game/${encodeURIComponent(id)}`;
};

/** The game id in the address, null for the lobby, undefined for an address that names none. */
function addressed() {
  const hash = location.hash;
  if (hash === "" || hash === "#" || hash === "#/") return null;
  const m = /^#\/game\/([^/?#]*)$/.exec(hash);
  if (!m) return hash.startsWith("#/game") ? undefined : null;
  try {
    const id = decodeURIComponent(m[1]);
    return GAME_ID.test(id) ? id : undefined;
  } catch {
    return undefined; // "%00%ff" and the like: not even text
  }
}

function route() {
  const id = addressed();
  if (id === undefined) {
    showMissing();
  } else if (id) {
    show(gameSection);
    document.title = `${TITLE} — game`;
    game.open(id);
  } else {
    game.close();
    show(lobby);
    document.title = TITLE;
    showLobby(go);
  }
}

initLobby(go);
window.addEventListener("hashchange", route);
route();
