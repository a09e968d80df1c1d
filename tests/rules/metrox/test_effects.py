"""Every card's effect (RULES-METROX.md §3), line bonuses (§4), the end and the score (§5)."""

from __future__ import annotations

import random

import pytest

from games.errors import IllegalMoveError, InvalidMoveError, NotYourTurnError
from games.metrox.cards import DECK
from games.metrox.position import penalty
from tests.rules.metrox.helpers import A, B, fill, filled, force, fresh, turn


def test_number_fills_from_the_first_empty_station() -> None:
    s = fresh()
    ev = turn(s, "3", {"line": "A"})
    assert filled(s, 0) == set(A[:3])
    assert s.view(0)["sheets"][0]["windows"]["A"] == ["3"]
    assert ev["action"] == "resolve"
    assert s.scores == [-(10 + 2 * (47 - 3 - 10))]


def test_number_starts_after_filled_stations_and_stops_at_a_filled_one() -> None:
    s = fresh()
    fill(s, 0, A[0], A[3])
    turn(s, "4", {"line": "A"})
    assert filled(s, 0) == {A[0], A[1], A[2], A[3]}


def test_number_stops_at_the_end_of_the_line() -> None:
    s = fresh()
    fill(s, 0, *A[:8])
    turn(s, "5*", {"line": "A"})
    assert filled(s, 0) == set(A)


def test_skip_jumps_over_filled_stations() -> None:
    s = fresh()
    fill(s, 0, A[1], A[3])
    turn(s, "s3", {"line": "A"})
    assert filled(s, 0) == {A[0], A[1], A[2], A[3], A[4]}
    assert s.view(0)["sheets"][0]["windows"]["A"] == ["(3)"]


def test_skip_fills_fewer_when_the_line_runs_out() -> None:
    s = fresh()
    fill(s, 0, *A[:9])
    turn(s, "s2", {"line": "A"})
    assert filled(s, 0) == set(A)


def test_transfer_writes_twice_the_degree() -> None:
    s = fresh()
    fill(s, 0, *A[:4])
    turn(s, "t", {"line": "A"})  # A[4] = s22 lies on A, B and C
    sheet = s.view(0)["sheets"][0]
    assert sheet["transfers"] == {"s22": 6}
    assert sheet["windows"]["A"] == ["*"]
    assert filled(s, 0) == set(A[:5])
    assert s.scores == [6 - (10 + 2 * (42 - 10))]


def test_transfer_on_a_degree_one_station() -> None:
    s = fresh()
    turn(s, "t", {"line": "A"})
    assert s.view(0)["sheets"][0]["transfers"] == {"s18": 2}


def test_free_fills_the_station_and_uses_no_window() -> None:
    s = fresh()
    left = s.windows_left
    turn(s, "f", {"station": "s40"})
    assert filled(s, 0) == {"s40"}
    assert s.windows_left == left
    assert all(w == [] for w in s.view(0)["sheets"][0]["windows"].values())


def test_free_refuses_a_filled_station_and_a_line() -> None:
    s = fresh()
    fill(s, 0, "s40")
    turn_card = "f"
    with pytest.raises(IllegalMoveError, match="already filled"):
        turn(s, turn_card, {"station": "s40"})
    with pytest.raises(IllegalMoveError):
        s.play(0, {"line": "A"})
    with pytest.raises(InvalidMoveError) as err:
        s.play(0, {"station": "s99"})
    assert err.value.field == "station"


def test_pass_only_when_no_station_is_empty() -> None:
    s = fresh()
    with pytest.raises(IllegalMoveError, match="pass"):
        turn(s, "f", {"pass": True})
    assert s.turn_number == 0
    fill(s, 0, *s.m.station_ids)
    assert [m.to_json() for m in s.legal_moves(0)] == [{"pass": True}]
    turn(s, "f", {"pass": True})
    assert s.turn_number == 1


def test_a_shared_station_is_filled_for_every_line() -> None:
    s = fresh()
    fill(s, 0, *[x for x in B if x != "s22"])
    fill(s, 0, *A[:4])
    ev = turn(s, "1", {"line": "A"})  # fills s22, the last empty station of B
    assert ev["completed"] == [{"seat": 0, "line": "B", "bonus": 7, "first": True}]
    assert s.view(0)["lines"][1]["completed"] == [{"seat": 0, "turn": 0, "first": True}]


def test_a_full_line_may_still_be_chosen_and_uses_the_window() -> None:
    s = fresh()
    fill(s, 0, *A)
    before = s.filled[0]
    left = s.windows_left
    assert {"line": "A"} in [m.to_json() for m in s.legal_moves(0)]
    turn(s, "4", {"line": "A"})
    assert s.filled[0] == before
    assert s.windows_left == left - 1
    assert s.view(0)["sheets"][0]["windows"]["A"] == ["4"]


def test_a_line_without_an_empty_window_is_refused() -> None:
    s = fresh()
    for code in ("1", "2", "3", "4"):
        turn(s, code, {"line": "A"})
    assert {"line": "A"} not in [m.to_json() for m in s.legal_moves(0)]
    with pytest.raises(IllegalMoveError, match="no empty window"):
        turn(s, "2", {"line": "A"})
    with pytest.raises(InvalidMoveError) as err:
        s.play(0, {"line": "Z"})
    assert err.value.field == "line"


def test_same_turn_completers_all_get_the_first_bonus_then_later() -> None:
    s = fresh(players=3)
    for p in range(3):
        fill(s, p, *A[:7])
    ev = turn(s, "3", {"line": "A"}, {"line": "A"}, {"line": "B"})
    assert ev["completed"] == [
        {"seat": 0, "line": "A", "bonus": 9, "first": True},
        {"seat": 1, "line": "A", "bonus": 9, "first": True},
    ]
    ev = turn(s, "3", {"line": "B"}, {"line": "B"}, {"line": "A"})
    assert ev["completed"] == [{"seat": 2, "line": "A", "bonus": 4, "first": False}]
    assert [sh["bonuses"] for sh in s.view(None)["sheets"]] == [
        [{"line": "A", "bonus": 9, "first": True, "turn": 0}],
        [{"line": "A", "bonus": 9, "first": True, "turn": 0}],
        [{"line": "A", "bonus": 4, "first": False, "turn": 1}],
    ]
    line_a = s.view(None)["lines"][0]
    assert line_a["first_taken"] is True
    assert [c["seat"] for c in line_a["completed"]] == [0, 1, 2]


def test_a_line_earns_a_bonus_once() -> None:
    s = fresh()
    fill(s, 0, *A[:9])
    turn(s, "1", {"line": "A"})
    turn(s, "2", {"line": "A"})
    assert s.btotal == [9]


def test_penalty_table() -> None:
    assert [penalty(e) for e in (0, 1, 9, 10, 11, 12, 20, 47)] == [0, 1, 9, 10, 12, 14, 30, 84]


def test_the_game_ends_after_the_turn_that_fills_the_last_window() -> None:
    s = fresh(players=2)
    rand = random.Random(3).random
    while s.windows_left > 1:
        for p in s.to_move():
            s.apply(p, s.random_move(p, rand))
    force(s, "f")
    turn(s, "f", *[s.legal_moves(p)[0].to_json() for p in range(2)])
    assert not s.is_over and s.windows_left == 1
    force(s, "2")
    ev = turn(s, "2", *[s.legal_moves(p)[0].to_json() for p in range(2)])
    assert s.is_over and s.windows_left == 0
    assert ev["next_card"] is None and ev["to_move"] == [] and ev["reshuffled"] is False
    assert s.to_move() == () and s.legal_moves(0) == [] and s.chance_outcomes(0) == []
    assert s.outcome() is not None and list(s.outcome().scores) == s.scores
    with pytest.raises(NotYourTurnError):
        s.play(0, {"line": "A"})


def test_total_turns_are_windows_plus_free_cards() -> None:
    s = fresh(players=2, seed=5)
    rand = random.Random(5).random
    while not s.is_over:
        for p in s.to_move():
            s.apply(p, s.random_move(p, rand))
    frees = sum(1 for c in s.cards if c.startswith("f"))
    assert len(s.cards) == len(s.turns) == s.m.total_windows + frees


def test_reshuffle_after_a_shuffle_card_uses_all_14_cards() -> None:
    s = fresh(seed=2)
    rand = random.Random(2).random
    seen = 0
    while not s.is_over and seen < 3:
        card = s.card
        assert card is not None
        if card.endswith("*"):
            assert sorted(c for c, _ in s.chance_outcomes(0)) == sorted(set(DECK))
            assert dict(s.chance_outcomes(0))["2"] == pytest.approx(2 / 14)
            shuffles = s.shuffles
            ev = s.play(0, s.random_move(0, rand).to_json())
            if s.is_over:
                break
            assert ev["reshuffled"] is True
            assert s.shuffles == shuffles + 1
            assert sorted(s.deck) == sorted(DECK)
            v = s.view(0)
            assert v["revealed"] == [s.card] and v["deck_left"] == 13
            seen += 1
        else:
            rest = s.deck[s.pos + 1 :]
            assert sum(p for _, p in s.chance_outcomes(0)) == pytest.approx(1.0)
            assert {c for c, _ in s.chance_outcomes(0)} == set(rest)
            ev = s.play(0, s.random_move(0, rand).to_json())
            assert ev["reshuffled"] is False
    assert seen >= 1


def test_force_chance_puts_the_card_next() -> None:
    s = fresh(seed=4)
    force_to = next(c for c, _ in s.chance_outcomes(0))
    s.force_chance(force_to)
    s.apply(0, s.legal_moves(0)[0])
    assert s.is_over or s.card == force_to
    with pytest.raises(ValueError):
        s.force_chance("9")
