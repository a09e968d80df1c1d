"""A player's feed is at least once (issue 30 item 4): the `your_turn` of a committed move is
never lost when the engine dies between the commit and the feed write.

The feed write is made to fail (the player's feed key holds a value of the wrong type, as a
write to a full or failing Redis would), then the engine is killed with SIGKILL right after the
move's answer, before it could try again; the key is mended and the engine restarted. Every
`your_turn` of the moves must then be in the feed, each once. With the feed kept in the engine's
memory (the queue of old) the event is gone for good.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis
from metro.v1 import engine_pb2

from services.common.grpc_util import bearer
from tests.engine.helpers import choose, moves_of
from tests.fixtures.engine import EngineClient, engine_ready, metro_seats
from tests.fixtures.waits import wait_until

TIMEOUT = 10.0
WAIT_S = 60.0


def _md(key: str, token: str = "") -> tuple[tuple[str, str], ...]:
    out = [("x-client-id", uuid.uuid4().hex), ("x-player-key", key)]
    if token:
        out.append(("authorization", f"Bearer {token}"))
    return tuple(out)


def _feed(store: Any, player_id: str) -> list[dict[str, Any]]:
    if store.type(f"feed:{{{player_id}}}") != "stream":
        return []
    return [json.loads(f["json"]) for _i, f in store.xrange(f"feed:{{{player_id}}}")]


def _turns(store: Any, player_id: str, game_id: str) -> list[int]:
    return [
        e["version"]
        for e in _feed(store, player_id)
        if e["type"] == "your_turn" and e["game_id"] == game_id
    ]


def _fed(store: Any, player_id: str, game_id: str, version: int) -> Callable[[], bool]:
    """A check: the player's feed has the `your_turn` of this version."""
    return lambda: version in _turns(store, player_id, game_id)


def _move(client: EngineClient, game_id: str, token: str, rng: random.Random) -> int:
    legal = client.legal(game_id, token)
    action, placement = choose(moves_of(legal), rng, 0.3)
    answer = client.move(game_id, token, action, placement, expected_version=legal.version)
    return int(answer.version)


def _seated_game(client: Any, name: str) -> tuple[Any, str, list[str]]:
    """A new player named `name` sat at seat 0 of a new 2-seat game whose seat 1 another
    joined: the player, the game id and the two seats' tokens."""
    player = client.stub.CreatePlayer(
        engine_pb2.CreatePlayerRequest(name=name),
        metadata=(("x-client-id", uuid.uuid4().hex),), timeout=TIMEOUT,
    )  # fmt: skip
    created = client.create({"players": 2}, metro_seats("human", "open"))
    joined = client.join(created.game_id, "Other")
    client.stub.SitPlayer(
        engine_pb2.SitPlayerRequest(game_id=created.game_id),
        metadata=_md(player.device_key, created.token), timeout=TIMEOUT,
    )  # fmt: skip
    return player, created.game_id, [created.token, joined.token]


def test_no_your_turn_is_lost_when_the_engine_is_killed_after_a_commit(
    redis_server_factory: Any, engine_factory: Any
) -> None:
    server = redis_server_factory()
    running = engine_factory(server.url)
    client = running.client()
    store: Any = redis.Redis.from_url(server.url, decode_responses=True)
    player, game_id, tokens = _seated_game(client, "Feedy")
    rng = random.Random(7)
    feed = f"feed:{{{player.player_id}}}"
    try:
        expected: list[int] = []
        for _round in range(3):
            while 0 in client.view(game_id).to_move:  # the other is to move first
                _move(client, game_id, tokens[0], rng)
            store.delete(feed)
            store.set(feed, "not a stream")  # every feed write fails from now on
            while 0 not in client.view(game_id).to_move:  # until it is the player's turn
                version = _move(client, game_id, tokens[1], rng)
            expected.append(version)
            running.process.restart(hard=True)  # SIGKILL right after the commit's answer
            store.delete(feed)  # the store mends; the engine comes back
            wait_until(
                lambda: engine_ready(running.address),
                "the engine to come back",
                timeout=WAIT_S,
                every=0.1,
            )
            client = running.client()
            wait_until(
                _fed(store, player.player_id, game_id, version),
                f"your_turn {version} in the feed (else lost)",
                timeout=WAIT_S,
                every=0.05,
            )
            _move(client, game_id, tokens[0], rng)  # the player moves; the round begins again
        seen = _turns(store, player.player_id, game_id)
        assert len(seen) == len(set(seen)), f"a your_turn came twice: {seen}"
    finally:
        store.close()


def test_kills_at_random_moments_of_commits_lose_no_your_turn(
    redis_server_factory: Any, engine_factory: Any
) -> None:
    """The engine is killed (SIGKILL) while the other seat's move is in flight, at a random
    moment of its commit; whenever the commit landed and made it the player's turn, the
    restarted engine's feed has that `your_turn`, once."""
    server = redis_server_factory()
    running = engine_factory(server.url)
    client = running.client()
    store: Any = redis.Redis.from_url(server.url, decode_responses=True)
    player, game_id, tokens = _seated_game(client, "Killy")
    rng = random.Random(11)
    try:
        for _round in range(5):
            while 0 in client.view(game_id).to_move:
                _move(client, game_id, tokens[0], rng)
            legal = client.legal(game_id, tokens[1])
            action, placement = choose(moves_of(legal), rng, 0.3)
            request = client.move_request(
                game_id, action, placement, expected_version=legal.version, move_id=f"r{_round}"
            )
            future = client.stub.ApplyMove.future(
                request, metadata=bearer(tokens[1]), timeout=TIMEOUT
            )
            time.sleep(rng.random() * 0.01)  # somewhere in the move's commit
            running.process.restart(hard=True)
            future.cancel()
            wait_until(
                lambda: engine_ready(running.address),
                "the engine to come back",
                timeout=WAIT_S,
                every=0.1,
            )
            client = running.client()
            view = client.view(game_id)
            if view.version > legal.version and 0 in view.to_move:
                wait_until(
                    _fed(store, player.player_id, game_id, view.version),
                    f"your_turn {view.version} in the feed (else lost)",
                    timeout=WAIT_S,
                    every=0.05,
                )
        seen = _turns(store, player.player_id, game_id)
        assert len(seen) == len(set(seen)), f"a your_turn came twice: {seen}"
    finally:
        store.close()
