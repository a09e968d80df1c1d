"""The party host screen's turn card is sized by the layout, never by a measurement taken before
the layout settles (issue 35 item 4): at 1280x800, 1920x1080 and on a phone, before and after
*Start* and after a reload, the card is in sight, large, and covers neither the board (the map),
the status nor the players' names. Before, party.js read the face's size once, as it was drawn:
when the game's stylesheet came later the card was drawn ~1470x2010 px over the map (it stayed so
after a reload), and on a quiet machine it was left at its own 104 px.
Screenshots: test-artifacts/party-layout-*.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.test_party import http

SCREENS = {
    "wide": (WIDE, {}),
    "projector": ({"width": 1920, "height": 1080}, {}),
    "phone": (NARROW, {"has_touch": True, "is_mobile": True}),
}
# The other boxes of the host screen the card must never cover.
OTHERS = ("#party-status", "#party-players", ".party-title", ".party-board .mx-map")

BOXES = """others => {
  const box = (e) => e.getBoundingClientRect().toJSON();
  const card = document.querySelector('#party-card');
  const face = card && card.querySelector('.party-card-face > *');
  const shown = (e) => e && e.getClientRects().length > 0;
  return {
    card: shown(card) ? box(card) : null,
    face: shown(face) ? box(face) : null,
    others: Object.fromEntries(others.map((s) => [s, shown(document.querySelector(s))
      ? box(document.querySelector(s)) : null])),
    width: innerWidth, height: innerHeight,
  };
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share (0 when they only touch)."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


def check_layout(page: Any, playing: bool, where: str) -> dict[str, Any]:
    """The card (while playing) is large, inside the screen and its own slot, and shares no area
    with the map, the status, the title or the names; nothing else overlaps the status or names."""
    # Settled: every stylesheet in (the game's own comes after its board is drawn), two frames.
    page.wait_for_function(
        "() => [...document.querySelectorAll('link[rel=stylesheet]')].every((l) => l.sheet)"
    )
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    boxes = page.evaluate(BOXES, list(OTHERS))
    others = {k: v for k, v in boxes["others"].items() if v}
    assert "#party-status" in others and "#party-players" in others, (where, boxes)
    card, face = boxes["card"], boxes["face"]
    if not playing:
        assert card is None, (where, boxes)  # no card before Start
        return boxes
    assert card and face, (where, boxes)
    assert ".party-board .mx-map" in others, (where, boxes)
    # Large: a third of the screen's height, or what a phone's width leaves (and never tiny).
    assert face["height"] >= min(0.3 * boxes["height"], 0.5 * boxes["width"]), (where, boxes)
    assert face["height"] >= 150, (where, boxes)
    # In sight, inside its slot (a pixel for rounding), and inside the screen.
    for side in ("left", "top"):
        assert face[side] >= card[side] - 1, (where, side, boxes)
    for side in ("right", "bottom"):
        assert face[side] <= card[side] + 1, (where, side, boxes)
    assert card["left"] >= 0 and card["top"] >= 0, (where, boxes)
    assert card["right"] <= boxes["width"] and card["bottom"] <= boxes["height"], (where, boxes)
    for name, other in others.items():
        assert overlap(face, other) == 0 and overlap(card, other) == 0, (where, name, boxes)
    return boxes


def seat_players(base: str, game: str, names: list[str]) -> None:
    """Players join by the table's code, as phones do (through the API)."""
    code = http(base, "GET", f"/api/games/{game}/party")["join_code"]
    for name in names:
        http(base, "POST", f"/api/join/{code}", {"name": name})


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_turn_card_is_sized_by_the_layout(
    screen: str, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    viewport, extra = SCREENS[screen]
    made = http(base, "POST", "/api/games", {"game": "metrox", "party": True, "host_only": True})
    game = made["game_id"]
    seat_players(base, game, ["Ada", "Bea"])
    tab = open_tab(f"{base}/#/", viewport, **extra)
    page = tab.page
    page.evaluate(
        "([id, token]) => localStorage.setItem(`host.${id}`, token)", [game, made["host_token"]]
    )
    page.goto(f"{base}/#/host/{game}")
    page.wait_for_function("() => document.querySelectorAll('#party-players li').length === 2")
    page.wait_for_selector("#party-start:not([disabled])")
    check_layout(page, False, f"{screen}: before Start")
    shot(page, artifacts, f"party-layout-{screen}-open")

    page.click("#party-start")
    page.wait_for_selector(".party-board .mx-map .mx-station")
    page.wait_for_selector("#party-card .party-card-face > *")
    check_layout(page, True, f"{screen}: after Start")
    shot(page, artifacts, f"party-layout-{screen}-started")

    # A reload opens the host screen on a running game: the board and its stylesheet arrive
    # together with the card (this is where the card once stayed 2,000 px high).
    page.reload()
    page.wait_for_selector(".party-board .mx-map .mx-station")
    page.wait_for_selector("#party-card .party-card-face > *")
    check_layout(page, True, f"{screen}: after a reload")
    shot(page, artifacts, f"party-layout-{screen}-reloaded")
    tab.check_clean()
