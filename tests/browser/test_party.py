"""Party mode in the browser (web/party.js): the host opens a party table on a 1920x1080 screen,
a phone (390x844) joins by the code the QR code carries, a second player joins through the API;
the host starts; the phone chooses on its own sheet while the host screen shows that it has
chosen and never what; the game is played to the end and the host shows the final ranking.
Screenshots: test-artifacts/party-*.png."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import NARROW, Tab, shot
from tests.browser.test_metrox import confirm, wait_choose_or_over

HOST_SCREEN = {"width": 1920, "height": 1080}


def http(base: str, method: str, path: str, body: Any = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=20) as reply:
        return json.load(reply)


def choose_on_phone(page: Any) -> None:
    """Tap a choice on the phone's sheet (a line from the list; for a free card a station from
    its list, as a thumb would) and confirm it."""
    if page.locator(".mx-pass:not([hidden])").count():
        confirm(page, "pass")
        return
    if page.locator(".mx-station-pick:not([hidden])").count():
        value = page.eval_on_selector(
            ".mx-station-select", "s => [...s.options].find(o => o.value)?.value"
        )
        page.select_option(".mx-station-select", value)
    else:
        page.locator(".mx-line-btn:not([disabled])").first.tap()
    page.wait_for_selector(".mx-confirm:not([disabled])")
    confirm(page, "confirm")


def assert_big_card(page: Any, view: dict[str, Any]) -> None:
    """The host screen's card: at least 250 px high at 1920x1080, worded (not its code), the
    view's card."""
    page.wait_for_function(
        "code => document.querySelector('#party-turn').hidden === false && "
        "document.querySelector('#party-card-words').textContent !== ''",
        arg=view["card"],
    )
    height = page.eval_on_selector(
        "#party-card .party-card-face > *", "e => e.getBoundingClientRect().height"
    )
    assert height >= 250, height
    slot = page.eval_on_selector("#party-card", "e => e.getBoundingClientRect().toJSON()")
    assert slot["height"] >= 250 and slot["bottom"] <= 1080, slot  # in sight, not cut off
    words = page.inner_text("#party-card-words")
    assert words.strip() and words.strip() != str(view["card"]), (words, view["card"])
    label = page.get_attribute("#party-card .party-card-face > *", "aria-label") or ""
    assert words in label, (words, label)


def play_to_the_end(base: str, game: str, tokens: list[str]) -> None:
    """Every seat plays its first legal choice until the game is over (through the API)."""
    for turn in range(200):
        if http(base, "GET", f"/api/games/{game}")["status"] == "over":
            return
        for seat, token in enumerate(tokens):
            moves = http(base, "GET", f"/api/games/{game}/legal", token=token)["moves"]
            if moves:
                body = {**moves[0], "move_id": f"t{turn}s{seat}"}
                http(base, "POST", f"/api/games/{game}/moves", body, token=token)
    raise AssertionError("the game did not end")


def test_a_party_hosted_on_a_big_screen_and_played_on_a_phone(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    host = open_tab(f"{base}/#/host", HOST_SCREEN)
    page = host.page
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r) if "/api/games/" in r.url else None)
    page.wait_for_selector("#party-game option[value='metrox']", state="attached")
    page.select_option("#party-timer", "120")  # the turn's timer must not fire in this test
    assert not page.is_checked("#party-plays")  # the host only hosts
    page.click("#party-create")
    page.wait_for_url("**/#/host/*")
    game = page.url.rsplit("/", 1)[1]
    page.wait_for_function(
        "() => /^\\w{3} \\w{3}$/.test(document.querySelector('#party-code').textContent)"
    )
    code = page.inner_text("#party-code").replace(" ", "")
    page.wait_for_function("() => document.querySelector('.party-qr').naturalWidth > 0")
    assert page.is_hidden("#party-start") is False and page.is_disabled("#party-start")
    shot(page, artifacts, "party-host-open")

    # A phone opens what the QR code encodes: the join page with the code filled in.
    phone_tab = open_tab(f"{base}/#/join/{code}", NARROW, has_touch=True, is_mobile=True)
    phone = phone_tab.page
    assert phone.input_value("#join-code") == code
    phone.fill("#join-party-name", "Ada")
    shot(phone, artifacts, "party-phone-join")
    phone.click("#join-party")
    phone.wait_for_url(f"**/#/game/{game}")
    other = http(base, "POST", f"/api/join/{code}", {"name": "Bea"})
    assert other["seat"] == 1

    # Both appear on the host screen as they join; then the host starts.
    page.wait_for_function("() => document.querySelectorAll('#party-players li').length === 2")
    names = page.eval_on_selector_all(
        "#party-players .party-name", "els => els.map(e => e.textContent)"
    )
    assert names == ["Ada", "Bea"]
    shot(page, artifacts, "party-host-joined")
    page.click("#party-start")
    page.wait_for_selector(".party-board:not([hidden])")
    page.wait_for_selector("#party-timer-left:not([hidden])")
    page.wait_for_selector(".party-board .mx-map .mx-station")

    # Each turn's card large, worded, with the turn's number and its timer: read across a room.
    page.wait_for_selector("#party-card .party-card-face > *")
    started = http(base, "GET", f"/api/games/{game}")
    assert_big_card(page, started)
    assert page.inner_text("#party-turn-number") == "Turn 1"
    timer_box = page.eval_on_selector(
        "#party-timer-left", "e => e.getBoundingClientRect().toJSON()"
    )
    assert timer_box["height"] >= 60, timer_box
    shot(page, artifacts, "party-host-card")

    # The phone plays its own sheet: one choice, not yet resolved (Bea has not chosen).
    assert wait_choose_or_over(phone, -1) == "choose"
    board_before = page.inner_text(".party-board")
    choose_on_phone(phone)
    mine = phone.evaluate(f"() => JSON.parse(sessionStorage.getItem('seat.{game}'))")
    own = http(base, "GET", f"/api/games/{game}", token=mine["token"])
    assert own["choice"], own  # stored, hidden from everyone else
    page.wait_for_selector("#party-players li[data-seat='0'].chosen")
    assert not page.locator("#party-players li[data-seat='1'].chosen").count()
    # The choice leaves no trace on the host's board, and the host never sent a token.
    assert page.inner_text(".party-board") == board_before
    shot(page, artifacts, "party-host-chosen")
    shot(phone, artifacts, "party-phone-chosen")
    # (The host token goes only with /start and, for the phones' preset feed, with the public
    # event stream's ?chat=1 and GET .../chat: test_party_feed.py.)
    reads = [r for r in sent if not r.url.endswith(("/start", "/chat", "/events?chat=1"))]
    assert reads and all("authorization" not in r.headers for r in reads)

    # Bea chooses: the turn resolves on every screen; then the game is played to its end.
    bea_moves = http(base, "GET", f"/api/games/{game}/legal", token=other["token"])["moves"]
    http(
        base,
        "POST",
        f"/api/games/{game}/moves",
        {**bea_moves[0], "move_id": "bea0"},
        token=other["token"],
    )
    page.wait_for_function("() => !document.querySelector('#party-players li.chosen')")
    page.wait_for_function(
        "() => document.querySelector('#party-turn-number').textContent === 'Turn 2'"
    )
    assert_big_card(page, http(base, "GET", f"/api/games/{game}"))
    wait_choose_or_over(phone, 0)
    shot(phone, artifacts, "party-phone-turn2")
    play_to_the_end(base, game, [mine["token"], other["token"]])
    page.wait_for_selector("#party-players.ranking")
    final = http(base, "GET", f"/api/games/{game}")
    best = max(final["seats"], key=lambda s: s["score"])
    first = page.inner_text("#party-players li:first-child .party-name")
    assert first == best["name"], (first, final["seats"])
    shot(page, artifacts, "party-host-final")
    host.check_clean()
    phone_tab.check_clean()
