"""Retiring a seat for good (games.base.GameState.retire, "time-out loses"), in every game through
the registry: the seat never moves again, its score stays as it was, the others play on and the
game ends by its rules; a retired seat never wins; views show it, records and stored states
reproduce it; the event tells nothing the seat held hidden; the AI still plays such a game."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import games
from games.base import Game, GameState
from games.errors import GameError
from services.ai.players import InfoSet, level_for

# (kind, rules): every game, with enough seats that two may retire and two still play on.
TABLES = [
    ("metro", {"players": 4}),
    ("metro", {"players": 3, "online": True, "hand_size": 2}),
    ("metro", {"players": 4, "rotation": True, "hand_size": 3}),
    ("metrox", {"players": 4}),
    ("underground", {"players": 4}),
]
IDS = ["metro", "metro-online", "metro-rotation", "metrox", "underground"]


def _game(kind: str) -> Game:
    return games.get(kind)


def _new(kind: str, rules: dict[str, Any], seed: int) -> GameState:
    game = _game(kind)
    return game.new_state(game.normalise_rules(rules), seed)


def _step(state: GameState, rng: random.Random, seat: int | None = None) -> dict[str, Any]:
    """One random legal move through the checked door, by `seat` or a random seat to move."""
    if seat is None:
        seat = rng.choice(state.to_move())
    moves = state.legal_moves(seat)
    return state.play(seat, moves[rng.randrange(len(moves))].to_json())


def _roundtrip(kind: str, state: GameState) -> GameState:
    """The stored form (the engine's), through JSON and back."""
    data = json.loads(json.dumps(state.to_dict()))
    back = _game(kind).state_from_dict(data)
    assert back.to_dict() == state.to_dict()
    return back


def _play_out(
    kind: str,
    state: GameState,
    rng: random.Random,
    frozen: dict[int, int],
    hook: Callable[[GameState], None] | None = None,
) -> None:
    """Random moves to the end, checking after each that retired seats neither move nor score."""
    moves = 0
    while not state.is_over:
        _step(state, rng)
        moves += 1
        if hook is not None:
            hook(state)
        for seat, score in frozen.items():
            assert seat not in state.to_move()
            assert state.legal_moves(seat) == []
            assert state.scores[seat] == score
        if moves % 25 == 0:
            back = _roundtrip(kind, state)
            assert back.scores == state.scores and back.to_move() == state.to_move()
    for seat, score in frozen.items():
        assert state.scores[seat] == score


def _check_finished(kind: str, state: GameState, retired: list[int]) -> None:
    outcome = state.outcome()
    assert state.is_over and outcome is not None
    assert list(state.retired) == retired
    assert not set(outcome.winners) & set(retired)
    left = [s for s in range(state.seat_count) if s not in retired]
    best = max(state.scores[s] for s in left)
    assert list(outcome.winners) == [s for s in left if state.scores[s] == best]
    view = state.view(None)
    assert view["retired"] == retired
    assert [bool(s["retired"]) for s in view["seats"]] == [
        s in retired for s in range(state.seat_count)
    ]
    assert view["winners"] == list(outcome.winners)
    record = json.loads(json.dumps(state.record()))
    replayed = _game(kind).replay(record)
    assert replayed.is_over
    assert replayed.scores == state.scores
    assert list(replayed.retired) == retired
    assert replayed.outcome() == outcome


def _no_hidden(event: dict[str, Any], secrets: list[str]) -> None:
    text = json.dumps(event)
    for secret in secrets:
        assert f'"{secret}"' not in text, secret


# ---- every game -------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "rules"), TABLES, ids=IDS)
def test_a_seat_retired_mid_game_never_moves_again_and_its_score_stays(
    kind: str, rules: dict[str, Any]
) -> None:
    for seed in range(3):
        state = _new(kind, rules, seed)
        rng = random.Random(seed)
        for _ in range(12 + 5 * seed):
            _step(state, rng)
        # A seat that is not to move now, and then the seat whose turn it is.
        idle = [s for s in range(state.seat_count) if s not in state.to_move()]
        first = idle[0] if idle else state.to_move()[-1]
        before = state.scores[:]
        event = state.retire(first)
        json.dumps(event)
        assert event["seat"] == first and event["action"] == "retire"
        assert event["status"] == "playing" and event["scores"][first] == before[first]
        assert first not in state.to_move() and state.legal_moves(first) == []
        frozen = {first: state.scores[first]}
        for _ in range(6):
            _step(state, rng)
        second = state.to_move()[0]
        state.retire(second)
        frozen[second] = state.scores[second]
        assert second not in state.to_move()
        _roundtrip(kind, state)
        _play_out(kind, state, rng, frozen)
        _check_finished(kind, state, [first, second])


@pytest.mark.parametrize(("kind", "rules"), TABLES, ids=IDS)
def test_retiring_twice_a_finished_game_or_no_seat_is_refused(
    kind: str, rules: dict[str, Any]
) -> None:
    state = _new(kind, rules, 5)
    state.retire(1)
    with pytest.raises(GameError, match="already retired"):
        state.retire(1)
    with pytest.raises(ValueError, match="seat"):
        state.retire(state.seat_count)
    with pytest.raises(ValueError, match="seat"):
        state.retire(-1)
    for seat in range(state.seat_count):
        if not state.is_over and seat not in state.retired:
            state.retire(seat)
    assert state.is_over
    with pytest.raises(GameError, match="over"):
        state.retire(0)


@pytest.mark.parametrize(("kind", "rules"), TABLES, ids=IDS)
def test_sampled_worlds_keep_the_retired_seat_out(kind: str, rules: dict[str, Any]) -> None:
    """The AI's worlds, built from a view, look from the seat exactly like the game: the
    retired seat out, its score as it froze."""
    state = _new(kind, rules, 11)
    rng = random.Random(11)
    for _ in range(20):
        _step(state, rng)
    state.retire(state.to_move()[0])
    for _ in range(15):
        _step(state, rng)
    seat = state.to_move()[0]
    view = json.loads(json.dumps(state.view(seat)))
    info = InfoSet.from_view(view, seat)
    for k in range(3):
        world = info.sample(random.Random(k))
        assert world.view(seat) == view
        assert world.to_move() == state.to_move()
        assert world.retired == state.retired


@pytest.mark.slow  # whole games of search: minutes on two cores
@pytest.mark.parametrize(("kind", "rules"), TABLES, ids=IDS)
def test_ai_players_finish_a_game_with_a_retired_seat(kind: str, rules: dict[str, Any]) -> None:
    """The search (one for every game) plays every remaining seat to the end: greedy for the
    whole game, a small MCTS for a few moves; only legal moves, never for the retired seat."""
    state = _new(kind, rules, 21)
    rng = random.Random(21)
    for _ in range(8):
        _step(state, rng)
    gone = state.to_move()[0]
    state.retire(gone)
    frozen = state.scores[gone]
    greedy, mcts = level_for("medium").make(), level_for("mcts-20").make()
    moves = 0
    while not state.is_over:
        seat = state.to_move()[0]
        assert seat != gone
        player = mcts if moves < 4 else greedy
        info = InfoSet.from_state(state, seat)
        move = player.search(info, seed=moves).best
        assert move in state.legal_moves(seat)
        state.play(seat, move.to_json())
        moves += 1
    assert state.scores[gone] == frozen
    _check_finished(kind, state, [gone])


# ---- when too few seats are left --------------------------------------------------------------


@pytest.mark.parametrize(("kind", "rules"), [("metro", {"players": 2}),
                                             ("underground", {"players": 2})])  # fmt: skip
def test_a_two_seat_game_ends_at_once_and_the_other_seat_wins(
    kind: str, rules: dict[str, Any]
) -> None:
    for who in (0, 1):  # the seat to move, then the other
        state = _new(kind, rules, 4)
        rng = random.Random(4)
        for _ in range(10):
            _step(state, rng)
        while state.to_move() != (0,):
            _step(state, rng)
        event = state.retire(who)
        assert event["status"] == "over" and state.is_over and state.to_move() == ()
        outcome = state.outcome()
        assert outcome is not None and outcome.winners == (1 - who,)
        _check_finished(kind, state, [who])


def test_metrox_plays_on_alone_and_ends_with_its_last_seat() -> None:
    state = _new("metrox", {"players": 2}, 3)
    rng = random.Random(3)
    for _ in range(6):
        _step(state, rng)
    state.retire(0)
    assert state.to_move() == (1,)
    for _ in range(5):
        _step(state, rng, 1)
    event = state.retire(1)
    assert event["status"] == "over" and state.is_over
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == ()
    _check_finished_all_retired("metrox", state, [0, 1])


def test_a_solo_metrox_game_ends_when_its_player_retires() -> None:
    state = _new("metrox", {"players": 1}, 9)
    event = state.retire(0)
    assert event["status"] == "over" and state.outcome() is not None
    _check_finished_all_retired("metrox", state, [0])


def _check_finished_all_retired(kind: str, state: GameState, retired: list[int]) -> None:
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == ()
    assert state.view(None)["winners"] == []
    replayed = _game(kind).replay(json.loads(json.dumps(state.record())))
    assert replayed.is_over and replayed.scores == state.scores
    assert list(replayed.retired) == retired


# ---- Metro: hands go back, turns in the middle of a draw ------------------------------------


def test_metro_the_retired_hand_goes_back_unseen_and_all_60_tiles_are_placed() -> None:
    state: Any = _new("metro", {"players": 3, "hand_size": 3}, 8)
    rng = random.Random(8)
    for _ in range(9):
        _step(state, rng)
    seat = next(s for s in range(3) if s not in state.to_move())
    hand = [t for t in state.view(seat)["hand"]]
    deck = state.deck_count
    event = state.retire(seat)
    assert event["returned"] == 3 and event["reshuffled"] is True
    assert event["deck_count"] == deck + 3 == state.deck_count
    assert state.view(seat)["hand"] == [] and state.view(None)["seats"][seat]["hand_count"] == 0
    _no_hidden(event, hand)
    _play_out("metro", state, rng, {seat: state.scores[seat]})
    assert len(state.view(None)["board"]) == 60  # the game still ends by §5
    _check_finished("metro", state, [seat])


def test_metro_routes_of_a_retired_seat_completed_later_score_nothing() -> None:
    state: Any = _new("metro", {"players": 2}, 1)
    rng = random.Random(1)
    for _ in range(4):
        _step(state, rng)
    state.retire(1)  # two seats: the game is over at once; play a 4-seat game instead
    assert state.is_over
    state = _new("metro", {"players": 4}, 1)
    for _ in range(4):
        _step(state, rng)
    seat = next(s for s in range(4) if s not in state.to_move())
    state.retire(seat)
    score = state.scores[seat]
    _play_out("metro", state, rng, {seat: score})
    completed = sum(r["points"] for r in state.view(None)["routes"] if r["owner"] == seat)
    assert completed > score  # its routes did complete later, for nothing
    _check_finished("metro", state, [seat])


def _drawing(state: Any, rng: random.Random) -> None:
    """Play on until the seat to move has drawn a tile it has not placed yet."""
    while True:
        seat = state.to_move()[0]
        draw = [m for m in state.legal_moves(seat) if m.to_json().get("action") == "draw"]
        if draw and rng.random() < 0.5:
            state.play(seat, draw[0].to_json())
            return
        _step(state, rng)


def test_metro_the_seat_to_move_retires_holding_a_drawn_tile() -> None:
    state: Any = _new("metro", {"players": 3}, 2)
    rng = random.Random(2)
    for _ in range(5):
        _step(state, rng)
    _drawing(state, rng)
    seat = state.to_move()[0]
    drawn = state.view(seat)["drawn"]
    turn = state.turn_number
    event = state.retire(seat)
    assert event["returned"] == 2 and event["turn"] != seat
    assert state.turn_number != turn  # the turn passed: a change everyone sees
    assert not state.view(None)["drawing"]
    _no_hidden(event, [drawn])
    _play_out("metro", state, rng, {seat: state.scores[seat]})
    _check_finished("metro", state, [seat])


def test_metro_another_seat_retires_while_the_mover_holds_a_drawn_tile() -> None:
    """The deck the mover drew from is not reshuffled under it: the retired hand goes back when
    that turn ends; the record says so (`during_draw`) and replays to the same deck."""
    state: Any = _new("metro", {"players": 4, "hand_size": 2}, 6)
    rng = random.Random(6)
    for _ in range(7):
        _step(state, rng)
    _drawing(state, rng)
    mover = state.to_move()[0]
    seat = (mover + 1) % 4
    deck = state.deck_count
    event = state.retire(seat)
    assert event["reshuffled"] is False and state.deck_count == deck
    assert state.to_move() == (mover,) and state.view(None)["drawing"]
    _step(state, rng)  # the mover places its tile; now the hand goes back
    assert state.view(None)["seats"][seat]["hand_count"] == 0
    assert state.deck_count in (deck + 2, deck + 1)  # (+2 back, -1 refill of the next seat)
    record = state.record()
    entry = next(m for m in record["moves"] if m["action"] == "retire")
    assert entry == {"seat": seat, "action": "retire", "during_draw": True}
    _roundtrip("metro", state)
    _play_out("metro", state, rng, {seat: state.scores[seat]})
    _check_finished("metro", state, [seat])


def test_metro_a_two_seat_game_waits_for_a_drawn_tile_before_it_ends() -> None:
    state: Any = _new("metro", {"players": 2}, 12)
    rng = random.Random(12)
    for _ in range(5):
        _step(state, rng)
    _drawing(state, rng)
    mover = state.to_move()[0]
    event = state.retire(1 - mover)
    assert event["status"] == "playing" and state.to_move() == (mover,)
    _step(state, rng)
    assert state.is_over
    _check_finished("metro", state, [1 - mover])


# ---- Metro X: a choice pending in the simultaneous turn ---------------------------------------


def test_metrox_a_pending_choice_is_dropped_unseen() -> None:
    state: Any = _new("metrox", {"players": 3}, 4)
    rng = random.Random(4)
    for _ in range(7):
        _step(state, rng)
    while len(state.to_move()) != 3:
        _step(state, rng)
    turn = state.turn_number
    _step(state, rng, 0)  # seat 0 chooses (hidden)
    choice = state.view(0)["choice"]
    assert choice is not None and state.to_move() == (1, 2)
    event = state.retire(0)
    assert "resolved" not in event and state.turn_number == turn  # the turn stays open
    assert state.view(0)["choice"] is None and state.view(None)["seats"][0]["chosen"] is False
    assert state.to_move() == (1, 2)
    assert set(event) == {"seat", "action", "scores", "to_move", "status", "turn_index"}
    assert json.dumps(choice)[1:-1] not in json.dumps(event)  # the dropped choice stays unseen
    sheet = state.view(None)["sheets"][0]
    _step(state, rng, 1)
    event = _step(state, rng, 2)  # the last seat still in resolves the turn
    assert event["action"] == "resolve" and event["choices"][0] is None
    assert state.turn_number == turn + 1
    assert state.view(None)["sheets"][0] == sheet  # its sheet stays as it was
    _play_out("metrox", state, rng, {0: state.scores[0]})
    _check_finished("metrox", state, [0])


def test_metrox_the_last_seat_to_choose_retires_and_the_turn_resolves() -> None:
    state: Any = _new("metrox", {"players": 3}, 5)
    rng = random.Random(5)
    for _ in range(4):
        _step(state, rng)
    while len(state.to_move()) != 3:
        _step(state, rng)
    turn = state.turn_number
    _step(state, rng, 0)
    _step(state, rng, 2)
    event = state.retire(1)  # everyone else has chosen
    assert state.turn_number == turn + 1
    resolved = event["resolved"]
    assert resolved["action"] == "resolve" and resolved["choices"][1] is None
    assert resolved["choices"][0] is not None and resolved["choices"][2] is not None
    assert event["to_move"] == [0, 2] == list(state.to_move())
    _play_out("metrox", state, rng, {1: state.scores[1]})
    _check_finished("metrox", state, [1])
    record = state.record()
    assert record["retired"] == [{"seat": 1, "turn": turn}]
    assert all(t[1] is None for t in record["turns"][turn:])


def test_metrox_a_record_with_a_move_of_a_retired_seat_is_refused() -> None:
    state: Any = _new("metrox", {"players": 2}, 6)
    rng = random.Random(6)
    for _ in range(4):
        _step(state, rng)
    state.retire(0)
    _play_out("metrox", state, rng, {0: state.scores[0]})
    record = json.loads(json.dumps(state.record()))
    i = record["retired"][0]["turn"]
    record["turns"][i][0] = record["turns"][i][1]
    with pytest.raises(GameError, match="retired; its move must be null"):
        _game("metrox").replay(record)


# ---- On the Underground: a turn cut short ------------------------------------------------------


def test_underground_the_mover_retires_after_laying_rails() -> None:
    state: Any = _new("underground", {"players": 3}, 7)
    rng = random.Random(7)
    for _ in range(9):
        _step(state, rng)
    while state.view(None)["turn"]["step"] != "build" or state.view(None)["steps"]:
        _step(state, rng)
    seat = state.to_move()[0]
    rail = next(m for m in state.legal_moves(seat) if m.to_json()["step"] == "rail")
    state.play(seat, rail.to_json())
    passenger = state.view(None)["passenger"]
    turn = state.turn_number
    event = state.retire(seat)
    assert state.turn_number == turn + 1 and seat not in state.to_move()
    assert event["passenger"] == passenger  # the passenger did not move on for it
    view = state.view(None)
    assert rail.rail_json() in view["rails"]  # its rail stays on the board
    assert view["moves"][-1]["action"] == "retire" and view["moves"][-1]["rails"] == [
        rail.rail_json()
    ]
    _roundtrip("underground", state)
    _play_out("underground", state, rng, {seat: state.scores[seat]})
    _check_finished("underground", state, [seat])


def test_underground_another_seat_retires_during_a_turn_and_rides_score_nothing() -> None:
    for seed in range(6):
        state: Any = _new("underground", {"players": 3}, seed)
        rng = random.Random(seed)
        for _ in range(20):
            _step(state, rng)
        while not state.view(None)["steps"]:
            _step(state, rng)  # a turn under way
        mover = state.to_move()[0]
        seat = (mover + 1) % 3
        state.retire(seat)
        assert state.to_move() == (mover,)
        score = state.scores[seat]
        _roundtrip("underground", state)
        _play_out("underground", state, rng, {seat: score})
        _check_finished("underground", state, [seat])


@pytest.mark.parametrize("mover", [True, False], ids=["the-mover", "another-seat"])
def test_underground_a_retirement_while_the_passenger_waits_for_a_route_choice(
    mover: bool,
) -> None:
    """Legs taken before it stand (they scored); the mover's turn either ends there (it was the
    retiring seat's) or goes on, and stored state and record replay the turn across it."""
    for seed in range(3):
        state: Any = _new("underground", {"players": 3}, seed)
        rng = random.Random(seed)
        while (state.view(None)["turn"] or {}).get("step") != "route":
            _step(state, rng)
        seat = state.to_move()[0] if mover else (state.to_move()[0] + 1) % 3
        legs = state.view(None)["turn"]["legs"]
        state.retire(seat)
        assert seat not in state.to_move()
        if mover:
            assert state.view(None)["moves"][-1]["route"] == legs
        else:
            assert state.view(None)["turn"]["step"] == "route"  # the mover still chooses
        back = _roundtrip("underground", state)
        assert back.view(None) == state.view(None)
        _play_out("underground", state, rng, {seat: state.scores[seat]})
        _check_finished("underground", state, [seat])
