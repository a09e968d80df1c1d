"""One parser per move type: the game's `parse_move` and the state's `play` read a step alike.

They once had a parser each, and the game's skipped the station-id and duplicate-line checks
that the state's made; now both call moves.parse_step. Every body below goes through both real
doors: a body one door cannot read, the other refuses with the same error and field; a body
one door reads, the other reads as the same step (and `play` then judges only its legality).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.errors import IllegalMoveError, InvalidMoveError
from games.underground import GAME
from games.underground.moves import Leg, Rail
from games.underground.position import ROUTE
from games.underground.rules import UndergroundRules
from games.underground.state import UndergroundState

BODIES: list[Any] = [
    {"step": "stop"},
    {"step": "rail", "colour": "red", "a": "baker_street", "b": "bond_street"},
    {"step": "rail", "colour": "red", "a": "bond_street", "b": "baker_street"},
    {"step": "rail", "colour": "red", "a": "nowhere", "b": "bond_street"},
    {"step": "rail", "colour": "red", "a": "baker_street", "b": "nowhere"},
    {"step": "rail", "colour": "red", "a": 7, "b": "bond_street"},
    {"step": "rail", "colour": "mauve", "a": "baker_street", "b": "bond_street"},
    {"step": "rail", "colour": "red"},
    {"step": "route", "to": "bond_street", "lines": ["red"]},
    {"step": "route", "to": "bond_street", "lines": ["red", "blue"]},
    {"step": "route", "to": "bond_street", "lines": ["blue", "red"]},
    {"step": "route", "to": "bond_street", "lines": ["red", "red"]},
    {"step": "route", "to": "bond_street", "lines": ["mauve"]},
    {"step": "route", "to": "bond_street", "lines": "red"},
    {"step": "route", "to": "bond_street"},
    {"step": "route", "to": "nowhere", "lines": []},
    {"step": "route", "to": None, "lines": []},
    {"step": "jump"},
    {"step": None},
]


def fresh() -> UndergroundState:
    return UndergroundState.new(UndergroundRules(players=2), 5)


def refusal(err: InvalidMoveError) -> tuple[str, str]:
    return str(err), err.field


@pytest.mark.parametrize("body", BODIES, ids=[str(b) for b in BODIES])
def test_both_doors_read_a_step_alike(body: Any) -> None:
    state = fresh()
    try:
        parsed = GAME.parse_move(body)
    except InvalidMoveError as err:
        with pytest.raises(InvalidMoveError) as played:
            state.play(0, body)
        assert refusal(played.value) == refusal(err)
        return
    # Read: `play` reads it too, and at most refuses it as illegal now, never as malformed.
    before = state.to_dict()
    try:
        state.play(0, body)
    except IllegalMoveError:
        assert state.to_dict() == before
        assert parsed not in fresh().legal_moves(0)
    else:  # ...as the step the game's door read: the fast door applies it alike
        fast = fresh()
        fast.apply(0, parsed)
        assert state.to_dict() == fast.to_dict()


def test_the_game_door_checks_station_ids_and_repeated_lines_now() -> None:
    """What only the state's parser refused before."""
    for body, field in (
        ({"step": "rail", "colour": "red", "a": "nowhere", "b": "bond_street"}, "step"),
        ({"step": "route", "to": "nowhere", "lines": []}, "step"),
        ({"step": "route", "to": "bond_street", "lines": ["red", "red"]}, "step"),
    ):
        with pytest.raises(InvalidMoveError) as err:
            GAME.parse_move(body)
        assert err.value.field == field


def test_parsed_steps_are_the_fast_doors_values() -> None:
    assert GAME.parse_move(BODIES[2]) == Rail("red", "baker_street", "bond_street")
    assert GAME.parse_move(BODIES[10]) == Leg("bond_street", ("red", "blue"))
    state = fresh()
    for move in state.legal_moves(0):
        assert GAME.parse_move(move.to_json()) == move


def test_a_whole_turn_reads_its_rails_and_legs_with_the_same_parser() -> None:
    state = fresh()
    for rail, message in (
        ({"colour": "red", "a": "nowhere", "b": "bond_street"}, "unknown station 'nowhere'"),
        ({"colour": "mauve", "a": "baker_street", "b": "bond_street"}, "unknown colour 'mauve'"),
    ):
        with pytest.raises(InvalidMoveError) as err:
            state.play(0, {"rails": [rail]})
        assert (str(err.value), err.value.field) == (message, "rails")
    with pytest.raises(InvalidMoveError) as err:
        state.play(0, {"rails": [], "route": [{"to": "bond_street", "lines": ["red", "red"]}]})
    assert (str(err.value), err.value.field) == ("'lines' names a colour twice", "route")


def tied_choice() -> UndergroundState:
    """A seeded game played by random steps up to the first tied choice of the passenger."""
    for seed in range(60):
        state = UndergroundState.new(UndergroundRules(players=2), seed)
        rng = random.Random(seed)
        while not state.is_over:
            if state.phase == ROUTE:
                return state
            moves = state.legal_moves(state.seat)
            state.play(state.seat, moves[rng.randrange(len(moves))].to_json())
    raise AssertionError("no tied choice in 60 seeded games")


def test_route_steps_agree_when_the_passenger_waits_for_a_choice() -> None:
    """At a tied choice, every way the view offers reads back through both doors."""
    state = tied_choice()
    seat = state.seat
    ways = state.view(seat)["turn"]["ways"]
    assert len(ways) > 1
    for way in ways:
        body = {"step": "route", **way}
        move = GAME.parse_move(body)
        assert move in state.legal_moves(seat)
        checked, fast = state.copy(), state.copy()
        checked.play(seat, body)
        fast.apply(seat, move)
        assert checked.to_dict() == fast.to_dict()
