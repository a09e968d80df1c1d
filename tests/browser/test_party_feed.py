"""The party host screen's feed of the phones' preset messages (issue 35 item 2): a phone taps
"One more?" on its game page and the host screen shows "Ada: One more?" live, through the
host's own event stream (`?chat=1` with the host token: the players' room), newest first; the
words are the page's, the names text. Real gateway, engine, Redis and Chromium."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.conftest import NARROW, Tab
from tests.browser.test_party import HOST_SCREEN, http
from tests.fixtures.waits import assert_stays

FEED = "#party-feed .party-feed-line"


def feed(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(FEED, "els => els.map((e) => e.textContent)"))


def test_the_host_screen_shows_the_phones_presets_live(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    host = open_tab(f"{base}/#/host", HOST_SCREEN)
    page = host.page
    gets: list[str] = []
    page.on(
        "request",
        lambda r: gets.append(r.url) if r.method == "GET" and r.url.endswith("/chat") else None,
    )
    page.wait_for_selector("#party-game option[value='metrox']", state="attached")
    page.click("#party-create")
    page.wait_for_url("**/#/host/*")
    page.wait_for_function(
        "() => /^\\w{3} \\w{3}$/.test(document.querySelector('#party-code').textContent)"
    )
    code = page.inner_text("#party-code").replace(" ", "")
    assert page.is_hidden("#party-feed")  # nothing said yet: no empty box on the projector
    phone_tab = open_tab(f"{base}/#/join/{code}", NARROW, has_touch=True, is_mobile=True)
    phone = phone_tab.page
    phone.fill("#join-party-name", "Ada")
    phone.click("#join-party")
    phone.wait_for_selector("#chat-box:not([hidden]) details")
    if not phone.eval_on_selector("#chat-box details", "d => d.open"):
        phone.click("#chat-box summary")
    phone.click("#chat-box .chat-preset[data-preset='one_more']")
    page.wait_for_selector(f"{FEED}:has-text('One more?')")
    assert feed(page) == ["Ada: One more?"]
    bea = http(base, "POST", f"/api/join/{code}", {"name": "<i>Bea</i>"})
    game = bea["game_id"]
    http(base, "POST", f"/api/games/{game}/chat", {"preset": "well_played"}, bea["token"])
    page.wait_for_function("(sel) => document.querySelectorAll(sel).length === 2", arg=FEED)
    assert feed(page) == ["<i>Bea</i>: Well played!", "Ada: One more?"]  # newest first, as text
    assert page.query_selector("#party-feed i") is None
    # Live on the stream: one GET read the backlog as the stream opened, and no other.
    # (assert_stays pauses for seconds, Playwright's wait_for_timeout takes milliseconds.)
    assert_stays(
        lambda: len(gets) == 1, "one GET of the chat", 1.0,
        pause=lambda s: page.wait_for_timeout(s * 1000),
    )  # fmt: skip
    for tab in (host, phone_tab):
        tab.check_clean()
