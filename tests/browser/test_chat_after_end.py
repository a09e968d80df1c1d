"""Chat after the end in real browsers against a real stack (issue 35): a "gg" typed after the
game ended shows on the other player's page without a reload, through the game's own stream
(which the server keeps open for chat CHAT_AFTER_END_S after the end), with no GET of the chat
but after a stream that ended."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.conftest import Tab
from tests.browser.test_chat import LINES, open_chat, say, shows, texts
from tests.browser.test_resign import resign
from tests.browser.test_two_players import start_two


def chat_gets_and_stream_ends(page: Any) -> tuple[list[str], list[Any]]:
    """Every GET of the chat from now on, and every event stream that ended (a page reads the
    chat once when its stream of a finished game ends, never on a timer)."""
    gets: list[str] = []
    ended: list[Any] = []

    def asked(request: Any) -> None:
        if request.method == "GET" and request.url.split("?")[0].endswith("/chat"):
            gets.append(request.url)

    def done(request: Any) -> None:
        if request.url.split("?")[0].endswith("/events") and request not in ended:
            ended.append(request)

    page.on("request", asked)
    page.on("requestfinished", done)
    page.on("requestfailed", done)
    return gets, ended


def test_gg_after_the_end_shows_without_reload(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    ada, bob, _ = start_two(open_tab, gateway_process)
    for tab in (ada, bob):
        open_chat(tab.page)
        tab.page.wait_for_selector(f"{LINES} .chat-empty")  # the backlog was read
    bob.page.evaluate("window.notReloaded = true")
    bob.page.wait_for_selector("#resign-button:not([hidden])")
    resign(bob.page)
    for tab in (ada, bob):
        tab.page.wait_for_selector("#after:not([hidden])")  # each page shows the game over
    gets, ended = chat_gets_and_stream_ends(bob.page)
    say(ada.page, "gg, well played")
    shows(bob.page, "gg, well played")
    assert bob.page.evaluate("window.notReloaded") is True
    assert len(gets) <= len(ended), (gets, ended)  # it came on the stream
    say(bob.page, "thanks, gg")
    shows(ada.page, "thanks, gg")
    assert texts(ada.page) == texts(bob.page) == ["gg, well played", "thanks, gg"]
    for tab in (ada, bob):
        tab.check_clean()
