"""After a daily puzzle attempt (issue 35 item 4): the player's own attempt is analysable by them
in their browser (the attempt is private, so its analysis needs the seat's token, which the page
did not send: *Analyse* showed a raw 403 sentence with the game's id); someone else's browser is
still refused, in words, never the server's sentence. The attempt, a game of one seat, ends with
its score, not "You win!", and offers no *Rematch*; the text to share ends with the link to the
day's page. In en, hu, fr and es. Screenshots: test-artifacts/daily-after-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Tab, shot
from tests.browser.steps import page_stays
from tests.browser.test_daily import api_call

LANGS = ("en", "hu", "fr", "es")


def finished_attempt(base: str, name: str) -> dict[str, Any]:
    """Today's Metro X attempt of a new player, played to its end over HTTP (first legal move
    each turn): {"key", "player_id", "game", "seat", "token"}."""
    player = api_call(base, "/api/players", {"name": name})
    key = player["device_key"]
    made = api_call(base, "/api/daily/metrox/games", {}, **{"X-Player-Key": key})
    auth = {"Authorization": f"Bearer {made['token']}"}
    game = made["game_id"]
    while api_call(base, f"/api/games/{game}", **auth)["status"] != "over":
        moves = api_call(base, f"/api/games/{game}/legal", **auth)["moves"]
        api_call(base, f"/api/games/{game}/moves", moves[0], **auth)
    return {"key": key, "player_id": player["player_id"], "game": game,
            "seat": made.get("seat", 0), "token": made["token"]}  # fmt: skip


def open_as(open_tab: Callable[..., Tab], base: str, lang: str, attempt: dict[str, Any] | None,
            game: str) -> Tab:  # fmt: skip
    """The game page of `game` in `lang`, in a browser that holds `attempt`'s player and seat (as
    the browser that played it does), or none (someone else's browser)."""
    tab = open_tab(base)
    page = tab.page
    page.evaluate(
        """([lang, a]) => {
          localStorage.setItem('setting.language', lang);
          if (!a) return;
          localStorage.setItem('player.key', a.key);
          localStorage.setItem('player.id', a.player_id);
          localStorage.setItem(`seat.${a.game}`,
            JSON.stringify({seat: a.seat, token: a.token, saved: Date.now()}));
        }""",
        [lang, attempt],
    )
    page.goto(f"{base}/#/game/{game}")
    page.reload()
    return tab


@pytest.fixture(scope="module")
def attempt(gateway_process: str) -> dict[str, Any]:
    return finished_attempt(gateway_process, "Dora")


def test_the_player_analyses_their_own_daily_attempt(
    open_tab: Callable[..., Tab], gateway_process: str, attempt: dict[str, Any], artifacts: Path
) -> None:
    tab = open_as(open_tab, gateway_process, "en", attempt, attempt["game"])
    page = tab.page
    page.wait_for_selector("#analysis-run:not([hidden])")
    page.click("#analysis-run")
    page.wait_for_selector("#analysis-graph svg .an-point", timeout=300_000)
    status = page.inner_text("#analysis-status")
    assert "403" not in status and "token" not in status and attempt["game"] not in status, status
    assert page.locator("#analysis-log li").count() > 5
    shot(page, artifacts, "daily-after-analysis")
    tab.check_clean()


@pytest.mark.parametrize("lang", LANGS)
def test_another_browser_is_refused_in_words(
    lang: str, open_tab: Callable[..., Tab], gateway_process: str, attempt: dict[str, Any]
) -> None:
    """A browser without the seat cannot read the attempt (it shows the day's cards); what it
    reads is a sentence of its language, with no game id, code or token in it."""
    tab = open_as(open_tab, gateway_process, lang, None, attempt["game"])
    page = tab.page
    page.goto(f"{gateway_process}/#/")
    page.wait_for_selector("#daily-title")
    # What *Analyse* (the game page's panel, My games' button) says when the server refuses.
    said = page.evaluate(
        """async (id) => {
          const m = await import('/analysis.js');
          try { await m.requestAnalysis(id); return 'no refusal'; }
          catch (err) { return m.analysisError(err); }
        }""",
        attempt["game"],
    )
    assert said and said != "no refusal", said
    assert attempt["game"] not in said and not re.search(r"403|token|permission", said), said
    words = {"en": "players", "hu": "játékos", "fr": "joueu", "es": "jugador"}[lang]
    assert words in said.lower(), (lang, said)


@pytest.mark.parametrize("lang", LANGS)
def test_a_solo_attempt_ends_with_its_score_and_shares_a_link(
    lang: str, open_tab: Callable[..., Tab], gateway_process: str, attempt: dict[str, Any],
    artifacts: Path,
) -> None:  # fmt: skip
    base = gateway_process
    tab = open_as(open_tab, base, lang, attempt, attempt["game"])
    page = tab.page
    page.wait_for_selector("#after:not([hidden]) #final-scores li")
    page.wait_for_function("() => document.querySelector('#result-title').textContent")
    wins = page.evaluate(
        "async () => { const i = await import('/i18n.js'); "
        "return [i.t('final.you_win'), i.t('final.you_share'), i.t('final.winner')]; }"
    )
    title = page.inner_text("#result-title")
    score = http_score(base, attempt)
    assert title not in wins[:2] and str(abs(score)) in title, (lang, title, wins)
    assert page.locator("#final-scores .cup, .mx-final-table .mx-winner").count() == 0
    assert page.is_hidden("#rematch-row") and page.is_hidden("#rematch-button")
    page_stays(  # the after-game panel's rows settle: still no Rematch
        page, lambda: page.is_hidden("#rematch-row"), "no Rematch after a daily attempt", 0.3
    )
    shot(page, artifacts, f"daily-after-over-{lang}")

    page.goto(f"{base}/#/daily/metrox")
    page.wait_for_selector("#daily-share-text")
    sentence, link = page.input_value("#daily-share-text").split("\n")
    day = re.fullmatch(rf"{re.escape(base)}/#/daily/metrox/(\d{{4}}-\d{{2}}-\d{{2}})", link)
    assert day and day.group(1) in sentence, (sentence, link)  # the day the sentence names
    page.goto(link)  # a friend opens it: the day's page, its chart
    page.wait_for_selector(".daily-results .daily-svg")
    tab.check_clean()


def http_score(base: str, attempt: dict[str, Any]) -> int:
    """The attempt's final score, as its seat reads it."""
    auth = {"Authorization": f"Bearer {attempt['token']}"}
    return int(api_call(base, f"/api/games/{attempt['game']}", **auth)["seats"][0]["score"])
