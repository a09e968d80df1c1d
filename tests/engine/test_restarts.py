"""Nothing is lost when the engine dies (all state is in Redis), nor when Redis restarts with
AOF persistence on."""

from __future__ import annotations

import random

import grpc
import pytest

import games
from tests.engine.helpers import choose, moves_of, play_out, record_of
from tests.fixtures.engine import EngineClient, doc, engine_ready
from tests.fixtures.waits import wait_until


def _play(client: EngineClient, game_id: str, tokens: list[str], moves: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        view = client.view(game_id)
        (seat,) = view.to_move
        legal = client.legal(game_id, tokens[seat])
        action, placement = choose(moves_of(legal), rng, 0.3)
        client.move(game_id, tokens[seat], action, placement, expected_version=view.version)


def _views(client: EngineClient, game_id: str, tokens: list[str]) -> list:
    return [client.view(game_id, t) for t in [*tokens, None]]


def _finish_and_check(client: EngineClient, game_id: str, tokens: list[str]) -> None:
    final = play_out(client, game_id, tokens, random.Random(5))
    replayed = games.get("metro").replay(record_of(client, game_id))
    assert replayed.scores == [s["score"] for s in doc(final)["seats"]]


def test_engine_killed_mid_game(redis_url: str, engine_factory) -> None:
    running = engine_factory(redis_url)
    client = running.client()
    game_id, tokens = client.create_full({"players": 3, "hand_size": 2})
    _play(client, game_id, tokens, 20, seed=1)
    before = _views(client, game_id, tokens)

    running.process.restart(hard=True)  # SIGKILL: no chance to flush anything

    client = running.client()
    assert _views(client, game_id, tokens) == before
    _finish_and_check(client, game_id, tokens)


def test_redis_restarted_with_aof(redis_server_factory, engine_factory) -> None:
    server = redis_server_factory(appendonly=True)
    running = engine_factory(server.url)
    client = running.client()
    game_id, tokens = client.create_full({"players": 2, "online": True})
    _play(client, game_id, tokens, 15, seed=2)
    before = _views(client, game_id, tokens)

    server.stop()
    with pytest.raises(grpc.RpcError) as down:
        client.view(game_id)
    assert down.value.code() == grpc.StatusCode.UNAVAILABLE
    server.start()  # same port, same directory: the AOF is replayed
    wait_until(
        lambda: engine_ready(running.address),
        "the engine to report SERVING again",
        timeout=20,
        every=0.1,
    )

    assert _views(client, game_id, tokens) == before
    _finish_and_check(client, game_id, tokens)
