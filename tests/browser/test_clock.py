"""A real-time table in the browser: the player's clock ticks down, the player waits it out and
sees the AI move for them (the seat marked as played by the AI), then takes the seat back and
plays on by clicking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import requests

from tests.browser.conftest import Tab, shot
from tests.browser.steps import create_game, play_one_move, wait_my_turn_or_end

MOVE_S = 15  # the shortest real-time choice the page offers


def _my_clock(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.inner_text("#scores tr[data-seat='0'] td.clock"))


def _join(url: str, game: str) -> str:
    """A second player joins over HTTP (so the table waits on a person, not on a fast AI)."""
    joined = requests.post(f"{url}/api/games/{game}/join", json={"name": "Bo"}, timeout=10)
    assert joined.status_code == 200, joined.text
    return str(joined.json()["token"])


def _move_as(url: str, game: str, token: str) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    legal = requests.get(f"{url}/api/games/{game}/legal", headers=auth, timeout=10).json()
    move = next(m for m in legal["moves"] if m["action"] == "place")
    reply = requests.post(f"{url}/api/games/{game}/moves", json=move, headers=auth, timeout=10)
    assert reply.status_code == 200, reply.text


def test_waiting_out_the_clock_hands_the_seat_to_the_ai_and_taking_it_back(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#open-list li")
    page.select_option("#clock-mode", "realtime")
    page.select_option("#clock-move", str(MOVE_S))
    page.select_option("#clock-bank", "0")
    page.select_option("#clock-timeout", "ai")
    page.select_option("#clock-level", "easy")
    game = create_game(page, "Ada", [("open", "")])
    bo = _join(gateway_process, game)

    # My clock runs (seat 0 moves first) and ticks down; Bo's shows no running time.
    assert wait_my_turn_or_end(page)
    page.wait_for_selector("#scores tr[data-seat='0'] td.clock.running")
    first = _my_clock(page)
    page.wait_for_function(  # the clock ticks: its text changes while it runs
        "(first) => document.querySelector(\"#scores tr[data-seat='0'] td.clock\")"
        ".innerText !== first",
        arg=first,
    )
    second = _my_clock(page)
    assert first != second and second.startswith("0:"), (first, second)
    assert page.locator("#away-button").is_visible()
    shot(page, artifacts, "clock-running")

    # Nobody moves for seat 0: at the deadline the AI plays for it, and the seat says so (then
    # it is Bo's turn, who takes his time).
    page.wait_for_selector("#scores tr[data-seat='0'] .away-mark", timeout=(MOVE_S + 15) * 1000)
    assert "AI" in page.inner_text("#scores tr[data-seat='0'] .away-mark")
    assert page.inner_text("#away-button") == "Take my seat back"
    page.wait_for_function("() => document.querySelectorAll('[data-tile]').length >= 1")
    # The move log says who placed that tile: the AI, for me (not "You placed").
    log = page.inner_text(".move-log-list")
    assert "While you were away, the AI placed" in log and "You placed" not in log, log
    shot(page, artifacts, "clock-ai-plays")

    # Take it back: the mark goes, the button offers leaving again; after Bo's move I play on
    # by clicking.
    page.click("#away-button")
    page.wait_for_selector("#scores tr[data-seat='0'] .away-mark", state="detached")
    assert page.inner_text("#away-button").startswith("Leave")
    _move_as(gateway_process, game, bo)
    assert wait_my_turn_or_end(page)
    play_one_move(page)
    page.wait_for_function("() => document.querySelectorAll('[data-tile]').length >= 3")
    tab.check_clean()
