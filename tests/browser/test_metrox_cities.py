"""The seed's four cities in the browser (issue 33): the lobby's map choice shows a picture of the
chosen map, and the 90-station Paris sheet is playable at 1280x800 and by finger on a phone
(390x844): station names as Paris writes them, 13 px on screen at every zoom, placed where they
cover nothing (more of them as one zooms in), legible station marks, and a whole solo game tapped
through to its final breakdown. Screenshots go to test-artifacts/maps-paris-*.png."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.metrox import maps
from tests.browser.conftest import WIDE, Tab
from tests.browser.steps import settled
from tests.browser.test_maps_touch import LEGIBLE_PX, MX_SIZES, PHONE, picture
from tests.browser.test_usability import hold_seat, make_game, open_game
from tests.fixtures.gateway import GatewayApi

PARIS = {s["name"] for s in maps.get("paris").data["stations"]}

# The station names shown: [name, font px on screen, box height on screen], inside the map's box.
NAMES = """() => {
  const map = document.querySelector('.mx-map').getBoundingClientRect();
  const scale = Number(document.querySelector('.mx-map').dataset.scale);
  return [...document.querySelectorAll('.mx-map .mx-name')]
    .filter(e => e.getAttribute('visibility') === 'visible')
    .map(e => [e, e.getBoundingClientRect()])
    .filter(([e, r]) => r.width > 0 && r.left >= map.left - 1 && r.right <= map.right + 1
      && r.top >= map.top - 1 && r.bottom <= map.bottom + 1)
    .map(([e, r]) => [e.textContent, parseFloat(getComputedStyle(e).fontSize) * scale, r.height,
                      [r.left, r.top, r.right, r.bottom]]);
}"""


def check_names(page: Any, least: int) -> list[Any]:
    """At least `least` names in sight, each a Paris station, legible, none over another."""
    settled(page)  # names are placed a moment after the map rests: the map says when
    page.wait_for_selector(".mx-map[data-names='placed']", timeout=60_000)
    names = page.evaluate(NAMES)
    assert len(names) >= least, names
    assert {n[0] for n in names} <= PARIS
    small = [n for n in names if n[1] < LEGIBLE_PX or n[2] < LEGIBLE_PX]
    assert not small, small
    boxes = [n[3] for n in names]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not (a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1)
    return list(names)


def paris_solo(api: GatewayApi) -> tuple[str, str]:
    game, tokens = make_game(api, "metrox", [{"kind": "human", "name": "Ada"}], map="paris")
    assert tokens[0]
    return game, tokens[0]


def test_the_lobby_shows_a_picture_of_the_chosen_map(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#game-pick option[value='metrox']", state="attached")
    page.select_option("#game-pick", "metrox")
    page.wait_for_selector("#opt-map")
    values = page.locator("#opt-map option").evaluate_all("els => els.map(e => e.value)")
    assert {"amsterdam", "berlin", "paris", "madrid", "lakeside", "kessel"} <= set(values)
    loaded = "img => img.complete && img.naturalWidth > 0"
    for city, name in (("amsterdam", "Amsterdam"), ("paris", "Paris"), ("madrid", "Madrid")):
        page.select_option("#opt-map", city)
        page.wait_for_selector(f"[data-option='map'] .map-pick[data-map='{city}']")
        img = page.locator("[data-option='map'] .map-pic")
        page.wait_for_function(f"() => ({loaded})(document.querySelector('.map-pic'))")
        assert str(img.get_attribute("src")).endswith(f"/games/metrox/maps/{city}.svg")
        assert name in str(img.get_attribute("alt"))
        assert page.inner_text("[data-option='map'] .map-about").strip()
    tab.check_clean()


def test_paris_at_1280_names_its_crossings_and_more_when_zoomed(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    game, token = paris_solo(api)
    tab = open_tab(gateway_process, viewport=WIDE)
    page = tab.page
    hold_seat(page, game, 0, token)
    open_game(tab, gateway_process, game)
    page.wait_for_selector(".mx-controls[data-phase='choose']")
    page.wait_for_selector(".mx-map[data-scale]")
    assert page.locator(".mx-map .mx-station").count() == 90
    whole = check_names(page, 8)
    picture(page, artifacts, "paris-whole")
    for _ in range(2):
        page.click(".mx-zoom-in")
        settled(page)
    zoomed = check_names(page, 8)
    # Zoomed in, the part in sight names a larger share of its stations than the whole map did.
    in_sight = page.evaluate(
        """() => { const m = document.querySelector('.mx-map').getBoundingClientRect();
          return [...document.querySelectorAll('.mx-map .mx-dot')]
            .map(e => e.getBoundingClientRect())
            .filter(r => r.left >= m.left && r.right <= m.right
                         && r.top >= m.top && r.bottom <= m.bottom)
            .length; }"""
    )
    assert len(zoomed) / max(in_sight, 1) > len(whole) / 90, (len(zoomed), in_sight, len(whole))
    picture(page, artifacts, "paris-zoomed")
    tab.check_clean()


def test_a_paris_game_is_played_to_the_end_by_finger_on_a_phone(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    game, token = paris_solo(api)
    tab = open_tab(gateway_process, bypass_csp=True, **PHONE)
    page = tab.page
    hold_seat(page, game, 0, token)
    open_game(tab, gateway_process, game)
    page.wait_for_selector(".mx-controls[data-phase='choose']")
    page.wait_for_selector(".mx-map[data-scale]")
    settled(page)
    sizes = page.evaluate(MX_SIZES)
    assert sizes["map"][1] >= 400, sizes["map"]
    assert len(sizes["dots"]) >= 8 and min(sizes["dots"]) >= 16, sizes["dots"]
    small = [w for w in sizes["words"] if w[1] < LEGIBLE_PX or w[2] < LEGIBLE_PX]
    assert not small, small
    check_names(page, 5)
    picture(page, artifacts, "paris-phone")

    turns, turn = 0, -1
    while True:
        page.wait_for_function(
            """(after) => { const c = document.querySelector('.mx-controls');
                 return c && (c.dataset.phase === 'over' || c.dataset.phase === 'choose'
                   && Number(c.dataset.turn) > after && c.dataset.busy === 'false'); }""",
            arg=turn,
            timeout=30_000,
        )
        controls = page.locator(".mx-controls")
        if controls.get_attribute("data-phase") == "over":
            break
        if turns == 10:
            # Ten moves in, at a turn's rest (the move shown, the view moved to where the last
            # line took it): names are in sight wherever that is.
            # The line list may have scrolled the map out of sight (a long list on a phone):
            # back to it, as the player would.
            page.locator(".mx-map").scroll_into_view_if_needed()
            picture(page, artifacts, "paris-phone-play")
            check_names(page, 1)
        turn = int(controls.get_attribute("data-turn") or 0)
        if page.locator(".mx-pass:not([hidden])").count():
            page.locator(".mx-pass").tap()
        elif page.locator(".mx-station-pick:not([hidden])").count():
            # a free card: the first empty station, by the list a finger can use
            station = page.eval_on_selector(
                ".mx-station-select", "s => [...s.options].map(o => o.value).find(v => v)"
            )
            page.select_option(".mx-station-select", station)
            page.wait_for_selector(f".mx-station.selected[data-station='{station}']")
            page.locator(".mx-confirm:not([disabled])").tap()
        else:
            gains = page.eval_on_selector_all(
                ".mx-line-btn:not(:disabled)",
                "els => els.map(e => [e.dataset.line, Number(e.dataset.gain)])",
            )
            line = max(gains, key=lambda g: g[1])[0]
            page.locator(f".mx-line-btn[data-line='{line}']").tap()
            page.wait_for_selector(f".mx-line-btn[data-line='{line}'][aria-pressed='true']")
            page.locator(".mx-confirm:not([disabled])").tap()
        turns += 1
    assert turns >= 20, turns
    page.wait_for_selector(".mx-final:not([hidden]) .mx-final-table")
    status, view = api.get(f"/api/games/{game}", token=token)
    assert status == 200 and view["status"] == "over", view
    shown = page.locator(".mx-final-table tr[data-seat='0'] .total").inner_text()
    assert int(shown.replace("\u2212", "-")) == view["seats"][0]["score"], json.dumps(view)[:300]
    picture(page, artifacts, "paris-phone-final")
    tab.check_clean()
