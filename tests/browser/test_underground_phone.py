"""The Underground on a phone (issue 35, item 4): the map fills most of a 390x844 touch screen, so
one finger sliding over it must scroll the page (as on mapping sites) and two fingers move the
map; a hint says so. Real game (gateway, engine, AI processes, Redis), real headless Chromium,
touches sent through CDP (Input.dispatchTouchEvent) as a finger would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.conftest import Tab
from tests.browser.steps import settled
from tests.browser.test_maps_touch import PHONE, open_underground
from tests.fixtures.gateway import GatewayApi


def view_box(page: Any) -> str:
    return str(page.get_attribute(".ug-map", "viewBox"))


def swipe(cdp: Any, starts: list[tuple[float, float]], dx: float, dy: float) -> None:
    """Fingers put down at `starts`, slid by (dx, dy) in small steps, and lifted."""

    def send(kind: str, k: float) -> None:
        points = [
            {"x": x + dx * k, "y": y + dy * k, "id": i + 1} for i, (x, y) in enumerate(starts)
        ]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    send("touchStart", 0)
    for step in range(1, 11):
        send("touchMove", step / 10)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_one_finger_scrolls_the_page_and_two_move_the_map(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab, _ = open_underground(api, open_tab, gateway_process, **PHONE)
    page = tab.page
    hint = page.locator(".ug-touch-hint")
    assert hint.is_visible(), "no hint that two fingers move the map"
    assert "two" in hint.inner_text().lower()
    # A line's button "red · 12" says in words what the number is (its name, its tooltip).
    chip = page.locator(".ug-colour-btn").first
    count = chip.inner_text().split("·")[-1].strip()
    name = str(chip.get_attribute("aria-label"))
    assert f"{count} rail" in name and f"{count} rail" in str(chip.get_attribute("title")), name
    # The map's top near the screen's top: a finger on it can scroll the page further down.
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate(
        "window.scrollBy(0, document.querySelector('.ug-scroll').getBoundingClientRect().top - 60)"
    )
    settled(page)
    top = page.evaluate("window.scrollY")
    assert page.evaluate("document.documentElement.scrollHeight - innerHeight") > top + 150
    box = page.locator(".ug-map").bounding_box()
    cx = box["x"] + box["width"] / 2
    y0 = box["y"] + box["height"] * 0.8
    assert box["height"] > 0.5 * 844, box  # the map is most of the screen: the case at hand
    before = view_box(page)
    cdp = page.context.new_cdp_session(page)

    # One finger up over the map: the page scrolls down, the map stays as it was.
    swipe(cdp, [(cx, y0)], 0, -box["height"] * 0.5)
    page.wait_for_function("(y) => window.scrollY > y + 40", arg=top)
    settled(page)
    assert view_box(page) == before, (before, view_box(page))

    # Two fingers slid together: the map moves (same scale), the page stays. Where it can move
    # depends on the deal: the first view may show the whole map's height, and the view never
    # leaves the map. So from the whole map, zoom in around its middle until the map is taller
    # than the view, as a person would before panning.
    page.locator(".ug-zoom-all").click()
    settled(page)
    _, y, _, h = (float(v) for v in view_box(page).split())
    map_h = 2 * y + h  # the whole map is centred in the view
    for _ in range(4):
        if float(view_box(page).split()[3]) < 0.7 * map_h:
            break
        page.locator(".ug-zoom-in").click()
        settled(page)
    _, y, _, h = (float(v) for v in view_box(page).split())
    assert h < 0.7 * map_h, ("the map does not zoom in past its height", view_box(page), map_h)
    page.evaluate("document.querySelector('.ug-scroll').scrollIntoView({block: 'center'})")
    settled(page)
    box = page.locator(".ug-map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    at = page.evaluate("window.scrollY")
    before = view_box(page)
    up = map_h - (y + h) >= y  # drag towards the side with more map beyond it
    swipe(cdp, [(cx - 40, cy), (cx + 40, cy)], 0, -120 if up else 120)
    settled(page)
    moved = view_box(page).split()
    assert moved != before.split(), "two fingers did not move the map"
    assert moved[2:] == before.split()[2:], (before, moved)  # the same scale
    # dragged up: the view shows lower down; dragged down: higher up
    assert (float(moved[1]) > float(before.split()[1])) == up, (before, moved, up)
    assert abs(page.evaluate("window.scrollY") - at) < 5, "two fingers scrolled the page"
    tab.check_clean()
