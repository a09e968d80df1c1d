"""Malformed and unauthorised requests get INVALID_ARGUMENT, NOT_FOUND or PERMISSION_DENIED
with a sentence naming the field, and leave the game exactly as it was."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from metro.v1 import engine_pb2

import games
from services.common.grpc_util import bearer, error_details
from tests.fixtures.engine import CALL_TIMEOUT_S, EngineClient, RunningEngine, doc, metro_seats

HUGE = "x" * 100_000  # over the engine's 64 kB limit on a JSON document
LONG = "x" * 5_000  # within it
Code = grpc.StatusCode


@pytest.fixture
def game(engine_client: EngineClient) -> tuple[EngineClient, str, list[str]]:
    game_id, tokens = engine_client.create_full({"players": 2})
    return engine_client, game_id, tokens


def _fails(call: Callable[[], Any], code: grpc.StatusCode, field: str = "") -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    err = caught.value
    assert err.code() == code, err.details()
    assert err.details() and len(err.details()) < 300  # a sentence, never the input echoed
    if field:
        assert error_details(err).get("field") == field
        assert field.split(".")[-1].split("[")[0] in err.details()
    return err


def test_bad_requests_change_nothing(game: tuple[EngineClient, str, list[str]]) -> None:
    c, game_id, tokens = game
    before = [c.view(game_id, t) for t in [*tokens, None]]
    t0 = tokens[0]

    # Unknown and malformed ids.
    _fails(lambda: c.view("nope"), Code.NOT_FOUND)
    _fails(lambda: c.view("bad id!"), Code.INVALID_ARGUMENT, "game_id")
    _fails(lambda: c.view(HUGE), Code.INVALID_ARGUMENT, "game_id")
    _fails(lambda: c.move("nope", t0, "draw"), Code.NOT_FOUND)
    _fails(lambda: c.join("nope"), Code.NOT_FOUND)
    _fails(lambda: c.record("nope"), Code.NOT_FOUND)
    # Bad moves.
    _fails(lambda: c.move(game_id, t0, "place", "zzzz99"), Code.INVALID_ARGUMENT, "placement")
    _fails(lambda: c.move(game_id, t0, "place", "aacb0"), Code.INVALID_ARGUMENT, "placement")
    _fails(lambda: c.move(game_id, t0, "fly"), Code.INVALID_ARGUMENT, "action")
    _fails(lambda: c.move(game_id, t0, "place", LONG), Code.INVALID_ARGUMENT, "placement")
    _fails(lambda: c.move(game_id, t0, LONG), Code.INVALID_ARGUMENT, "action")
    # (A move document over the size limit is refused before its fields are read.)
    _fails(lambda: c.move(game_id, t0, "place", HUGE), Code.INVALID_ARGUMENT, "move")
    _fails(lambda: c.move(game_id, t0, HUGE), Code.INVALID_ARGUMENT, "move")
    _fails(lambda: c.move(game_id, t0, "draw", move_id=HUGE), Code.INVALID_ARGUMENT, "move_id")
    _fails(lambda: c.move(game_id, t0, {"placement": "aacb00"}), Code.INVALID_ARGUMENT, "action")
    _fails(lambda: c.move(game_id, t0, {"action": "place"}), Code.INVALID_ARGUMENT, "placement")
    _fails(lambda: c.move(game_id, t0, {"action": "place", "placement": 7}), Code.INVALID_ARGUMENT,
           "placement")  # fmt: skip
    # Fields that are not strings, and unknown fields, are named but never quoted at length.
    many = ["x"] * 10_000
    _fails(lambda: c.move(game_id, t0, {"action": many}), Code.INVALID_ARGUMENT, "action")
    _fails(lambda: c.move(game_id, t0, {"action": "place", "placement": many}),
           Code.INVALID_ARGUMENT, "placement")  # fmt: skip
    _fails(lambda: c.move(game_id, t0, {"action": "draw", "extra": many}), Code.INVALID_ARGUMENT,
           "extra")  # fmt: skip
    _fails(lambda: c.move(game_id, t0, {"action": "draw", LONG: 1}), Code.INVALID_ARGUMENT, "move")
    empty = engine_pb2.ApplyMoveRequest(game_id=game_id)
    _fails(lambda: c.stub.ApplyMove(empty, metadata=bearer(t0)), Code.INVALID_ARGUMENT, "move")
    for text in ("{", "[]", '"draw"', "{" + HUGE + "}"):
        bad = engine_pb2.ApplyMoveRequest(game_id=game_id, move_json=text)
        _fails(lambda bad=bad: c.stub.ApplyMove(bad, metadata=bearer(t0)), Code.INVALID_ARGUMENT,
               "move")  # fmt: skip
    # A move the rules forbid names the rule.
    tile = doc(c.view(game_id, t0))["hand"][0]
    err = _fails(lambda: c.move(game_id, t0, "place", tile + "33"), Code.FAILED_PRECONDITION)
    assert error_details(err)["reason"] == "illegal_move" and "§6" in err.details()
    held = {"aacb", "dddd"} - {tile}
    err = _fails(lambda: c.move(game_id, t0, "place", held.pop() + "00"), Code.FAILED_PRECONDITION)
    assert error_details(err)["reason"] == "illegal_move" and "§5" in err.details()
    err = _fails(lambda: c.move(game_id, tokens[1], "draw"), Code.FAILED_PRECONDITION)
    assert error_details(err)["reason"] == "not_your_turn"
    # Tokens.
    _fails(lambda: c.move(game_id, None, "draw"), Code.PERMISSION_DENIED)
    _fails(lambda: c.move(game_id, "wrong-token", "draw"), Code.PERMISSION_DENIED)
    _fails(lambda: c.move(game_id, "x" * 1000, "draw"), Code.PERMISSION_DENIED)
    _fails(lambda: c.legal(game_id, None), Code.PERMISSION_DENIED)
    _fails(lambda: c.view(game_id, "wrong-token"), Code.PERMISSION_DENIED)
    _fails(lambda: c.view(game_id, None, seat=0), Code.PERMISSION_DENIED)
    _fails(lambda: c.view(game_id, tokens[1], seat=0), Code.PERMISSION_DENIED)
    _fails(lambda: c.move(game_id, c.ai_token, "draw"), Code.INVALID_ARGUMENT, "seat")
    _fails(lambda: c.move(game_id, c.ai_token, "draw", seat=0), Code.PERMISSION_DENIED)
    not_bearer = (("authorization", "Basic abc"),)
    request = engine_pb2.GetViewRequest(game_id=game_id)
    _fails(lambda: c.stub.GetView(request, metadata=not_bearer), Code.PERMISSION_DENIED)
    # A token of another game.
    other_id, other_tokens = c.create_full({"players": 2})
    _fails(lambda: c.move(game_id, other_tokens[0], "draw"), Code.PERMISSION_DENIED)
    # Joining a full game; the record of a running one.
    err = _fails(lambda: c.join(game_id, "late"), Code.FAILED_PRECONDITION)
    assert error_details(err)["reason"] == "no_open_seat"
    err = _fails(lambda: c.record(game_id), Code.FAILED_PRECONDITION)
    assert error_details(err)["reason"] == "game_running"
    # Bad names and watch positions.
    _fails(lambda: c.join(other_id, HUGE), Code.INVALID_ARGUMENT, "name")
    _fails(lambda: list(c.events(game_id, after="yesterday")), Code.INVALID_ARGUMENT,
           "after_event_id")  # fmt: skip
    _fails(lambda: list(c.events("nope")), Code.NOT_FOUND)

    assert [c.view(game_id, t) for t in [*tokens, None]] == before


def test_bad_creates(engine_client: EngineClient) -> None:
    c = engine_client
    stub = c.stub

    def create(**kw: Any) -> Callable[[], Any]:
        return lambda: stub.CreateGame(engine_pb2.CreateGameRequest(**kw), timeout=CALL_TIMEOUT_S)

    _fails(create(game="chess"), Code.INVALID_ARGUMENT, "game")
    _fails(create(game=HUGE), Code.INVALID_ARGUMENT, "game")
    rules = json.dumps({"players": 9})
    _fails(create(game="metro", rules_json=rules), Code.INVALID_ARGUMENT, "rules.players")
    rules = json.dumps({"hand_size": 4})
    _fails(create(game="metro", rules_json=rules), Code.INVALID_ARGUMENT, "rules.hand_size")
    for text in ("{", "[2]", "2", "{" + HUGE + "}"):
        _fails(create(game="metro", rules_json=text), Code.INVALID_ARGUMENT, "rules")
    _fails(create(game="metro", seats=metro_seats("human")), Code.INVALID_ARGUMENT, "seats")
    _fails(create(game="metro", seats=metro_seats("human", "robot")), Code.INVALID_ARGUMENT,
           "seats[1].kind")  # fmt: skip
    _fails(create(game="metro", seats=metro_seats("human", "human")), Code.INVALID_ARGUMENT,
           "seats[1].kind")  # fmt: skip
    seats = metro_seats("human", "ai")
    seats[1].level = HUGE
    _fails(create(game="metro", seats=seats), Code.INVALID_ARGUMENT, "seats[1].level")
    for unknown in ("godlike", "mcts-0", "mcts-1000000"):  # no AI worker could play these
        seats[1].level = unknown
        _fails(create(game="metro", seats=seats), Code.INVALID_ARGUMENT, "seats[1].level")
    seats = metro_seats("human", "open")
    seats[0].name = "bad\nname"
    _fails(create(game="metro", seats=seats), Code.INVALID_ARGUMENT, "seats[0].name")


def test_spectators_and_defaults(engine: RunningEngine) -> None:
    c = engine.client()
    created = c.create()  # no rules, no seats: 2 players, the creator and one open seat
    assert created.seat == 0 and created.token
    view = c.view(created.game_id)
    data = doc(view)
    assert view.status == "waiting" and list(view.to_move) == [] and not view.HasField("seat")
    assert data["status"] == "waiting" and data["turn"] is None and data["to_move"] == []
    assert data["seat"] is None
    assert [s["kind"] for s in data["seats"]] == ["human", "open"]
    assert data["hand"] == [] and data["drawn"] is None
    err = _fails(lambda: c.move(created.game_id, created.token, "draw"), Code.FAILED_PRECONDITION)
    assert error_details(err)["reason"] == "game_not_started"
    listed = c.stub.ListGames(engine_pb2.ListGamesRequest(status="open"), timeout=CALL_TIMEOUT_S)
    assert created.game_id in [g.game_id for g in listed.games]
    joined = c.join(created.game_id, "Bob")
    assert joined.seat == 1
    view = c.view(created.game_id, joined.token)
    data = doc(view)
    assert view.status == "playing" and list(view.to_move) == [0] and view.seat == 1
    assert data["turn"] == 0 and data["seat"] == 1
    assert len(data["hand"]) == 1 and data["seats"][1]["name"] == "Bob"
    listed = c.stub.ListGames(engine_pb2.ListGamesRequest(status="open"), timeout=CALL_TIMEOUT_S)
    assert created.game_id not in [g.game_id for g in listed.games]
    listed = c.stub.ListGames(engine_pb2.ListGamesRequest(status="playing"), timeout=CALL_TIMEOUT_S)
    assert created.game_id in [g.game_id for g in listed.games]
    _fails(lambda: c.stub.ListGames(engine_pb2.ListGamesRequest(status="x" * 500)),
           Code.INVALID_ARGUMENT, "status")  # fmt: skip

    # A create that names no game is for the registry's default game, with its defaults.
    unnamed = c.stub.CreateGame(engine_pb2.CreateGameRequest(), timeout=CALL_TIMEOUT_S)
    assert unnamed.seat == 0 and unnamed.token
    view = c.view(unnamed.game_id)
    assert view.game == games.default().kind and view.status == "waiting"
    assert [s["kind"] for s in doc(view)["seats"]] == ["human", "open"]
