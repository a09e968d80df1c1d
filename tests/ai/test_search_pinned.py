"""A seeded search at a fixed iteration count gives exactly these answers (the move chosen, the
visits of the first candidates, the value): speed work on the rules core or the search (issue 34
item 4: the Underground passenger's routes are cached) must not change what the search does."""

from __future__ import annotations

import random

import pytest

import games
from services.ai.players import InfoSet
from services.ai.players.levels import level_for

# Recorded before the passenger's routes were cached (commit 5ac80bd), on mcts-150, seed 5.
PINNED = {
    "underground": (
        {"step": "rail", "colour": "red", "a": "lambeth_north", "b": "waterloo"},
        [116, 8, 7, 4, 4, 3],
        2.1802,
    ),
    "metro": ({"action": "place", "placement": "dacc20"}, [98, 21, 12, 5, 4, 4], -5.4694),
    "metrox": ({"line": "E"}, [125, 11, 7, 2, 1, 1], 2.3072),
}


def position(kind: str) -> InfoSet:
    """Seat to move's information set after 9 seeded random moves (and on to a real choice)."""
    game = games.get(kind)
    state = game.new_state(game.normalise_rules({"players": 2}), 11)
    rng = random.Random(11)
    for _ in range(9):
        for seat in state.to_move():
            state.apply(seat, state.random_move(seat, rng.random))
    seat = state.to_move()[0]
    while len(state.legal_moves(seat)) < 5:
        state.apply(seat, state.random_move(seat, rng.random))
        seat = state.to_move()[0]
    return InfoSet.from_state(state, seat)


@pytest.mark.parametrize("kind", sorted(PINNED))
def test_a_seeded_search_gives_the_pinned_answer(kind: str) -> None:
    result = level_for("mcts-150").make().search(position(kind), 5, None)
    move, visits, value = PINNED[kind]
    assert result.iterations == 150
    assert result.moves[0].move.to_json() == move
    assert [m.visits for m in result.moves[:6]] == visits
    assert round(result.moves[0].value, 4) == value
