"""Resigning in a real browser against a real stack (issue 35, item 1): Resign asks first; in a
2-player game the other player wins at once and both logs say who resigned; in a 4-player game
the resigning seat is out (its button gone, the log says so) and the others play on, seen live
on the resigner's page."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

from tests.browser.conftest import Tab
from tests.browser.steps import create_game

LOG_ITEMS = ".move-log-list li"
TIMEOUT_S = 10


def call(base: str, method: str, path: str, token: str = "", body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
        return json.load(reply)


def resign(page: Any) -> str:
    """Click Resign and accept its question; the question's text."""
    asked: list[str] = []

    def accept(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.click("#resign-button")
    page.wait_for_selector("#resign-button", state="hidden")
    return asked[0]


def log_has(page: Any, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => [...document.querySelectorAll(sel)].some((li) => "
        "li.textContent.includes(text))",
        arg=[LOG_ITEMS, text],
    )


def test_two_players_the_one_who_resigns_loses(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada = open_tab(gateway_process)
    game = create_game(ada.page, "Ada", [("open", "")])
    joined = call(gateway_process, "POST", f"/api/games/{game}/join", body={"name": "Bob"})
    ada.page.wait_for_selector("#resign-button:not([hidden])")
    assert "loss" in resign(ada.page)
    ada.page.wait_for_selector("#after:not([hidden])")
    log_has(ada.page, "You resigned.")
    view = call(gateway_process, "GET", f"/api/games/{game}", joined["token"])
    assert view["status"] == "over" and view["winners"] == [1]
    assert view["seats"][0]["lost"] is True
    ada.check_clean()


def test_four_players_the_others_play_on(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada = open_tab(gateway_process, locale="fr-FR")  # in French: the words are the page's
    page = ada.page
    game = create_game(page, "Ada", [("open", ""), ("open", ""), ("open", "")])
    tokens = [
        call(gateway_process, "POST", f"/api/games/{game}/join", body={"name": n})["token"]
        for n in ("Bob", "Cy", "Di")
    ]
    page.wait_for_selector("#resign-button:not([hidden])")
    assert page.inner_text("#resign-button") == "Abandonner"
    assert "défaite" in resign(page)
    log_has(page, "Vous avez abandonné.")
    view = call(gateway_process, "GET", f"/api/games/{game}", tokens[0])
    assert view["status"] == "playing" and view["seats"][0]["lost"] is True
    assert 0 not in view["to_move"]
    # The others play on: the next seat's move reaches Ada's page live.
    seat = view["to_move"][0]
    path = f"/api/games/{game}"
    legal = call(gateway_process, "GET", f"{path}/legal", tokens[seat - 1])["moves"]
    before = page.locator(LOG_ITEMS).count()
    call(gateway_process, "POST", f"{path}/moves", tokens[seat - 1], legal[0])
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length > n", arg=[LOG_ITEMS, before]
    )
    assert page.locator("#after").is_hidden()  # the game goes on without Ada
    ada.check_clean()


def test_an_abort_offer_accepted_by_the_other_player(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada = open_tab(gateway_process)
    game = create_game(ada.page, "Ada", [("open", "")])
    bob = open_tab(ada.page.url, locale="es-ES")  # the invite link
    bob.page.wait_for_selector("#join-box:not([hidden])")
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-button")
    ada.page.click("#offer-row .offer-abort")
    ada.page.wait_for_selector("#offer-row .offer-wait")
    # Bob sees the offer live, in Spanish, and accepts it.
    bob.page.wait_for_selector("#offer-row .offer-accept")
    assert "Ada propone anular la partida" in bob.page.inner_text("#offer-row .offer-note")
    bob.page.click("#offer-row .offer-accept")
    for tab, words in ((ada, "Aborted by agreement"), (bob, "Anulada de común acuerdo")):
        tab.page.wait_for_selector("#after:not([hidden])")
        assert words in tab.page.inner_text("#result-title")
        assert tab.page.locator("#offer-row").is_hidden()
    log_has(ada.page, "Ada offered to abort the game.")
    view = call(gateway_process, "GET", f"/api/games/{game}")
    assert view["status"] == "over" and view["ended"] == "abort" and view["winners"] == []
    ada.check_clean()
    bob.check_clean()
