"""The search's fast paths (issue 34 item 4) do exactly what the plain protocol calls do: a game's
`random_turns` plays the moves that `random_move` + `apply` would from the same random draws, to
the same state; Metro's remembered `legal_moves` and `random_code` agree with `legal_codes`;
Metro X's `random_move` indexes its legal moves, and a free card's remembered moves are the empty
stations; `nth_square` is `squares_of(...)[k]`; Metro X's remembered window effects are the
rules' own."""

from __future__ import annotations

import random
from typing import Any

import pytest

import games
from games.metro.moves import MOVES
from games.metro.placement import nth_square, squares_of
from games.metro.state import MetroState
from games.metrox.cards import FREE, INFO, NUMBER, SKIP, TRANSFER
from games.metrox.maps import shipped
from games.metrox.moves import PASS
from games.metrox.position import window_effect
from services.ai.players.ismcts import protocol_turns

VARIANTS = [
    ("metro", {"players": 2}),
    ("metro", {"players": 3, "rotation": True}),
    ("metro", {"players": 4, "online": True}),
    ("metro", {"players": 2, "hand_size": 3}),
    ("metro", {"players": 5, "hand_size": 2, "rotation": True, "online": True}),
    ("metrox", {"players": 1}),
    ("metrox", {"players": 2}),
    ("metrox", {"players": 4}),
    ("metrox", {"players": 12}),
]


def _states(kind: str, rules: dict[str, Any], count: int) -> list[Any]:
    """Seeded games stopped at many points, retirements among them."""
    game = games.get(kind)
    out = []
    for seed in range(count):
        state = game.new_state(game.normalise_rules(rules), 300 + seed)
        rng = random.Random(seed)
        for step in range(seed * 7 % 61):
            if state.is_over:
                break
            if seed % 5 == 4 and step == 6 and state.seat_count > 2:
                state.retire(1)
                continue
            for seat in state.to_move():
                state.apply(seat, state.random_move(seat, rng.random))
        out.append(state)
    return out


@pytest.mark.parametrize(("kind", "rules"), VARIANTS)
def test_random_turns_play_the_protocol_turns(kind: str, rules: dict[str, Any]) -> None:
    for state in _states(kind, rules, 40):
        for turns in (1, 8, 30):
            fast, plain = state.copy(), state.copy()
            a, b = random.Random(turns), random.Random(turns)
            fast.random_turns(turns, 4 * turns, a.random)
            protocol_turns(plain, turns, 4 * turns, b.random)
            assert fast.to_dict() == plain.to_dict()
            assert a.random() == b.random()  # as many draws


@pytest.mark.parametrize(("kind", "rules"), [v for v in VARIANTS if v[0] == "metro"])
def test_metro_moves_agree_with_the_codes(kind: str, rules: dict[str, Any]) -> None:
    for state in _states(kind, rules, 40):
        assert isinstance(state, MetroState)
        if state.is_over:
            continue
        codes = state.legal_codes()
        for _ in range(2):  # the second time from the remembered placements
            assert [m.code for m in state.legal_moves(state.seat)] == codes
        for x in (0.0, 0.3, 0.7, 0.999999):
            assert state.random_code(lambda x=x: x) == codes[int(x * len(codes))]


@pytest.mark.parametrize(("kind", "rules"), [v for v in VARIANTS if v[0] == "metrox"])
def test_metrox_random_move_indexes_the_legal_moves(kind: str, rules: dict[str, Any]) -> None:
    for state in _states(kind, rules, 40):
        for seat in range(state.seat_count):
            moves = state.legal_moves(seat)
            if not moves:
                continue
            for x in (0.0, 0.3, 0.7, 0.999999):
                assert state.random_move(seat, lambda x=x: x) == moves[int(x * len(moves))]


def test_metrox_free_card_moves_are_the_empty_stations() -> None:
    seen = 0
    for state in _states("metrox", {"players": 3}, 60):
        if state.is_over or INFO[state.card][0] != FREE:
            continue
        for seat in range(state.seat_count):
            if seat in state.retired:
                continue
            stations = state.mv.stations
            empty = [st for i, st in enumerate(stations) if not state.filled[seat] >> i & 1]
            for _ in range(2):  # the second time remembered
                assert state.legal_moves(seat) == (empty or [PASS])
            seen += 1
    assert seen


def test_nth_square_is_the_kth_square() -> None:
    rng = random.Random(4)
    for _ in range(2000):
        mask = rng.getrandbits(64) & rng.getrandbits(64)
        squares = squares_of(mask)
        assert [nth_square(mask, k) for k in range(len(squares))] == squares
    assert [m.code for m in MOVES[:3]] == [0, 1, 2]


def _window_effect_walk(m: Any, li: int, f: int, kind: int, num: int) -> tuple[int, int, int]:
    """RULES-METROX.md §3 walked station by station (the loop `_resolve` ran before)."""
    bits, sl = m.line_bits[li], m.line_slines[li]
    i, fill, touched = 0, 0, 0
    while i < len(bits) and f & bits[i]:
        i += 1
    if i == len(bits):
        return 0, 0, -1
    if kind == TRANSFER:
        return bits[i], sl[i], m.line_stations[li][i]
    left = num
    while i < len(bits) and left:
        if not f & bits[i]:
            fill, touched, left = fill | bits[i], touched | sl[i], left - 1
        elif kind == NUMBER:
            break  # a number card stops at a filled station
        i += 1
    return fill, touched, -1


@pytest.mark.parametrize("map_id", sorted(shipped()))
def test_window_effects_are_the_rules(map_id: str) -> None:
    m = shipped()[map_id]
    rng = random.Random(map_id)
    for _ in range(3000):
        f = rng.getrandbits(m.station_count) & rng.getrandbits(m.station_count)
        li = rng.randrange(m.line_count)
        kind, num = rng.choice([(NUMBER, n) for n in range(1, 6)] + [(SKIP, 2), (SKIP, 3)]
                               + [(TRANSFER, 0)])  # fmt: skip
        assert window_effect(m, li, f, kind, num) == _window_effect_walk(m, li, f, kind, num)
