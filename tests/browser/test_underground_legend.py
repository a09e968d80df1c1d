"""The Underground's rules page explains what a game shows (issue 35, item 4): a legend of the
map's marks (the destinations' colours, national rail, termini, connection symbols, the face-up
cards) drawn as the map draws them, and the game page's short labels (a line's button "red · 12",
the score columns St, NR, End, Sym, Loop, Ride) in words, in en, hu, fr and es. Real gateway, real
headless Chromium at phone width."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import NARROW, Tab, shot

MARKS = ("express", "normal", "plain", "faceup", "rail", "terminus", "symbol")
COLUMNS = ("St", "NR", "End", "Sym", "Loop", "Ride")  # the English short headings


def test_the_rules_page_has_a_legend_in_every_language(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    tab = open_tab(f"{base}/#/", viewport=NARROW)
    page = tab.page
    seen: dict[str, str] = {}
    for lang in ("en", "hu", "fr", "es"):
        page.evaluate("(l) => localStorage.setItem('setting.language', l)", lang)
        page.goto(f"{base}/#/learn/underground")
        page.reload()
        page.wait_for_selector("#learn-legend .learn-legend-marks li")
        assert page.evaluate("() => document.documentElement.lang") == lang
        legend = page.locator("#learn-legend")
        text = legend.inner_text()
        assert "underground." not in text, text[:300]  # no key shown for a missing word
        # Every mark of the map, drawn and explained.
        for mark in MARKS:
            item = legend.locator(f"li[data-mark='{mark}']")
            assert item.locator("svg").is_visible(), mark
            assert len(item.inner_text().strip()) > 20, (lang, mark, item.inner_text())
        # The destinations' colours are the map's own: gold express, white normal.
        fills = page.evaluate(
            """() => Object.fromEntries(['express', 'normal'].map((k) => [k, getComputedStyle(
                 document.querySelector(`#learn-legend li[data-mark='${k}'] .ug-disc`)).fill]))"""
        )
        assert fills == {"express": "rgb(242, 183, 5)", "normal": "rgb(255, 255, 255)"}, fills
        # The line buttons' counts and the score columns: the short label, its words beside it.
        chip = legend.locator("li[data-label='chips']").inner_text()
        assert "12" in chip and len(chip) > 30, chip
        abbrs = legend.locator(".learn-legend-labels abbr")
        assert abbrs.count() == len(COLUMNS)
        for k in range(len(COLUMNS)):
            abbr = abbrs.nth(k)
            title = str(abbr.get_attribute("title"))
            assert len(title) > 3, title
            words = abbr.locator("xpath=..").inner_text()
            assert title in words and len(words) > len(title) + 20, words
        if lang == "en":
            assert [abbrs.nth(k).inner_text() for k in range(len(COLUMNS))] == list(COLUMNS)
            assert "national rail" in text and "express destination" in text, text[:400]
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        seen[lang] = text
        legend.scroll_into_view_if_needed()
        shot(page, artifacts, f"learn-legend-underground-{lang}")
    assert len(set(seen.values())) == 4, "a language shows another's words"
    tab.check_clean()
