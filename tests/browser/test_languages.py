"""The page in English, Hungarian, French and Spanish (issue 12, "Languages").

The language comes from the browser (the Playwright context's locale) unless the player chose
one with the switch; every visible word comes from the catalogue, so no raw key ("lobby.create")
may show anywhere: text, aria-label, title or placeholder, in the lobby and on every game's
board. A screenshot of each language goes to test-artifacts/lang-<code>.png.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NARROW, WIDE, Tab
from tests.browser.steps import (
    create_game,
    message,
    page_texts,
    play_one_move,
    resized,
    wait_my_turn_or_end,
)
from tests.browser.test_metrox import confirm, pick_move, wait_choose_or_over
from tests.browser.test_underground import wait_mine_or_over, wait_settled
from tests.fixtures.gateway import GatewayApi

LOCALES = {"en": "en-US", "hu": "hu-HU", "fr": "fr-FR", "es": "es-ES"}
GAMES = ["metro", "metrox", "underground"]

# Every text node and labelling attribute of the page (hidden ones too: a screen reader or a


def expect(target: Any) -> Any:
    """Playwright's waiting assertions, as patient as the suite's pages (20 s, not 5)."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=60_000)
    return playwright_expect(target)


def catalogue(base: str, lang: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/i18n/{lang}.json", timeout=10) as reply:
        data = json.loads(reply.read())
    assert isinstance(data, dict)
    return data


def key_pattern(keys: list[str]) -> re.Pattern[str]:
    """What a raw key looks like: a known namespace ("lobby", "metro", ...) then .word(s)."""
    spaces = sorted({k.split(".")[0] for k in keys}, key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, spaces))})\.[a-z0-9_]+(?:\.[a-z0-9_-]+)*\b")


def raw_keys(page: Any, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    return [(where, text) for where, text in page_texts(page) if pattern.search(text)]


def open_in(open_tab: Callable[..., Tab], url: str, lang: str) -> Tab:
    tab = open_tab(url, locale=LOCALES[lang])
    tab.page.wait_for_function("() => document.querySelectorAll('#game-pick option').length > 0")
    return tab


def test_the_lobby_in_each_language(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    english = catalogue(base, "en")
    pattern = key_pattern(list(english))
    for lang in LOCALES:
        words = catalogue(base, lang)
        tab = open_in(open_tab, base, lang)
        page = tab.page
        # The page fills its words in as the catalogue arrives: each one is waited for.
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("#lang-pick")).to_have_value(lang)
        expect(page.locator("#create-button")).to_have_text(words["lobby.create"])
        expect(page.locator("#brand-name")).to_have_text(words["app.title"])
        expect(page).to_have_title(words["app.title"])
        # every game's name and description from its own catalogue
        expect(page.locator("#game-pick option")).to_have_text(
            [words[f"{kind}.name"] for kind in GAMES]
        )
        expect(page.locator("#game-description")).to_have_text(words["metro.description"])
        page.select_option("#game-pick", "metrox")
        expect(page.locator("#options")).to_contain_text(words["metrox.option.daily"])
        page.select_option("#game-pick", "metro")
        expect(page.locator("#game-description")).to_have_text(words["metro.description"])
        assert not raw_keys(page, pattern), (lang, raw_keys(page, pattern))
        page.screenshot(path=str(artifacts / f"lang-{lang}.png"), full_page=True)
        tab.check_clean()


def test_the_switch_is_labelled_reachable_and_remembered(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    french = catalogue(base, "fr")
    tab = open_in(open_tab, base, "en")
    page = tab.page
    # a labelled control, reached with the keyboard
    label = page.evaluate(
        "() => document.getElementById('lang-pick').labels[0]"
        ".querySelector('[data-i18n]').textContent"
    )
    assert label == "Language"
    assert page.is_visible("#lang-pick")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.id") == "lang-pick":
            break
    assert page.evaluate("document.activeElement?.id") == "lang-pick"
    options = page.eval_on_selector_all("#lang-pick option", "os => os.map(o => o.value)")
    assert options == ["en", "hu", "fr", "es"]
    with page.expect_navigation():
        page.select_option("#lang-pick", "fr")
    page.wait_for_function("() => document.querySelectorAll('#game-pick option').length > 0")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.inner_text("#create-button") == french["lobby.create"]
    # remembered: a reload (the browser still English) stays French
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('#game-pick option').length > 0")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.input_value("#lang-pick") == "fr"
    tab.check_clean()


def test_a_language_the_page_lacks_falls_back_to_english(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process, locale="de-DE")
    tab.page.wait_for_function("() => document.querySelectorAll('#game-pick option').length > 0")
    assert tab.page.evaluate("document.documentElement.lang") == "en"
    assert tab.page.inner_text("#create-button") == "Create game"
    tab.check_clean()


@pytest.mark.parametrize("lang", ["hu", "fr", "es"])
def test_every_game_s_board_in_the_language(
    lang: str,
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    artifacts: Path,
) -> None:
    base = gateway_process
    words = catalogue(base, lang)
    pattern = key_pattern(list(catalogue(base, "en")))
    for kind in GAMES:
        status, made = api.post(
            "/api/games",
            {
                "game": kind,
                "rules": {"players": 2},
                "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}],
            },
        )
        assert status == 201, made
        tab = open_in(open_tab, base, lang)
        page = tab.page
        raw = json.dumps({"seat": made["seat"], "token": made["token"], "saved": 1})
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"seat.{made['game_id']}", raw])
        page.goto(f"{base}/#/game/{made['game_id']}")
        page.wait_for_selector("#scores tr[data-seat]")
        page.wait_for_function(
            "(loading) => { const s = document.getElementById('status').textContent;"
            " return !!s && s !== loading; }",
            arg=words["game.loading"],
        )
        assert page.inner_text("#game-title") == words[f"{kind}.name"]
        assert page.text_content("#scores thead th.score") == words["scores.score"]
        # the engine's name for the AI seat ("AI 2"), and its level, in the language
        ai_row = page.text_content("#scores tr[data-seat='1']") or ""
        assert words["seat.ai_numbered"].replace("{n}", "2") in ai_row, ai_row
        assert words["level.easy"] in ai_row, ai_row
        found = raw_keys(page, pattern)
        assert not found, (lang, kind, found)
        page.screenshot(path=str(artifacts / f"lang-{lang}-{kind}.png"), full_page=True)
        tab.check_clean()


def test_a_rule_refusal_is_said_in_the_page_s_language(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """A move the rules forbid, sent for real: the server's refusal code and its parameters come
    back in the error body, and the page words them from its own catalogue (the rule broken in
    the tooltip)."""
    base = gateway_process
    for lang in ("hu", "es", "en"):
        words = catalogue(base, lang)
        status, made = api.post(
            "/api/games",
            {
                "game": "metro",
                "rules": {"players": 2},
                "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}],
            },
        )
        assert status == 201, made
        game = made["game_id"]
        tab = open_in(open_tab, base, lang)
        page = tab.page
        raw = json.dumps({"seat": made["seat"], "token": made["token"], "saved": 1})
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"seat.{game}", raw])
        page.goto(f"{base}/#/game/{game}")
        page.wait_for_selector("[data-legal]")
        # the tile in hand on a square of the central station (row 4, column 4)
        sent = (
            "() => import('/app.js').then(m => m.game.host.send("
            "{action: 'place', placement: m.game.legal.find(x => x.action === 'place')"
            ".placement.slice(0, 4) + '33'}))"
        )
        assert page.evaluate(sent) is False
        said = message(page)
        want = words["metro.refusal.central_station"].replace("{row}", "4").replace("{col}", "4")
        assert said == want, (lang, said)
        assert "RULES.md" in str(page.get_attribute("#message", "title"))
        tab.check_clean()


# ---- no English left (issue 19, item 7) ---------------------------------------------------------

PLACE = re.compile(r"\{[a-z_]+\}")
WORD = re.compile(r"[A-Za-z]{2,}")


def english_phrases(english: dict[str, Any], words: dict[str, Any]) -> set[str]:
    """The English side's phrases a page in another language must not show: the literal parts
    of every English entry that the language words differently, of two words or more (short
    tokens and proper names such as station names are not phrases; a part the language's own
    catalogue holds too, a game's name, is its word as well)."""
    own = " ".join(v if isinstance(v, str) else " ".join(v.values()) for v in words.values())
    phrases: set[str] = set()
    for key, entry in english.items():
        if words.get(key) == entry:
            continue
        forms = [entry] if isinstance(entry, str) else list(entry.values())
        for form in forms:
            for part in PLACE.split(form):
                part = part.strip(" .,:;!?()\u2014\u2013-\u00b7'\"")
                if len(WORD.findall(part)) >= 2 and part not in own:
                    phrases.add(part)
    return phrases


def english_shown(page: Any, phrases: set[str]) -> list[tuple[str, str, str]]:
    return [
        (where, phrase, text)
        for where, text in page_texts(page)
        for phrase in phrases
        if phrase in text
    ]


def _metro_moves(page: Any) -> None:
    assert wait_my_turn_or_end(page)
    page.click("#hint-button")
    page.wait_for_selector(".hint-item", timeout=60_000)
    play_one_move(page)
    assert wait_my_turn_or_end(page)


def _metrox_moves(page: Any) -> None:
    assert wait_choose_or_over(page, -1) == "choose"
    turn = int(page.get_attribute(".mx-controls", "data-turn") or 0)
    page.click("#hint-button")
    page.wait_for_selector(".mx-hint-btn", timeout=60_000)
    confirm(page, pick_move(page))
    assert wait_choose_or_over(page, turn) == "choose"


def _underground_moves(page: Any) -> None:
    assert wait_mine_or_over(page) == "build"
    page.click("#hint-button")
    page.wait_for_selector(".ug-hint-btn", timeout=60_000)
    version = str(page.get_attribute(".ug-controls", "data-version"))
    page.locator(".ug-hint-btn").first.click()  # the AI's first suggestion, laid
    wait_settled(page, version)
    version = str(page.get_attribute(".ug-controls", "data-version"))
    page.click(".ug-stop")
    wait_settled(page, version)
    assert wait_mine_or_over(page) in ("build", "route")


PLAY = {"metro": _metro_moves, "metrox": _metrox_moves, "underground": _underground_moves}


@pytest.mark.parametrize("lang", ["hu", "fr", "es"])
def test_a_played_board_shows_no_english(
    lang: str, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    """Each game created in the lobby and played a move in the language (a hint asked, the log
    filled, at the phone's width too): no phrase of the English catalogue that the language
    words otherwise shows anywhere on the page, text or label."""
    base = gateway_process
    words = catalogue(base, lang)
    phrases = english_phrases(catalogue(base, "en"), words)
    assert len(phrases) > 200  # the comparison has something to compare
    for kind in GAMES:
        tab = open_in(open_tab, base, lang)
        page = tab.page
        page.select_option("#game-pick", kind)
        create_game(page, "Ada", [("ai", "easy" if kind != "underground" else "random")])
        PLAY[kind](page)
        for size in (WIDE, NARROW):
            resized(page, size)
            found = english_shown(page, phrases)
            assert not found, (lang, kind, size["width"], found[:8])
        page.screenshot(path=str(artifacts / f"lang-played-{lang}-{kind}.png"), full_page=True)
        tab.check_clean()


@pytest.mark.parametrize("lang", ["hu", "fr", "es", "en"])
def test_a_refused_option_is_said_in_the_page_s_language(
    lang: str, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """A daily puzzle word the game refuses, sent for real from the lobby: the server's English
    sentence stays in the API, and the page says why from its own catalogue (the field's
    `reason`), naming the option by its label and saying what it takes."""
    base = gateway_process
    words = catalogue(base, lang)
    tab = open_in(open_tab, base, lang)
    page = tab.page
    page.select_option("#game-pick", "metrox")
    page.wait_for_selector("#opt-daily")
    page.fill("#opt-daily", "no spaces allowed")
    page.fill("#your-name", "Ada")
    page.click("#create-button")
    page.wait_for_function("() => document.getElementById('create-error').textContent.trim()")
    said = page.inner_text("#create-error").strip()
    want = (
        words["error.reason.bad_format"]
        .replace("{what}", words["metrox.option.daily"])
        .replace("{help}", words["metrox.option.daily.help"])
        .strip()
    )
    assert said == want, (lang, said)
    assert "characters of A-Z" not in said
    tab.check_clean()
