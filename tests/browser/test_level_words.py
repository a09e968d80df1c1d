"""The AI levels in the lobby (issue 35 item 4): "random" alone read as an unexplained level; the
level that plays any legal move says so in its name, in each of the page's languages."""

from __future__ import annotations

from collections.abc import Callable

from tests.browser.conftest import Tab

LOCALES = {"en": "en-GB", "hu": "hu-HU", "fr": "fr-FR", "es": "es-ES"}
RANDOM_LEVEL = {
    "en": "random moves",
    "hu": "véletlen lépések",
    "fr": "coups au hasard",
    "es": "jugadas al azar",
}


def test_the_random_level_says_what_it_does_in_every_language(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    for lang, words in RANDOM_LEVEL.items():
        tab = open_tab(gateway_process, locale=LOCALES[lang])
        page = tab.page
        page.wait_for_selector("#seat-list .seat-level option[value='random']", state="attached")
        option = page.locator("#seat-list .seat-level option[value='random']").first
        assert option.inner_text() == words, (lang, option.inner_text())
        assert option.get_attribute("title"), lang  # and what it does, on pointing at it
        tab.check_clean()
