"""The AI on a person's seat plays at a person's pace (issue 19, item 5), with real processes (a
Redis, an engine, an AI worker): at a table where every player has left, the AI waits at least
2 s between a seat's moves and does not end the game within 60 s of taking the seat over (it
does end it soon after), while AI seats of their own still play at machine speed elsewhere
(tests/ai/test_bots.py)."""

from __future__ import annotations

import json
import random

import pytest
from metro.v1 import engine_pb2

from services.ai.pace import GRACE_MS, PACE_MS, event_ms
from services.common.grpc_util import bearer
from tests.fixtures.engine import RunningEngine, doc
from tests.fixtures.waits import wait_until

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
    wait_until(
        lambda: c.view(game).status == "over",
        "the AI to finish the game",
        timeout=(GRACE_MS / 1000) + 40,
        every=0.5,
    )
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


def test_a_game_left_to_the_ai_does_not_hold_up_other_games_ai_seats(  # type: ignore[no-untyped-def]
    own_engine: RunningEngine, ai_factory
) -> None:
    """One AI process with one bot loop (the default): while it plays an away game at a
    person's pace (2 s a move), a game of AI seats elsewhere still plays at machine speed. Its
    ~60 moves are made within a few of the away game's paced moves, not one between each two
    of them (the loop once slept through each pace wait, holding the job: bot.py `play`)."""
    ai_factory(own_engine, "ai-1")
    c = own_engine.client()
    away_game, tokens = c.create_full({"players": 2})
    rng = random.Random(31)
    view = c.view(away_game)
    while len(doc(view)["board"]) < 20:  # 40 tiles left: 80 s of paced moves at least
        (seat,) = view.to_move
        moves = [json.loads(m) for m in c.legal(away_game, tokens[seat]).moves]
        view = c.move(away_game, tokens[seat], rng.choice(moves))
    for token in tokens:
        c.stub.SetAway(
            engine_pb2.SetAwayRequest(game_id=away_game, away=True), metadata=bearer(token),
            timeout=10,
        )  # fmt: skip
    paced_from = view.version
    wait_until(lambda: c.view(away_game).version > paced_from, "the AI's first paced move")

    seats = [engine_pb2.SeatSpec(kind="ai", name=f"bot-{i}", level="random") for i in range(2)]
    busy_game = c.create({"players": 2}, seats).game_id
    over = wait_until(
        lambda: (v := c.view(busy_game)).status == "over" and v,
        "the AI seats' game to end",
        timeout=300,
    )
    busy_events = [e.event_id for e in c.events_until(busy_game, over.version)]
    first, last = event_ms(busy_events[0]), event_ms(busy_events[-1])
    assert first is not None and last is not None
    paced = c.events_until(away_game, c.view(away_game).version)
    paced_meanwhile = [e for e in paced if first <= (event_ms(e.event_id) or 0) <= last]
    assert len(busy_events) >= 60
    # A loop that slept through each pace wait made about one paced move per move of the other
    # game; now the other game plays between them (two of its moves per paced one is a loaded
    # machine's 1 s a move).
    assert 2 * len(paced_meanwhile) < len(busy_events), (len(paced_meanwhile), len(busy_events))
