"""Today's puzzle in the browser (issue 23), all by clicking: the lobby's card starts today's
Metro X attempt, it is played to the end on the real board, the link under the final scores opens
the results page (the histogram with your bar marked, rank, percentile, streak) and Share copies
a text that names no card. In the scored attempt the Hint button is off, with the reason; in a
practice game it works. Screenshots: test-artifacts/daily-*.png at 1280x800 and 390x844."""

from __future__ import annotations

import json
import math
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.steps import page_stays, resized
from tests.browser.test_metrox import confirm, pick_move, wait_choose_or_over
from tests.fixtures.waits import wait_until

SHARE = re.compile(r"^Metro X daily (\d{4}-\d{2}-\d{2}): (-?\d+) points?, (.+)$")
CARD_CODES = re.compile(r"\b(s2|s3|f\*|5\*)\b")


def standing(rank: int, players: int) -> str:
    """Where a score stands in the English share text: never "top 100%" for the best."""
    if players == 1:
        return "the first to finish"
    top = max(1, math.ceil(100 * rank / players))
    return f"top {top}%" if top <= 50 else f"rank {rank} of {players}"


def both_widths(page: Any, artifacts: Path, name: str) -> None:
    shot(page, artifacts, name)
    resized(page, NARROW)
    shot(page, artifacts, name)
    resized(page, WIDE)


def api_call(base: str, path: str, body: Any = None, **headers: str) -> Any:
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = "application/json"
    method = "POST" if path.endswith(("/games", "/moves", "/players", "/return")) else "GET"
    request = urllib.request.Request(f"{base}{path}", data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=20) as reply:
        return json.load(reply)


def api_get(base: str, path: str, key: str) -> Any:
    return api_call(base, path, **{"X-Player-Key": key})


def others_play_today(base: str, picks: tuple[int, ...]) -> None:
    """Players who finish today's puzzle over HTTP first (each its `pick`-th legal move every
    turn), so the chart has company."""
    for n, pick in enumerate(picks):
        key = api_call(base, "/api/players", {"name": f"Early {n}"})["device_key"]
        made = api_call(base, "/api/daily/metrox/games", {}, **{"X-Player-Key": key})
        auth = {"Authorization": f"Bearer {made['token']}"}
        game = made["game_id"]
        while api_call(base, f"/api/games/{game}", **auth)["status"] != "over":
            moves = api_call(base, f"/api/games/{game}/legal", **auth)["moves"]
            api_call(base, f"/api/games/{game}/moves", moves[pick % len(moves)], **auth)


def test_todays_puzzle_played_from_the_lobby_to_its_results(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    others_play_today(gateway_process, (0, -1, 1, 2))
    tab = open_tab(gateway_process, permissions=["clipboard-read", "clipboard-write"])
    page = tab.page
    page.wait_for_selector("#daily-play-metrox")
    assert page.inner_text("#daily-title") == "Today's puzzle"
    page.fill("#daily-name-metrox", "Dana")
    both_widths(page, artifacts, "daily-lobby")
    page.click("#daily-play-metrox")
    page.wait_for_url("**/#/game/*")
    game = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(".mx-map .mx-station")
    # A scored attempt takes no hints: the button is off and says why.
    page.wait_for_selector("#hint-row:not([hidden]) #daily-hints-off")
    reason = page.inner_text("#daily-hints-off")
    assert reason == "Hints are off in today's scored puzzle; practice games allow them."
    assert page.is_disabled("#hint-button") and page.is_disabled("#hint-level")
    page_stays(  # the shell redraws the row as the view settles: still off
        page, lambda: page.is_disabled("#hint-button"), "Hint off in the scored puzzle", 0.5
    )
    page.locator("#hint-row").scroll_into_view_if_needed()
    shot(page, artifacts, "daily-no-hints")
    page.evaluate("() => window.scrollTo(0, 0)")

    turn, turns = -1, 0
    while wait_choose_or_over(page, turn, timeout_ms=90_000) == "choose":
        turn = int(page.get_attribute(".mx-controls", "data-turn") or 0)
        confirm(page, pick_move(page))
        turns += 1
    assert turns >= 10

    # Under the final scores: the way to the day's results.
    page.wait_for_selector("#daily-after a")
    page.click("#daily-after a")
    page.wait_for_url("**/#/daily/metrox/*")
    page.wait_for_selector(".daily-svg .daily-bar-you")
    key = page.evaluate("() => localStorage.getItem('player.key')")
    results = api_get(gateway_process, "/api/daily/metrox/results", key)
    you = results["you"]
    assert you is not None and you["streak"] >= 1
    assert page.inner_text(".daily-score") in (f"{you['score']} point", f"{you['score']} points")
    assert f"Rank {you['rank']} of {results['players']}" in page.inner_text(".daily-rank")
    assert f"{you['percentile']}%" in page.inner_text(".daily-percentile")
    assert "in a row" in page.inner_text(".daily-you .daily-streak")
    # The chart: one bar per score range, yours marked, every bar labelled for a pointer and the
    # whole chart for a screen reader.
    label = page.get_attribute(".daily-svg", "aria-label") or ""
    assert page.get_attribute(".daily-svg", "role") == "img" and "highlighted" in label
    assert "you among them" in page.inner_html(".daily-bar-you")
    assert page.locator(".daily-svg .daily-you-mark").text_content() == "You"

    # The text to share gives the day, the score and the standing, and nothing of the deck;
    # then, on a line of its own, the link to the day's page (issue 35: there was none).
    shared = page.input_value("#daily-share-text")
    text, link = shared.split("\n")
    assert link == f"{gateway_process}/#/daily/metrox/{results['date']}", link
    found = SHARE.match(text)
    assert found, text
    assert found.groups() == (
        results["date"], str(you["score"]), standing(you["rank"], results["players"])
    )  # fmt: skip
    assert "100%" not in text or you["rank"] > 1
    assert not CARD_CODES.search(text)
    page.click("#daily-share")
    page.wait_for_function("() => document.querySelector('.daily-share-status').textContent")
    assert page.evaluate("() => navigator.clipboard.readText()") == shared
    both_widths(page, artifacts, "daily-results")

    # Back in the lobby, today's card says it is done and leads to the results again.
    page.click(".daily-results > a.button[href='#/']")
    page.wait_for_selector("#daily-results-metrox")
    assert str(you["score"]) in page.inner_text(".daily-done")
    # Today's attempt is private: never listed, even once over.
    with urllib.request.urlopen(f"{gateway_process}/api/games?status=over&limit=200") as reply:
        assert game not in {g["game_id"] for g in json.load(reply)["games"]}

    # A practice game on an earlier day keeps its hints.
    page.click("#daily-results-metrox")
    page.wait_for_selector("#daily-practice-date")
    page.click(".daily-practice button[type=submit]")
    page.wait_for_url(re.compile(rf".*#/game/(?!{game}$)[^/]+$"))
    page.wait_for_selector("#hint-row:not([hidden]) #hint-button:not([disabled])")
    assert page.locator("#daily-hints-off").count() == 0
    assert not page.is_disabled("#hint-level")
    page.click("#hint-button")
    page.wait_for_function("() => document.getElementById('hint-meta').textContent")
    tab.check_clean()


def test_an_attempt_the_ai_moved_in_says_it_is_not_counted(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    """The player leaves after one move, the AI plays a turn for them, and they come back and
    finish (the AI on an away seat would take a person's pace to the end): the lobby's card and
    the results page say the attempt ended but is not counted, and give it no rank or share
    text."""
    made_player = api_call(gateway_process, "/api/players", {"name": "Hana"})
    key = made_player["device_key"]
    made = api_call(gateway_process, "/api/daily/metrox/games", {}, **{"X-Player-Key": key})
    auth = {"Authorization": f"Bearer {made['token']}"}
    game = made["game_id"]
    moves = api_call(gateway_process, f"/api/games/{game}/legal", **auth)["moves"]
    api_call(gateway_process, f"/api/games/{game}/moves", moves[0], **auth)
    request = urllib.request.Request(
        f"{gateway_process}/api/games/{game}/leave", data=b"", headers=auth, method="POST"
    )
    with urllib.request.urlopen(request, timeout=20):
        pass
    wait_until(
        lambda: api_call(gateway_process, f"/api/games/{game}", **auth)["turn_index"] >= 2,
        "the AI's turn on the away seat",
        timeout=120,
    )
    api_call(gateway_process, f"/api/games/{game}/return", {}, **auth)
    for _ in range(200):
        if api_call(gateway_process, f"/api/games/{game}", **auth)["status"] == "over":
            break
        moves = api_call(gateway_process, f"/api/games/{game}/legal", **auth)["moves"]
        api_call(gateway_process, f"/api/games/{game}/moves", moves[0], **auth)
    else:
        raise AssertionError("the attempt did not end in 200 turns")
    score = api_call(gateway_process, f"/api/games/{game}", **auth)["seats"][0]["score"]

    tab = open_tab(gateway_process)
    page = tab.page
    page.evaluate(
        "([key, id]) => { localStorage.setItem('player.key', key); "
        "localStorage.setItem('player.id', id); }",
        [key, made_player["player_id"]],
    )
    page.reload()
    page.wait_for_selector("#daily-card .daily-not-counted")
    said = page.inner_text("#daily-card .daily-not-counted")
    assert f"{score} point" in said and "not counted" in said, said
    page.click("#daily-results-metrox")
    page.wait_for_selector(".daily-you .daily-not-counted")
    assert "not counted" in page.inner_text(".daily-you")
    assert page.locator("#daily-share-text").count() == 0
    assert page.locator(".daily-bar-you").count() == 0
    tab.check_clean()


def test_the_share_text_words_every_standing_in_every_language(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """A sole finisher is "the first to finish", the best of many is in the top N% (N never
    100), and a score in the lower half gives its rank: in en, hu, fr and es."""
    tab = open_tab(gateway_process)
    cases = [(1, 1), (1, 2), (1, 3), (2, 2), (3, 4), (1, 250), (2, 40)]
    said = tab.page.evaluate(
        """async (cases) => {
            const daily = await import("/daily.js");
            const i18n = await import("/i18n.js");
            const out = {};
            for (const code of ["en", "hu", "fr", "es"]) {
                await i18n.setLanguage(code);
                out[code] = cases.map(([rank, players]) => daily.shareText("metrox", {
                    date: "2026-12-03", players, you: { score: 41, rank, top: 100 },
                }));
            }
            await i18n.setLanguage("en");
            return out;
        }""",
        cases,
    )
    assert said["en"] == [
        f"Metro X daily 2026-12-03: 41 points, {standing(r, p)}" for r, p in cases
    ]
    assert said["en"][0].endswith("the first to finish")
    assert said["en"][1].endswith("top 50%") and said["en"][5].endswith("top 1%")
    expected = {
        "hu": ["az első, aki befejezte", "legjobb 50%", "legjobb 34%", "2. hely 2 játékosból"],
        "fr": ["première personne à le terminer", "top 50 %", "top 34 %", "2e sur 2"],
        "es": ["primera persona en terminarlo", "top 50 %", "top 34 %", "puesto 2 de 2"],
    }
    for code, words in expected.items():
        for text, end in zip(said[code], words, strict=False):
            plain = text.replace("\u202f", " ").replace("\u00a0", " ")
            assert plain.endswith(end) and "100" not in plain, (code, text, end)
        assert "41" in said[code][0] and "2026-12-03" in said[code][0]
    tab.check_clean()
