"""No internal code reaches a person (issue 19, item 2): each game is played for a few moves in a
real browser, by clicking (hints asked, a confirmation shown, the move log filled, at 1280 px and
at a phone's 390 px), and every text node, title, aria-label and aria-description of the page,
hidden ones included (a screen reader or a later state shows them), is scanned for the codes the
games use inside: Metro's tile codes and placements, Metro X's card codes, On the Underground's
station ids. A tile is what it connects, a card is words, a station is its name.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.metrox.cards import CODES as CARD_CODES
from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.steps import (
    ai_unpaced,
    create_game,
    legal_squares,
    message,
    page_texts,
    resized,
    wait_my_turn_or_end,
)
from tests.browser.test_metrox import confirm, new_metrox_game, pick_move, wait_choose_or_over
from tests.browser.test_underground import lay_rail_by_clicking, wait_mine_or_over, wait_settled

# Metro (RULES.md §1): a tile code is four letters a-d; a placement adds the row and column.
TILE = re.compile(r"\b[abcd]{4}\b")
PLACEMENT = re.compile(r"\b[abcd]{4}[0-7]{2}\b")


def card_patterns() -> list[re.Pattern[str]]:
    """Metro X's card codes as games/metrox/cards.py spells them ("3", "5*", "s2", "t", "f*"):
    a code with the shuffle star, a skip code, or a lone t or f. A bare number is not a code
    (windows and points are numbers)."""
    starred = sorted(c for c in CARD_CODES if c.endswith("*"))
    skips = sorted(c for c in CARD_CODES if c.startswith("s"))
    letters = sorted(c for c in CARD_CODES if c in ("t", "f"))
    assert starred and skips and letters, CARD_CODES
    edge = r"[\w'\u2019.\-]"
    return [
        re.compile(rf"(?<!{edge})(?:{'|'.join(map(re.escape, starred))})(?![\w*])"),
        re.compile(rf"(?<!{edge})(?:{'|'.join(skips)})(?!{edge})"),
        re.compile(rf"(?<!{edge})(?:{'|'.join(letters)})(?!{edge})"),
    ]


def station_id_patterns(base: str) -> list[re.Pattern[str]]:
    """On the Underground's station ids ("acton_town", "euston"): as written, lower case (a
    name is capitalised: "Acton Town", "Euston")."""
    request = urllib.request.Request(
        f"{base}/api/rules",
        data=json.dumps({"op": "map", "game": "underground"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        stations = json.load(reply)["stations"]
    ids = sorted({s["id"] for s in stations if s["id"] != s["name"]}, key=len, reverse=True)
    return [re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, ids))})(?![\w-])")]


def codes_shown(page: Any, patterns: list[re.Pattern[str]]) -> list[tuple[str, str]]:
    return [
        (where, text) for where, text in page_texts(page) if any(p.search(text) for p in patterns)
    ]


def scan(page: Any, patterns: list[re.Pattern[str]], what: str, artifacts: Path) -> None:
    """No code in the page now, at the wide and at the phone width (a screenshot of each)."""
    for size in (WIDE, NARROW):
        resized(page, size)
        found = codes_shown(page, patterns)
        assert not found, (what, size["width"], found[:10])
        shot(page, artifacts, f"no-codes-{what}")
    page.set_viewport_size(WIDE)


LOG_ITEMS = "() => document.querySelectorAll('.move-log li').length"


def log_entries(page: Any) -> int:
    return int(page.evaluate(LOG_ITEMS))


def test_metro_shows_tiles_as_pictures_and_words(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    patterns = [TILE, PLACEMENT]
    create_game(page, "Ada", [("ai", "easy")])
    assert wait_my_turn_or_end(page)
    scan(page, patterns, "metro-start", artifacts)
    # A refusal that names tiles (one not in hand, and the hand): the server sends their codes,
    # the page says what they connect.
    sent = (
        "() => import('/app.js').then(m => { const hand = m.game.view.hand;"
        " const code = ['aaaa', 'bbbb', 'cccc', 'dddd', 'abcd'].find(c => !hand.includes(c));"
        " return m.game.host.send({action: 'place', placement: code + '00'}); })"
    )
    assert page.evaluate(sent) is False
    said = message(page)
    assert said and not TILE.search(said), said
    scan(page, patterns, "metro-refusal", artifacts)
    # A hint list (tiles as pictures, their squares in words).
    page.click("#hint-button")
    page.wait_for_selector(".hint-item", timeout=60_000)
    scan(page, patterns, "metro-hints", artifacts)
    # A confirmation: "Place <tile in words> on row r, column c".
    if not page.is_checked("#confirm-moves"):
        page.click("#confirm-moves")
    for move in range(3):
        assert wait_my_turn_or_end(page)
        square = legal_squares(page)[0]
        page.locator(f'[data-square="{square}"]').click(force=True)
        page.wait_for_selector("#confirm-box:not([hidden])")
        text = page.inner_text("#confirm-box")
        assert text.strip() and not TILE.search(text), text
        if move == 0:
            scan(page, patterns, "metro-confirm", artifacts)
        before = log_entries(page)
        page.click("#confirm-button")
        page.wait_for_function(f"{LOG_ITEMS.removesuffix('.length')}.length > {before}")
    assert wait_my_turn_or_end(page)
    assert log_entries(page) >= 5  # three of ours, the AI's between them
    scan(page, patterns, "metro-log", artifacts)
    tab.check_clean()


def test_metrox_shows_cards_as_words(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    patterns = card_patterns()
    new_metrox_game(page, [("ai", "easy")])
    page.wait_for_selector(".mx-map .mx-station")
    turn = -1
    for i in range(4):
        assert wait_choose_or_over(page, turn) == "choose"
        turn = int(page.get_attribute(".mx-controls", "data-turn") or 0)
        if i == 1:
            page.click("#hint-button")
            page.wait_for_selector(".mx-hint-btn", timeout=60_000)
            scan(page, patterns, "metrox-hints", artifacts)
        what = pick_move(page)
        if i == 0:
            scan(page, patterns, "metrox-confirm", artifacts)  # the move chosen, not sent yet
        confirm(page, what)
    assert wait_choose_or_over(page, turn) == "choose"
    assert log_entries(page) >= 3
    scan(page, patterns, "metrox-log", artifacts)
    tab.check_clean()


def test_underground_shows_stations_by_name(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    ai_unpaced(page)  # a whole game: the AI's pace for people would add half a minute
    patterns = station_id_patterns(gateway_process)
    page.wait_for_selector("#game-pick option[value='underground']", state="attached")
    page.select_option("#game-pick", "underground")
    create_game(page, "Ada", [("ai", "random")])
    page.wait_for_selector(".ug-map .ug-station")
    hinted = routed = False
    for turn in range(12):
        phase = wait_mine_or_over(page)
        if phase == "over":
            break
        if phase == "route":
            scan(page, patterns, "underground-route", artifacts)
            version = str(page.get_attribute(".ug-controls", "data-version"))
            page.locator(".ug-way:not(:disabled)").first.click()
            wait_settled(page, version)
            routed = True
            continue
        if not hinted and turn >= 1:
            page.click("#hint-button")
            page.wait_for_selector(".ug-hint-btn", timeout=60_000)
            scan(page, patterns, "underground-hints", artifacts)
            hinted = True
        if lay_rail_by_clicking(page):
            scan(page, patterns, "underground-laid", artifacts)
        version = str(page.get_attribute(".ug-controls", "data-version"))
        if page.locator(".ug-stop:not(:disabled)").count():
            page.click(".ug-stop")
            wait_settled(page, version)
        if hinted and turn >= 4:
            break
    assert hinted, "no hint was asked"
    assert log_entries(page) >= 3
    scan(page, patterns, "underground-log", artifacts)
    del routed  # a tied way is offered only sometimes; when it was, it was scanned
    tab.check_clean()
