"""The service around the games: health, reflection, watching with resume, TTLs."""

from __future__ import annotations

import random
import threading

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from services.engine.core.store import answers_key, events_key, game_key
from tests.engine.helpers import choose, moves_of, play_out
from tests.fixtures.engine import EngineClient, RunningEngine, doc


def test_health_and_reflection(engine: RunningEngine) -> None:
    channel = engine.channel()
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "metro.v1.Engine"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert {"metro.v1.Engine", "grpc.health.v1.Health"} <= services


def test_watch_replays_then_follows_live(engine_client: EngineClient) -> None:
    c = engine_client
    game_id, tokens = c.create_full({"players": 2})
    rng = random.Random(3)
    for _ in range(4):
        (seat,) = c.view(game_id).to_move
        legal = c.legal(game_id, tokens[seat])
        c.move(game_id, tokens[seat], *choose(moves_of(legal), rng, 0.0))
    seen = c.events_until(game_id, 6)
    assert [doc(e)["action"] for e in seen] == ["create", "join", *["place"] * 4]
    assert len({e.event_id for e in seen}) == 6
    assert c.view(game_id).last_event_id == seen[-1].event_id

    # Resume after the third event: the missed ones first, then live ones as they happen.
    resumed: list = []
    stream = c.events(game_id, after=seen[2].event_id, timeout=60)
    reader = threading.Thread(target=lambda: resumed.extend(stream))
    reader.start()
    final = play_out(c, game_id, tokens, rng)
    reader.join(30)
    assert not reader.is_alive(), "the stream must end with the game"
    assert [e.event_id for e in resumed[:3]] == [e.event_id for e in seen[3:]]
    assert [e.version for e in resumed] == list(range(4, final.version + 1))
    assert resumed[-1].status == "over"
    assert list(c.events(game_id, after=final.last_event_id)) == []


def test_ttls_follow_the_status(engine: RunningEngine, engine_client: EngineClient) -> None:
    c = engine_client
    game_id, tokens = c.create_full({"players": 2})
    r = redis.Redis.from_url(engine.redis_url)
    try:
        keys = [game_key(game_id), events_key(game_id), answers_key(game_id)]
        for key in keys:
            assert 3600 < r.ttl(key) <= 7200  # GAME_TTL_IDLE_S of the session engine
        play_out(c, game_id, tokens, random.Random(4))
        for key in keys:
            assert 0 < r.ttl(key) <= 3600  # GAME_TTL_FINISHED_S
        state = r.hget(game_key(game_id), "state")
        assert state and b"deck0" in state  # the secret state is stored, never sent
    finally:
        r.close()


def test_deadline_is_respected(engine: RunningEngine) -> None:
    # A channel of its own: the session's shared one may be at the end of its connection age
    # (SERVER_OPTIONS), when a new stream can be cut with UNAVAILABLE instead.
    client = engine.client()
    game_id, _ = client.create_full({"players": 2})
    stream = client.events(game_id, timeout=0.5)
    try:
        list(stream)
        raise AssertionError("a watch of a running game must end at its deadline")
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
