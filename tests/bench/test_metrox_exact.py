"""The exact program of a solo Metro X deck (bench/metrox_exact.py) is the game: every legal
plan is one of its solutions with the score the rules give it, and an illegal plan is none. Its
upper bound on a deck's optimum (docs/ai.md, issue 34) holds only if both are true."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.metrox_exact import DeckProgram, bound_deck, solo_cards
from bench.metrox_planner import Planner, replay_plan
from games.metrox import maps
from games.metrox.state import MetroXState


def random_plan(map_id: str, seed: int, rng: random.Random) -> tuple[list[Any], int]:
    """A legal plan of the deck, each move drawn among the legal ones, and its score."""
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    moves = []
    while not state.over:
        move = rng.choice(state.legal_moves(0))
        moves.append(move.to_json())
        state.apply(0, move)
    return moves, state.score(0)


def planner_plan(map_id: str, seed: int) -> tuple[list[Any], int]:
    score, plan = Planner(maps.get(map_id)).plan(solo_cards(map_id, seed), 20)
    state = replay_plan(map_id, seed, plan)
    return [turn[0].to_json() for turn in state.turns], score


@pytest.mark.parametrize(("map_id", "seed"), [("lakeside", 3), ("kessel", 5), ("paris", 7)])
def test_every_legal_plan_is_a_solution_with_the_rules_score(map_id: str, seed: int) -> None:
    program = DeckProgram(maps.get(map_id), solo_cards(map_id, seed))
    rng = random.Random(seed)
    plans = [random_plan(map_id, seed, rng) for _ in range(4)]
    plans.append(planner_plan(map_id, seed))
    for moves, score in plans:
        solved = program.value_of(moves)
        assert solved is not None, moves
        assert solved[0] == score


def test_an_illegal_plan_is_no_solution() -> None:
    map_id, seed = "lakeside", 3
    program = DeckProgram(maps.get(map_id), solo_cards(map_id, seed))
    moves, _ = random_plan(map_id, seed, random.Random(1))
    free = next(t for t, mv in enumerate(moves) if "station" in mv)
    # a free card passed while stations are empty
    assert program.value_of([*moves[:free], {"pass": True}, *moves[free + 1 :]]) is None
    # a free card on a station filled already (the first station of the first line played)
    first_line = next(mv["line"] for mv in moves[:free] if "line" in mv)
    m = maps.get(map_id)
    filled = m.station_ids[m.line_stations[m.line_index[first_line]][0]]
    assert program.value_of([*moves[:free], {"station": filled}, *moves[free + 1 :]]) is None
    # a line given one card more than its windows
    lines = [t for t, mv in enumerate(moves) if "line" in mv]
    crowded = moves[lines[0]]["line"]
    others = [t for t in lines if moves[t]["line"] != crowded]
    wrong = [dict(mv) for mv in moves]
    wrong[others[0]] = {"line": crowded}
    assert program.value_of(wrong) is None
    # ... and the program still solves the real plan afterwards (fixing is undone)
    assert program.value_of(moves) is not None


def test_its_best_plan_is_legal_and_the_bound_is_above_it() -> None:
    start, start_score = planner_plan("lakeside", 107)
    row = bound_deck(("lakeside", 107, 3.0, start))  # replays its plan through the rules
    assert row["upper_bound"] >= row["score"] >= start_score
    assert len(row["plan"]) == len(solo_cards("lakeside", 107))
