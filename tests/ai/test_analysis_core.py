"""Post-game analysis as pure code (services/ai/analysis.py, Game.replay_steps), every game of the
registry on a seeded random game: each decision is a legal move of its seat in the position
before it, the decisions replay the whole game, the same record judged twice gives the same
figures, and the search sees only the seat's view (Metro: a record whose deck differs only where
nobody had seen it yet gives the same figures for the first decisions)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import games
from services.ai.analysis import AnalysisParams, count_decisions, decisions, judge, label


def random_record(kind: str, seed: int = 3) -> dict[str, Any]:
    game = games.get(kind)
    state = game.new_state(game.normalise_rules({"players": 2}), seed)
    rng = random.Random(seed)
    while not state.is_over:
        for seat in state.to_move():
            state.apply(seat, state.random_move(seat, rng.random))
    return dict(state.record())


@pytest.mark.parametrize("kind", games.kinds())
def test_every_decision_is_a_legal_move_and_they_replay_the_game(kind: str) -> None:
    game = games.get(kind)
    record = random_record(kind)
    seen = 0
    last_state = None
    for entry, state, seat, move in game.replay_steps(record):
        assert seat in state.to_move()
        assert game.parse_move(move) in state.legal_moves(seat), (entry, move)
        assert entry >= 0
        last_state = state
        seen += 1
    assert seen == count_decisions(record) > 10
    assert last_state is not None and last_state.is_over
    assert last_state.scores == game.replay(record).scores


@pytest.mark.parametrize("kind", games.kinds())
def test_the_same_decision_judged_twice_gives_the_same_figures(kind: str) -> None:
    record = random_record(kind)
    params = AnalysisParams(iterations=20)
    first = list(decisions(record, 0, 3))
    again = list(decisions(record, 0, 3))
    for a, b in zip(first, again, strict=True):
        one, two = judge(a, "g", params), judge(b, "g", params)
        assert one == two
        assert one["loss"] >= 0
        assert one["best"] != one["move"] or one["loss"] == 0
    # Labels by loss against the thresholds (points).
    assert label(0.0, {"good": 1, "inaccuracy": 2, "mistake": 3}) == "best"
    assert label(2.5, {"good": 1, "inaccuracy": 2, "mistake": 3}) == "mistake"
    assert label(9.0, {"good": 1, "inaccuracy": 2, "mistake": 3}) == "blunder"


def test_hidden_tiles_never_reach_the_figures() -> None:
    record = random_record("metro")
    other = {**record, "deck": record["deck"][:-20] + record["deck"][-20:][::-1]}
    assert other["deck"] != record["deck"]
    params = AnalysisParams(iterations=30)
    for a, b in zip(decisions(record, 0, 3), decisions(other, 0, 3), strict=True):
        assert a.view == b.view
        assert judge(a, "g", params) == judge(b, "g", params)
