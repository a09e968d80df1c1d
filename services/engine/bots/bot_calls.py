"""The AI workers' queue of turns (ClaimBotTurn, AckBotTurn; engine.proto says how a worker
loops). Storage: bots.py."""

from __future__ import annotations

import grpc
from metro.v1 import engine_pb2

from services.common.grpc_util import invalid_argument
from services.engine.bots.bots import BotQueue, parse_job_id
from services.engine.core import validation
from services.engine.core.access import Caller
from services.engine.core.edge import failed


class BotCalls:
    def __init__(self, bots: BotQueue) -> None:
        self.bots = bots

    async def claim(
        self,
        request: engine_pb2.ClaimBotTurnRequest,
        context: grpc.aio.ServicerContext,
        caller: Caller,
    ) -> engine_pb2.ClaimBotTurnResponse:
        caller.require_ai_service()
        worker = validation.worker_id(request.worker_id)
        wait_ms = validation.wait_ms(request.wait_ms)
        remaining = context.time_remaining()
        if remaining is not None:  # leave time to answer before the deadline
            wait_ms = max(0, min(wait_ms, int(remaining * 1000) - 200))
        job = await self.bots.claim(worker, wait_ms)
        out = engine_pb2.ClaimBotTurnResponse()
        if job is not None:
            out.turn.CopyFrom(
                engine_pb2.BotTurn(
                    job_id=job.job_id,
                    game_id=job.game_id,
                    game=job.game,
                    seat=job.seat,
                    version=job.version,
                    level=job.level,
                    attempt=job.attempt,
                )
            )
        return out

    async def ack(
        self, request: engine_pb2.AckBotTurnRequest, caller: Caller
    ) -> engine_pb2.AckBotTurnResponse:
        caller.require_ai_service()
        if parse_job_id(request.job_id) is None:
            raise invalid_argument("job_id", "job_id must be a job id from ClaimBotTurn")
        place = await self.bots.job_place(request.job_id)
        if place is not None and await self.bots.is_current_id(*place, request.job_id):
            raise failed(
                "job_current",
                "this job is still the game's current AI turn: make the move, or leave it "
                "and another worker retakes it",
            )
        await self.bots.drop(request.job_id)
        return engine_pb2.AckBotTurnResponse()
