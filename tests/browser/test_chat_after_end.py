"""Chat after the end in real browsers against a real stack (issue 35): a "gg" typed after the
game ended shows on the other player's page without a reload, through the game's own stream
(which the server keeps open for chat CHAT_AFTER_END_S after the end), with no GET of the chat
but after a stream that ended; once the server ends a finished game's stream, no page opens it
again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from services.common.healthcheck import check_http
from tests.browser.conftest import Tab
from tests.browser.test_chat import LINES, open_chat, say, shows, texts
from tests.browser.test_party import HOST_SCREEN, http
from tests.browser.test_resign import resign
from tests.browser.test_two_players import start_two
from tests.fixtures.gateway import RELAXED_RATES
from tests.fixtures.processes import ServiceProcess, free_port, python_module
from tests.fixtures.waits import assert_stays


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
    # Bob's page shows his line when the server's answer comes, Ada's when her stream brings it:
    # either may be first.
    for tab in (ada, bob):
        shows(tab.page, "thanks, gg")
    assert texts(ada.page) == texts(bob.page) == ["gg, well played", "thanks, gg"]
    for tab in (ada, bob):
        tab.check_clean()


@pytest.fixture
def no_grace_gateway(
    redis_server_factory: Any, engine_factory: Any, tmp_path: Path
) -> Iterator[str]:
    """A stack whose ?chat=1 streams end at a game's end (CHAT_AFTER_END_S=0): what every page
    meets once the chat time after the end has passed."""
    engine = engine_factory(redis_server_factory(appendonly=False).url, {"CHAT_AFTER_END_S": "0"})
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {"GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port), **RELAXED_RATES,
           "ENGINE_TARGET": engine.address, "AI_TARGET": f"127.0.0.1:{free_port()}"}  # fmt: skip
    process = ServiceProcess(
        "gateway", python_module("services.gateway"), log_dir=tmp_path / "gateway", env=env,
        port=port, ready=lambda: check_http(url + "/", timeout=2.0) is None, timeout=60.0,
    )  # fmt: skip
    with process:
        yield url


def stream_opens(page: Any) -> list[str]:
    opens: list[str] = []
    page.on("request", lambda r: opens.append(r.url) if "/events" in r.url else None)
    return opens


def test_a_finished_games_stream_is_not_reopened_once_the_server_ends_it(
    open_tab: Callable[..., Tab], no_grace_gateway: str
) -> None:
    """When the server ends a finished game's chat stream (its chat time after the end is over)
    neither the game page nor the party host screen opens it again: the host screen used to,
    every few seconds, for as long as it stayed open."""
    base = no_grace_gateway
    host = open_tab(f"{base}/#/host", HOST_SCREEN)
    page = host.page
    page.wait_for_selector("#party-game option[value='metrox']", state="attached")
    page.click("#party-create")
    page.wait_for_url("**/#/host/*")
    page.wait_for_function(
        "() => /^\\w{3} \\w{3}$/.test(document.querySelector('#party-code').textContent)"
    )
    code = page.inner_text("#party-code").replace(" ", "")
    phones = [http(base, "POST", f"/api/join/{code}", {"name": n}) for n in ("Ada", "Bea")]
    game = phones[0]["game_id"]
    page.wait_for_function("() => document.querySelectorAll('#party-players li').length === 2")
    page.click("#party-start")
    page.wait_for_selector(".party-board:not([hidden])")
    host_opens = stream_opens(page)
    for phone in phones:  # Metro X plays on with one seat: both give up, and it is over
        http(base, "POST", f"/api/games/{game}/resign", None, phone["token"])
    page.wait_for_selector("#party-status:has-text('Final ranking')")
    # The game page of a finished game: the history, then the server ends the stream.
    viewer = open_tab(f"{base}/#/game/{game}")
    viewer.page.wait_for_selector("#after:not([hidden])")
    viewer_opens = stream_opens(viewer.page)
    # (One opening each is allowed: a stream broken by a loaded machine before the end, or the
    # viewer's first, asked just after its view showed the end.)
    assert_stays(
        lambda: len(host_opens) <= 1 and len(viewer_opens) <= 1,
        "no finished game's stream opened again", 8.0,
        pause=lambda s: page.wait_for_timeout(s * 1000),
    )  # fmt: skip
    for tab in (host, viewer):
        tab.check_clean()
