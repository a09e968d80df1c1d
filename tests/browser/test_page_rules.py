"""The page traces routes itself for two things only: the points a hovered placement would complete
and the positions of a replay. Both must agree with the engine, move by move, in real games."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.conftest import Tab
from tests.fixtures.gateway import GatewayApi

TRACE_ALL = """([board, seats]) => import('/games/metro/routes.js').then(m =>
  m.traceAll(m.boardFrom(board), seats).map(r => (
    {station: r.station, owner: r.owner, end: r.end, points: r.points, path: r.path})))"""
COMPLETIONS = """([board, seats, placement]) => import('/games/metro/routes.js').then(m => {
    const p = /^([abcd]{4})([0-7])([0-7])$/.exec(placement);
    return m.completions(m.boardFrom(board), seats, p[1], Number(p[2]), Number(p[3]))
      .map(c => c.station).sort((a, b) => a - b);
})"""


def play_random_game(
    api: GatewayApi, players: int, seed: int, **rules: Any
) -> list[dict[str, Any]]:
    """Every view (as seat 0 sees it) of one game of random legal placements, first to last."""
    rng = random.Random(seed)
    game, tokens = api.new_game(players=players, **rules)
    _, current = api.get(f"/api/games/{game}", token=tokens[0])
    views = [current]
    while current["status"] == "playing":
        token = tokens[current["turn"]]
        _, legal = api.get(f"/api/games/{game}/legal", token=token)
        move = rng.choice([m for m in legal["moves"] if m["action"] == "place"])
        status, _ = api.post(
            f"/api/games/{game}/moves",
            {**move, "expected_version": current["version"]},
            token=token,
        )
        assert status == 200
        _, current = api.get(f"/api/games/{game}", token=tokens[0])
        views.append(current)
    return views


def as_steps(path: list[Any]) -> list[list[int]]:
    return [[s["row"], s["col"], s["entry"], s["exit"]] if isinstance(s, dict) else s for s in path]


@pytest.mark.parametrize(("players", "seed", "rules"), [
    (2, 1, {}),
    (3, 2, {"rotation": True}),
    (5, 3, {"hand_size": 2}),
])  # fmt: skip
def test_page_routes_and_previews_match_the_engine(
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    players: int,
    seed: int,
    rules: dict[str, Any],
) -> None:
    views = play_random_game(api, players, seed, **rules)
    assert views[-1]["status"] == "over"
    page = open_tab(gateway_process).page
    for before, after in itertools.pairwise(views):
        traced = page.evaluate(TRACE_ALL, [after["board"], after["seats"]])
        engine = sorted(after["routes"], key=lambda r: r["station"])
        assert [(r["station"], r["owner"], r["end"], r["points"]) for r in traced] == [
            (r["station"], r["owner"], r["end"], r["points"]) for r in engine
        ], after["board"]
        assert [r["path"] for r in traced] == [as_steps(r["path"]) for r in engine]
        # The hover preview of the move that was made names exactly the routes it completed.
        placement = after["board"][-1]
        previewed = page.evaluate(COMPLETIONS, [before["board"], before["seats"], placement])
        was_open = {r["station"] for r in before["routes"] if r["end"] == "open"}
        now_done = {r["station"] for r in after["routes"] if r["end"] != "open"}
        assert previewed == sorted(was_open & now_done), placement
