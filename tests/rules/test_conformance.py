"""One conformance suite for every registered game (games.registry): what games.base promises.

Each game is played along seeded random games; at every position the protocol's promises are
checked: a copy is independent, the stored form and the record replay to the same position, every
legal move passes the checked door and does what the fast door does, and a view holds nothing the
seat may not see (every world sampled from it looks the same to that seat).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import games
from games.base import Game, GameState
from games.errors import GameError, IllegalMoveError, RulesError

KINDS = games.kinds()
SEEDS = (11, 12)


def rules_for(game: Game, seed: int) -> dict[str, Any]:
    """Seeded options within the game's range (a few seats, so that games stay short)."""
    low, high = game.players
    players = random.Random(seed).randint(max(low, 2), min(high, 4))
    return game.normalise_rules({"players": players})


def positions(game: Game, seed: int, every: int) -> list[GameState]:
    """Copies of the positions along a seeded random game, every `every` moves, and its end."""
    state = game.new_state(rules_for(game, seed), seed)
    rng = random.Random(seed)
    out = []
    moves = 0
    while not state.is_over:
        if moves % every == 0:
            out.append(state.copy())
        seat = state.to_move()[rng.randrange(len(state.to_move()))]
        state.apply(seat, state.random_move(seat, rng.random))
        moves += 1
    out.append(state)
    return out


def all_views(state: GameState) -> list[Any]:
    return [state.view(s) for s in range(state.seat_count)] + [state.view(None)]


@pytest.mark.parametrize("kind", KINDS)
def test_the_game_is_registered_with_its_shape(kind: str) -> None:
    game = games.get(kind)
    assert game.kind == kind and games.registry.get(kind) is game
    state = game.new_state(game.normalise_rules(None), 1)
    assert type(state).game is game  # the state's view() and record() ask its own game
    assert state.view(0) == game.view(state, 0)
    assert state.record() == game.record(state)


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_option_is_named_by_its_field(kind: str) -> None:
    game = games.get(kind)
    for rules, field in (
        ({"players": game.players[1] + 1}, "rules.players"),
        ({"players": "2"}, "rules.players"),
        ({"colour": "red"}, "rules.colour"),
        ([1], "rules"),
    ):
        with pytest.raises(RulesError) as err:
            game.normalise_rules(rules)  # type: ignore[arg-type]
        assert err.value.field == field, (rules, err.value.field)


@pytest.mark.parametrize("kind", KINDS)
def test_a_view_for_a_seat_not_in_the_game_is_refused(kind: str) -> None:
    game = games.get(kind)
    state = game.new_state(game.normalise_rules(None), 1)
    for seat in (-1, state.seat_count, "0", 1.0, True):
        with pytest.raises(ValueError):
            state.view(seat)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_copy_is_independent(kind: str, seed: int) -> None:
    game = games.get(kind)
    for state in positions(game, seed, 7)[:-1]:
        before = all_views(state)
        twin = state.copy()
        rng = random.Random(seed)
        for _ in range(5):
            if twin.is_over:
                break
            seat = twin.to_move()[0]
            twin.apply(seat, twin.random_move(seat, rng.random))
        assert all_views(state) == before


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_stored_form_round_trips(kind: str, seed: int) -> None:
    game = games.get(kind)
    for state in positions(game, seed, 9):
        data = json.loads(json.dumps(state.to_dict()))  # JSON-safe, as the engine stores it
        back = game.state_from_dict(data)
        assert all_views(back) == all_views(state)
        assert back.to_dict() == state.to_dict()
        assert [back.legal_moves(s) for s in back.to_move()] == [
            state.legal_moves(s) for s in state.to_move()
        ]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_record_replays_to_the_same_game(kind: str, seed: int) -> None:
    game = games.get(kind)
    state = positions(game, seed, 10**9)[-1]
    record = json.loads(json.dumps(state.record()))
    replayed = game.replay(record)
    assert replayed.is_over
    assert replayed.scores == state.scores
    assert replayed.outcome() == state.outcome()
    assert all_views(replayed) == all_views(state)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_legal_move_passes_the_checked_door_as_the_fast_door_applies_it(
    kind: str, seed: int
) -> None:
    game = games.get(kind)
    rng = random.Random(seed)
    for state in positions(game, seed, 11)[:-1]:
        for seat in state.to_move():
            legal = state.legal_moves(seat)
            # Up to 12 of them, seeded (an Underground turn offers a hundred rails or more).
            for move in rng.sample(legal, min(12, len(legal))):
                body = json.loads(json.dumps(move.to_json()))
                assert game.parse_move(body) == move  # the API's JSON reads back as the move
                fast, checked = state.copy(), state.copy()
                fast.apply(seat, move)
                event = checked.play(seat, body)
                json.dumps(event)
                assert event["seat"] == seat
                assert all_views(checked) == all_views(fast)
                assert checked.turn_number >= state.turn_number


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_that_may_not_move_is_refused_and_nothing_changes(kind: str) -> None:
    game = games.get(kind)
    for state in positions(game, 3, 13):
        # (A seat of an open simultaneous turn that has chosen may still choose again.)
        waiting = [s for s in range(state.seat_count) if not state.legal_moves(s)]
        for seat in waiting:
            others = [m for s in state.to_move() for m in state.legal_moves(s)]
            if not others:
                continue
            before = state.to_dict()
            with pytest.raises(IllegalMoveError):
                state.play(seat, others[0].to_json())
            assert state.to_dict() == before
        if state.is_over:
            with pytest.raises(GameError):
                state.play(0, {})


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_views_hide_what_they_must(kind: str, seed: int) -> None:
    """Every world sampled from a seat's view (its hidden things dealt anew) shows that seat the
    same view: so the view cannot tell the worlds apart, and holds nothing hidden from it. And
    the worlds do differ where the seat cannot see: two samples are not all one world."""
    game = games.get(kind)
    for state in positions(game, seed, 8)[:-1]:
        for seat in state.to_move():
            view = state.view(seat)
            sampler = game.world_sampler(json.loads(json.dumps(view)), seat)
            rng = random.Random(seed)
            worlds = [sampler.sample(rng) for _ in range(4)]
            for world in worlds:
                assert world.view(seat) == view
            spectator = state.view(None)
            for world in worlds:
                assert world.view(None) == spectator
