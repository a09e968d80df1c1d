"""A player on a second device: the recovery code typed in a fresh browser (in the lobby's player
menu) lists the game in its one list of games, and opening it takes the player's own seat there
(a claimed seat token), not a spectator's: the next move is made by clicking on the second
device."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import Tab, shot
from tests.browser.steps import create_game, play_one_move, wait_my_turn_or_end


def test_the_recovery_code_opens_my_seat_on_another_device(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    first = open_tab(gateway_process)
    first.page.wait_for_selector("#open-list li")
    game = create_game(first.page, "Ada", [("ai", "easy")])
    assert wait_my_turn_or_end(first.page)
    play_one_move(first.page)
    # The player was made when the seat was saved; its code is what the person writes down.
    first.page.wait_for_function("() => !!localStorage.getItem('player.code')")
    code = first.page.evaluate("localStorage.getItem('player.code')")
    assert code

    second = open_tab(gateway_process)
    page = second.page
    page.wait_for_selector("#player-card:not([hidden])")
    page.click("#player-card summary")
    page.fill("#recover-code", code.lower())
    page.click("#recover-button")
    page.wait_for_selector(f"#my-games [data-game='{game}']")
    shot(page, artifacts, "second-device-lobby")
    page.click(f"#my-games li[data-game='{game}'] button")
    page.wait_for_url(f"**/#/game/{game}")
    assert wait_my_turn_or_end(page), "the game ended early"
    assert page.locator("#watching").is_hidden(), "the second device only watches"
    play_one_move(page)
    shot(page, artifacts, "second-device-game")
    second.check_clean()
    first.check_clean()
