"""Each legal move's preview (games/metro/preview.py, games/metrox/preview.py) says what playing
it does: the page draws gains and sheet changes from it instead of re-implementing the rules, so
it must agree with the rules core's own outcome, move by move, and tell nothing hidden."""

from __future__ import annotations

import random

import pytest

import games


@pytest.mark.parametrize("seed", range(6))
def test_metro_preview_is_what_the_placement_does(seed: int) -> None:
    """Whole random games: every placement's preview equals its event's `completed` routes
    and the score change it makes; a draw has none."""
    game = games.get("metro")
    rules = {"players": 3, "hand_size": 2, "rotation": seed % 2 == 0, "online": seed % 3 == 0}
    state = game.new_state(rules, seed)
    pick = random.Random(seed)
    checked = 0
    while not state.is_over:
        seat = state.current_seat
        moves = state.legal_moves(seat)
        for move, preview in zip(moves, game.previews(state, seat, moves), strict=True):
            played = state.copy()
            event = played.play(seat, move.to_json())
            if move.is_draw:
                assert preview is None
                continue
            assert preview["completed"] == event.get("completed", [])
            assert preview["gains"] == [
                a - b for a, b in zip(played.scores, state.scores, strict=True)
            ]
            checked += bool(preview["completed"])
        state.play(seat, pick.choice(moves).to_json())
    assert checked > 5  # routes were completed, so the comparison meant something


def test_metro_preview_after_a_retirement_gives_the_retired_seat_nothing() -> None:
    game = games.get("metro")
    state = game.new_state({"players": 3}, 11)
    pick = random.Random(2)
    state.retire(2)
    while not state.is_over:
        seat = state.current_seat
        moves = state.legal_moves(seat)
        for move, preview in zip(moves, game.previews(state, seat, moves), strict=True):
            if preview is not None:
                played = state.copy()
                played.play(seat, move.to_json())
                assert preview["gains"][2] == 0
                assert preview["gains"] == [
                    a - b for a, b in zip(played.scores, state.scores, strict=True)
                ]
        state.play(seat, pick.choice(moves).to_json())


def _sheet(state, seat: int) -> dict:
    return next(s for s in state.view(seat)["sheets"] if s["seat"] == seat)


@pytest.mark.parametrize("seed", range(4))
def test_metrox_preview_is_what_the_choice_does(seed: int) -> None:
    """Every choice of every seat, whole games: the preview's filled stations, window mark,
    transfer, completed lines and score are what the seat's sheet shows once the turn resolves
    with that choice (other seats choosing lines of their own, so no first bonus is shared)."""
    game = games.get("metrox")
    state = game.new_state({"players": 2}, seed)
    pick = random.Random(seed)
    while not state.is_over:
        for seat in state.to_move():
            moves = state.legal_moves(seat)
            for move, preview in zip(moves, game.previews(state, seat, moves), strict=True):
                alone = state.copy()
                for other in alone.to_move():
                    if other != seat:
                        alone.retire(other)  # the seat resolves the turn alone
                before = _sheet(state, seat)
                alone.play(seat, move.to_json())
                after = _sheet(alone, seat)
                assert set(preview["fills"]) == set(after["filled"]) - set(before["filled"])
                assert preview["score"] == alone.score(seat)
                new = after["bonuses"][len(before["bonuses"]) :]
                assert preview["completes"] == [
                    {"line": b["line"], "bonus": b["bonus"], "first": b["first"]} for b in new
                ]
                if "line" in move.to_json():
                    line = move.to_json()["line"]
                    assert after["windows"][line][-1] == preview["mark"]
            state.play(seat, pick.choice(moves).to_json())


def test_metrox_preview_ignores_the_other_seats_hidden_choices() -> None:
    """A seat's previews are the same whatever another seat has chosen this turn (hidden)."""
    game = games.get("metrox")
    state = game.new_state({"players": 3}, 5)
    moves = state.legal_moves(0)
    before = game.previews(state, 0, moves)
    for choice in state.legal_moves(1):
        other = state.copy()
        other.play(1, choice.to_json())
        assert game.previews(other, 0, other.legal_moves(0)) == before


def test_a_listed_move_with_its_preview_parses_as_the_move() -> None:
    """Clients (the AI worker, bots) may send a move back as GET /legal listed it."""
    game = games.get("metro")
    state = game.new_state({"players": 2}, 1)
    move = state.legal_moves(0)[0]
    assert game.parse_move({**move.to_json(), "preview": {"completed": []}}) == move
