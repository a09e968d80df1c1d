"""Today's puzzle in the browser (issue 23), all by clicking: the lobby's card starts today's
Metro X attempt, it is played to the end on the real board, the link under the final scores opens
the results page (the histogram with your bar marked, rank, percentile, streak) and Share copies
a text that names no card. Screenshots: test-artifacts/daily-*.png at 1280x800 and 390x844."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.test_metrox import confirm, pick_move, wait_choose_or_over

SHARE = re.compile(r"^Metro X daily (\d{4}-\d{2}-\d{2}): (-?\d+) points?, top (\d+)%$")
CARD_CODES = re.compile(r"\b(s2|s3|f\*|5\*)\b")


def both_widths(page: Any, artifacts: Path, name: str) -> None:
    shot(page, artifacts, name)
    page.set_viewport_size(NARROW)
    page.wait_for_timeout(300)  # let the one-column layout settle
    shot(page, artifacts, name)
    page.set_viewport_size(WIDE)
    page.wait_for_timeout(100)


def api_call(base: str, path: str, body: Any = None, **headers: str) -> Any:
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = "application/json"
    method = "POST" if path.endswith(("/games", "/moves", "/players")) else "GET"
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

    # The text to share gives the day, the score and the standing, and nothing of the deck.
    text = page.input_value("#daily-share-text")
    found = SHARE.match(text)
    assert found, text
    assert found.groups() == (results["date"], str(you["score"]), str(you["top"]))
    assert not CARD_CODES.search(text)
    page.click("#daily-share")
    page.wait_for_function("() => document.querySelector('.daily-share-status').textContent")
    assert page.evaluate("() => navigator.clipboard.readText()") == text
    both_widths(page, artifacts, "daily-results")

    # Back in the lobby, today's card says it is done and leads to the results again.
    page.click(".daily-results > a.button[href='#/']")
    page.wait_for_selector("#daily-results-metrox")
    assert str(you["score"]) in page.inner_text(".daily-done")
    # Today's attempt is private: never listed, even once over.
    with urllib.request.urlopen(f"{gateway_process}/api/games?status=over&limit=200") as reply:
        assert game not in {g["game_id"] for g in json.load(reply)["games"]}
    tab.check_clean()
