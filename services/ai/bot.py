"""AI seats that play on their own: the worker loop of engine.proto's bot-turn protocol.

Claim a job, read the game as that AI seat, search at the seat's level, and make exactly one
move with the job's version as `expected_version` and a move id derived from the version, so a
retry (or a second worker holding the same job) can never move twice. A job the game has moved
past is acknowledged and dropped. A worker that dies holding a job loses nothing: the engine
hands the job to another worker after a few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import socket
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from metro.v1 import engine_pb2

from services.ai import pace
from services.ai.engine_api import EngineApi, Position
from services.ai.players import DEFAULT_LEVEL, InfoSet, UnknownLevelError, level_for
from services.ai.players.base import derive_seed
from services.ai.search import Searcher
from services.ai.suggest import ANSWER_MARGIN_S, ranked_legal
from services.common.grpc_util import ServiceError, error_details

log = logging.getLogger("metro.ai.bot")

CLAIM_WAIT_MS = 2000
DROP_CODES = (
    grpc.StatusCode.ABORTED,  # the game moved on
    grpc.StatusCode.FAILED_PRECONDITION,  # not this seat's turn any more, or the game is over
    grpc.StatusCode.NOT_FOUND,  # the game expired
)


def worker_id(index: int) -> str:
    """Stable for this process and unique across hosts: host, pid and loop number."""
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:40]
    return f"{host}:{os.getpid()}:{index}"


def bot_move_id(game_id: str, version: int, seat: int) -> str:
    """The same for every attempt at one job, so the engine answers a retry, never applies it
    (several AI seats may move in one simultaneous turn: the seat is part of it)."""
    return f"bot:{version}:{seat}:{game_id}"[:64]


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Chosen:
    """A job's searched move, with what making it needs."""

    position: Position
    info: InfoSet
    move: Any
    away: bool  # an away person's seat: at a person's pace, never ending the game too soon
    not_before: float  # monotonic time before which the move is not made
    level: str
    iterations: int
    started: float  # perf_counter at the claim's start (the log's time)


class BotWorker:
    def __init__(self, api: EngineApi, searcher: Searcher, token: str, index: int) -> None:
        self.api = api
        self.searcher = searcher
        self.token = token
        self.worker_id = worker_id(index)
        self.busy = False  # holding a job: let it finish rather than cancel it
        self.delivering: set[asyncio.Task[None]] = set()  # away seats' moves waiting their pace
        self.stopping = False

    async def run(self) -> None:
        backoff = 0.2
        while not self.stopping:
            try:
                turn = await self.api.claim(self.token, self.worker_id, CLAIM_WAIT_MS)
            except grpc.aio.AioRpcError as err:
                log.warning("claim failed (%s: %s); retrying", err.code().name, err.details())
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            backoff = 0.2
            if turn is None:
                continue
            log.info(
                "job %s claimed: game %s v%d seat %d level %r attempt %d", turn.job_id,
                turn.game_id, turn.version, turn.seat, turn.level, turn.attempt,
            )  # fmt: skip
            self.busy = True
            try:
                await self.play(turn)
            except Exception:  # a bug must not end the loop: the job is retaken elsewhere
                log.exception("job %s failed", turn.job_id)
            finally:
                self.busy = False

    async def play(self, turn: engine_pb2.BotTurn) -> None:
        """Search the job's move and make it. On an away person's seat the move waits for a
        person's pace (up to pace.PACE_MS) in a task of its own, so that this loop claims the
        next job meanwhile: one game left to the AI must not hold up every other game's AI
        seats while the loop sleeps."""
        chosen = await self._guarded(turn, self._choose(turn))
        if chosen is None:
            return
        if not chosen.away:
            await self._guarded(turn, self._deliver(turn, chosen))
            return
        task = asyncio.create_task(self._deliver_paced(turn, chosen), name=f"paced {turn.job_id}")
        self.delivering.add(task)
        task.add_done_callback(self.delivering.discard)

    async def _choose(self, turn: engine_pb2.BotTurn) -> Chosen | None:
        """Read the game as the seat and search at its level; None when the game moved on."""
        started = time.perf_counter()
        try:
            level = level_for(turn.level)
        except UnknownLevelError:
            log.warning("seat level %r is unknown; playing %s", turn.level, DEFAULT_LEVEL)
            level = level_for(DEFAULT_LEVEL)
        position = await self.api.position(turn.game_id, self.token, turn.seat)
        if turn.seat not in position.to_move or not position.legal:
            await self._drop(turn, "the game moved on")
            return None
        info = InfoSet.from_view(position.view, turn.seat)
        # A person's seat the AI holds moves at a person's pace (pace.py); the search's own
        # time counts towards the wait, so the job is held no longer than either.
        away = pace.away_person(position.view, turn.seat)
        not_before = time.monotonic() + (pace.pace_wait_s(turn.job_id) if away else 0.0)
        budget = None
        if level.timed:
            spent = time.perf_counter() - started
            budget = max(0.01, level.budget_ms / 1000 - spent - ANSWER_MARGIN_S)
        seed = derive_seed(turn.game_id, turn.version)
        result = await self.searcher.search(info, level, seed, budget, bot=True)
        move = ranked_legal(result.moves, position.legal)[0].move
        return Chosen(
            position, info, move, away, not_before, level.name, result.iterations, started
        )

    async def _deliver(self, turn: engine_pb2.BotTurn, chosen: Chosen) -> None:
        """Make the chosen move, once its pace allows (and, on an away seat, once the game may
        end, or leave the job pending for a retake)."""
        move = chosen.move
        if chosen.away and not await self._may_end_now(turn, chosen.position, chosen.info, move):
            return  # left pending: a worker retakes the job in a few seconds, and looks again
        await asyncio.sleep(max(0.0, chosen.not_before - time.monotonic()))
        _, made = await self.api.apply(
            self.token, turn.game_id, turn.seat, turn.version,
            bot_move_id(turn.game_id, turn.version, turn.seat), move,
        )  # fmt: skip
        if not made:
            # The engine answered this job's move id from before: the turn's move was made by
            # another worker that retook the job while this one was frozen (or by an earlier
            # try), and not necessarily as this search chose. Nothing was made now.
            await self._drop(
                turn, f"its move was already made (dropped this search's {move.to_json()})"
            )
            return
        log.info(
            "game %s v%d seat %d (%s, attempt %d): %s after %d iterations in %.0f ms",
            turn.game_id, turn.version, turn.seat, chosen.level, turn.attempt,
            move.to_json(), chosen.iterations,
            (time.perf_counter() - chosen.started) * 1000,
        )  # fmt: skip

    async def _deliver_paced(self, turn: engine_pb2.BotTurn, chosen: Chosen) -> None:
        try:
            await self._guarded(turn, self._deliver(turn, chosen))
        except Exception:  # as in run(): the job stays pending and is retaken elsewhere
            log.exception("job %s failed", turn.job_id)

    async def _guarded(self, turn: engine_pb2.BotTurn, step: Awaitable[T]) -> T | None:
        """`step`'s result, or None after an engine refusal: a job the game moved past is
        dropped; any other failure leaves it pending, for this or another worker to retake."""
        try:
            return await step
        except grpc.aio.AioRpcError as err:
            if error_details(err).get("reason") == "idempotency_mismatch":
                # This job's move id was answered before for another move: a worker that
                # retook the job while this one was frozen made the turn's move, as its own
                # search chose. Nothing was made now.
                await self._drop(turn, "its move was already made (by another search)")
            elif err.code() in DROP_CODES:
                await self._drop(turn, f"{err.code().name}: {err.details()}")
            else:  # left pending: this or another worker retakes it after the idle time
                log.warning("job %s: %s %s", turn.job_id, err.code().name, err.details())
        except ServiceError as err:  # the game kept changing while it was read
            await self._drop(turn, err.message)
        except ValueError as err:
            log.error("job %s: the view of game %s does not add up: %s", turn.job_id,
                      turn.game_id, err)  # fmt: skip
        return None

    async def _may_end_now(
        self, turn: engine_pb2.BotTurn, position: Position, info: InfoSet, move: Any
    ) -> bool:
        """Whether the AI may make `move` on a person's seat now: not when it would end the game
        within pace.GRACE_MS of the AI taking the seat over (a short rest is waited out here; a
        long one leaves the job pending, after a pause, for a worker to retake)."""
        rng = random.Random(turn.version)
        if not pace.turn_may_end_game(info, turn.seat, move, rng):
            return True
        seat_view = position.view["seats"][turn.seat]
        since = seat_view.get("away_since_ms")
        if not isinstance(since, int):
            upto = str(position.view.get("last_event_id") or "")
            since = await pace.taken_over_ms(
                self.api.stub, turn.game_id, turn.seat, upto, self.api.timeout_s, self.token
            )
        if since is None:
            return True
        rest_s = (since + pace.GRACE_MS - pace.now_ms()) / 1000
        if rest_s <= pace.HOLD_S:
            await asyncio.sleep(max(0.0, rest_s))
            return True
        log.info(
            "job %s: game %s would end with seat %d's move, %.0f s after the AI took it over: "
            "not yet", turn.job_id, turn.game_id, turn.seat, (pace.GRACE_MS / 1000) - rest_s,
        )  # fmt: skip
        await asyncio.sleep(pace.HOLD_S)
        return False

    async def _drop(self, turn: engine_pb2.BotTurn, why: str) -> None:
        log.info("job %s dropped: %s", turn.job_id, why)
        with contextlib.suppress(grpc.aio.AioRpcError):
            await self.api.ack(self.token, turn.job_id)
