"""The engine's gRPC server: the Engine service, standard health checking and reflection.

Health follows Redis: SERVING while it answers, NOT_SERVING while it does not, so a balancer or
`grpc_health_probe` sees a replica that cannot reach the store as down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import uuid

from grpc_health.v1 import health_pb2
from grpc_health.v1.health import aio as health_aio
from metro.v1 import engine_pb2, engine_pb2_grpc

import games
from games import native
from services.common.config import Settings
from services.common.grpc_server import aio_server, serve_health_http
from services.common.grpc_util import SERVER_OPTIONS
from services.common.redis_url import redacted
from services.engine.bots.bots import POLL_SLICE_MS, BotQueue
from services.engine.core.storage_gate import PROBE_INTERVAL_S, PROBE_TIMEOUT_S
from services.engine.core.store import STORAGE_ERRORS, GameStore, connect, probe_client
from services.engine.core.timeouts import ClockKeeper
from services.engine.service import WATCH_SLICE_MS, EngineService, close_quietly

log = logging.getLogger("metro.engine")

SERVICE_NAME = engine_pb2.DESCRIPTOR.services_by_name["Engine"].full_name


async def _watch_health(
    store: GameStore, probe: GameStore, health: health_aio.HealthServicer
) -> None:
    """Ping Redis often, on a client of its own with short timeouts: the storage gate
    (storage_gate.py) and the health status follow each answer."""
    serving: bool | None = None
    while True:
        try:
            ok = await asyncio.wait_for(probe.ping(), timeout=PROBE_TIMEOUT_S * 2)
        except (TimeoutError, *STORAGE_ERRORS):
            ok = False
        if store.gate.mark(ok) and not ok:
            log.warning("redis unreachable: calls are answered UNAVAILABLE at once")
        if ok != serving:
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if ok
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in ("", SERVICE_NAME):
                await health.set(name, status)
            log.info("redis %s", "reachable: serving" if ok else "unreachable: not serving")
            serving = ok
        await asyncio.sleep(PROBE_INTERVAL_S)


async def serve(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Run until `stop` is set (or SIGTERM/SIGINT), then drain for a few seconds."""
    client = connect(settings.redis_url)
    blocking = connect(
        settings.redis_url,
        max_connections=4096,
        longest_block_ms=max(WATCH_SLICE_MS, POLL_SLICE_MS),
    )
    store = GameStore(client)
    probe = GameStore(probe_client(settings.redis_url))
    bots = BotQueue(client, blocking)
    with contextlib.suppress(*STORAGE_ERRORS):
        await bots.ensure_group()  # also done lazily, should Redis be down at start

    server, health = aio_server(SERVICE_NAME, SERVER_OPTIONS)
    service = EngineService(settings, store, bots, blocking)
    engine_pb2_grpc.add_EngineServicer_to_server(service, server)
    address = f"{settings.engine_host}:{settings.engine_port}"
    server.add_insecure_port(address)
    if not settings.ai_service_token:
        log.warning("AI_SERVICE_TOKEN is not set: no AI worker can play the AI seats")

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)

    for name in ("", SERVICE_NAME):  # not ready until the first look at Redis says so
        await health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    games.all_games()  # every game imported now: neither a call nor the keeper waits for it
    await server.start()
    health_http = await serve_health_http(health)  # the containers' cheap probe
    # Deadlines that passed while no engine ran are settled before this one says it is ready,
    # all of them (not one keeper batch, then the next a tick later); then the keeper's loop.
    clock_keeper = ClockKeeper(service)
    await clock_keeper.catch_up(settings.clock_catch_up_s)
    watcher = asyncio.create_task(_watch_health(store, probe, health))
    keeper = asyncio.create_task(clock_keeper.run())  # deadlines, with or without browsers
    sweeper = asyncio.create_task(service.sweep_ratings())  # ended games not rated yet
    ladder = asyncio.create_task(service.ladder.run())  # the bot ladder's rounds (ladder.py)
    # What commits owe the players' own streams (feed_outbox.py), from every shard's outbox.
    outbox = service.feed.reader(store.cluster, f"engine-{uuid.uuid4().hex[:12]}")
    feeder = asyncio.create_task(outbox.run())
    log.info("engine serving on %s (redis %s, rules core %s)", address,
             redacted(settings.redis_url), native.status())  # fmt: skip
    try:
        await stop.wait()
    finally:
        log.info("engine stopping")
        await health.enter_graceful_shutdown()
        if health_http is not None:
            health_http.close()
        watcher.cancel()
        keeper.cancel()
        sweeper.cancel()
        ladder.cancel()
        feeder.cancel()
        await server.stop(grace=3.0)
        await close_quietly(blocking)
        await close_quietly(client)
        await close_quietly(probe.redis)
