"""The Ai service's process: the gRPC server (Suggest, health, reflection) and the bot workers.

Settings (besides services/common/config.py's ENGINE_TARGET, AI_PORT, AI_SERVICE_TOKEN and
RPC_DEADLINE_S): AI_HOST (default 0.0.0.0, so that containers are reachable), AI_BOT_WORKERS
(bot loops in this process, default 1; 0 serves hints only) and AI_SEARCH_THREADS (hint
searches run at once, default 2; bot moves have a thread per bot loop of their own, so hints
never hold up an AI seat's move), AI_ANALYSIS_WORKERS (post-game analysis loops, default 1,
each judging in a nice-19 process of its own) and ANALYSIS_ITERATIONS (their fixed budget a
move, default 800). Scale by running more processes: each uses one core.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from grpc_health.v1 import health_pb2
from metro.v1 import ai_pb2, ai_pb2_grpc

from games import native
from services.ai.analysis import AnalysisParams
from services.ai.analysis_worker import AnalysisWorker
from services.ai.bot import BotWorker
from services.ai.engine_api import EngineApi
from services.ai.search import Searcher
from services.ai.suggest import AiService
from services.common.config import AiWorkerSettings, Settings
from services.common.grpc_server import aio_server, serve_health_http
from services.common.grpc_util import STATELESS_SERVER_OPTIONS

log = logging.getLogger("metro.ai")

SERVICE_NAME = ai_pb2.DESCRIPTOR.services_by_name["Ai"].full_name
STOP_GRACE_S = 3.0


async def serve(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Serve until `stop` is set (or SIGTERM/SIGINT); then finish the moves and hints in
    progress for a few seconds and leave."""
    worker = AiWorkerSettings.from_env()
    host = worker.host
    bot_count = worker.bot_workers
    searcher = Searcher(worker.search_threads, bot_threads=bot_count)
    api = EngineApi(settings.engine_target, settings.rpc_deadline_s)

    server, health = aio_server(SERVICE_NAME, STATELESS_SERVER_OPTIONS)
    ai_pb2_grpc.add_AiServicer_to_server(
        AiService(api, searcher, settings.ai_service_token), server
    )
    address = f"{host}:{settings.ai_port}"
    server.add_insecure_port(address)

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)

    await server.start()
    health_http = await serve_health_http(health)  # the containers' cheap probe
    for name in ("", SERVICE_NAME):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    workers: list[BotWorker] = []
    if not settings.ai_service_token:
        log.warning("AI_SERVICE_TOKEN is not set: hints only, no AI seat will be played")
    else:
        workers = [BotWorker(api, searcher, settings.ai_service_token, i) for i in range(bot_count)]
    analysts = _analysts(api, settings, worker, searcher)
    tasks = [asyncio.create_task(w.run(), name=w.worker_id) for w in workers]
    analysis_tasks = [asyncio.create_task(a.run(), name=a.worker_id) for a in analysts]
    log.info("ai serving on %s (engine %s, %d bot workers, rules core %s)", address,
             settings.engine_target, len(workers), native.status())  # fmt: skip
    try:
        await stop.wait()
    finally:
        log.info("ai stopping")
        await health.enter_graceful_shutdown()
        if health_http is not None:
            health_http.close()
        await _stop_workers(workers, tasks)
        for analyst, task in zip(analysts, analysis_tasks, strict=True):
            analyst.stopping = True
            task.cancel()
            analyst.close()
        await asyncio.gather(*analysis_tasks, return_exceptions=True)
        await server.stop(grace=STOP_GRACE_S)
        await api.close()
        searcher.close()


def _analysts(
    api: EngineApi, settings: Settings, worker: AiWorkerSettings, searcher: Searcher
) -> list[AnalysisWorker]:
    """The post-game analysis loops (analysis_worker.py): AI_ANALYSIS_WORKERS of them, with
    ANALYSIS_ITERATIONS a decision; none without the AI credential."""
    if not settings.ai_service_token:
        return []
    params = AnalysisParams(iterations=worker.analysis_iterations)
    return [
        AnalysisWorker(api, settings.ai_service_token, params, i, lambda: searcher.busy)
        for i in range(worker.analysis_workers)
    ]


async def _stop_workers(workers: list[BotWorker], tasks: list[asyncio.Task[None]]) -> None:
    """A worker waiting for a job stops at once; one making a move finishes it first, and so
    do the paced moves of away seats."""
    for worker, task in zip(workers, tasks, strict=True):
        worker.stopping = True
        if not worker.busy:
            task.cancel()
    await _finish(tasks)
    # Away seats' moves waiting for their pace (bot.py): made within the grace, else left
    # pending in the engine for another worker to retake.
    await _finish([task for worker in workers for task in worker.delivering])


async def _finish(tasks: list[asyncio.Task[None]]) -> None:
    """Let `tasks` end within STOP_GRACE_S, then cancel the rest."""
    if not tasks:
        return
    _, late = await asyncio.wait(tasks, timeout=STOP_GRACE_S)
    for task in late:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
