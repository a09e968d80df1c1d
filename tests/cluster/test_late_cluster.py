"""An engine started before its Redis Cluster answers (a deployment where the pods come up in
any order) does not crash, and serves once the cluster is up."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

from services.common.redis_server import free_port
from tests.cluster.conftest import ENGINE_ENV
from tests.cluster.helpers import check_finished, play_out_any
from tests.fixtures.redis_cluster import RedisClusterProcesses

CLUSTER_AFTER_S = 3.0


def test_an_engine_waits_for_its_cluster(tmp_path: Path, engine_factory: Any) -> None:
    cluster = RedisClusterProcesses(tmp_path / "cluster", ports=[free_port() for _ in range(6)])
    started: list[float | BaseException] = []
    begun: list[float] = []

    def start_later() -> None:
        try:
            time.sleep(CLUSTER_AFTER_S)  # the cluster comes up late: what the engine must wait out
            begun.append(time.monotonic())
            cluster.start()
            started.append(time.monotonic())
        except BaseException as exc:  # reported below
            started.append(exc)

    starter = threading.Thread(target=start_later)
    starter.start()
    try:
        spawned_at = time.monotonic()
        engine = engine_factory(cluster.url, ENGINE_ENV)  # returns once it says SERVING
        starter.join(60)
        assert started and isinstance(started[0], float), started
        assert begun and spawned_at < begun[0]  # the engine ran seconds without its cluster
        assert engine.process.alive
        client = engine.client()
        game_id, tokens = client.create_full({"players": 2}, game="metro")
        final, _acked = play_out_any(client, game_id, tokens, random.Random(1))
        check_finished(client, "metro", game_id, final)
    finally:
        starter.join(60)
        cluster.stop()
