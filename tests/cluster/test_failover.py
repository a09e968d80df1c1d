"""A primary of the cluster dies (SIGKILL) mid-game right after acknowledging a move; its
replica is promoted by the cluster itself, the game goes on and ends, and no acknowledged move
is missing: with REDIS_MIN_REPLICAS=1 the engine answers a move only once a replica holds it.

Until the dead node is back (as the promoted one's replica) the promoted primary has no replica,
so moves of its slots are refused ("outcome unknown": not confirmed on a replica) and the
client's retries (same move_id) go through once it is back."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from tests.cluster.conftest import FAILOVER_ENV
from tests.cluster.helpers import check_finished, node_of, play_out_any
from tests.fixtures.engine import doc

KILL_BEFORE_MOVE = 10  # the primary dies right after the 10th move was acknowledged


def test_no_acknowledged_move_is_lost_when_a_primary_dies(
    redis_cluster_factory: Any, engine_factory: Any
) -> None:
    cluster = redis_cluster_factory()
    engine = engine_factory(cluster.url, FAILOVER_ENV)
    client = engine.client()
    game_id, tokens = client.create_full({"players": 2}, game="metro")
    primary = node_of(cluster, game_id)
    replica = cluster.replica_of(primary)
    recovery: list[BaseException | float] = []

    def recover() -> None:
        """What the operator (or a StatefulSet) does: the dead node is started again."""
        try:
            cluster.wait_promoted(replica, timeout=15.0)
            recovery.append(time.monotonic())
            cluster.restart(primary)
            cluster.wait_ok(timeout=30.0)
        except BaseException as exc:  # reported by the test below
            recovery.append(exc)

    restarter = threading.Thread(target=recover)

    def before_move(count: int) -> None:
        if count == KILL_BEFORE_MOVE:
            cluster.kill(primary)  # no pause after the last answer: the most a write can lag
            restarter.start()

    final, acked = play_out_any(
        client, game_id, tokens, random.Random(3), before_move=before_move, patience_s=45.0
    )
    restarter.join(60)
    assert recovery and isinstance(recovery[0], float), recovery
    assert node_of(cluster, game_id) is replica  # the game's slot is served by the promoted one
    assert cluster.replica_of(replica) is primary  # and the old primary follows it now
    assert len(acked) > KILL_BEFORE_MOVE + 5

    # Every acknowledged move is there, at the version it was answered with.
    check_finished(client, "metro", game_id, final)
    events = {e.version: doc(e) for e in client.events_until(game_id, final.version)}
    for version, seat, move in acked:
        event = events[version]
        assert event["seat"] == seat and event["action"] == move["action"], (version, event)
        if move.get("placement"):  # a tile placed (a draw has none)
            assert event["placement"] == move["placement"], (version, event)
