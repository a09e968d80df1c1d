"""A game is declared, not subclassed (games.base.Game, Parts): each package's `__init__.py`
is one `register_game(Game(...))`, the base class forwards every job to the declared parts, and
the registration binds the state class to its game (no assignment after the fact)."""

from __future__ import annotations

import dataclasses
import random

import pytest

import games
from games.base import Game

KINDS = games.kinds()


@pytest.mark.parametrize("kind", KINDS)
def test_every_game_is_the_base_game_with_its_parts_declared(kind: str) -> None:
    game = games.get(kind)
    assert type(game) is Game  # nothing to subclass: the methods forward to `parts`
    parts = game.parts
    assert parts.state.game is game  # bound by register_game
    state = game.new_state(game.normalise_rules(None), 3)
    assert type(state) is parts.state and type(state).game is game
    # Each job reaches the part declared for it.
    assert game.view(state, 0) == parts.view(state, 0) == state.view(0)
    assert game.record(state) == parts.record.export(state, None) == state.record()
    assert game.state_from_dict(state.to_dict()).to_dict() == state.to_dict()
    assert game.event_actions() == dict(parts.events) and game.event_actions()
    assert game.move_schema() == parts.move_schema()
    assert game.view_schema() == parts.view_schema()
    assert game.record_codec() is parts.codec is not None
    assert (game.daily_rules(bytes(32)) is None) == (parts.daily is None)
    seat = state.to_move()[0]
    move = state.random_move(seat, random.Random(1).random)
    assert game.parse_move(move.to_json()) == move


def test_rules_given_as_json_make_the_same_state_as_parsed_rules() -> None:
    """`Game.new_state` hands every state class the API's rules (`new` parses them): the same
    game comes out as from the game's own typed options."""
    from games.metro.rules import MetroRules
    from games.metro.state import MetroState

    rules = {"players": 3, "rotation": True}
    via_game = games.get("metro").new_state(rules, 9)
    assert via_game.to_dict() == MetroState.new(MetroRules.parse(rules), 9).to_dict()


def test_registering_a_kind_or_a_state_class_twice_is_refused() -> None:
    metro = games.get("metro")
    with pytest.raises(ValueError, match="'metro' is registered already"):
        games.register_game(dataclasses.replace(metro, name="Metro again"))
    with pytest.raises(ValueError, match="MetroState belongs to 'metro' already"):
        games.register_game(dataclasses.replace(metro, kind="metro-copy"))
    assert games.kinds() == KINDS and games.get("metro") is metro
    assert metro.parts.state.game is metro
