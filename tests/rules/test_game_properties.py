"""Laws that hold in every game of every variant and player count (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.metro.chance import MetroWorlds, world_from_view
from games.metro.moves import DRAW, MetroMove
from games.metro.position import OPEN
from games.metro.routes import points, trace
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES

METRO = games.get("metro")

rules_strategy = st.builds(
    MetroRules,
    players=st.integers(2, 6),
    rotation=st.booleans(),
    hand_size=st.integers(1, 3),
    online=st.booleans(),
)
seeds = st.integers(0, 2**32 - 1)


def random_game(rules: MetroRules, seed: int, each_turn=None) -> MetroState:  # type: ignore[no-untyped-def]
    """Play uniformly random legal moves to the end, calling `each_turn(state)` before each."""
    state = METRO.new_state(rules.to_dict(), seed)
    rng = random.Random(seed ^ 0x5EED)
    while not state.is_over:
        if each_turn is not None:
            each_turn(state)
        state.apply_code(rng.choice(state.legal_codes()))
    return state


def advanced(rules: MetroRules, seed: int, stop: int) -> tuple[MetroState, random.Random]:
    """The game after up to `stop` random moves (fewer if it ends), and the generator used."""
    state = METRO.new_state(rules.to_dict(), seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if state.is_over:
            break
        state.apply_code(rng.choice(state.legal_codes()))
    return state, rng


def routes_consistent(state: MetroState) -> None:
    """The incremental route bookkeeping equals a trace from scratch; scores are sums."""
    totals = [0] * state.rules.players
    for station in range(1, 33):
        path, end = trace(state.board, station)
        assert len(path) == state.lengths[station] or end == "open"
        assert ("open", "edge", "centre")[state.ends[station]] == end
        owner = state.owner[station]
        if owner >= 0:
            totals[owner] += points(path, end)
    assert totals == state.scores


@settings(max_examples=60, deadline=None)
@given(rules_strategy, seeds)
def test_every_tile_always_has_a_legal_placement(rules: MetroRules, seed: int) -> None:
    def check(state: MetroState) -> None:
        for tile in range(len(CODES)):
            assert any(mask for _, mask in state.placements_for(tile)), CODES[tile]
        assert state.legal_codes()

    random_game(rules, seed, check)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.booleans(), st.integers(1, 3), seeds)
def test_full_classic_game_places_60_tiles_and_completes_every_route(
    players: int, rotation: bool, hand_size: int, seed: int
) -> None:
    state = random_game(MetroRules(players, rotation, hand_size, online=False), seed)
    assert state.placed == 60
    assert len(state.history_entries()) == 60
    assert all(state.ends[s] != OPEN for s in range(1, 33))
    assert state.deck_count == 0 and not any(state.hands)
    routes_consistent(state)


@settings(max_examples=40, deadline=None)
@given(rules_strategy, seeds)
def test_scores_are_sums_of_complete_routes_at_every_turn(rules: MetroRules, seed: int) -> None:
    state = random_game(rules, seed, routes_consistent)
    routes_consistent(state)
    if rules.online:
        assert state.placed == 60 or all(state.out)


@settings(max_examples=40, deadline=None)
@given(rules_strategy, seeds)
def test_export_import_replay_reproduces_the_scores(rules: MetroRules, seed: int) -> None:
    state = random_game(rules, seed)
    record = json.loads(json.dumps(state.record()))
    assert record["format"] == "metro-record/1"
    replayed = METRO.replay(record)
    assert replayed.scores == state.scores == record["scores"]
    assert replayed.board == state.board
    assert replayed.is_over
    assert replayed.record() == state.record()


@settings(max_examples=40, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 80))
def test_state_serialisation_round_trips_mid_game(rules: MetroRules, seed: int, stop: int) -> None:
    state, _ = advanced(rules, seed, stop)
    data = json.loads(json.dumps(state.to_dict()))
    restored = METRO.state_from_dict(data)
    assert restored.to_dict() == state.to_dict()
    assert restored.legal_codes() == state.legal_codes()
    assert restored.scores == state.scores and restored.frontier == state.frontier


def hidden_reshuffled(state: MetroState, seat: int, rng: random.Random) -> MetroState:
    """The same position with everything `seat` cannot see dealt differently."""
    other = state.copy()
    hidden = list(other.deck[other.deck_pos :])
    for s, hand in enumerate(other.hands):
        if s != seat:
            hidden.extend(hand)
    if other.drawn >= 0 and other.seat != seat:
        hidden.append(other.drawn)
    rng.shuffle(hidden)
    for s, hand in enumerate(other.hands):
        if s != seat:
            other.hands[s] = tuple(hidden.pop() for _ in hand)
    if other.drawn >= 0 and other.seat != seat:
        other.drawn = hidden.pop()
    other.deck = other.deck[: other.deck_pos] + hidden
    return other


@settings(max_examples=40, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 60))
def test_a_view_shows_nothing_the_seat_may_not_see(rules: MetroRules, seed: int, stop: int) -> None:
    state, rng = advanced(rules, seed, stop)
    for seat in [None, *range(rules.players)]:
        view = state.view(seat)
        other = hidden_reshuffled(state, -1 if seat is None else seat, rng)
        # Everything the seat may not see was dealt anew, yet its view is the same.
        assert other.view(seat) == view
        if seat is not None:
            assert view["hand"] == [CODES[t] for t in state.hands[seat]]
        else:
            assert view["hand"] == [] and view["drawn"] is None
        text = json.dumps(view)
        assert "deck0" not in text and '"deck"' not in text
    if state.drawn >= 0:
        assert state.view(state.seat)["drawn"] == CODES[state.drawn]
        for seat in range(rules.players):
            if seat != state.seat:
                assert state.view(seat)["drawn"] is None


@settings(max_examples=40, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 60))
def test_copy_then_apply_leaves_the_original_untouched(
    rules: MetroRules, seed: int, stop: int
) -> None:
    state = METRO.new_state(rules.to_dict(), seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if state.is_over:
            return
        before = json.dumps(state.to_dict())
        child = state.copy()
        for _ in range(5):
            if child.is_over:
                break
            child.apply_code(rng.choice(child.legal_codes()))
        assert json.dumps(state.to_dict()) == before
        state.apply_code(rng.choice(state.legal_codes()))


@settings(max_examples=30, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 50))
def test_every_legal_move_passes_the_checked_door(rules: MetroRules, seed: int, stop: int) -> None:
    state = METRO.new_state(rules.to_dict(), seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if state.is_over:
            return
        (seat,) = state.to_move()
        for move in state.legal_moves(seat):
            state.copy().play(seat, move.to_json())
        others = [s for s in range(rules.players) if s != seat]
        assert all(state.legal_moves(s) == [] for s in others)
        state.apply_code(rng.choice(state.legal_codes()))


@settings(max_examples=30, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 50))
def test_sampled_worlds_agree_with_the_view(rules: MetroRules, seed: int, stop: int) -> None:
    state, rng = advanced(rules, seed, stop)
    if state.is_over:
        return
    seat = state.seat
    view = state.view(seat)
    world = world_from_view(view, seat, rng)
    assert world.scores == state.scores
    assert world.legal_codes() == state.legal_codes()
    assert world.deck_count == state.deck_count
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
    mine = world.view(seat)
    for key in ("board", "hand", "drawn", "routes", "unseen", "turn", "deck_count", "seats"):
        assert mine[key] == view[key], key
    assert DRAW not in world.legal_codes() or world.deck_count > 0


@settings(max_examples=30, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 50))
def test_sampled_worlds_keep_the_seats_view_and_the_tiles(
    rules: MetroRules, seed: int, stop: int
) -> None:
    state, rng = advanced(rules, seed, stop)
    for seat in range(rules.players):
        world = MetroWorlds(state.view(seat), seat).sample(rng)
        assert world.view(seat) == state.view(seat)

        def tiles(s: MetroState) -> list[int]:
            held = [t for h in s.hands for t in h] + s.deck[s.deck_pos :]
            return sorted(held + ([s.drawn] if s.drawn >= 0 else []))

        assert tiles(world) == tiles(state)
        assert world.legal_codes() == state.legal_codes() or seat != state.seat


@settings(max_examples=30, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 50))
def test_draw_outcomes_are_the_seats_unseen_tiles(rules: MetroRules, seed: int, stop: int) -> None:
    state, _ = advanced(rules, seed, stop)
    for seat in range(rules.players):
        outcomes = state.chance_outcomes(seat)
        if state.deck_count == 0:
            assert outcomes == []
            continue
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
        counts = state.view(seat)["unseen"]
        assert [c for c, _ in outcomes] == sorted(counts)
        # The real top of the deck is always among the outcomes the seat considers possible.
        assert CODES[state.deck[state.deck_pos]] in dict(outcomes)


@settings(max_examples=30, deadline=None)
@given(rules_strategy, seeds, st.integers(0, 50))
def test_forcing_a_chance_outcome_draws_it_and_keeps_the_view(
    rules: MetroRules, seed: int, stop: int
) -> None:
    state, rng = advanced(rules, seed, stop)
    if state.is_over or state.drawn >= 0 or state.deck_count == 0:
        return
    (seat,) = state.to_move()
    outcomes = state.chance_outcomes(seat)
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    for code, _ in outcomes:
        world = MetroWorlds(state.view(seat), seat).sample(rng)
        world.force_chance(code)
        assert world.view(seat) == state.view(seat)
        world.apply(seat, MetroMove.parse({"action": "draw"}))
        assert CODES[world.drawn] == code
