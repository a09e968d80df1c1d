// The page's entry: a hash router between the lobby (#/) and a game (#/game/<id>).
// A game's address carries only its id, so sharing it shares no secret.

import { GameScreen } from "./game.js";
import { initLobby, showLobby } from "./lobby.js";

const TITLE = "Board games";
const lobby = document.getElementById("lobby");
const gameSection = document.getElementById("game");
const game = new GameScreen({ onTitle: (text) => (document.title = text) });

const go = (id) => {
  location.hash = `#/game/${encodeURIComponent(id)}`;
};

function route() {
  const m = /^#\/game\/([^/?#]+)$/.exec(location.hash);
  if (m) {
    lobby.hidden = true;
    gameSection.hidden = false;
    document.title = `${TITLE} — game`;
    game.open(decodeURIComponent(m[1]));
  } else {
    game.close();
    gameSection.hidden = true;
    lobby.hidden = false;
    document.title = TITLE;
    showLobby(go);
  }
}

initLobby(go);
window.addEventListener("hashchange", route);
route();
