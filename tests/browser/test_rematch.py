"""Players in the page: two browsers play a rated game (moves sent over HTTP, to be quick), offer
and accept a rematch from the after-game panel and land in the new game with seats rotated; the
lobby lists the games from the server, and the leaderboard page shows both players."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from tests.browser.conftest import NARROW, Tab, shot
from tests.browser.steps import GAME_URL, create_game
from tests.fixtures.waits import wait_until

TIMEOUT_S = 10
SEATED_S = 60  # a page seats its player within this (a deadline, not a wait)


def seat_of(tab: Tab, game: str) -> dict[str, Any]:
    raw = tab.page.evaluate(f"sessionStorage.getItem('seat.{game}')")
    return dict(json.loads(raw))


def play_out(url: str, game: str, tokens: dict[int, str]) -> None:
    """Every seat places its first legal tile until the game is over."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = requests.get(f"{url}/api/games/{game}", timeout=TIMEOUT_S).json()
        if view["status"] == "over":
            return
        token = tokens[view["to_move"][0]]
        auth = {"Authorization": f"Bearer {token}"}
        legal = requests.get(f"{url}/api/games/{game}/legal", headers=auth, timeout=TIMEOUT_S)
        moves = legal.json()["moves"]
        move = next((m for m in moves if m["action"] == "place"), moves[0])
        body = {**move, "expected_version": legal.json()["version"]}
        reply = requests.post(f"{url}/api/games/{game}/moves", json=body, headers=auth,
                              timeout=TIMEOUT_S)  # fmt: skip
        assert reply.status_code in (200, 409), reply.text
    raise AssertionError("the game did not end in time")


def test_a_rated_game_a_rematch_and_the_leaderboard(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    url = gateway_process
    ada = open_tab(url)
    ada.page.check("#rated-pick")
    game = create_game(ada.page, "Ada", [("open", "")])
    bob = open_tab(ada.page.url, viewport=NARROW)
    bob.page.wait_for_selector("#join-box:not([hidden])")
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-button")
    bob.page.wait_for_selector("#scores tr[data-seat='1']")

    # Each browser became a player and sat on its seat; Ada's table is rated. (The pages seat
    # their players in the background, trying again while the server is busy.)
    def said() -> dict[str, Any]:
        return {
            name: (
                [u for u in tab.urls if "/api/players" in u or u.endswith("/player")],
                tab.console,
            )
            for name, tab in (("Ada", ada), ("Bob", bob))
        }

    def seated() -> Any:
        table = requests.get(f"{url}/api/games/{game}/table", timeout=TIMEOUT_S).json()
        return table if all(s["player_id"] for s in table["seats"]) else None

    try:
        table = wait_until(seated, "both players seated", timeout=SEATED_S, every=0.1)
    except AssertionError as err:
        raise AssertionError(f"{err}; {said()}") from None
    assert table["rated"] is True and all(s["player_id"] for s in table["seats"]), (table, said())
    keys = [tab.page.evaluate("localStorage.getItem('player.key')") for tab in (ada, bob)]
    assert all(keys) and keys[0] != keys[1]

    play_out(url, game, {0: seat_of(ada, game)["token"], 1: seat_of(bob, game)["token"]})
    for tab in (ada, bob):
        tab.page.wait_for_selector("#after:not([hidden]) #rematch-button:not([hidden])")

    # Ada offers; Bob's page sees the offer and accepts; both land in the new game.
    ada.page.click("#rematch-button")
    ada.page.wait_for_selector("#rematch-status:has-text('Waiting for Bob')")
    bob.page.wait_for_selector("#rematch-button:has-text('Accept rematch')", timeout=15_000)
    shot(bob.page, artifacts, "rematch-offered")
    assert bob.page.locator("#rematch-decline").is_visible()
    bob.page.click("#rematch-button")
    for tab in (bob, ada):
        tab.page.wait_for_url(lambda u: GAME_URL.search(u) is not None and game not in u,
                              timeout=15_000)  # fmt: skip
    match = GAME_URL.search(bob.page.url)
    assert match
    new = match.group(1)
    assert GAME_URL.search(ada.page.url).group(1) == new  # type: ignore[union-attr]
    bob.page.wait_for_selector("#scores tr[data-seat='0'] .name:has-text('Bob (you)')")
    ada.page.wait_for_selector("#scores tr[data-seat='1'] .name:has-text('Ada (you)')")

    # The lobby's one list of games has both; the player menu holds the recovery code.
    ada.page.goto(f"{url}/#/")
    ada.page.wait_for_selector(f"#my-games li[data-game='{new}']")
    ada.page.wait_for_selector(f"#my-games li[data-game='{game}'][data-state='over']")
    ada.page.click("#player-card summary")
    ada.page.click("#player-code-button")
    code = ada.page.locator("#player-code").inner_text()
    assert "-" in code
    shot(ada.page, artifacts, "player-card")

    # The leaderboard page: both players, rated once.
    ada.page.click("#leaderboard-link")
    ada.page.wait_for_selector("#leaderboard:not([hidden]) #board-table tbody tr")
    ids = [s["player_id"] for s in table["seats"]]
    for player in ids:
        row = ada.page.locator(f"#board-table tr[data-player='{player}']")
        assert row.locator("td").nth(3).inner_text() == "1"
    assert ada.page.locator("#board-table tr.players-me").count() == 1
    shot(ada.page, artifacts, "leaderboard")

    # The device key and the recovery code never travel in a URL.
    secret = code.split(":", 1)[-1].strip().split(".")[0]
    for tab, key in zip((ada, bob), keys, strict=True):
        assert not [u for u in tab.urls if key in u or key.split(".")[1] in u]
        assert not [u for u in tab.urls if secret and secret in u]
        tab.check_clean()
