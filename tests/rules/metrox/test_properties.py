"""Hypothesis properties of Metro X over random games (RULES-METROX.md §2-§7)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.metrox import GAME
from games.metrox.cards import DECK
from games.metrox.state import MetroXState
from tests.rules.metrox.helpers import reference_scores

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
games_st = st.tuples(
    st.integers(1, 5), st.sampled_from(["lakeside", "kessel"]), st.integers(0, 2**32)
)


def play_out(players: int, map_id: str, seed: int, check_each_turn: bool = True) -> MetroXState:
    s = MetroXState.new({"players": players, "map": map_id}, seed)
    rng = random.Random(seed)
    before = list(s.filled)
    while not s.is_over:
        seats = list(s.to_move())
        rng.shuffle(seats)  # seats choose in any order
        for p in seats:
            s.apply(p, s.random_move(p, rng.random))
        if check_each_turn:
            used = {sum(len(w) for w in ws) for ws in s.wins}
            assert len(used) == 1  # every sheet has as many empty windows
            assert used == {s.m.total_windows - s.windows_left}
            for p in range(players):
                assert before[p] & ~s.filled[p] == 0  # a filled station never empties
            before = list(s.filled)
            assert s.scores == reference_scores(s)
    return s


@SETTINGS
@given(games_st)
def test_random_games_agree_with_the_reference(args: tuple[int, str, int]) -> None:
    s = play_out(*args)
    assert s.outcome() is not None


@SETTINGS
@given(games_st)
def test_export_json_replay(args: tuple[int, str, int]) -> None:
    s = play_out(*args, check_each_turn=False)
    rec = json.loads(json.dumps(s.record()))
    again = GAME.replay(rec)
    assert again.record() == rec and again.scores == s.scores


def _midgame(players: int, map_id: str, seed: int, steps: int) -> MetroXState:
    s = MetroXState.new({"players": players, "map": map_id}, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_over:
            break
        p = rng.choice(s.to_move())
        s.apply(p, s.random_move(p, rng.random))
    return s


@SETTINGS
@given(games_st, st.integers(0, 120), st.randoms(use_true_random=False))
def test_views_hide_choices_and_deck(
    args: tuple[int, str, int], steps: int, rnd: random.Random
) -> None:
    s = _midgame(*args, steps)
    other = s.copy()
    rest = other.deck[other.pos + 1 :]
    rnd.shuffle(rest)
    other.deck[other.pos + 1 :] = rest
    other.source = "elsewhere"
    for p in range(s.n):
        if other.pending[p] is not None:
            moves = other.legal_moves(p)
            other.pending[p] = rnd.choice(moves)
    for seat in [None, *range(s.n)]:
        if seat is not None:
            twin = other.copy()
            twin.pending[seat] = s.pending[seat]
            assert s.view(seat) == twin.view(seat)
        else:
            assert s.view(None) == other.view(None)
    text = json.dumps(s.view(None))
    assert "source" not in text and "seed:" not in text


@SETTINGS
@given(games_st, st.integers(0, 120))
def test_to_dict_round_trip_and_copies(args: tuple[int, str, int], steps: int) -> None:
    s = _midgame(*args, steps)
    data = json.loads(json.dumps(s.to_dict()))
    back = GAME.state_from_dict(data)
    assert back.to_dict() == data
    assert back.view(0) == s.view(0) and back.scores == s.scores
    assert back.to_move() == s.to_move() and back.turn_number == s.turn_number
    snapshot = s.to_dict()
    for seat in s.to_move() or range(s.n):
        for move in s.legal_moves(seat):
            c = s.copy()
            c.play(seat, move.to_json())  # every legal move passes the checked door
            c2 = s.copy()
            c2.apply(seat, move)
            assert c2.to_dict() == c.to_dict()
    assert s.to_dict() == snapshot  # copy-then-apply left the original untouched
    if not s.is_over:
        # both continue identically
        rng1, rng2 = random.Random(1), random.Random(1)
        for _ in range(30):
            if s.is_over:
                break
            p = s.to_move()[0]
            s.apply(p, s.random_move(p, rng1.random))
            back.apply(p, back.random_move(p, rng2.random))
        assert back.to_dict() == s.to_dict()


@SETTINGS
@given(games_st, st.integers(0, 120))
def test_chance_outcomes_are_a_distribution(args: tuple[int, str, int], steps: int) -> None:
    s = _midgame(*args, steps)
    out = s.chance_outcomes(0)
    if s.is_over:
        assert out == []
        return
    assert abs(sum(p for _, p in out) - 1) < 1e-9
    assert {c for c, _ in out} <= set(DECK)
