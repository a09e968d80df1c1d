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
