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
from services.ai.analysis import (
    AnalysisParams,
    count_decisions,
    decisions,
    judge,
    label,
    move_budget_s,
)


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


class _Clock:
    """A clock that moves on by `step` seconds each time it is read: how many iterations a
    budget allows is then fixed by the code, not by how loaded the machine is."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_decisions_search_stops_at_its_time_budget() -> None:
    """Each decision's search stops once its share of the game's budget is spent (but never
    below min_iterations): an Underground game's analysis is bounded by its budget."""
    record = random_record("underground")
    found = [d for d in decisions(record) if d.index < 40]
    params = AnalysisParams(iterations=800, min_iterations=10)
    searched = 0
    for d in found[:12]:
        # The clock is read once per iteration past the floor, 0.05 s each: a 1 s share is
        # spent 20 reads after the floor (10), so the search stops at 29 of its 800 iterations.
        one = judge(d, "g", params, budget_s=1.0, clock=_Clock(0.05))
        if one["choices"] > 1:
            searched += 1
            assert one["iterations"] == 29, one
        else:
            assert one["iterations"] == 0  # a forced decision searches nothing
        # A spent budget: exactly the floor.
        assert judge(d, "g", params, budget_s=0.0, clock=_Clock(1))["iterations"] in (0, 10)
    assert searched >= 3
    # No budget: the fixed count, and the same figures as with a budget never reached.
    d = next(d for d in found if judge(d, "g", AnalysisParams(iterations=30))["choices"] > 1)
    fixed = judge(d, "g", AnalysisParams(iterations=30))
    assert fixed["iterations"] == 30
    assert judge(d, "g", AnalysisParams(iterations=30), budget_s=1e9) == fixed
    assert move_budget_s(40.0, 8) == 5.0 and move_budget_s(-1.0, 3) == 0.0
