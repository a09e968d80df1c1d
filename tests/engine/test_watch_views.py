"""WatchGame's carried views (issue 21): a live event brings the public view and each proven
seat's own view and legal moves, exactly what GetView and ListLegalMoves answer at that version;
a token that proves no seat of the game gets nothing carried, and without asking nothing is."""

from __future__ import annotations

import json
import threading
from typing import Any

from metro.v1 import engine_pb2

from tests.fixtures.engine import RunningEngine


def _first_live_event(engine: RunningEngine, request: engine_pb2.WatchGameRequest,
                      move: Any) -> engine_pb2.GameEvent:  # fmt: skip
    """Subscribe after the game's last event, make `move()`, and return the event it brings."""
    stream = engine.client().stub.WatchGame(request, timeout=30)
    got: list[engine_pb2.GameEvent] = []
    reader = threading.Thread(target=lambda: got.extend([next(iter(stream))]), daemon=True)
    reader.start()
    move()
    reader.join(timeout=20)
    stream.cancel()
    assert got, "no event came"
    return got[0]


def _two_games(client: Any) -> tuple[str, list[str], list[str]]:
    """A running two-seat game (its id and tokens) and the tokens of another one."""
    game_id, tokens = client.create_full({"players": 2})
    _, other_tokens = client.create_full({"players": 2})
    return game_id, tokens, other_tokens


def test_a_live_event_carries_each_proven_audience_view(engine: RunningEngine) -> None:
    client = engine.client()
    game_id, tokens, other_tokens = _two_games(client)
    start = client.view(game_id)
    legal = client.legal(game_id, tokens[0])
    request = engine_pb2.WatchGameRequest(
        game_id=game_id, after_event_id=start.last_event_id, public_view=True,
        seat_tokens=[tokens[0], tokens[1], other_tokens[0], "x" * 40, ""],
    )  # fmt: skip
    event = _first_live_event(
        engine, request, lambda: client.move(game_id, tokens[0], json.loads(legal.moves[0]))
    )
    assert event.version == start.version + 1
    by_seat = {(v.seat if v.HasField("seat") else None): v for v in event.views}
    # The public view and the two seats of this game; another game's token and junk prove none.
    assert set(by_seat) == {None, 0, 1}
    assert len(event.views) == 3 and {m.seat for m in event.legal} == {0, 1}
    for seat, token in ((None, None), (0, tokens[0]), (1, tokens[1])):
        now = client.view(game_id, token)
        assert by_seat[seat].version == now.version >= event.version
        assert json.loads(by_seat[seat].json) == json.loads(now.json)
    for listed in event.legal:
        now_legal = client.legal(game_id, tokens[listed.seat])
        assert listed.version == now_legal.version
        assert list(listed.moves) == list(now_legal.moves)
    # Each seat's view holds its own hand only: seat 0's carried view is not seat 1's.
    assert json.loads(by_seat[0].json) != json.loads(by_seat[1].json)


def test_nothing_is_carried_unless_asked_or_proven(engine: RunningEngine) -> None:
    client = engine.client()
    game_id, tokens, other_tokens = _two_games(client)
    start = client.view(game_id)
    legal = client.legal(game_id, tokens[0])
    plain = engine_pb2.WatchGameRequest(game_id=game_id, after_event_id=start.last_event_id)
    event = _first_live_event(
        engine, plain, lambda: client.move(game_id, tokens[0], json.loads(legal.moves[0]))
    )
    assert not event.views and not event.legal
    after = client.view(game_id)
    legal = client.legal(game_id, tokens[1])
    wrong = engine_pb2.WatchGameRequest(
        game_id=game_id, after_event_id=after.last_event_id, seat_tokens=[other_tokens[1]]
    )
    event = _first_live_event(
        engine, wrong, lambda: client.move(game_id, tokens[1], json.loads(legal.moves[0]))
    )
    assert not event.views and not event.legal
