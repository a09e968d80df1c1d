"""Metro X on a 390x844 phone (issue 35 item 4): the card in play is on the first screen with
the map (it was below the fold), and every line label's box starts inside the map's visible part
as the game opens (7 of 9 started off-screen)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import Tab, shot
from tests.browser.steps import settled
from tests.browser.test_maps_touch import PHONE
from tests.browser.test_metrox import new_metrox_game
from tests.browser.test_underground_phone import swipe

# Where the card box and the line labels lie, in page pixels (scroll-independent), and the map.
WHERE_JS = """() => {
  const y = window.scrollY;
  const map = document.querySelector('.mx-map').getBoundingClientRect();
  const card = document.querySelector('.mx-cardbox').getBoundingClientRect();
  const labels = [...document.querySelectorAll('.mx-map .mx-label')].map((g) => {
    const r = g.getBoundingClientRect();
    return {line: g.dataset.line, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  });
  return {screen: window.innerHeight, mapTop: map.top + y, mapBottom: map.bottom + y,
          mapLeft: map.left, mapRight: map.right, viewTop: map.top, viewBottom: map.bottom,
          cardTop: card.top + y, cardBottom: card.bottom + y, labels};
}"""


def test_the_card_is_near_the_map_and_every_line_label_starts_in_sight(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process, **PHONE)
    page = tab.page
    new_metrox_game(page, [("ai", "easy")])
    page.wait_for_selector(".mx-controls[data-phase='choose']")
    page.wait_for_selector(".mx-map[data-scale]")
    settled(page)
    where: dict[str, Any] = page.evaluate(WHERE_JS)

    shot(page, artifacts, "metrox-phone-card-and-labels")
    # The card is in sight with the map as the game opens: the first screen shows both.
    near = {k: round(v) for k, v in where.items() if k != "labels"}
    assert where["cardBottom"] <= where["screen"], near
    # Every line label starts (its top-left corner) inside the map's box.
    out = [
        lab["line"]
        for lab in where["labels"]
        if not (
            where["mapLeft"] - 1 <= lab["left"] <= where["mapRight"]
            and where["viewTop"] - 1 <= lab["top"] <= where["viewBottom"]
        )
    ]
    assert where["labels"] and not out, (out, where)
    tab.check_clean()


def map_view_box(page: Any) -> str:
    return str(page.get_attribute(".mx-map", "viewBox"))


def test_one_finger_scrolls_the_page_and_two_move_the_map(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """As the Underground's map (test_underground_phone.py): a finger sliding over Metro X's map
    scrolls the page, the map stays; two fingers move the map and the page stays; a hint says
    so, in the page's language."""
    tab = open_tab(gateway_process, **PHONE)
    page = tab.page
    new_metrox_game(page, [("ai", "easy")])
    page.wait_for_selector(".mx-controls[data-phase='choose']")
    page.wait_for_selector(".mx-map[data-scale]")
    hint = page.locator(".mx-touch-hint")
    assert hint.is_visible(), "no hint that two fingers move the map"
    assert "two fingers" in hint.inner_text().lower()
    assert "mx-touch-hint" in str(page.get_attribute(".mx-map", "aria-describedby"))
    # The map's top near the screen's top: a finger on it can scroll the page further down.
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate(
        "window.scrollBy(0, document.querySelector('.mx-map').getBoundingClientRect().top - 60)"
    )
    settled(page)
    top = page.evaluate("window.scrollY")
    assert page.evaluate("document.documentElement.scrollHeight - innerHeight") > top + 150
    box = page.locator(".mx-map").bounding_box()
    cx = box["x"] + box["width"] / 2
    y0 = box["y"] + box["height"] * 0.8
    before = map_view_box(page)
    cdp = page.context.new_cdp_session(page)

    # One finger up over the map: the page scrolls down, the map stays as it was.
    swipe(cdp, [(cx, y0)], 0, -box["height"] * 0.5)
    page.wait_for_function("(y) => window.scrollY > y + 40", arg=top)
    settled(page)
    assert map_view_box(page) == before, (before, map_view_box(page))

    # Two fingers slid together: the map moves (same scale), the page stays.
    page.evaluate("document.querySelector('.mx-map').scrollIntoView({block: 'center'})")
    settled(page)
    box = page.locator(".mx-map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    at = page.evaluate("window.scrollY")
    before = map_view_box(page)
    swipe(cdp, [(cx - 40, cy), (cx + 40, cy)], 0, -120)
    settled(page)
    moved = map_view_box(page).split()
    assert moved != before.split(), "two fingers did not move the map"
    assert float(moved[1]) > float(before.split()[1]), (before, moved)  # dragged up: sees lower
    assert abs(page.evaluate("window.scrollY") - at) < 5, "two fingers scrolled the page"
    tab.check_clean()
