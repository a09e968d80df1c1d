"""The lobby is built from GET /api/meta, not from anything the page knows: every game listed
there is in the picker, each game's options are rendered from its own option specs, its seat
range bounds the seat rows, and the create request carries that game's kind and options."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.browser.conftest import Tab
from tests.fixtures.gateway import GatewayApi

PLAYERS = "players"  # the option the seat rows set (games/base.py Option)


def shown_options(page: Any) -> list[str]:
    found = page.eval_on_selector_all(
        "#options [data-option]", "els => els.map(e => e.dataset.option)"
    )
    return [str(name) for name in found]


def control_of(page: Any, spec: dict[str, Any]) -> Any:
    return page.locator(f"#opt-{spec['name']}")


def check_options_match(page: Any, game: dict[str, Any]) -> None:
    specs = [o for o in game["options"] if o["name"] != PLAYERS]
    assert shown_options(page) == [o["name"] for o in specs]
    for spec in specs:
        control = control_of(page, spec)
        label = page.locator(f"#options [data-option='{spec['name']}']")
        assert spec["label"] in label.inner_text()
        if spec["kind"] == "bool":
            assert control.get_attribute("type") == "checkbox"
            assert control.is_checked() is bool(spec["default"])
        elif spec["kind"] == "choice":
            values = control.locator("option").evaluate_all("els => els.map(e => e.value)")
            labels = control.locator("option").evaluate_all("els => els.map(e => e.textContent)")
            assert values == [str(c["value"]) for c in spec["choices"]]
            assert labels == [c["label"] for c in spec["choices"]]
            assert control.input_value() == str(spec["default"])
        elif spec["kind"] == "int":
            assert control.get_attribute("type") == "number"
            assert control.input_value() == str(spec["default"])
            if "min" in spec:
                assert control.get_attribute("min") == str(spec["min"])
            if "max" in spec:
                assert control.get_attribute("max") == str(spec["max"])
        else:
            assert control.get_attribute("type") == "text"
            default = spec["default"]
            assert control.input_value() == ("" if default is None else str(default))


def test_the_lobby_is_built_from_the_catalogue(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    status, meta = api.get("/api/meta")
    assert status == 200
    games = meta["games"]
    assert games, meta
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#game-pick option", state="attached")

    # Every game of the catalogue is in the picker, in its order, the first one picked.
    picker = page.eval_on_selector_all(
        "#game-pick option", "els => els.map(e => [e.value, e.textContent])"
    )
    assert picker == [[g["game"], g["name"]] for g in games]
    assert page.input_value("#game-pick") == games[0]["game"]

    for game in games:
        page.select_option("#game-pick", game["game"])
        page.wait_for_function(
            "d => document.getElementById('game-description').textContent === d",
            arg=game["description"],
        )
        check_options_match(page, game)
        low, high = game["players"]
        assert f"{low}" in page.inner_text("#seat-range")
        rows = page.locator("#seat-list > li")
        assert low <= rows.count() <= high
        # AI levels from the catalogue, each described
        levels = (
            page.locator("#seat-list .seat-level")
            .first.locator("option")
            .evaluate_all("els => els.map(e => [e.value, e.title])")
        )
        assert levels == [[lv["name"], lv["description"]] for lv in game["levels"]]
        # Seat badges in the game's seat colours
        badge = page.locator("#seat-list > li:first-child .seat-badge")
        assert badge.evaluate("e => e.style.background") != ""

    # The seat rows stop at the game's bounds.
    first = games[0]
    page.select_option("#game-pick", first["game"])
    low, high = first["players"]
    rows = page.locator("#seat-list > li")
    while rows.count() < high:
        page.click("#add-seat")
    assert page.is_disabled("#add-seat")
    while rows.count() > low:
        rows.nth(rows.count() - 1).locator(".remove-seat").click()
    assert all(b.is_disabled() for b in page.locator(".remove-seat").all())
    tab.check_clean()


def test_the_create_request_carries_the_picked_game_and_its_options(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    _, meta = api.get("/api/meta")
    games = meta["games"]
    game = games[-1]  # the last game listed: not the default when there are several
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#game-pick option", state="attached")
    page.select_option("#game-pick", game["game"])
    check_options_match(page, game)
    # Set every option away from its default where the control allows it.
    expected: dict[str, Any] = {}
    for spec in game["options"]:
        if spec["name"] == PLAYERS:
            continue
        control = control_of(page, spec)
        if spec["kind"] == "bool":
            control.set_checked(not spec["default"])
            expected[spec["name"]] = not spec["default"]
        elif spec["kind"] == "choice":
            last = spec["choices"][-1]["value"]
            control.select_option(str(last))
            expected[spec["name"]] = last
        elif spec["kind"] == "int":
            value = spec.get("max", (spec["default"] or 0) + 1)
            control.fill(str(value))
            expected[spec["name"]] = value
        else:
            control.fill("abc")
            expected[spec["name"]] = "abc"

    sent: list[dict[str, Any]] = []

    def refuse(route: Any) -> None:
        # Catch the request and refuse it: the lobby stays, showing the server's message.
        sent.append(json.loads(route.request.post_data or "{}"))
        route.fulfill(
            status=400,
            content_type="application/json",
            body=json.dumps({"error": {"code": "invalid_argument", "message": "no thanks"}}),
        )

    page.route("**/api/games", refuse)
    page.fill("#your-name", "Ada")
    page.click("#create-button")
    page.wait_for_selector("#create-error:has-text('no thanks')")
    assert len(sent) == 1
    body = sent[0]
    assert body["game"] == game["game"]
    seats = body["seats"]
    assert seats[0] == {"kind": "human", "name": "Ada"}
    low, high = game["players"]
    assert low <= len(seats) <= high
    rules = body["rules"]
    if any(o["name"] == PLAYERS for o in game["options"]):
        assert rules.pop(PLAYERS) == len(seats)
    assert rules == expected
    tab.check_clean()
