"""Table clocks on a Redis Cluster: the commit script indexes a game's deadline in its shard's
clock zset (in the game's slot), and the engine's clock keeper, gathering every shard, enforces
it at the deadline with no client connected."""

from __future__ import annotations

import json
import time

import grpc
from metro.v1 import engine_pb2

from services.engine.core.shards import shard_of
from services.engine.core.store import clocks_key
from tests.cluster.helpers import node_of
from tests.fixtures.engine import RunningEngine, doc, metro_seats
from tests.fixtures.redis_cluster import RedisClusterProcesses

FAST = {"mode": "realtime", "move_s": 5, "bank_s": 0, "ai_level": "random"}


def test_a_deadline_is_indexed_in_the_games_slot_and_enforced(
    cluster_engine: RunningEngine, redis_cluster: RedisClusterProcesses
) -> None:
    c = cluster_engine.client()
    request = engine_pb2.CreateGameRequest(
        game="metro",
        rules_json=json.dumps({"players": 2}),
        seats=metro_seats("human", "open"),
        clock_json=json.dumps(FAST),
    )
    game_id = c.stub.CreateGame(request, timeout=10).game_id
    c.join(game_id, "Bo")
    deadline = doc(c.view(game_id))["seats"][0]["clock"]["deadline_ms"]
    shard = shard_of(game_id)
    assert shard is not None
    with node_of(redis_cluster, game_id).client() as direct:  # the game's own primary
        assert direct.zscore(clocks_key(shard), game_id) == deadline

    # Nobody moves: at the deadline the keeper times seat 0 out.
    limit = time.monotonic() + 20
    timeout = None
    while timeout is None:
        assert time.monotonic() < limit, "no timeout within 20 s"
        try:
            for event in c.stub.WatchGame(
                engine_pb2.WatchGameRequest(game_id=game_id), timeout=0.5
            ):
                data = json.loads(event.json)
                if data["action"] == "timeout":
                    timeout = (event.event_id, data)
                    break
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    event_id, data = timeout
    assert data["seats"] == [0]
    assert deadline <= int(event_id.split("-")[0]) < deadline + 3000
    with node_of(redis_cluster, game_id).client() as direct:  # the next deadline, if any
        assert direct.zscore(clocks_key(shard), game_id) != deadline
