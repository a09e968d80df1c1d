"""Chat in real browsers against a real stack (issue 35 item 2): two players and a spectator; the
players' lines never reach the spectator and the spectator's never reach the players; an HTML
payload shows as text and runs nothing; a line too long and lines too fast are refused with the
page's words; a mute is the reader's own; on a phone the chat starts folded."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from services.engine.play.chat import RATE_LINES
from tests.browser.conftest import Tab
from tests.browser.test_two_players import start_two, token_of
from tests.fixtures.waits import assert_stays

PAYLOAD = "<img src=x onerror=window.__pwned=1>"
LINES = "#chat-box .chat-lines"


def open_chat(page: Any) -> None:
    page.wait_for_selector("#chat-box:not([hidden]) details")
    if not page.eval_on_selector("#chat-box details", "d => d.open"):
        page.click("#chat-box summary")


def say(page: Any, text: str) -> None:
    page.fill("#chat-box .chat-input", text)
    page.click("#chat-box .chat-send")


def shows(page: Any, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => [...document.querySelectorAll(sel + ' .chat-text')]"
        ".some((s) => s.textContent === text)",
        arg=[LINES, text],
    )


def texts(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(f"{LINES} .chat-text", "els => els.map((e) => e.textContent)")
    )


def test_two_players_and_a_spectator(open_tab: Callable[..., Tab], gateway_process: str) -> None:
    ada, bob, game = start_two(open_tab, gateway_process)
    for tab in (ada, bob):
        open_chat(tab.page)
    assert ada.page.inner_text("#chat-box summary") == "Chat (players)"
    say(ada.page, PAYLOAD)
    shows(bob.page, PAYLOAD)  # as text, and nothing of it ran
    assert bob.page.query_selector(f"{LINES} img") is None
    assert bob.page.evaluate("window.__pwned") is None
    spectator = open_tab(f"{gateway_process}/#/game/{game}")
    open_chat(spectator.page)
    assert spectator.page.inner_text("#chat-box summary") == "Chat (spectators)"
    say(spectator.page, "hello from the stands")
    shows(spectator.page, "hello from the stands")
    assert PAYLOAD not in texts(spectator.page)
    say(bob.page, "gg")
    shows(ada.page, "gg")  # Ada's page has read the players' room since the spectator wrote
    assert "hello from the stands" not in texts(ada.page) + texts(bob.page)
    # Bob mutes Ada: her lines are hidden on his page only.
    bob.page.click(f"{LINES} li:has-text('Ada') .chat-mute")
    bob.page.wait_for_selector(f"{LINES} .chat-muted")
    assert PAYLOAD not in texts(bob.page)
    assert PAYLOAD in texts(ada.page)
    # A line too long (past the input's own bound), then lines too fast.
    ada.page.eval_on_selector("#chat-box .chat-input", "i => { i.value = 'x'.repeat(300); }")
    ada.page.click("#chat-box .chat-send")
    ada.page.wait_for_selector("#chat-box .chat-note:has-text('at most 280 characters')")
    # Lines too fast: Ada's allowance of the window spent at once over HTTP (a loaded machine's
    # page may take longer than the window to send six), then one more from the page.
    token = token_of(ada, game)
    for i in range(RATE_LINES):
        post_line(gateway_process, game, token, f"spam {i}")
    say(ada.page, "one too many")
    ada.page.wait_for_selector("#chat-box .chat-note:has-text('Too many messages')")
    for tab in (ada, bob, spectator):
        tab.check_clean()


def post_line(url: str, game: str, token: str, text: str) -> None:
    """A chat line in the seat's room, straight to the HTTP API (refused or not: the count is
    what matters)."""
    request = urllib.request.Request(
        f"{url}/api/games/{game}/chat",
        data=json.dumps({"text": text}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30):
            pass
    except urllib.error.HTTPError as err:
        assert err.code == 429, err.read()


def chat_gets(page: Any) -> tuple[list[str], list[Any]]:
    """Every GET of the game's chat this page makes from now on, and every opening of its event
    stream (page.on("request")): the page reads the chat again only when its stream reopened
    after a break (a loaded machine may drop one), never on a timer."""
    gets: list[str] = []
    opens: list[Any] = []

    def seen(request: Any) -> None:
        path = request.url.split("?")[0]
        if request.method == "GET" and path.endswith("/chat"):
            gets.append(request.url)
        elif path.endswith("/events") and request not in opens:
            opens.append(request)

    def answered(response: Any) -> None:
        """A stream asked for just before this listener came, and answered after it, reopens
        too: its answer is seen here (the page reads the chat once that answer came)."""
        request = response.request
        if request.url.split("?")[0].endswith("/events") and request not in opens:
            opens.append(request)

    page.on("request", seen)
    page.on("response", answered)
    return gets, opens


def test_lines_come_on_the_game_stream_not_by_polling(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """A line typed by one player shows on the other's page through the game's own stream: no
    GET of the chat after the one that read the backlog; a spectator's page hears neither room's
    lines but its own, both ways."""
    ada, bob, game = start_two(open_tab, gateway_process)
    for tab in (ada, bob):
        open_chat(tab.page)
        tab.page.wait_for_selector(f"{LINES} .chat-empty")  # the backlog was read
    spectator = open_tab(f"{gateway_process}/#/game/{game}")
    open_chat(spectator.page)
    spectator.page.wait_for_selector(f"{LINES} .chat-empty")
    gets = {tab.page: chat_gets(tab.page) for tab in (ada, bob, spectator)}
    say(ada.page, "see you on the stream")
    shows(bob.page, "see you on the stream")
    say(spectator.page, "the stands say hi")
    shows(spectator.page, "the stands say hi")  # the server's answer to the spectator came
    say(bob.page, "and back")
    shows(ada.page, "and back")
    assert "the stands say hi" not in texts(ada.page) + texts(bob.page)
    assert texts(spectator.page) == ["the stands say hi"]
    # The old page asked every 3 s: over 7 s no page asks but after its stream reopened (the
    # lines came on the stream).
    assert_stays(
        lambda: all(len(g) <= len(o) for g, o in gets.values()),
        "no GET of the chat but after a reopened stream", 7.0,
        pause=lambda s: ada.page.wait_for_timeout(s * 1000),
    )  # fmt: skip
    assert "the stands say hi" not in texts(ada.page) + texts(bob.page)
    assert texts(spectator.page) == ["the stands say hi"]
    for tab in (ada, bob, spectator):
        tab.check_clean()


def test_a_spectators_unsent_line_survives_a_move(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """A spectator (no token) half-way through a line keeps it when a move arrives: the box is
    not built again, nor the chat read again, at each render (it was: "" !== undefined)."""
    ada, _bob, game = start_two(open_tab, gateway_process)
    spectator = open_tab(f"{gateway_process}/#/game/{game}")
    page = spectator.page
    open_chat(page)
    page.wait_for_selector(f"{LINES} .chat-empty")
    gets, opens = chat_gets(page)
    page.fill("#chat-box .chat-input", "half a thou")
    before = page.locator(".move-log-list li").count()
    path = f"/api/games/{game}"
    token = token_of(ada, game)

    def call(method: str, url: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{gateway_process}{url}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.load(reply)

    legal = call("GET", f"{path}/legal")["moves"]
    call("POST", f"{path}/moves", legal[0])
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length > n",
        arg=[".move-log-list li", before],
    )
    assert page.input_value("#chat-box .chat-input") == "half a thou"
    assert len(gets) <= len(opens), (gets, len(opens))
    spectator.check_clean()
