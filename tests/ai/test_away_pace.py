"""The AI on a person's seat plays at a person's pace (issue 19, item 5), with real processes (a
Redis, an engine, an AI worker): at a table where every player has left, the AI waits at least
2 s between a seat's moves and does not end the game within 60 s of taking the seat over (it
does end it soon after), while AI seats of their own still play at machine speed elsewhere
(tests/ai/test_bots.py)."""

from __future__ import annotations

import json
import random
import time

import pytest
from metro.v1 import engine_pb2

from services.ai.pace import GRACE_MS, PACE_MS, event_ms
from services.common.grpc_util import bearer
from tests.fixtures.engine import RunningEngine, doc

LEFT_WITH = 5  # tiles still to place when both players leave


@pytest.fixture
def own_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    """An engine on a Redis of its own: no other test's AI worker can take these jobs."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def test_away_seats_move_at_a_person_s_pace_and_never_end_the_game_at_once(  # type: ignore[no-untyped-def]
    own_engine: RunningEngine, ai_factory
) -> None:
    ai_factory(own_engine, "ai-1")
    c = own_engine.client()
    game, tokens = c.create_full({"players": 2})
    rng = random.Random(19)
    view = c.view(game)
    # Both people play fast (a move every few ms) until a few tiles are left ...
    while len(doc(view)["board"]) < 60 - LEFT_WITH:
        (seat,) = view.to_move
        moves = [json.loads(m) for m in c.legal(game, tokens[seat]).moves]
        view = c.move(game, tokens[seat], rng.choice(moves))
    # ... then both leave: every seat is the AI's.
    for token in tokens:
        c.stub.SetAway(
            engine_pb2.SetAwayRequest(game_id=game, away=True), metadata=bearer(token), timeout=10
        )
    deadline = time.monotonic() + (GRACE_MS / 1000) + 40
    while c.view(game).status != "over":
        assert time.monotonic() < deadline, "the AI never finished the game"
        time.sleep(0.5)
    final = c.view(game)
    events = [(e.event_id, json.loads(e.json)) for e in c.events_until(game, final.version)]

    took_over: dict[int, int] = {}
    last_move: dict[int, int] = {}
    gaps: list[int] = []
    ai_moves = 0
    for event_id, event in events:
        at = event_ms(event_id)
        assert at is not None
        if event.get("action") == "left":
            for seat in event["seats"]:
                took_over[seat] = at
            continue
        seat = event.get("seat")
        if event.get("action") not in ("draw", "place") or not isinstance(seat, int):
            continue
        if seat in took_over:
            ai_moves += 1
            gaps.append(at - last_move[seat])
        last_move[seat] = at
    assert sorted(took_over) == [0, 1]
    assert ai_moves >= LEFT_WITH, (ai_moves, events[-12:])
    # At a person's pace: never two moves of one seat within 2 s.
    assert min(gaps) >= PACE_MS, gaps
    # Not over within a minute of the AI taking the seats over, and not much later either.
    over_id, over = events[-1]
    assert over["status"] == "over"
    ended_by = over["seat"]
    after_s = (event_ms(over_id) - took_over[ended_by]) / 1000  # type: ignore[operator]
    assert GRACE_MS / 1000 <= after_s < GRACE_MS / 1000 + 15, after_s
