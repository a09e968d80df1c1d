"""The analysis view's defects (issue 35, item 4): the value graph has axes and a legend in the
seats' own colours at a readable size, the best move's badge on the Metro board says what it is
(not a "+2.4" that reads as a points preview), and "Game over." never covers the replay buttons,
at 1280x800 and at phone width."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.test_analysis import finished_game
from tests.fixtures.waits import wait_until

TIMEOUT_S = 10
REPLAY_BUTTONS = ["#replay-first", "#replay-prev", "#replay-next", "#replay-last"]


def box(page: Any, selector: str) -> dict[str, float]:
    """The element's bounding box in the viewport (it must be drawn)."""
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not drawn"
    return dict(found)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share any area."""
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.fixture(scope="module")
def metro_game(gateway_process: str) -> str:
    """One finished 2-player Metro game (seat 0 random, seat 1 the random AI), shared."""
    return finished_game(gateway_process, "metro", 7)


def analysed(url: str, game: str) -> None:
    """Ask for the game's analysis and wait until it is done (the panel then holds the graph
    and the log, and scrolls far enough for the replay to reach its top)."""
    address = f"{url}/api/games/{game}/analysis"

    def done(state: dict[str, Any]) -> bool:
        assert state["status"] in ("queued", "running", "done"), state
        return bool(state["status"] == "done")

    if not done(requests.post(address, timeout=TIMEOUT_S).json()):
        wait_until(
            lambda: done(requests.get(address, timeout=TIMEOUT_S).json()),
            f"the analysis of {game} to be done",
            timeout=300,
            every=0.5,
        )


@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1280x800", "390x844"])
def test_game_over_never_covers_the_replay_buttons(
    open_tab: Callable[..., Tab],
    gateway_process: str,
    metro_game: str,
    viewport: dict[str, int],
    artifacts: Path,
) -> None:
    analysed(gateway_process, metro_game)
    tab = open_tab(f"{gateway_process}/#/game/{metro_game}", viewport)
    page = tab.page
    page.wait_for_selector("#replay:not([hidden]) #replay-first")
    page.wait_for_selector("#analysis-graph svg .an-point")
    page.wait_for_function("() => document.querySelector('#status').textContent === 'Game over.'")
    # The panel scrolled down to the replay (as a reader of the analysis below it does): the
    # status line must not sit over the buttons (pinned at the panel's top, it did).
    page.evaluate("() => document.querySelector('#replay').scrollIntoView({block: 'start'})")
    page.wait_for_function(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    shot(page, artifacts, "analysis-replay-buttons")
    over = box(page, "#status")
    for selector in REPLAY_BUTTONS:
        assert not overlap(box(page, selector), over), f"'Game over.' covers {selector}"
    # Clickable as they are (no force): nothing else takes the click.
    page.click("#replay-first", timeout=5_000)
    page.wait_for_function("() => document.querySelector('#replay-range').value === '0'")
    page.click("#replay-next", timeout=5_000)
    page.wait_for_function("() => document.querySelector('#replay-range').value === '1'")
    page.click("#replay-prev", timeout=5_000)
    page.wait_for_function("() => document.querySelector('#replay-range').value === '0'")
    page.click("#replay-last", timeout=5_000)
    page.wait_for_function(
        "() => { const r = document.querySelector('#replay-range'); return r.value === r.max; }"
    )
    tab.check_clean()


def test_graph_axes_legend_colours_and_the_best_badge(
    open_tab: Callable[..., Tab], gateway_process: str, metro_game: str, artifacts: Path
) -> None:
    url = gateway_process
    # Asked over HTTP, as the test above does (the button's own path: test_analysis.py); the
    # page opened on an analysed game draws the graph by itself.
    analysed(url, metro_game)
    tab = open_tab(f"{url}/#/game/{metro_game}")
    page = tab.page
    page.wait_for_selector("#analysis-graph svg .an-point", timeout=60_000)

    # Axes: the move number along x, the value along y, a zero line, labelled ticks each.
    assert page.text_content("#analysis-graph .an-axis-x") == "Move"
    assert page.text_content("#analysis-graph .an-axis-y") == "Expected margin"
    assert page.locator("#analysis-graph .an-zero").count() == 1
    assert page.locator("#analysis-graph .an-tick-x").count() >= 3
    assert page.locator("#analysis-graph .an-tick-y").count() >= 2
    assert "0" in page.eval_on_selector_all(
        "#analysis-graph .an-tick-y", "els => els.map(e => e.textContent)"
    )
    # A readable size on a desktop's panel (it was 370x94 px).
    graph = box(page, "#analysis-graph svg")
    assert graph["width"] >= 340 and graph["height"] >= 190, graph

    # The legend names each seat in the seat's own colour: the colour the table gives the seat
    # (its swatch in the final scores), and each seat's line is drawn in it.
    colours = page.evaluate(
        """() => [...document.querySelectorAll('#analysis-graph .an-legend li')].map((li) => ({
          seat: li.dataset.seat,
          name: li.querySelector('.an-legend-name').textContent,
          legend: getComputedStyle(li.querySelector('.an-swatch')).backgroundColor,
          table: getComputedStyle(document.querySelector(
            `#final-scores li[data-seat="${li.dataset.seat}"] .swatch`)).backgroundColor,
          line: getComputedStyle(document.querySelector(
            `#analysis-graph .an-line[data-seat="${li.dataset.seat}"]`)).stroke,
        }))"""
    )
    assert [c["seat"] for c in colours] == ["0", "1"], colours
    assert colours[0]["name"] == "Ada"
    for c in colours:
        assert c["legend"] == c["table"] == c["line"], c
    assert colours[0]["legend"] != colours[1]["legend"]

    # The best placement's badge says what it is, in words, and explains the number.
    result = requests.get(f"{url}/api/games/{metro_game}/analysis", timeout=TIMEOUT_S).json()
    decision = next(
        m for m in result["moves"] if m["label"] != "best" and m["best"]["action"] == "place"
    )
    page.locator(f"#analysis-log li[data-entry='{decision['entry']}']").last.click()
    hint = page.locator(f".hint.analysis-hint[data-hint='{decision['best']['placement']}']")
    hint.wait_for(state="attached")
    text = hint.locator(".hint-text").text_content() or ""
    assert text.startswith("AI best "), text
    assert "expected score difference" in (hint.get_attribute("aria-label") or "")
    assert "expected score difference" in (hint.locator("title").text_content() or "")
    # Styled unlike the points preview's seat-coloured pill: a light badge with dark text.
    fill = hint.locator(".hint-badge").evaluate("e => getComputedStyle(e).fill")
    assert fill == "rgb(255, 255, 255)", fill
    shot(page, artifacts, "analysis-graph-legend")
    # And on a phone: the graph spans the screen at a readable height.
    page.set_viewport_size(NARROW)
    page.wait_for_function(
        "() => document.querySelector('#analysis-graph svg').getBoundingClientRect().width < 391"
    )
    graph = box(page, "#analysis-graph svg")
    assert graph["width"] >= 320 and graph["height"] >= 190, graph
    shot(page, artifacts, "analysis-graph-legend")
    tab.check_clean()


@pytest.mark.parametrize("lang", ["hu", "fr", "es"])
def test_the_new_words_in_every_language(lang: str) -> None:
    """Every key the analysis view added is said in each language, not left in English."""
    root = Path(__file__).resolve().parents[2] / "web" / "i18n"
    en = json.loads((root / "en" / "analysis.json").read_text())
    other = json.loads((root / lang / "analysis.json").read_text())
    for key in ("analysis.legend", "analysis.axis_move", "analysis.axis_value",
                "analysis.best_badge", "analysis.best_badge_title"):  # fmt: skip
        assert other.get(key) and other[key] != en[key], key
