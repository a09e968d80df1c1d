"""REDIS_URL naming a Sentinel: the engine finds the primary through it, and when the primary
dies mid-game (SIGKILL, right after an acknowledged move) the Sentinel promotes the replica,
the engine follows, and no acknowledged move is lost (REDIS_MIN_REPLICAS=1)."""

from __future__ import annotations

import random
import threading
from typing import Any

from tests.cluster.conftest import FAILOVER_ENV
from tests.cluster.helpers import check_finished, play_out_any
from tests.fixtures.engine import doc

KILL_BEFORE_MOVE = 8


def test_the_engine_follows_a_sentinel_failover_and_keeps_every_move(
    redis_sentinel_factory: Any, engine_factory: Any
) -> None:
    watched = redis_sentinel_factory()
    engine = engine_factory(watched.url, FAILOVER_ENV)
    client = engine.client()
    game_id, tokens = client.create_full({"players": 2}, game="metro")
    old = watched.primary()
    outcome: list[Any] = []

    def recover() -> None:
        try:
            outcome.append(watched.wait_failed_over(old, timeout=30.0))
            # Back as the new primary's replica: writes are WAITed for again.
            watched.restart(old, timeout=60.0)
        except BaseException as exc:  # reported below
            outcome.append(exc)

    restarter = threading.Thread(target=recover)

    def before_move(count: int) -> None:
        if count == KILL_BEFORE_MOVE:
            old.kill()
            restarter.start()

    final, acked = play_out_any(
        client, game_id, tokens, random.Random(8), before_move=before_move, patience_s=90.0
    )
    restarter.join(120)
    assert len(outcome) == 1 and outcome[0] is not old and outcome[0] is watched.primary(), outcome
    assert len(acked) > KILL_BEFORE_MOVE + 5
    check_finished(client, "metro", game_id, final)
    events = {e.version: doc(e) for e in client.events_until(game_id, final.version)}
    for version, seat, move in acked:
        assert events[version]["seat"] == seat, (version, events[version])
        assert events[version]["action"] == move["action"], (version, events[version])
