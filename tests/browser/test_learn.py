"""Learn to play (issue 19, item 1), in a real browser: each game's rules page with its pictures,
and its first-game tutorial played to its end by clicking the game's own board, in English; the
rules in another language; the links from the lobby and from a table; screenshots at 1280 and
390 px; axe-core on the rules and tutorial pages; no internal code in any text or label.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser import test_usability
from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.steps import create_game, page_texts, settled
from tests.browser.test_usability import axe_problems

GAMES = ("metro", "metrox", "underground")
axe_source = test_usability.axe_source  # the session's axe-core fixture, shared

# Metro's tile codes and placements, Metro X's card codes (a skip, a starred card, a lone t or
# f), and the ids of the games' stations as the rules write them (snake_case).
CODES = [
    re.compile(r"\b[abcd]{4}(?:[0-7]{2})?\b"),
    re.compile(r"(?<![\w'\u2019.\-])(?:s[23]|[1-5f]\*|[tf])(?![\w'\u2019.\-*])"),
    re.compile(r"\b[a-z]+_[a-z_]+\b"),
]


def codes_shown(page: Any) -> list[str]:
    return [text for _where, text in page_texts(page) if any(c.search(text) for c in CODES)]


def script(base: str, kind: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base}/api/learn/{kind}", timeout=30) as reply:
        return list(json.load(reply)["steps"])


def counter(page: Any) -> str:
    return str(page.inner_text("#learn-counter"))


def make_move(page: Any, kind: str, move: dict[str, Any]) -> None:
    """Make the step's move by clicking the game's own board and controls."""
    if kind == "metro":
        square = move["placement"][4:]
        page.wait_for_selector(f'[data-legal="{square}"]')
        page.locator(f'[data-square="{square}"]').click(force=True)
    elif kind == "metrox":
        if "line" in move:
            page.click(f".mx-line-btn[data-line='{move['line']}']")
            page.wait_for_selector(f".mx-line-btn[data-line='{move['line']}'][aria-pressed='true']")
        else:
            page.locator(f".mx-station[data-station='{move['station']}']").click(force=True)
        page.click(".mx-confirm:not([disabled])")
    elif move["step"] == "stop":
        page.click(".ug-stop:not([disabled])")
    else:
        a, b = move["a"], move["b"]
        page.click(f".ug-colour-btn[data-colour='{move['colour']}']")
        page.locator(f".ug-station[data-station='{a}'] .ug-hit").click()
        page.wait_for_selector(f".ug-station.from[data-station='{a}']")
        page.wait_for_selector(f".ug-station.target[data-station='{b}']")
        page.locator(f".ug-station[data-station='{b}'] .ug-hit").click()


def test_each_tutorial_is_played_to_its_end_by_clicking(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    tab = open_tab(f"{base}/#/learn/metro")
    page = tab.page
    for kind in GAMES:
        page.goto(f"{base}/#/learn/{kind}")
        page.wait_for_selector(".learn-section")
        assert page.locator("h1#learn-title").count() == 1
        # Every section's picture is drawn by the game's code: SVG, labelled in words.
        labels = page.eval_on_selector_all(
            ".learn-pictures [role=img]", "els => els.map(e => e.getAttribute('aria-label'))"
        )
        assert len(labels) >= 2 and all(labels), labels
        shot(page, artifacts, f"learn-rules-{kind}")
        assert not codes_shown(page), codes_shown(page)

        page.click("#start-tutorial")
        page.wait_for_url(re.compile(rf"#/learn/{kind}/tutorial$"))
        page.wait_for_selector("#learn-words p")
        steps = script(base, kind)
        shot(page, artifacts, f"learn-tutorial-{kind}-start")
        for i, step in enumerate(steps[:-1]):
            assert counter(page) == f"Step {i + 1} of {len(steps) - 1}", counter(page)
            words = page.inner_text("#learn-words")
            assert "learn.tut" not in words, words  # every sentence from the catalogue
            assert not codes_shown(page), (i, codes_shown(page))
            (move,) = step["legal"]
            before = counter(page)
            make_move(page, kind, move)
            page.wait_for_function(
                "(n) => document.getElementById('learn-counter').textContent !== n", arg=before
            )
        assert counter(page) == "Tutorial complete"
        page.wait_for_selector("#learn-after:not([hidden])")
        mine = steps[-1]["view"]["seats"][0]["score"]
        assert f"you {mine}" in page.inner_text("#learn-scores")
        shot(page, artifacts, f"learn-tutorial-{kind}-end")
        assert not codes_shown(page), codes_shown(page)
    tab.check_clean()


def test_metro_s_coach_names_the_station_and_the_points(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """The coach says what the move does, from the rules core: the second step completes
    station 29's route, and the board's own score follows."""
    tab = open_tab(f"{gateway_process}/#/learn/metro/tutorial")
    page = tab.page
    page.wait_for_selector("#learn-words p")
    steps = script(gateway_process, "metro")
    make_move(page, "metro", steps[0]["legal"][0])
    step_is = "(n) => document.getElementById('learn-counter').textContent.startsWith(n)"
    page.wait_for_function(step_is, arg="Step 2")
    said = page.inner_text("#learn-words")
    assert "completes station 29\u2019s route for 3 points" in said, said
    make_move(page, "metro", steps[1]["legal"][0])
    page.wait_for_function(step_is, arg="Step 3")
    assert "you 3" in page.inner_text("#learn-scores")
    # Leaving at any time: back to the rules, and the tutorial's board is gone.
    page.click("#leave-tutorial")
    page.wait_for_url(re.compile(r"#/learn/metro$"))
    page.wait_for_selector(".learn-section")
    assert page.locator("#learn-board").count() == 0
    tab.check_clean()


def test_the_rules_in_another_language_and_at_phone_width(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    tab = open_tab(f"{base}/#/", viewport=NARROW)
    page = tab.page
    page.evaluate("() => localStorage.setItem('setting.language', 'hu')")
    for kind in GAMES:
        page.goto(f"{base}/#/learn/{kind}")
        page.reload()
        page.wait_for_selector(".learn-section")
        assert page.evaluate("() => document.documentElement.lang") == "hu"
        title = page.inner_text("#learn-title")
        assert title.startswith("Így játszd"), title
        assert page.inner_text("#start-tutorial") == "Gyakorlójáték indítása"
        text = page.inner_text(".learn-page")
        assert ".learn." not in text, text[:300]
        # Nothing wider than the phone's screen.
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        shot(page, artifacts, f"learn-rules-{kind}-hu")
        page.click("#start-tutorial")
        page.wait_for_selector("#learn-words p")
        assert page.inner_text("#learn-counter").startswith("1. lépés")
        shot(page, artifacts, f"learn-tutorial-{kind}-hu")
    tab.check_clean()


def test_learn_to_play_is_linked_from_the_lobby_and_from_a_table(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    tab = open_tab(base)
    page = tab.page
    page.wait_for_selector("#game-pick option", state="attached")
    page.select_option("#game-pick", "metrox")
    assert page.get_attribute("#learn-link", "href") == "#/learn/metrox"
    page.select_option("#game-pick", "metro")
    page.click("#learn-link")
    page.wait_for_url(re.compile(r"#/learn/metro$"))
    page.wait_for_selector(".learn-section")
    page.click(".learn-game-link[href='#/learn/underground']")
    page.wait_for_selector("#learn-title:has-text('On the Underground')")
    page.goto(f"{base}/#/")
    page.wait_for_selector("#game-pick option", state="attached")
    create_game(page, "Ada", [("ai", "random")])
    link = page.locator("#learn-table-link")
    assert link.is_visible() and link.get_attribute("href") == "#/learn/metro"
    assert link.inner_text() == "Rules and tutorial"
    tab.check_clean()


@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1280", "390"])
def test_axe_finds_no_serious_violation_on_rules_and_tutorials(
    open_tab: Callable[..., Tab], gateway_process: str, axe_source: str, viewport: dict[str, int]
) -> None:
    base = gateway_process
    tab = open_tab(f"{base}/#/learn/metro", viewport=viewport, bypass_csp=True)
    page = tab.page
    found: dict[str, list[str]] = {}
    for kind in GAMES:
        page.goto(f"{base}/#/learn/{kind}")
        page.wait_for_selector(".learn-section")
        found[f"rules {kind}"] = axe_problems(page, axe_source)
        page.goto(f"{base}/#/learn/{kind}/tutorial")
        page.wait_for_selector("#learn-words p")
        settled(page)
        found[f"tutorial {kind}"] = axe_problems(page, axe_source)
    bad = {where: problems for where, problems in found.items() if problems}
    assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)
    tab.check_clean()
