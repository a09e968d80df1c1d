"""A real-time table in the browser: the player's clock ticks down, the player waits it out and
sees the AI move for them (the seat marked as played by the AI), then takes the seat back and
plays on by clicking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import Tab, shot
from tests.browser.steps import create_game, play_one_move, wait_my_turn_or_end

MOVE_S = 15  # the shortest real-time choice the page offers


def _my_clock(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.inner_text("#scores tr[data-seat='0'] td.clock"))


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
    create_game(page, "Ada", [("ai", "easy")])

    # My clock runs (seat 0 moves first) and ticks down; the AI's shows no running time.
    assert wait_my_turn_or_end(page)
    page.wait_for_selector("#scores tr[data-seat='0'] td.clock.running")
    first = _my_clock(page)
    page.wait_for_timeout(2100)
    second = _my_clock(page)
    assert first != second and second.startswith("0:"), (first, second)
    assert page.locator("#away-button").is_visible()
    shot(page, artifacts, "clock-running")

    # Nobody moves for seat 0: at the deadline the AI plays for it, and the seat says so.
    page.wait_for_selector("#scores tr[data-seat='0'] .away-mark", timeout=(MOVE_S + 10) * 1000)
    assert "AI" in page.inner_text("#scores tr[data-seat='0'] .away-mark")
    assert page.inner_text("#away-button") == "Take my seat back"
    shot(page, artifacts, "clock-ai-plays")

    # Take it back: the mark goes, the button offers leaving again, and I play on by clicking.
    page.click("#away-button")
    page.wait_for_selector("#scores tr[data-seat='0'] .away-mark", state="detached")
    assert page.inner_text("#away-button").startswith("Leave")
    assert wait_my_turn_or_end(page), "the game ended before the seat came back"
    tiles_before = page.locator("[data-tile]").count()
    assert tiles_before >= 2, "the AI moved for seat 0 while it was away"
    play_one_move(page)
    page.wait_for_selector("#scores tr[data-seat='0'] td.clock")
    tab.check_clean()
