"""Two people in two browsers: the invite link, live moves, refused moves, hidden tiles, and a
live stream that resumes after the gateway restarts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from services.common.healthcheck import check_http
from tests.browser.conftest import NARROW, Tab
from tests.browser.steps import (
    board_tiles,
    click_square,
    create_game,
    legal_squares,
    message,
    play_one_move,
    selected_code,
    wait_my_turn_or_end,
)
from tests.fixtures.processes import free_port, python_module


def start_two(
    open_tab: Callable[..., Tab], url: str, *, rotation: bool = False, hand_size: int = 1
) -> tuple[Tab, Tab, str]:
    """Ada creates a game with an open seat; Bob opens the invite link and joins."""
    ada = open_tab(url)
    if rotation:
        ada.page.check("#opt-rotation")
    ada.page.select_option("#opt-hand_size", str(hand_size))
    game = create_game(ada.page, "Ada", [("open", "")])
    ada.page.wait_for_selector("#status:has-text('Waiting for 1 more player')")
    invite = ada.page.url
    bob = open_tab(invite, viewport=NARROW)
    bob.page.wait_for_selector("#join-box:not([hidden])")
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-button")
    bob.page.wait_for_selector("#scores tr[data-seat='1'] .name:has-text('Bob (you)')")
    return ada, bob, game


def token_of(tab: Tab, game: str) -> str:
    raw = tab.page.evaluate(f"sessionStorage.getItem('seat.{game}')")
    return str(json.loads(raw)["token"])


def test_the_second_browser_sees_moves_live_and_refused_moves_say_why(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada, bob, game = start_two(open_tab, gateway_process)
    assert wait_my_turn_or_end(ada.page)
    bob.page.evaluate("window.notReloaded = true")

    # Bob moving out of turn: the server refuses and the page says whose turn it is.
    empty = legal_squares(ada.page)[0]
    click_square(bob.page, empty)
    assert "turn" in message(bob.page)
    assert board_tiles(bob.page) == []

    # Ada on a square the rules forbid: the message says why in plain words; the rule it names
    # is in the message's tooltip, not in the text (issue 11, item 6).
    click_square(ada.page, "22")
    refused = message(ada.page)
    assert "RULES.md" not in refused, refused
    assert "RULES.md §6" in str(ada.page.get_attribute("#message", "title")), refused
    assert board_tiles(ada.page) == []

    placement = play_one_move(ada.page)
    bob.page.wait_for_selector(f'[data-tile="{placement}"]', timeout=10_000)
    assert bob.page.evaluate("window.notReloaded") is True
    assert wait_my_turn_or_end(bob.page)
    reply = play_one_move(bob.page)
    ada.page.wait_for_selector(f'[data-tile="{reply}"]', timeout=10_000)

    # Tokens never travel in a URL: not in the invite link, not in any request.
    for tab in (ada, bob):
        token = token_of(tab, game)
        assert not [u for u in tab.urls if token in u]
    ada.check_clean()
    bob.check_clean()


def test_a_drawn_tile_is_shown_to_the_drawer_alone(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada, bob, game = start_two(open_tab, gateway_process)
    seen_by_bob: list[Any] = []
    bob.page.on(
        "response",
        lambda r: (
            seen_by_bob.append(r.json())
            if r.url.split("?")[0].endswith(f"/api/games/{game}")
            else None
        ),
    )
    assert wait_my_turn_or_end(ada.page)
    with ada.page.expect_response(lambda r: "/moves" in r.url) as answer:
        ada.page.click("#draw-button")
    version = answer.value.json()["version"]
    ada.page.wait_for_selector("#drawn-note:not([hidden])")
    drawn = ada.page.get_attribute(".hand-tile", "data-code")
    # Bob's page learns of the draw from its stream (issue 21: a seat's own view, or a fetch of
    # it on a gap): it shows the new version and no drawn tile.
    bob.page.wait_for_function(
        "(v) => Number(document.getElementById('game').dataset.version) >= v", arg=version
    )
    assert bob.page.locator("#drawn-note").is_hidden()
    assert all(v.get("drawn") is None for v in seen_by_bob)
    assert all(v["seat"] == 1 for v in seen_by_bob)
    placement = play_one_move(ada.page)
    assert placement.startswith(str(drawn))
    bob.page.wait_for_selector(f'[data-tile="{placement}"]')


def test_rotation_turns_the_selected_tile_and_a_bigger_hand_offers_each_tile(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada, _, _ = start_two(open_tab, gateway_process, rotation=True, hand_size=2)
    page = ada.page
    assert wait_my_turn_or_end(page)
    tiles = page.locator(".hand-tile")
    assert tiles.count() == 2
    tiles.nth(1).click()
    base = str(tiles.nth(1).get_attribute("data-code"))
    assert selected_code(page) == base
    page.click("#rotate-button")
    turned = base[3] + base[:3]  # a quarter turn clockwise: connector k -> k+2
    assert selected_code(page) == turned
    page.keyboard.press("r")
    assert selected_code(page) == turned[3] + turned[:3]
    placement = play_one_move(page)
    assert placement.startswith(turned[3] + turned[:3])
    ada.check_clean()


def test_the_live_stream_resumes_after_the_gateway_restarts(
    open_tab: Callable[..., Tab],
    start_service: Callable[..., Any],
    engine: Any,
    ai: Any,
    api: Any,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    gateway = start_service(
        "gateway-restart",
        python_module("services.gateway"),
        port=port,
        env={
            "GATEWAY_HOST": "127.0.0.1",
            "GATEWAY_PORT": str(port),
            "ENGINE_TARGET": engine.address,
            "AI_TARGET": ai.target,
        },
        ready=lambda: check_http(url + "/", timeout=2.0) is None,
    )
    ada, bob, game = start_two(open_tab, url)
    assert wait_my_turn_or_end(ada.page)
    bob.page.wait_for_selector("#conn.live")
    gateway.stop()
    bob.page.wait_for_selector("#conn.reconnecting")
    # While this gateway is down Ada moves through another one (the in-process app).
    token = token_of(ada, game)
    _, view = api.get(f"/api/games/{game}", token=token)
    _, legal = api.get(f"/api/games/{game}/legal", token=token)
    move = next(m for m in legal["moves"] if m["action"] == "place")
    status, _ = api.post(
        f"/api/games/{game}/moves", {**move, "expected_version": view["version"]}, token=token
    )
    assert status == 200
    gateway.start()
    bob.page.wait_for_selector(f'[data-tile="{move["placement"]}"]', timeout=30_000)
    bob.page.wait_for_selector("#conn.live")
    sent = [r.all_headers() for r in bob.event_requests]
    assert any("last-event-id" in h for h in sent[1:]), f"no Last-Event-ID on reconnect: {sent}"
