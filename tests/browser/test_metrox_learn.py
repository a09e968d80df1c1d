"""Metro X's rules page and tutorial (issue 35 item 4): the free card has a picture, the
transfer's picture shows the lines crossing at its station, a transfer has one mark (★) on its
card and in the windows, a free card one (the circle, ◯) on its card and in its words, and every
station the tutorial's coach names is labelled on its map."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import Tab, shot
from tests.browser.test_learn import counter, make_move, script

# Each card example of the rules page: its card's kind and what its picture draws.
EXAMPLES_JS = """() => [...document.querySelectorAll('.learn-card-example')].map((fig) => {
  const card = fig.querySelector('.mx-card');
  const pic = fig.querySelector('svg.learn-picture');
  const added = pic ? [...pic.querySelectorAll('.learn-stop.added')].map((c) => {
    const b = c.getBoundingClientRect(); return {x: b.x + b.width / 2, y: b.y + b.height / 2};
  }) : [];
  const crossing = pic ? [...pic.querySelectorAll('line.learn-crossing')].map((l) => {
    const b = l.getBoundingClientRect(); return {x0: b.left, x1: b.right, y0: b.top, y1: b.bottom};
  }) : [];
  return {kind: card ? [...card.classList].find((c) => c.startsWith('kind-')) || '' : '',
          face: card ? card.textContent : '', title: card ? card.title : '',
          picture: !!pic, added, crossing};
})"""

# Every station name the coach says, and whether the map shows it: visible, inside the map's box.
NAMED_JS = """([names, lines]) => {
  // the lines' names left out: "Gaasperplaslijn" is a line, not the station Gaasperplas
  let words = document.getElementById('learn-words').textContent;
  for (const l of lines) words = words.split(l).join(' ');
  const box = document.querySelector('.mx-map').getBoundingClientRect();
  return names.filter((n) => words.includes(n)).map((n) => {
    const el = [...document.querySelectorAll('.mx-name')].find((e) => e.textContent === n);
    const r = el ? el.getBoundingClientRect() : null;
    const shown = !!el && el.getAttribute('visibility') === 'visible' && r.width > 0 &&
      r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 &&
      r.bottom <= box.bottom + 1;
    return [n, shown, el && r ? [el.getAttribute('visibility'), r.left, r.top, r.right, r.bottom,
                                 box.left, box.top, box.right, box.bottom] : null];
  });
}"""

WINDOWS_JS = """() => [...document.querySelectorAll('.mx-window-text, .mx-win')]
  .map((e) => e.textContent).filter((t) => t)"""


def examples(page: Any) -> list[dict[str, Any]]:
    """The card examples (the map's picture, drawn in the same kind of figure, left out)."""
    return [e for e in page.evaluate(EXAMPLES_JS) if e["kind"]]


def test_the_rules_draw_every_card_and_the_transfer_s_crossing_lines(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(f"{gateway_process}/#/learn/metrox")
    page = tab.page
    page.wait_for_selector(".learn-card-example .mx-card")
    found = {e["kind"]: e for e in examples(page)}
    assert set(found) >= {"kind-number", "kind-skip", "kind-transfer", "kind-free"}, found
    # Every card, the free one too, has its picture with the station(s) it fills.
    for kind, e in found.items():
        assert e["picture"] and e["added"], (kind, e)
    # Two other lines cross the transfer's station (three lines there: a 6).
    transfer = found["kind-transfer"]
    (station,) = transfer["added"]
    x, y = station["x"], station["y"]
    through = [c for c in transfer["crossing"] if c["x0"] < x < c["x1"] and c["y0"] < y < c["y1"]]
    assert len(through) == 2, transfer
    # One mark each: the transfer's star, the free card's circle (in its words too, not ✱).
    assert transfer["face"] == "\u2605"
    assert "\u2731" not in found["kind-free"]["title"] and "\u25ef" in found["kind-free"]["title"]
    assert "\u2731" not in page.inner_text("body")
    shot(page, artifacts, "metrox-learn-cards")
    tab.check_clean()


def test_the_tutorial_s_stations_are_labelled_and_its_transfer_window_shows_the_star(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(f"{gateway_process}/#/learn/metrox/tutorial")
    page = tab.page
    page.wait_for_selector("#learn-words p")
    steps = script(gateway_process, "metrox")
    the_map = steps[0]["view"]["map"]
    names = sorted({s["name"] for s in the_map["stations"]}, key=len, reverse=True)
    lines = sorted({line["name"] for line in the_map["lines"]}, key=len, reverse=True)
    unlabelled: list[tuple[int, str, Any]] = []
    said = 0
    for i, step in enumerate(steps[:-1]):
        page.wait_for_selector(".mx-map .mx-name[visibility='visible']")
        with contextlib.suppress(PlaywrightTimeout):  # the assertion below names what is missing
            page.wait_for_function(
                f"(names) => ({NAMED_JS})(names).every(([, shown]) => shown)",
                arg=[names, lines],
                timeout=4000,
            )
        result = page.evaluate(NAMED_JS, [names, lines])
        said += len(result)
        unlabelled += [(i, n, where) for n, shown, where in result if not shown]
        (move,) = step["legal"]
        before = counter(page)
        make_move(page, "metrox", move)
        page.wait_for_function(
            "(n) => document.getElementById('learn-counter').textContent !== n", arg=before
        )
    shot(page, artifacts, "metrox-learn-tutorial-names")
    assert said >= 5, said  # the coach names stations on its turns
    assert not unlabelled, unlabelled
    # The transfer written at Nieuwmarkt shows the card's own star in its window, never "*".
    marks = page.evaluate(WINDOWS_JS)
    assert "\u2605" in marks and "*" not in marks, marks
    tab.check_clean()
