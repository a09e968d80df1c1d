"""Chat after the end (issue 35): a WatchGame with `chat` does not end at the game's "over"
event but goes on carrying the rooms' lines for CHAT_AFTER_END_S after the end, so a "gg" typed
after the end arrives live; a WatchGame without chat ends with the game as before; once the
grace after the end has passed, a chat stream ends at "over" too. Real engine, real Redis."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from metro.v1 import engine_pb2

from services.common.grpc_util import bearer
from tests.fixtures.engine import EngineClient, RunningEngine

STREAM_S = 120.0  # the longest one test stream may stay open (a bound, never waited out)


@pytest.fixture
def quiet_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    return engine_factory(redis_server_factory(appendonly=False).url)


def watch(
    c: EngineClient, game: str, *, chat: bool, token: str = ""
) -> Iterator[engine_pb2.GameEvent]:
    request = engine_pb2.WatchGameRequest(game_id=game, chat=chat, chat_token=token)
    stream: Iterator[engine_pb2.GameEvent] = c.stub.WatchGame(request, timeout=STREAM_S)
    return stream


def until_over(stream: Iterator[engine_pb2.GameEvent]) -> engine_pb2.GameEvent:
    """The stream's events up to the game's "over" one (no chat line comes before it here)."""
    for event in stream:
        assert not event.chat_room, event
        if event.status == "over":
            return event
    raise AssertionError("the stream ended before the game's end")


def next_line(stream: Iterator[engine_pb2.GameEvent], room: str) -> str:
    """The text of the stream's next line of `room` (a seat's subscription reads both rooms:
    the gateway's hub hands each stream its own room's lines only)."""
    for event in stream:
        assert event.chat_room, event  # no game event after the end
        if event.chat_room == room:
            return str(json.loads(event.json)["text"])
    raise AssertionError("the stream ended")


def resign(c: EngineClient, game: str, token: str) -> None:
    c.stub.SetAway(
        engine_pb2.SetAwayRequest(game_id=game, resign=True), metadata=bearer(token), timeout=10
    )


def say(c: EngineClient, game: str, token: str | None, text: str) -> None:
    c.stub.SendChat(
        engine_pb2.ChatRequest(game_id=game, text=text),
        metadata=bearer(token) if token else (), timeout=10,
    )  # fmt: skip


def test_a_chat_stream_carries_lines_after_the_end(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 2})
    seat = watch(c, game, chat=True, token=tokens[0])
    stands = watch(c, game, chat=True)
    plain = watch(c, game, chat=False)
    resign(c, game, tokens[1])
    for stream in (seat, stands, plain):
        until_over(stream)
    # Without chat the stream ends with the game, as every bot expects.
    assert list(plain) == []
    # With chat it stays: a line said after the end comes on it, each room's to its own.
    say(c, game, tokens[1], "gg")
    assert next_line(seat, "players") == "gg"
    say(c, game, None, "well played both")
    assert next_line(stands, "spectators") == "well played both"
    # A stream opened after the end with chat reads the history, then the lines said now.
    late = watch(c, game, chat=True, token=tokens[0])
    until_over(late)
    say(c, game, tokens[0], "thanks")
    for stream in (seat, late):
        assert next_line(stream, "players") == "thanks"
    for stream in (seat, stands, late):
        stream.cancel()  # type: ignore[attr-defined]


def test_a_chat_stream_ends_once_the_grace_has_passed(redis_server_factory, engine_factory) -> None:  # type: ignore[no-untyped-def]
    engine = engine_factory(redis_server_factory(appendonly=False).url, {"CHAT_AFTER_END_S": "0"})
    c = engine.client()
    game, tokens = c.create_full({"players": 2})
    resign(c, game, tokens[1])
    stream = watch(c, game, chat=True, token=tokens[0])
    until_over(stream)
    assert list(stream) == []  # no grace: it ends with the game, chat or not
