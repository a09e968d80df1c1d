"""A bot account in the page (issue 24): a bot that takes a seat is marked as a bot in the score
table and in the lobby's list of games, and on the leaderboard, where "Hide bots" leaves it
out. The bot plays over HTTP, as a bot would; the person plays in a real browser."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from tests.browser.conftest import Tab, shot
from tests.browser.steps import create_game
from tests.fixtures.waits import wait_until

TIMEOUT_S = 10


def play_out(url: str, game: str, tokens: dict[int, str]) -> None:
    """Every seat places its first legal tile until the game is over."""
    deadline = time.monotonic() + 180
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
        reply = requests.post(
            f"{url}/api/games/{game}/moves", json=body, headers=auth, timeout=TIMEOUT_S
        )
        assert reply.status_code in (200, 409), reply.text
    raise AssertionError("the game did not end in time")


def rated(url: str, player_id: str) -> bool:
    board = requests.get(f"{url}/api/leaderboard/metro", timeout=TIMEOUT_S)
    board.raise_for_status()
    return any(p.get("player_id") == player_id for p in board.json()["players"])


def test_a_bot_is_marked_in_the_scores_the_lobby_and_the_leaderboard(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    url = gateway_process
    name = f"greedy-{uuid.uuid4().hex[:6]}"
    made = requests.post(f"{url}/api/players", json={"name": name, "bot": True}, timeout=TIMEOUT_S)
    assert made.status_code == 201, made.text
    bot: dict[str, Any] = made.json()

    ada = open_tab(url)
    ada.page.check("#rated-pick")
    game = create_game(ada.page, "Ada", [("open", "")])
    joined = requests.post(f"{url}/api/games/{game}/join", json={"name": name}, timeout=TIMEOUT_S)
    assert joined.status_code == 200, joined.text
    token = joined.json()["token"]
    sat = requests.post(
        f"{url}/api/games/{game}/player",
        json={},
        headers={"Authorization": f"Bearer {token}", "X-Player-Key": bot["device_key"]},
        timeout=TIMEOUT_S,
    )
    assert sat.status_code == 200, sat.text

    badge = ada.page.locator("#scores tr[data-seat='1'] .bot-badge")
    badge.wait_for()
    assert badge.inner_text() == "bot"
    assert ada.page.locator("#scores tr[data-seat='0'] .bot-badge").count() == 0
    shot(ada.page, artifacts, "bot-in-scores")

    raw = ada.page.evaluate(f"sessionStorage.getItem('seat.{game}')")
    play_out(url, game, {0: json.loads(raw)["token"], 1: token})

    # The bot's own stream, on the real entry point's server: its turns and the game's end.
    with requests.get(
        f"{url}/api/players/me/events",
        headers={"X-Player-Key": bot["device_key"]},
        stream=True,
        timeout=TIMEOUT_S,
    ) as stream:
        assert stream.status_code == 200
        kinds = []
        for line in stream.iter_lines(decode_unicode=True):
            if line.startswith("data: "):
                kinds.append(json.loads(line[6:])["type"])
                if kinds[-1] == "game_over":
                    break
    assert "your_turn" in kinds and kinds[-1] == "game_over", kinds

    ada.page.goto(f"{url}/#/")
    mine = ada.page.locator(f"#my-games li[data-game='{game}'] .mine-players")
    mine.wait_for()
    assert f"{name} (bot)" in mine.inner_text()

    # Rated just after the game ends, by another process: wait for the rating itself (on a busy
    # machine it took longer than a page's wait), then open the leaderboard once.
    wait_until(lambda: rated(url, bot["player_id"]), "the bot on the leaderboard", timeout=120)
    ada.page.goto(f"{url}/#/leaderboard/metro")
    row = ada.page.locator(f"#board-table tr[data-player='{bot['player_id']}']")
    row.wait_for()
    assert row.locator(".bot-badge").inner_text() == "bot"
    shot(ada.page, artifacts, "bot-on-leaderboard")
    ada.page.check("#board-hide-bots")
    row.wait_for(state="detached")
    assert ada.page.locator("#board-table tbody tr").count() >= 1  # Ada is still there
    assert ada.page.locator("#board-table .bot-badge").count() == 0
    ada.page.uncheck("#board-hide-bots")
    row.wait_for()
    ada.check_clean()
