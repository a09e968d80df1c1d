"""Chat (issue 35 item 2) on a real Redis and the real engine process: the players' room and the
spectators' room never read each other (the room comes from the token), a line is at most 280
characters, a writer sends at most RATE_LINES per window, a report keeps a copy for moderators,
a party table takes only preset ids, and the rooms expire with the game."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
import redis
from metro.v1 import engine_pb2

from services.common.grpc_util import bearer
from services.engine.play import chat
from tests.fixtures.engine import EngineClient, RunningEngine

TIMEOUT = 10.0


@pytest.fixture
def quiet_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    """An engine on a Redis of its own (the reports list is read back from it)."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def call(
    c: EngineClient, method: str, game: str, token: str | None, **fields: Any
) -> tuple[str, list[dict[str, Any]]]:
    request = engine_pb2.ChatRequest(game_id=game, **fields)
    metadata = bearer(token) if token else ()
    reply = getattr(c.stub, method)(request, metadata=metadata, timeout=TIMEOUT)
    return reply.room, json.loads(reply.json)


def refused(
    c: EngineClient, method: str, game: str, token: str | None, **fields: Any
) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as err:
        call(c, method, game, token, **fields)
    reason = dict(err.value.trailing_metadata() or ()).get("metro-error-reason", "")
    return err.value.code(), reason


def test_rooms_are_kept_apart(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 2})
    room, lines = call(c, "SendChat", game, tokens[0], text="  <img src=x onerror=alert(1)> gl  ")
    assert room == "players"
    assert [(x["seat"], x["text"]) for x in lines] == [(0, "<img src=x onerror=alert(1)> gl")]
    call(c, "SendChat", game, tokens[1], text="hf")
    room, lines = call(c, "SendChat", game, None, text="nice opening")
    assert room == "spectators" and [x["text"] for x in lines] == ["nice opening"]
    assert "seat" not in lines[0]
    # A token for no seat of this game is a spectator too.
    other, other_tokens = c.create_full({"players": 2})
    room, lines = call(c, "GetChat", game, other_tokens[0])
    assert room == "spectators" and [x["text"] for x in lines] == ["nice opening"]
    room, lines = call(c, "GetChat", game, tokens[1])
    assert room == "players" and [x["text"] for x in lines] == [
        "<img src=x onerror=alert(1)> gl",
        "hf",
    ]
    assert call(c, "GetChat", other, other_tokens[0])[1] == []  # each table its own rooms
    # The rooms live beside the game and expire with it.
    r = redis.Redis.from_url(quiet_engine.redis_url)
    game_ttl = r.ttl(f"game:{{{game}}}")
    assert 0 < r.ttl(chat.room_key(game, "players")) <= game_ttl
    # A move renews the game's keys, not the rooms': a read renews them to the game's.
    r.expire(chat.room_key(game, "players"), 5)
    call(c, "GetChat", game, tokens[0])
    assert r.ttl(chat.room_key(game, "players")) > 5


def test_limits_refuse_long_empty_and_fast_lines(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 2})
    assert (
        call(c, "SendChat", game, tokens[0], text="x" * chat.MAX_CHARS)[1][0]["text"] == "x" * 280
    )
    assert refused(c, "SendChat", game, tokens[0], text="x" * 281) == (
        grpc.StatusCode.FAILED_PRECONDITION, "chat_too_long"
    )  # fmt: skip
    assert (
        refused(c, "SendChat", game, tokens[0], text=" \n ")[0] == grpc.StatusCode.INVALID_ARGUMENT
    )
    assert (
        refused(c, "SendChat", game, tokens[0], preset="buy_now")[0]
        == grpc.StatusCode.INVALID_ARGUMENT
    )
    for i in range(chat.RATE_LINES - 1):
        call(c, "SendChat", game, tokens[0], text=f"line {i}")
    assert refused(c, "SendChat", game, tokens[0], text="one too many") == (
        grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited"
    )  # fmt: skip
    call(c, "SendChat", game, tokens[1], text="the other seat still may")  # per writer
    assert (
        refused(c, "SendChat", "no-such-game", tokens[0], text="hi")[0] == grpc.StatusCode.NOT_FOUND
    )


def test_a_report_keeps_the_line_of_the_reporters_room(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 2})
    _, lines = call(c, "SendChat", game, tokens[0], text="rude words")
    line_id = lines[-1]["id"]
    # A spectator cannot report (nor learn of) a line of the players' room.
    assert refused(c, "ReportChat", game, None, line_id=line_id) == (
        grpc.StatusCode.NOT_FOUND, "line_not_found"
    )  # fmt: skip
    assert (
        refused(c, "ReportChat", game, tokens[1], line_id="x; DEL")[0]
        == grpc.StatusCode.INVALID_ARGUMENT
    )
    call(c, "ReportChat", game, tokens[1], line_id=line_id)
    r = redis.Redis.from_url(quiet_engine.redis_url)
    kept = [json.loads(x) for x in r.lrange(chat.REPORTS_KEY, 0, -1)]
    assert len(kept) == 1
    assert kept[0]["game_id"] == game and kept[0]["room"] == "players"
    assert kept[0]["line"]["text"] == "rude words" and kept[0]["reported_by_seat"] == 1


def test_a_party_table_takes_only_presets(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    party = c.stub.CreateParty(
        engine_pb2.CreatePartyRequest(game="metrox", host_name="Host"), timeout=TIMEOUT
    )
    assert refused(c, "SendChat", party.game_id, party.token, text="free text") == (
        grpc.StatusCode.FAILED_PRECONDITION, "preset_only"
    )  # fmt: skip
    room, lines = call(c, "SendChat", party.game_id, party.token, preset="well_played")
    assert room == "players" and lines[0]["preset"] == "well_played" and "text" not in lines[0]
    # A host-only table's host token reads the phones' room (the host screen's feed).
    host = c.stub.CreateParty(
        engine_pb2.CreatePartyRequest(game="metrox", host_only=True), timeout=TIMEOUT
    )
    phone = c.stub.JoinParty(
        engine_pb2.JoinPartyRequest(code=host.join_code, name="Phone"), timeout=TIMEOUT
    )
    call(c, "SendChat", host.game_id, phone.token, preset="one_more")
    room, lines = call(c, "GetChat", host.game_id, host.host_token)
    assert room == "players" and [x["preset"] for x in lines] == ["one_more"]
    assert call(c, "GetChat", host.game_id, None) == ("spectators", [])
