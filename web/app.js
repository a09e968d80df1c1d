// The page's entry: a hash router between the lobby (#/), a game (#/game/<id>) and, for an
// address that names no game, a "No such game" page with the way back.
// A game's address carries only its id, so sharing it shares no secret.

import { addressedGame } from "./api.js";
import { GameScreen } from "./game.js";
import { initI18n, LANGUAGES, lang, setLanguage, t } from "./i18n.js";
import { showLeaderboard } from "./leaderboard.js";
import { initLobby, keepDraft, showLobby } from "./lobby.js";
import { initPlayers } from "./players.js";
import { closeLearn, learnAddress, showLearn } from "./learn.js";
import { dailyAddress, initDaily, showDaily, showDailyCard } from "./daily.js";
import { closeParty, partyAddress, showParty } from "./party.js";
import { profileAddress, showProfile } from "./profile.js";
import { followButton, initFollows, refreshFollows } from "./follows.js";

// Every word of the page comes from the catalogue: load it before anything is drawn.
await initI18n();
const TITLE = t("app.title");
const lobby = document.getElementById("lobby");
const gameSection = document.getElementById("game");
const missing = document.getElementById("missing");
const board = document.getElementById("leaderboard");
const learn = document.getElementById("learn");
const dailyPage = document.getElementById("daily");
const partyPage = document.getElementById("party");
const profilePage = document.getElementById("profile");

const home = document.getElementById("home-link");

function show(section) {
  for (const s of [lobby, gameSection, missing, board, learn, dailyPage, partyPage, profilePage]) s.hidden = s !== section;
  // On the lobby the brand link leads where the reader is: it leaves the Tab order there, so
  // that the language and then "Game" are the first stops (issue 19.8); elsewhere it leads home.
  const here = section === lobby;
  if (here) {
    home.setAttribute("aria-current", "page");
    home.tabIndex = -1;
  } else {
    home.removeAttribute("aria-current");
    home.removeAttribute("tabindex");
  }
}

function showMissing() {
  game.close();
  show(missing);
  document.title = t("missing.doc_title", { title: TITLE });
}

export const game = new GameScreen({
  onTitle: (text) => (document.title = text),
  onMissing: showMissing,
});

const go = (id) => {
  location.hash = `#/game/${encodeURIComponent(id)}`;
};

/** The game id in the address, null for the lobby, undefined for an address that names none. */
const addressed = () => addressedGame();

function route() {
  const learning = learnAddress(location.hash);
  if (learning) {
    game.close();
    show(learn);
    showLearn(learn, learning, (text) => (document.title = t("learn.page_title", { page: text, title: TITLE })));
    return;
  }
  closeLearn();
  const party = partyAddress(location.hash);
  if (party) {
    game.close();
    show(partyPage);
    showParty(partyPage, party, (text) => (document.title = t("party.doc_title", { page: text, title: TITLE })));
    return;
  }
  closeParty();
  const ranked = /^#\/leaderboard(?:\/([A-Za-z0-9_-]*))?$/.exec(location.hash);
  if (ranked) {
    game.close();
    show(board);
    document.title = t("players.board_doc_title", { title: TITLE });
    showLeaderboard(ranked[1] || "");
    return;
  }
  const profile = profileAddress(location.hash);
  if (profile) {
    game.close();
    show(profilePage);
    showProfile(profilePage, profile, (name) => (document.title = t("profile.doc_title", { name, title: TITLE })));
    followButton(profilePage, profile);
    return;
  }
  const daily = dailyAddress(location.hash);
  if (daily) {
    game.close();
    show(dailyPage);
    showDaily(dailyPage, daily, go, (text) => (document.title = t("daily.doc_title", { page: text, title: TITLE })));
    return;
  }
  const id = addressed();
  if (id === undefined) {
    showMissing();
  } else if (id) {
    show(gameSection);
    document.title = t("game.doc_title", { title: TITLE });
    game.open(id);
  } else {
    game.close();
    show(lobby);
    document.title = TITLE;
    showLobby(go);
    showDailyCard(go);
    refreshFollows();
  }
}

/** The visible language switch in the top bar: a change reloads the page in that language
 *  (the seat, the game and the lobby's form as filled in survive; nothing else needs redrawing). */
function initLanguagePick() {
  const pick = document.getElementById("lang-pick");
  for (const code of LANGUAGES) pick.add(new Option(t(`language.${code}`), code, false, code === lang()));
  pick.addEventListener("change", async () => {
    pick.disabled = true;
    try {
      await setLanguage(pick.value);
      keepDraft(); // the lobby's form survives the reload
      location.reload();
    } catch (err) {
      pick.disabled = false;
      pick.value = lang();
      console.warn(err);
    }
  });
}

initLanguagePick();
initLobby(go);
initFollows(go);
initPlayers({ game, go });
initDaily();
window.addEventListener("hashchange", route);
route();
