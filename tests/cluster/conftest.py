"""Engines (and AI workers) on a real Redis Cluster, or a Sentinel-managed primary: their
fixtures, and one engine for the session on the cluster that waits for a replica on every
change (REDIS_MIN_REPLICAS=1)."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator

import pytest

from tests.fixtures.engine import RunningEngine, start_engine
from tests.fixtures.redis_cluster import (  # noqa: F401 (fixtures, found by pytest by name)
    RedisClusterProcesses,
    redis_cluster,
    redis_cluster_factory,
)
from tests.fixtures.redis_sentinel import redis_sentinel_factory  # noqa: F401 (a fixture)

ENGINE_ENV = {
    "REDIS_MIN_REPLICAS": "1",
    # Generous: a replica on two busy cores may lag; a failover test sets its own, shorter.
    "REDIS_REPLICA_WAIT_MS": "5000",
    "GAME_TTL_FINISHED_S": "3600",
    "GAME_TTL_IDLE_S": "7200",
    "GAME_TTL_WAITING_S": "1800",
}
# While the promoted primary has no replica yet, each move waits this long before it is refused.
FAILOVER_ENV = {**ENGINE_ENV, "REDIS_REPLICA_WAIT_MS": "1000"}


@pytest.fixture(scope="session")
def cluster_engine(
    redis_cluster: RedisClusterProcesses,  # noqa: F811 (the fixture imported above)
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RunningEngine]:
    """One engine process for the session, on the session's cluster."""
    running = start_engine(tmp_path_factory.mktemp("cluster-engine"), redis_cluster.url,
                           ENGINE_ENV)  # fmt: skip
    try:
        yield running
    finally:
        running.close_channels()
        running.process.stop()


@pytest.fixture(autouse=True)
def _sockets_of_killed_nodes_collected_here() -> Iterator[None]:
    """Clients of nodes these tests kill drop sockets that never connected (redis-py); collect
    them at the end of the test that made them, not as a ResourceWarning in whichever later
    test the garbage collector happens to run in."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
