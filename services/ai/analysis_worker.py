"""The AI workers' post-game analyses: background work that never slows a live AI seat or a hint.

A worker loops: ClaimAnalysis (AI credential) → GetRecord through the engine → the decisions
judged one at a time (services/ai/analysis.py) in a worker PROCESS of its own, started at the
lowest CPU priority (nice 19), so the kernel gives hints and AI seats the core first; and no
decision is started while a hint or an AI seat's move is being searched in this process (it
waits for them); progress every few decisions (ReportAnalysis, which also keeps the job leased);
the result at the end.
AI_ANALYSIS_WORKERS loops per AI process (default 1: one analysis at a time), each with one
process, so analyses use at most that many cores' idle time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import grpc
from metro.v1 import engine_pb2

from games.errors import GameError
from services.ai.analysis import (
    AnalysisParams,
    count_decisions,
    judge_range,
    move_budget_s,
    summarise,
)
from services.ai.bot import worker_id
from services.ai.engine_api import EngineApi
from services.common.grpc_util import bearer

log = logging.getLogger("metro.ai.analysis")

POLL_S = 1.0  # an idle worker asks for work this often
PIECE = 1  # decisions judged per call into the worker process (none starts while a hint runs)
REPORT_EVERY = 4  # decisions between progress reports
YIELD_S = 0.05  # how often a waiting analysis looks whether the hints are done


def _lowest_priority() -> None:
    """The analysis process yields the CPU to everything else of the AI (and the machine)."""
    with contextlib.suppress(OSError):
        os.nice(19)


class AnalysisWorker:
    def __init__(
        self,
        api: EngineApi,
        token: str,
        params: AnalysisParams,
        index: int,
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self.api = api
        self.busy = busy  # hints or AI seats searching in this process: the analysis waits
        self.token = token
        self.params = params
        self.worker_id = worker_id(100 + index)
        self.stopping = False
        self.pool = self._new_pool()

    @staticmethod
    def _new_pool() -> concurrent.futures.ProcessPoolExecutor:
        """One process, spawned (never forked from a process holding gRPC threads), started
        on first use at nice 19."""
        return concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"), initializer=_lowest_priority
        )

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def run(self) -> None:
        while not self.stopping:
            try:
                claimed = await self.api.stub.ClaimAnalysis(
                    engine_pb2.ClaimAnalysisRequest(worker_id=self.worker_id),
                    metadata=bearer(self.token),
                    timeout=self.api.timeout_s,
                )
                if not claimed.game_id:
                    await asyncio.sleep(POLL_S)
                    continue
                await self.analyse(claimed.game_id)
            except asyncio.CancelledError:
                raise
            except grpc.aio.AioRpcError as err:
                log.warning("analysis: the engine answered %s: %s", err.code(), err.details())
                await asyncio.sleep(POLL_S)
            except BrokenProcessPool:  # the analysis process died (killed, out of memory)
                log.error("analysis worker %s: its process died; starting another", self.worker_id)
                self.pool = self._new_pool()
                await asyncio.sleep(POLL_S)
            except Exception:
                log.exception("analysis worker %s", self.worker_id)
                await asyncio.sleep(POLL_S)

    async def analyse(self, game_id: str) -> None:
        """One game, piece by piece; an abort (another worker took the job over) ends it."""
        # With the AI credential: a private game's record (a daily attempt, analysed for its own
        # player) is refused without it, and the job then ran until its tries were spent.
        got = await self.api.stub.GetRecord(
            engine_pb2.GetRecordRequest(game_id=game_id),
            metadata=bearer(self.token),
            timeout=self.api.timeout_s,
        )
        record = json.loads(got.record_json)
        loop = asyncio.get_running_loop()
        try:
            total = await loop.run_in_executor(self.pool, count_decisions, record)
        except (GameError, ValueError, KeyError, TypeError) as err:
            await self.report(game_id, 0, 0, error=f"the record does not replay: {err}")
            return
        judged: list[dict[str, Any]] = []
        await self.report(game_id, 0, total)
        # The game's time budget, split over the decisions left (time spent waiting for live
        # searches is not counted: the analysis yields to them, it does not lose to them).
        left_s = self.params.game_budget_s
        for start in range(0, total, PIECE):
            if self.stopping:  # another worker takes it over once the lease runs out
                return
            while self.busy() and not self.stopping:  # live searches first, always
                await asyncio.sleep(YIELD_S)
            stop = min(total, start + PIECE)
            share = move_budget_s(left_s, total - start) * (stop - start)
            began = loop.time()
            judged += await loop.run_in_executor(
                self.pool, judge_range, game_id, record, self.params, start, stop, share
            )
            left_s -= loop.time() - began
            if stop < total and stop % REPORT_EVERY == 0:
                await self.report(game_id, stop, total)
        result = summarise(game_id, record, judged, self.params)
        await self.report(game_id, total, total, result=result)
        log.info("analysed %s: %d decisions", game_id, total)

    async def report(
        self,
        game_id: str,
        done: int,
        total: int,
        *,
        result: dict[str, Any] | None = None,
        error: str = "",
    ) -> None:
        request = engine_pb2.ReportAnalysisRequest(
            game_id=game_id, worker_id=self.worker_id, done=done, total=total, error=error
        )
        if result is not None:
            request.result_json = json.dumps(result, separators=(",", ":"))
        await self.api.stub.ReportAnalysis(
            request, metadata=bearer(self.token), timeout=self.api.timeout_s
        )
