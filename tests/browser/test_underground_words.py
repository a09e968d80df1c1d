"""Underground in the page's language (issue 35 item 4): the message after a rail is laid names
the line's colour in hu/fr/es words (it kept the English id: "red Euston-King's Cross"), and the
map's name is the language's ("Londres" in fr and es) in the lobby's map choice and on the map.
Screenshots: test-artifacts/underground-words-*.png."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.browser.conftest import Tab, shot
from tests.browser.test_underground import lay_rail_by_clicking, wait_mine_or_over

LONDON = {"en": "London", "hu": "London", "fr": "Londres", "es": "Londres"}


def new_game(base: str) -> dict[str, str]:
    """An Underground game, a person against the random AI: {"game_id", "token", ...}."""
    body = {"game": "underground", "seats": [{"kind": "human", "name": "Ada"},
                                             {"kind": "ai", "level": "random"}]}  # fmt: skip
    request = urllib.request.Request(
        f"{base}/api/games", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as reply:
        made: dict[str, str] = json.load(reply)
    return made


@pytest.mark.parametrize("lang", ["hu", "fr", "es"])
def test_rail_messages_and_the_map_name_in_the_pages_language(
    lang: str, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    tab = open_tab(base)
    page = tab.page
    page.evaluate("lang => localStorage.setItem('setting.language', lang)", lang)
    page.reload()
    # The lobby's map choice.
    page.wait_for_selector("#game-pick option[value='underground']", state="attached")
    page.select_option("#game-pick", "underground")
    page.wait_for_selector("select[name='map'] option[value='london']", state="attached")
    label = page.eval_on_selector("select[name='map'] option[value='london']", "o => o.text")
    assert label == LONDON[lang], (lang, label)

    made = new_game(base)
    game = made["game_id"]
    page.evaluate(
        "([id, seat, token]) => localStorage.setItem(`seat.${id}`, "
        "JSON.stringify({seat, token, saved: Date.now()}))",
        [game, made["seat"], made["token"]],
    )
    page.goto(f"{base}/#/game/{game}")
    page.wait_for_selector(".ug-map .ug-station")
    aria = page.get_attribute(".ug-map", "aria-label") or ""
    assert LONDON[lang] in aria and (lang == "hu" or "London" not in aria), (lang, aria)

    assert wait_mine_or_over(page) == "build"
    assert lay_rail_by_clicking(page)
    page.wait_for_selector("#message:not([hidden])")
    said = page.inner_text("#message")
    colour = page.get_attribute(".ug-colour-btn[aria-pressed='true']", "data-colour") or ""
    word = page.evaluate(
        "async (c) => (await import('/i18n.js')).t(`underground.colour.${c}`)", colour
    )
    shot(page, artifacts, f"underground-words-{lang}")
    assert colour and word and word in said, (lang, colour, word, said)
    if word != colour:  # "orange" is French too
        assert not re.search(rf"\b{colour}\b", said), (lang, colour, said)
    tab.check_clean()
