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


def test_the_lobby_offers_each_game_its_own_levels(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """Metro X leaves `expert` out (docs/ai.md): its seat and clock pickers do not offer it, and
    going back to Metro brings it back."""
    tab = open_tab(gateway_process)
    page = tab.page
    seat_levels = "#seat-list > li:nth-child(2) .seat-level option"

    def offered() -> list[str]:
        return [
            str(v) for v in page.eval_on_selector_all(seat_levels, "os => os.map(o => o.value)")
        ]

    page.wait_for_selector(f"{seat_levels}[value='random']", state="attached")
    page.select_option("#game-pick", "metrox")
    page.wait_for_selector(f"{seat_levels}[value='expert']", state="detached")
    assert offered() == ["random", "easy", "medium", "hard"], offered()
    page.select_option("#clock-mode", "realtime")
    page.wait_for_selector("#clock-level option[value='hard']", state="attached")
    clock_levels = page.eval_on_selector_all("#clock-level option", "os => os.map(o => o.value)")
    assert "expert" not in clock_levels and "hard" in clock_levels, clock_levels
    page.select_option("#game-pick", "metro")
    page.wait_for_selector(f"{seat_levels}[value='expert']", state="attached")
    assert offered()[-1] == "expert", offered()
    tab.check_clean()
