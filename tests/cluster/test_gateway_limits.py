"""The gateway's shared limits on a Redis Cluster: request rates counted together by two
gateway apps (flask-limiter's cluster storage, from the same REDIS_URL form), and hint slots
whose script takes a game's and a client's set at once (one hash tag, so one slot)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask

from services.common.config import GatewayLimits
from services.gateway.app import create_app
from services.gateway.errors import ApiError
from services.gateway.limits import HintSlots
from tests.fixtures.engine import RunningEngine
from tests.fixtures.gateway import GatewayApi, gateway_config
from tests.fixtures.redis_cluster import RedisClusterProcesses

SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]


def test_hint_slots_are_shared_by_gateways_on_a_cluster(
    redis_cluster: RedisClusterProcesses,
) -> None:
    a = HintSlots(redis_cluster.url, per_game=1, per_client=2, hold_s=1.0)
    b = HintSlots(redis_cluster.url, per_game=1, per_client=2, hold_s=1.0)
    game = f"g-{time.monotonic_ns()}"
    with a.hold(game, "ada"):
        with pytest.raises(ApiError) as full, b.hold(game, "bo"):  # the other gateway sees it
            pass
        assert "for this game" in full.value.message
        with b.hold(game + "-2", "ada"):
            with pytest.raises(ApiError) as mine, a.hold(game + "-3", "ada"):
                pass
            assert "of your hints" in mine.value.message
    with b.hold(game, "bo"):  # given back
        pass


def test_request_rates_are_counted_together_on_a_cluster(
    redis_cluster: RedisClusterProcesses, cluster_engine: RunningEngine, ai_factory: Any
) -> None:
    ai = ai_factory(cluster_engine)
    # The defaults, counted on the cluster; creates capped low (and open games not first).
    limits = replace(
        GatewayLimits.from_env(), enabled=True, storage_url=redis_cluster.url,
        create="6/minute", open_games="100/minute",
    )  # fmt: skip
    apps: list[Flask] = [
        create_app(gateway_config(cluster_engine.address, ai.address, LIMITS=limits))
        for _ in range(2)
    ]
    try:
        gateways = []
        for app in apps:
            test_client = app.test_client()
            test_client.environ_base["REMOTE_ADDR"] = "10.0.7.1"
            gateways.append(GatewayApi(test_client))
        statuses = [gw.post("/api/games", {"seats": SEATS})[0] for gw in gateways * 4]
        assert statuses == [201] * 6 + [429] * 2, statuses
    finally:
        for app in apps:
            app.extensions["metro_gateway"].backends.close()
