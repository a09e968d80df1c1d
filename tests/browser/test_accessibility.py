"""Issue 11, the parts the other browser tests leave: a real hint picked from the list is exactly
that move, shown with its points and ready to confirm (item 3); Metro's board labels its rows and
columns as hints and screen readers count them, from 1 (item 7); and a finished game's score
table follows the replay's position for every game, checked against the rules' own scoring of
the record cut at that position (`POST /api/rules`, item 10)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NARROW, Tab, shot
from tests.browser.steps import (
    create_game,
    selected_code,
    settled,
    simulate_deuteranopia,
    wait_my_turn_or_end,
)
from tests.browser.test_usability import hold_seat, make_game, open_game
from tests.fixtures.gateway import GatewayApi


def test_a_hint_from_the_list_is_exactly_that_move_ready_to_confirm(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#opt-rotation")
    page.check("#opt-rotation")
    page.select_option("#opt-hand_size", "2")
    create_game(page, "Ada", [("ai", "random")])
    assert wait_my_turn_or_end(page)

    # Rows and columns are numbered on the board, from 1, as the squares' names count them.
    cols = page.locator("#board .layer-coords .coord-col").all_text_contents()
    rows = page.locator("#board .layer-coords .coord-row").all_text_contents()
    assert cols == [str(n) for n in range(1, 9)] and rows == cols, (cols, rows)
    label = page.get_attribute('[data-square="25"]', "aria-label") or ""
    assert label.startswith("row 3, column 6"), label

    if page.locator("#hint-level option[value='easy']").count():
        page.select_option("#hint-level", "easy")
    page.click("#hint-button")
    page.wait_for_selector("#hint-box:not([hidden]) #hint-list li", timeout=60_000)
    first = page.locator("[data-hint]").first
    placement = str(first.get_attribute("data-hint"))
    rank = int(first.locator(".hint-rank-text").text_content() or "0")
    row, col = int(placement[4]), int(placement[5])
    item = page.locator(f"#hint-list li:nth-child({rank}) .hint-item")
    # The list names the square as the board labels it.
    assert f"row {row + 1}, column {col + 1}" in item.inner_text()
    item.click()
    # Exactly that tile, turned as the hint has it, and the move waits for Confirm.
    assert selected_code(page) == placement[:4]
    page.wait_for_selector("#confirm-box:not([hidden])")
    confirm = page.inner_text("#confirm-text")
    # The tile in words (what it connects), never its code (tests/browser/test_no_codes.py).
    assert "tile with" in confirm and placement[:4] not in confirm, confirm
    assert f"row {row + 1}, column {col + 1}" in confirm, confirm
    shot(page, artifacts, "access-hint-picked")
    page.click("#confirm-button")
    page.wait_for_selector(f'[data-tile="{placement}"]')
    assert page.locator("[data-hint]").count() == 0
    tab.check_clean()


# ---- the replay's scores -----------------------------------------------------------------------


def play_out(
    api: GatewayApi, game: str, tokens: list[str | None], seed: int, moves: int = 5000
) -> dict[str, Any]:
    """Random legal moves for every seat until the game is over or `moves` were made (any game:
    simultaneous turns move one seat at a time). The last view."""
    rng = random.Random(seed)
    viewer = next(t for t in tokens if t)
    for _ in range(moves):
        status, view = api.get(f"/api/games/{game}", token=viewer)
        assert status == 200, view
        if view["status"] != "playing":
            return dict(view)
        seat = next(s for s in view["to_move"] if view["seats"][s].get("chosen") is not True)
        token = tokens[seat]
        assert token, f"seat {seat} has no token"
        status, legal = api.get(f"/api/games/{game}/legal", token=token)
        assert status == 200 and legal["moves"], legal
        move = rng.choice(legal["moves"])
        status, answer = api.post(
            f"/api/games/{game}/moves", {**move, "expected_version": view["version"]}, token=token
        )
        assert status == 200, answer
    if moves < 5000:
        return dict(api.get(f"/api/games/{game}", token=viewer)[1])
    raise AssertionError("the game did not end")


def rules_scores(api: GatewayApi, kind: str, record: dict[str, Any], pos: int) -> list[int]:
    """Every seat's score after the record's first `pos` moves (turns), as the rules count them."""
    if kind == "metro":
        placements = "".join(m["placement"] for m in record["moves"][:pos])
        players = len(record.get("seats") or record["scores"])
        query = {"op": "score", "placements": placements, "rules": {"players": players}}
    else:
        part = "turns" if kind == "metrox" else "moves"
        cut = {**record, part: record[part][:pos]}
        if kind == "metrox":
            # an unfinished record names the card its next turn shows
            cut["cards"] = record["cards"][: pos + 1]
        query = {"op": "replay", "game": kind, "record": cut}
    status, answer = api.post("/api/rules", query)
    assert status == 200 and "scores" in answer, (query["op"], answer)
    return [int(s) for s in answer["scores"]]


def number(text: str) -> int:
    """A score as the table writes it ("1,234", or a minus sign before a negative one)."""
    return int(re.sub(r"[^\d-]", "", text.replace("\u2212", "-")))


def table_scores(page: Any) -> list[int]:
    """The score table's numbers in seat order."""
    page.wait_for_selector("#scores:not([hidden]) tbody tr")
    cells = page.eval_on_selector_all(
        "#scores tbody tr",
        "rows => rows.map(r => [Number(r.dataset.seat), r.cells[r.cells.length - 1].textContent])",
    )
    out = sorted((int(seat), number(str(text))) for seat, text in cells)
    return [score for _, score in out]


def go_to(page: Any, pos: int) -> None:
    page.evaluate(
        "(pos) => { const r = document.getElementById('replay-range'); r.value = String(pos);"
        " r.dispatchEvent(new Event('input', {bubbles: true})); }",
        pos,
    )
    page.wait_for_function(
        "(pos) => document.getElementById('replay-range').value === String(pos)", arg=pos
    )


GAMES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "metro": ([{"kind": "human", "name": "Ada"}, {"kind": "open"}], {}),
    "metrox": ([{"kind": "human", "name": "Ada"}, {"kind": "open"}], {}),
    "underground": ([{"kind": "human", "name": "Ada"}, {"kind": "open"}], {}),
}


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_the_score_table_follows_the_replay(
    kind: str,
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    artifacts: Path,
) -> None:
    seats, rules = GAMES[kind]
    game, tokens = make_game(api, kind, seats, **rules)
    final = play_out(api, game, tokens, seed=11)
    status, record = api.get(f"/api/games/{game}/record", token=tokens[0])
    assert status == 200, record
    tab = open_tab(gateway_process, viewport=NARROW)
    page = tab.page
    hold_seat(page, game, 0, str(tokens[0]))
    open_game(tab, gateway_process, game)
    page.wait_for_selector("#replay:not([hidden])")
    length = int(page.get_attribute("#replay-range", "max") or "0")
    assert length >= 4
    # At the end the final results alone are shown; before it, the table follows the position.
    assert page.locator("#scores").is_hidden()
    finals = page.eval_on_selector_all(
        "#final-scores li",
        "els => els.map(e => [Number(e.dataset.seat), e.querySelector('.score').textContent])",
    )
    assert sorted((int(i), number(str(v))) for i, v in finals) == [
        (i, int(s["score"])) for i, s in enumerate(final["seats"])
    ]
    checked = []
    for pos in (0, length // 3, (2 * length) // 3, length - 1):
        go_to(page, pos)
        expected = rules_scores(api, kind, record, pos)
        page.wait_for_function(
            "(want) => { const rows = [...document.querySelectorAll('#scores tbody tr')];"
            " return rows.length === want.length && rows.every((r) =>"
            " Number(r.cells[r.cells.length - 1].textContent"
            " .replace(/\u2212/g, '-').replace(/[^\\d-]/g, ''))"
            " === want[Number(r.dataset.seat)]); }",
            arg=expected,
            timeout=5_000,
        )
        assert table_scores(page) == expected, (pos, expected)
        checked.append(expected)
    # The case the issue saw: a position early in the game does not show the final scores.
    assert checked[1] != [int(s["score"]) for s in final["seats"]], checked
    go_to(page, length)
    page.wait_for_selector("#scores", state="hidden")
    go_to(page, length // 3)
    shot(page, artifacts, f"access-replay-scores-{kind}")
    tab.check_clean()


# ---- tap targets at phone width ----------------------------------------------------------------

# Every visible control smaller than 44 px either way; a checkbox counts by its label (the label
# is what a finger hits). A board's squares and stations are measured by the games' own tests.
SMALL_CONTROLS = """() => [...document.querySelectorAll(
    'button, select, a.button, a[href], input:not([type=range]), summary, [role=button]')]
  .filter((b) => b.offsetParent !== null && !b.closest('[hidden]') && !b.closest('svg'))
  .map((b) => {
    const target = b.matches('input[type=checkbox], input[type=radio]') && b.closest('label')
      ? b.closest('label') : b;
    const r = target.getBoundingClientRect();
    return [b.id || b.className || b.tagName, Math.round(r.width), Math.round(r.height)];
  })
  .filter(([, w, h]) => w < 44 || h < 44)"""


def test_every_control_is_a_44px_target_at_390px(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    # Not a touch screen: a narrow window alone must be enough.
    tab = open_tab(gateway_process, viewport=NARROW)
    page = tab.page
    page.wait_for_selector("#open-list li")
    small = {"lobby": page.evaluate(SMALL_CONTROLS)}
    for kind in sorted(GAMES):
        game, tokens = make_game(
            api, kind, [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}]
        )
        hold_seat(page, game, 0, str(tokens[0]))
        open_game(tab, gateway_process, game)
        page.wait_for_selector("#controls *")
        settled(page)
        small[kind] = page.evaluate(SMALL_CONTROLS)
    bad = {where: found for where, found in small.items() if found}
    assert not bad, bad
    tab.check_clean()


# ---- colour-blind players ----------------------------------------------------------------------


# (seats, random moves made before looking) per game: as many seats as a table usually has.
CROWDS = {"metro": (6, 36), "metrox": (5, 25), "underground": (5, 40)}


@pytest.mark.parametrize("kind", sorted(CROWDS))
def test_every_seat_has_its_own_symbol_and_the_deuteranopia_view_is_saved(
    kind: str,
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    artifacts: Path,
) -> None:
    players, moves = CROWDS[kind]
    seats = [{"kind": "human", "name": "Ada"}] + [{"kind": "open"}] * (players - 1)
    game, tokens = make_game(api, kind, seats)
    play_out(api, game, tokens, seed=5, moves=moves)
    tab = open_tab(gateway_process, bypass_csp=True)
    page = tab.page
    hold_seat(page, game, 0, str(tokens[0]))
    open_game(tab, gateway_process, game)
    page.wait_for_selector(f"#scores tbody tr:nth-child({players}) .swatch")
    settled(page)
    # The score table: a symbol per seat beside its colour, all different.
    glyphs = page.locator("#scores tbody .swatch").all_text_contents()
    assert len(glyphs) == players and len(set(glyphs)) == players, glyphs
    if kind == "metro":
        # Routes: each seat's own dash pattern, so crossing routes stay apart without colour.
        dashes = page.evaluate(
            """() => {
                const owner = new Map([...document.querySelectorAll('.station[data-owner]')]
                    .filter((s) => s.dataset.owner !== '')
                    .map((s) => [s.dataset.station, s.dataset.owner]));
                const out = {};
                for (const g of document.querySelectorAll('.layer-routes .route')) {
                    const seat = owner.get(g.dataset.station);
                    const track = g.querySelector('.route-track');
                    if (seat === undefined || !track) continue;
                    (out[seat] ||= new Set()).add(track.dataset.dash);
                }
                return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v]]));
            }"""
        )
        assert len(dashes) >= 3, dashes
        assert all(len(v) == 1 for v in dashes.values()), dashes
        patterns = [v[0] for v in dashes.values()]
        assert len(set(patterns)) == len(patterns), dashes
    shot(page, artifacts, f"access-seats-{kind}")
    simulate_deuteranopia(page)
    shot(page, artifacts, f"access-deuteranopia-{kind}")
    tab.check_clean()
