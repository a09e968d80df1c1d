"""Metro X's `hard`: the sheet planner (games/metrox/plan.py) against the real rules, and the
hindsight player (services/ai/players/hindsight.py) against the information it may use."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

import games
from games.metrox.cards import INFO
from games.metrox.plan import cards_to_come, hindsight
from games.metrox.state import MetroXState
from services.ai.players import InfoSet, level_for
from services.ai.players.hindsight import HindsightPlayer
from services.ai.players.ismcts import ISMCTSPlayer


def solo(seed: int, turns: int, map_id: str = "lakeside") -> MetroXState:
    """A solo game after `turns` turns of seeded random moves."""
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    rng = random.Random(seed)
    for _ in range(turns):
        moves = state.legal_moves(0)
        state.apply(0, moves[rng.randrange(len(moves))])
    return state


@pytest.mark.parametrize("seed", [1, 7, 23])
def test_the_cards_to_come_are_the_cards_the_game_reveals(seed: int) -> None:
    for turns in (0, 9):
        state = solo(seed, turns)
        expected = cards_to_come(state)
        rng = random.Random(seed + turns)
        seen = [state.card]
        while True:
            moves = state.legal_moves(0)
            state.apply(0, moves[rng.randrange(len(moves))])
            if state.over:
                break
            seen.append(state.card)
        assert seen == expected


def exact_best(state: MetroXState) -> float:
    """The best final score from `state` with its deck known, by trying every move."""
    if state.over:
        return float(state.score(0))
    best = float("-inf")
    for move in state.legal_moves(0):
        after = state.copy()
        after.apply(0, move)
        best = max(best, exact_best(after))
    return best


@pytest.mark.parametrize("seed", [2, 5, 11, 19])
def test_the_planner_finds_the_exact_best_of_every_move_near_the_end(seed: int) -> None:
    """Three windows left: a beam that prunes nothing must find, for every move, the best score
    the real rules give with the deck known (scores, bonuses, transfers, penalties)."""
    state = solo(seed, 0)
    rng = random.Random(seed)
    while state.windows_left > 3:
        moves = state.legal_moves(0)
        state.apply(0, moves[rng.randrange(len(moves))])
    moves = state.legal_moves(0)
    planned = hindsight(state, 0, moves, beam=100_000)
    for move, value in zip(moves, planned, strict=True):
        after = state.copy()
        after.apply(0, move)
        assert value == exact_best(after), (seed, move)


def test_every_legal_move_is_ranked_once_and_the_planned_come_first() -> None:
    state = solo(3, 0)
    while INFO[state.card][0] != 3:  # a free card: up to 47 stations, 12 planned
        moves = state.legal_moves(0)
        state.apply(0, moves[0])
    player = HindsightPlayer(3.0, "expert", ISMCTSPlayer(iterations=10), worlds=3)
    result = player.search(InfoSet.from_state(state, 0), seed=5)
    legal = state.legal_moves(0)
    assert sorted(map(str, (r.move for r in result.moves))) == sorted(map(str, legal))
    planned = [r.visits for r in result.moves]
    assert planned == sorted(planned, reverse=True) and planned[0] == 3 and planned[-1] == 0
    assert result.iterations == 3


def hidden_order_changed(state: MetroXState, seed: int) -> MetroXState:
    """The same view, another world: the deck's unrevealed rest reordered, another source."""
    other = state.copy()
    rest = other.deck[other.pos + 1 :]
    random.Random(seed).shuffle(rest)
    other.deck[other.pos + 1 :] = rest
    other.source = f"another:{seed}"
    return other


def test_the_planner_sees_only_the_view() -> None:
    """Two states that one seat's view cannot tell apart get the same answer: the future it
    plans is dealt by the sampled worlds, never read from the game."""
    state = solo(8, 4)
    other = hidden_order_changed(state, 99)
    assert state.view(0) == other.view(0) and cards_to_come(state) != cards_to_come(other)
    player = HindsightPlayer(3.0, "expert", ISMCTSPlayer(iterations=10), worlds=5)
    a = player.search(InfoSet.from_state(state, 0), seed=1)
    b = player.search(InfoSet.from_state(other, 0), seed=1)
    assert [(r.move, r.value) for r in a.moves] == [(r.move, r.value) for r in b.moves]


def test_a_table_with_other_seats_and_other_games_are_searched_by_the_tree() -> None:
    """Planning one sheet while others race it to the first bonuses lost to `medium`: with
    another seat still playing the world is not planned, and the tree search answers (so does
    it for a game without a planner); a seat left alone by retirements is planned again."""
    player = HindsightPlayer(3.0, "hard", ISMCTSPlayer(iterations=20), worlds=2)
    state = MetroXState.new({"players": 2, "map": "lakeside"}, 4)
    assert hindsight(state, 0, state.legal_moves(0), 10) is None
    turns = 0
    while not state.over and turns < 3:
        for seat in list(state.to_move()):
            result = player.search(InfoSet.from_state(state, seat), seed=turns)
            assert result.iterations == 20  # the fallback's fixed iterations
            state.apply(seat, result.best)
        turns += 1
    state.retire(1)
    assert hindsight(state, 0, state.legal_moves(0), 10) is not None
    assert player.search(InfoSet.from_state(state, 0), seed=9).iterations == 2
    metro = games.get("metro").new_state({"players": 2}, 1)
    seat = metro.to_move()[0]
    result = player.search(InfoSet.from_state(metro, seat), seed=1)
    assert result.iterations == 20 and result.best in metro.legal_moves(seat)


def test_the_hard_level_plans_in_metrox_within_its_budget() -> None:
    level = level_for("hard")
    state = solo(12, 2)
    result: Any = level.make().search(InfoSet.from_state(state, 0), seed=3, budget_s=0.2)
    assert result.iterations >= 4 and result.best in state.legal_moves(0)


def test_no_world_is_begun_that_would_end_past_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A world near the start of a game takes a fourteenth of `hard`'s budget, so one begun
    just before the deadline ended the move up to 5% late (bench/move_time.py). On a clock
    that only the planner moves (100 ms a world), a 0.75 s budget plans 7 worlds and ends at
    0.7 s (an eighth as long as the longest would end late), where starting while time was
    left began an eighth and ended at 0.8 s."""
    from services.ai.players import hindsight as module

    clock = {"now": 0.0}

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return clock["now"]

    def slow_plan(state: Any, seat: int, moves: Any, beam: int) -> Any:
        if moves:  # "is this world planned?" asks with no moves, and costs nothing
            clock["now"] += 0.1
        return hindsight(state, seat, moves, beam)

    monkeypatch.setattr(module, "time", Clock)
    state = solo(12, 2)
    info = InfoSet.from_state(state, 0)
    parts = dataclasses.replace(info.game.parts, hindsight=slow_plan)
    info = dataclasses.replace(info, game=dataclasses.replace(info.game, parts=parts))
    player = HindsightPlayer(0.75, "hard", ISMCTSPlayer(iterations=10))
    result = player.search(info, seed=3)
    assert result.iterations == 7  # worlds planned
    assert result.elapsed_s == pytest.approx(0.7)
