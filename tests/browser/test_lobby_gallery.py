"""The lobby at 1280x800 (issue 35 item 4): the games are a gallery, a small picture and the name
each (it was a picture-less drop-down), a click picks the game; *Create* is in sight without
scrolling (it was below the fold). Each picture's lines are drawn in the game's own colours, as
GET /api/meta gives them (issue 31.2: the gallery once typed three line colours of its own)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import Tab, shot


def test_a_gallery_of_games_and_create_in_sight(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#game-gallery .game-tile")
    tiles = page.locator("#game-gallery .game-tile")
    kinds = page.eval_on_selector_all("#game-pick option", "os => os.map(o => o.value)")
    assert tiles.count() == len(kinds) == 3
    for i in range(tiles.count()):
        tile = tiles.nth(i)
        box = tile.locator("svg.game-tile-picture").bounding_box()
        assert box and box["width"] >= 48 and box["height"] >= 36, box
        assert tile.inner_text().strip()
    page.click("#game-gallery .game-tile[data-game='metrox']")
    page.wait_for_selector("#opt-map")
    assert page.input_value("#game-pick") == "metrox"
    assert page.get_attribute("#game-gallery [data-game='metrox']", "aria-pressed") == "true"
    assert page.get_attribute("#game-gallery [data-game='metro']", "aria-pressed") == "false"
    for kind in ("metro", "metrox"):
        page.click(f"#game-gallery .game-tile[data-game='{kind}']")
        create = page.locator("#create-button").bounding_box()
        assert create and create["y"] + create["height"] <= 800, (kind, create)
    with urllib.request.urlopen(f"{gateway_process}/api/meta", timeout=30) as reply:
        meta = {g["game"]: g for g in json.load(reply)["games"]}
    shades = page.evaluate("import('/dom.js').then(m => m.SAFE_SHADES)")
    expected = {
        "metro": [shades[name] for name in meta["metro"]["colours"][:2]],
        "metrox": meta["metrox"]["colours"][:3],
        "underground": [
            meta["underground"]["constants"]["line_hex"][name]
            for name in meta["underground"]["constants"]["colours"][:3]
        ],
    }
    for kind, colours in expected.items():
        strokes = page.eval_on_selector_all(
            f"#game-gallery [data-game='{kind}'] .game-tile-line",
            "ps => ps.map(p => p.getAttribute('stroke').toLowerCase())",
        )
        assert strokes == [c.lower() for c in colours], (kind, strokes, colours)
    shot(page, artifacts, "lobby-gallery")
    tab.check_clean()
