"""Metro's page draws a placement's points from the server (issue 31.2): hovering a square shows
the points its legal move's `preview` says (the routes the rules core finds it would complete),
the page tracing no route of its own. Real gateway, engine and Redis; real headless Chromium."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tests.browser.conftest import Tab
from tests.browser.steps import legal_squares
from tests.browser.test_usability import hold_seat, open_game
from tests.fixtures.gateway import GatewayApi


def _a_turn_that_completes(api: GatewayApi, game: str, tokens: list[str]) -> dict[str, Any]:
    """Random placements (sent as /legal lists them, preview and all) until seat 0 is to move
    with a placement that completes a route; that legal move."""
    rng = random.Random(5)
    for _ in range(40):
        _, view = api.get(f"/api/games/{game}", token=tokens[0])
        seat = view["turn"]
        _, legal = api.get(f"/api/games/{game}/legal", token=tokens[seat])
        places = [m for m in legal["moves"] if m["action"] == "place"]
        if seat == 0:
            done = [m for m in places if m["preview"]["completed"]]
            if done:
                return done[0]
        status, _ = api.post(f"/api/games/{game}/moves", rng.choice(places), token=tokens[seat])
        assert status == 200
    raise AssertionError("no turn of seat 0 with a placement that completes a route")


def test_hovering_a_square_shows_the_points_its_preview_names(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    game, tokens = api.new_game(players=2)
    move = _a_turn_that_completes(api, game, tokens)
    square = move["placement"][4:]  # "aacb05" -> "05": row 0, column 5
    tab = open_tab(gateway_process)
    page = tab.page
    hold_seat(page, game, 0, tokens[0])
    open_game(tab, gateway_process, game)
    page.wait_for_function("(sq) => !!document.querySelector(`[data-legal='${sq}']`)", arg=square)
    assert square in legal_squares(page)
    page.locator(f'[data-square="{square}"]').hover(force=True)
    page.wait_for_selector(f'.layer-preview [data-preview="{move["placement"]}"]')
    shown = page.eval_on_selector_all(
        ".layer-preview .gain", "els => els.map(e => Number(e.dataset.gain))"
    )
    assert shown == [c["points"] for c in move["preview"]["completed"]], (shown, move)
    tab.check_clean()
