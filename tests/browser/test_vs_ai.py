"""A person against an AI player, all by clicking: a whole game to the final scores, the replay and
the record download; a hint drawn on the board. Screenshots go to test-artifacts/ at 1280x800 and
at 390 px wide (lobby, mid-game, final scores, hint)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.steps import (
    board_tiles,
    click_square,
    create_game,
    legal_squares,
    play_one_move,
    resized,
    selected_code,
    wait_my_turn_or_end,
)
from tests.fixtures.gateway import GatewayApi
from tests.fixtures.waits import wait_until

SIGNED_VALUE = re.compile("[+\u2212]?[0-9.]+")  # the page writes a true minus sign, U+2212


def both_widths(page: Any, artifacts: Path, name: str) -> None:
    shot(page, artifacts, name)
    resized(page, NARROW)
    shot(page, artifacts, name)
    page.set_viewport_size(WIDE)


def test_a_game_against_the_ai_played_to_the_end_by_clicking(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#open-list li")
    both_widths(page, artifacts, "lobby")
    game = create_game(page, "Ada", [("ai", "easy")])
    assert page.inner_text("#scores tr[data-seat='1'] .kind").startswith("AI · easy")

    mine = 0
    while wait_my_turn_or_end(page):
        if mine == 12:
            # Mid-game, with a tile hovered over a legal square: the preview is part of the shot.
            page.locator(f'[data-square="{legal_squares(page)[0]}"]').hover(force=True)
            page.wait_for_selector(".layer-preview .ghost")
            both_widths(page, artifacts, "mid-game")
        play_one_move(page)
        mine += 1
    assert mine == 30, "a two-player game is 60 placements, 30 each"

    # After the game: final scores (best first, a winner marked) and the record.
    finals = page.locator("#final-scores li")
    assert finals.count() == 2
    assert page.locator("#final-scores li.winner").count() >= 1
    scores = [int(s) for s in page.locator("#final-scores .score").all_inner_texts()]
    assert scores == sorted(scores, reverse=True)
    assert page.locator("#scores").is_hidden()  # the final results replace the score table
    assert "Game over" in page.inner_text("#status")
    page.wait_for_selector("#replay-pos:has-text('60 / 60')")
    both_widths(page, artifacts, "final-scores")

    # The replay steps through the record on the board.
    assert len(board_tiles(page)) == 60
    page.click("#replay-first")
    assert page.inner_text("#replay-pos") == "0 / 60"
    assert board_tiles(page) == []
    page.click("#replay-next")
    page.click("#replay-next")
    assert len(board_tiles(page)) == 2
    assert "placed" in page.inner_text("#replay-move")
    page.click("#replay-last")
    assert len(board_tiles(page)) == 60

    with page.expect_download() as download:
        page.click("#download-record")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "metro-record/1"
    assert len(record["moves"]) == 60
    assert sorted(record["scores"], reverse=True) == scores
    assert download.value.suggested_filename == f"metro-{game}.json"
    tab.check_clean()


def test_a_hint_is_drawn_on_the_board_with_its_values(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    create_game(page, "Ada", [("ai", "random")])
    for _ in range(4):  # a few moves in, so the hint has routes to weigh
        assert wait_my_turn_or_end(page)
        play_one_move(page)
    assert wait_my_turn_or_end(page)
    code = selected_code(page)
    legal = set(legal_squares(page))
    page.click("#hint-button")
    page.wait_for_selector("#hint-box:not([hidden]) #hint-list li")
    hinted = page.eval_on_selector_all("[data-hint]", "els => els.map(e => e.dataset.hint)")
    assert 1 <= len(hinted) <= 3
    for placement in hinted:
        assert placement[:4] == code and placement[4:] in legal, (placement, code, legal)
    badges = page.locator(".layer-hints .hint-text").all_text_contents()
    ranks = page.locator(".layer-hints .hint-rank-text").all_text_contents()
    assert len(badges) == len(ranks) == len(hinted)
    assert all(SIGNED_VALUE.fullmatch(b) for b in badges), badges
    assert ranks == sorted(ranks) and set(ranks) <= {"1", "2", "3"}, ranks
    values = page.locator("#hint-list .value").all_inner_texts()
    assert all(SIGNED_VALUE.fullmatch(v) for v in values), values
    shot(page, artifacts, "hint")
    # Following the best suggestion places exactly that tile.
    click_square(page, hinted[0][4:])
    page.wait_for_selector(f'[data-tile="{hinted[0]}"]')
    assert page.locator("[data-hint]").count() == 0  # hints belong to the position they were for
    tab.check_clean()


def rotated_hint(api: GatewayApi, game: str, token: str, page: Any) -> dict[str, Any]:
    """A legal placement whose tile is turned from every tile in hand (so the unturned selection
    cannot be it), as a suggestion of the hint answer's shape. A turn whose legal placements
    offer none (the deal's chance: it failed a run once) is played over HTTP (its first legal
    move) and the next turn tried."""

    def view_and_moves() -> tuple[Any, Any] | None:
        _, view = api.get(f"/api/games/{game}", token=token)
        _, legal = api.get(f"/api/games/{game}/legal", token=token)
        return (view, legal) if legal["moves"] else None

    for _ in range(20):
        assert wait_my_turn_or_end(page)
        # The page may show the turn from the stream a moment before this client reads it: the
        # legal moves are [] until the server has the turn too.
        view, legal = wait_until(view_and_moves, "the legal moves", timeout=60, every=0.2)
        assert legal["moves"], legal
        hand = set(view["hand"])
        turned = [
            m for m in legal["moves"] if m["action"] == "place" and m["placement"][:4] not in hand
        ]
        if turned:
            return {**turned[0], "move": turned[0], "value": 4.5, "visits": 100}
        body = {**legal["moves"][0], "expected_version": view["version"]}
        status, answer = api.post(f"/api/games/{game}/moves", body, token=token)
        assert status in (200, 409), answer
        page.wait_for_function(
            "(v) => Number(document.querySelector('#game').dataset.version) > v",
            arg=view["version"],
        )
    raise AssertionError("no turn offered a turned placement")


def test_a_hint_under_rotation_selects_and_places_exactly_that_move(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#opt-rotation")
    page.check("#opt-rotation")
    page.select_option("#opt-hand_size", "3")
    game = create_game(page, "Ada", [("ai", "random")])
    token = json.loads(page.evaluate(f"sessionStorage.getItem('seat.{game}')"))["token"]
    answer: dict[str, Any] = {}
    page.route(
        "**/hint",
        lambda route: route.fulfill(
            status=200,
            content_type="application/json",
            body=json.dumps({"suggestions": [answer["s"]], "level": "medium", "elapsed_ms": 1}),
        ),
    )

    # Clicking the suggestion in the list selects its tile turned as it is: the preview and the
    # legal squares are then those of the suggested code, and the square places exactly it.
    answer["s"] = rotated_hint(api, game, token, page)
    placement = answer["s"]["placement"]
    page.click("#hint-button")
    page.wait_for_selector(f'[data-hint="{placement}"]')
    page.click("#hint-list li:first-child .hint-item")
    assert selected_code(page) == placement[:4]
    assert placement[4:] in legal_squares(page)
    click_square(page, placement[4:])
    page.wait_for_selector(f'[data-tile="{placement}"]')

    # Clicking the hinted square straight away, with another tile selected, plays the hint too.
    answer["s"] = rotated_hint(api, game, token, page)
    placement = answer["s"]["placement"]
    assert selected_code(page) != placement[:4]
    page.click("#hint-button")
    page.wait_for_selector(f'[data-hint="{placement}"]')
    click_square(page, placement[4:])
    page.wait_for_selector(f'[data-tile="{placement}"]')
    assert page.locator("[data-hint]").count() == 0
    tab.check_clean()
