"""A party phone before the host starts (issue 35 item 4): it says that the host starts the game
(a party table has room for many but starts when the host says, not "when every seat is taken"
nor "Waiting for 47 more players"), in each of the page's four languages, and the players'
names are read whole, not cut to "P…". Screenshots: test-artifacts/party-phone-wait-*.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NARROW, Tab, shot
from tests.browser.test_party import http

# What the old page said on a party phone, in each language (the seat-filling sentences).
FILL_WORDS = {
    "en": ("more player", "every seat is taken"),
    "hu": ("minden hely foglalt", "csatlakozására vár"),
    "fr": ("toutes les places", "joueurs de plus"),
    "es": ("todas las plazas", "jugadores más", "jugador más"),
}
# The host starts it: the word for "host" in each language.
HOST_WORD = {"en": "host", "hu": "házigazda", "fr": "hôte", "es": "anfitri"}

# Every shown element whose text is cut (an ellipsis, or clipped) and holds a player's name.
TRUNCATED = """() => [...document.querySelectorAll('body *')].filter((e) => {
  if (!e.getClientRects().length || e.children.length) return false;
  const text = e.textContent.trim();
  return /Penelope|Bartholomew/.test(text) && e.scrollWidth > e.clientWidth + 1;
}).map((e) => e.outerHTML.slice(0, 160))"""


def join_phone(open_tab: Callable[..., Tab], base: str, code: str, lang: str) -> Tab:
    """A phone opens the QR code's join page, in `lang`, and takes a seat as Penelope."""
    tab = open_tab(f"{base}/#/join/{code}", NARROW, has_touch=True, is_mobile=True)
    page = tab.page
    page.evaluate("lang => localStorage.setItem('setting.language', lang)", lang)
    page.reload()
    page.wait_for_selector("#join-party-name")
    page.fill("#join-party-name", "Penelope")
    page.click("#join-party")
    page.wait_for_url("**/#/game/*")
    return tab


def all_text(page: Any) -> str:
    return str(page.evaluate("() => document.body.innerText"))


@pytest.mark.parametrize("lang", ["en", "hu", "fr", "es"])
def test_a_party_phone_says_the_host_starts_it(
    lang: str, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    clock = {"mode": "realtime", "move_s": 120, "bank_s": 0, "on_timeout": "ai"}
    body = {"game": "metrox", "party": True, "host_only": True, "clock": clock}
    made = http(base, "POST", "/api/games", body)
    game = made["game_id"]
    seats = len(http(base, "GET", f"/api/games/{game}")["seats"])
    assert seats > 10  # a party table: room for a room
    tab = join_phone(open_tab, base, made["join_code"], lang)
    page = tab.page
    assert page.evaluate("() => document.documentElement.lang") == lang
    http(base, "POST", f"/api/join/{made['join_code']}", {"name": "Bartholomew"})
    page.wait_for_function("() => /Bartholomew/.test(document.body.innerText)")
    text = all_text(page)
    shot(page, artifacts, f"party-phone-wait-{lang}")
    for words in FILL_WORDS[lang]:
        assert words not in text, (lang, words, text)
    assert str(seats - 2) not in text and str(seats - 1) not in text, (lang, text)
    assert HOST_WORD[lang] in text.lower(), (lang, text)
    assert not page.evaluate(TRUNCATED), page.evaluate(TRUNCATED)

    # The host starts it: the phone plays, and the waiting words are gone.
    http(base, "POST", f"/api/games/{game}/start", token=made["host_token"])
    page.wait_for_selector(".mx-line-btn")
    page.wait_for_function("word => !document.body.innerText.toLowerCase().includes(word)",
                           arg=HOST_WORD[lang])  # fmt: skip
    assert not page.evaluate(TRUNCATED), page.evaluate(TRUNCATED)
    tab.check_clean()
