"""Metro's move values and the one "which moves are legal" helper behind listing and random play."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import games
from games.errors import InvalidMoveError
from games.metro.moves import DRAW, MOVES, MetroMove
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import INDEX, ROTATIONS, TILE_SET

METRO = games.get("metro")


def test_every_move_round_trips_through_its_json_to_the_same_object() -> None:
    for move in MOVES:
        text = move.to_json()
        assert METRO.parse_move(text) is move
        assert eval(repr(move), {"MetroMove": MetroMove}) is move  # repr is runnable code


def test_parse_names_the_bad_field() -> None:
    with pytest.raises(InvalidMoveError) as err:
        METRO.parse_move({"action": "jump"})
    assert err.value.field == "action"
    with pytest.raises(InvalidMoveError) as err:
        METRO.parse_move({"action": "place", "placement": "zzzz00"})
    assert err.value.field == "placement"
    assert MOVES[DRAW].is_draw and MOVES[DRAW].placement == ""


def _rotation_state_with_twin_tiles() -> tuple[MetroState, int]:
    """Rotation on, hand 2: two tiles that are turns of one another (same placements)."""
    base = INDEX["cbaa"]
    twin = next(t for t in ROTATIONS[base] if t != base)
    deck = [INDEX[c] for c in TILE_SET]
    deck.remove(base)
    deck.remove(twin)
    rest = deck[:]
    state = MetroState.deal(
        MetroRules(players=2, rotation=True, hand_size=2), [base, rest[0], twin, rest[1], *rest[2:]]
    )
    return state, twin


def test_twin_tiles_are_listed_once_and_drawn_uniformly() -> None:
    state, _ = _rotation_state_with_twin_tiles()
    legal = state.legal_moves(0)
    assert len(legal) == len(set(legal))
    rng = random.Random(7)
    draws = 40_000
    seen = Counter(state.random_move(0, rng.random) for _ in range(draws))
    assert set(seen) == set(legal)
    expected = draws / len(legal)
    # Uniform: every move near its share (a double-weighted shape would sit near 2x).
    assert max(seen.values()) < expected * 1.3 and min(seen.values()) > expected * 0.7
