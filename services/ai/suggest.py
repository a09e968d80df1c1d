"""The Ai service's one call: Suggest, ranked legal moves for one seat within a time budget.

It reads the game through the engine as the caller's seat (their token, forwarded) or, with the
AI credential, as the AI seat named; searches locally; and answers only moves that are in the
engine's own legal list for that seat at that version.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import time
from typing import Any

import grpc
from metro.v1 import ai_pb2, ai_pb2_grpc

from services.ai.engine_api import EngineApi, Position
from services.ai.players import InfoSet, Level, RankedMove, UnknownLevelError, level_for
from services.ai.players.levels import check_budget
from services.ai.search import Searcher
from services.common.auth import is_service_credential
from services.common.grpc_util import REASON_KEY, ServiceError, bearer_token, invalid_argument
from services.common.levels import level_error

log = logging.getLogger("metro.ai")
# Which worker answered, in every hint's log line (issue 32: the spread of hints over the AI
# workers was invisible): the host (a container's id under compose, the pod's name) and pid.
WORKER = f"{socket.gethostname()}:{os.getpid()}"

DEFAULT_SUGGESTIONS = 5
ANSWER_MARGIN_S = 0.03  # kept back from the budget for the reply itself
ERROR_KEYS = (REASON_KEY, "metro-error-field", "metro-error-rule")


def not_your_turn(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message, reason="not_your_turn")


def hints_off() -> ServiceError:
    """A player's hint in a game whose view says `"hints": false` (the engine's meta: a scored
    daily attempt, whose shared results must be the players' own play)."""
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        "Hints are off in today's scored puzzle; practice games allow them.",
        reason="hints_off",
    )


def search_budget(level: Level, budget_ms: int, spent_s: float, deadline_s: float | None) -> (
    float | None
):  # fmt: skip
    """Seconds the search may take: the request's budget (else the level's), less what reading
    the game took and a margin for the answer, and never past the caller's deadline."""
    total = budget_ms / 1000 if budget_ms else (level.budget_ms / 1000 if level.timed else None)
    left = None if total is None else total - spent_s - ANSWER_MARGIN_S
    if deadline_s is not None:
        cap = deadline_s - ANSWER_MARGIN_S
        left = cap if left is None else min(left, cap)
    return None if left is None else max(left, 0.001)


def ranked_legal(ranked: list[RankedMove], legal: tuple[Any, ...]) -> list[RankedMove]:
    """The search's ranking restricted to the engine's legal moves; any legal move the search
    did not rank (a disagreement with the rules core) follows, unvalued."""
    allowed = set(legal)
    out = [r for r in ranked if r.move in allowed]
    if len(out) != len(ranked):
        log.warning("search ranked moves the engine does not allow; dropped them")
    seen = {r.move for r in out}
    missing = [RankedMove(m, 0.0, 0) for m in dict.fromkeys(legal) if m not in seen]
    if missing:
        log.warning("engine allows %d moves the search did not rank", len(missing))
    return out + missing


class AiService(ai_pb2_grpc.AiServicer):
    def __init__(self, api: EngineApi, searcher: Searcher, ai_token: str) -> None:
        self.api = api
        self.searcher = searcher
        self.ai_token = ai_token

    async def Suggest(
        self, request: ai_pb2.SuggestRequest, context: grpc.aio.ServicerContext
    ) -> ai_pb2.SuggestResponse:
        started = time.perf_counter()
        try:
            return await self._suggest(request, context, started)
        except ServiceError as err:
            context.set_trailing_metadata(err.trailing_metadata())
            await context.abort(err.code, err.message)
        except grpc.aio.AioRpcError as err:  # the engine's answer, passed on as it came
            trailing = [(k, v) for k, v in err.trailing_metadata() or () if k in ERROR_KEYS]
            context.set_trailing_metadata(tuple(trailing))
            await context.abort(err.code(), err.details() or "the engine refused")
        raise AssertionError("unreachable: abort raises")

    async def _suggest(
        self, request: ai_pb2.SuggestRequest, context: grpc.aio.ServicerContext, started: float
    ) -> ai_pb2.SuggestResponse:
        level, seat, token = self._check(request, context)
        position = await self.api.position(request.game_id, token, seat)
        if position.view.get("hints") is False and not is_service_credential(token, self.ai_token):
            raise hints_off()
        # Which levels a game offers is known once its view is read (Game.ai_levels).
        error = level_error(level.name, "level", position.view["game"])
        if error:
            raise invalid_argument("level", error)
        seat = self._seat_to_move(position, seat)
        try:
            info = InfoSet.from_view(position.view, seat)
        except ValueError as err:
            raise ServiceError(
                grpc.StatusCode.INTERNAL, f"the engine's view does not add up: {err}",
                reason="internal",
            ) from err  # fmt: skip
        seed = request.seed if request.HasField("seed") else secrets.randbits(32)
        budget = search_budget(
            level, request.budget_ms, time.perf_counter() - started, context.time_remaining()
        )
        result = await self.searcher.search(info, level, seed, budget)
        ranked = ranked_legal(result.moves, position.legal)
        limit = request.max_suggestions or DEFAULT_SUGGESTIONS
        reply = ai_pb2.SuggestResponse(
            level=level.name,
            iterations=result.iterations,
            seat=seat,
            elapsed_ms=round((time.perf_counter() - started) * 1000),
        )
        for r in ranked[:limit]:
            reply.suggestions.add(
                value=r.value,
                visits=r.visits,
                move_json=json.dumps(r.move.to_json(), separators=(",", ":")),
            )
        log.info(
            "hint answered by worker %s: game %s seat %d level %s, %d iterations in %d ms",
            WORKER, request.game_id, seat, level.name, result.iterations, reply.elapsed_ms,
        )  # fmt: skip
        return reply

    def _check(
        self, request: ai_pb2.SuggestRequest, context: grpc.aio.ServicerContext
    ) -> tuple[Level, int | None, str]:
        """Validate the request before anything is read: level, budget, seat and credential."""
        if not request.game_id:
            raise invalid_argument("game_id", "game_id is required")
        try:
            level = level_for(request.level)
        except UnknownLevelError as err:
            raise invalid_argument("level", str(err)) from None
        try:
            check_budget(request.budget_ms)
        except UnknownLevelError as err:
            raise invalid_argument("budget_ms", str(err)) from None
        if request.max_suggestions < 0:
            raise invalid_argument("max_suggestions", "max_suggestions must be 0 or more")
        seat = request.seat if request.HasField("seat") else None
        if seat is not None and seat < 0:
            raise invalid_argument("seat", f"seat must be 0 or more, got {seat}")
        token = bearer_token(context.invocation_metadata())
        if token is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "Suggest needs a seat token (authorization: Bearer <token>), or the AI "
                "service credential with `seat`",
                reason="permission_denied",
            )
        if seat is None and is_service_credential(token, self.ai_token):
            raise invalid_argument("seat", "seat is required with the AI service credential")
        return level, seat, token

    @staticmethod
    def _seat_to_move(position: Position, asked: int | None) -> int:
        seat = position.seat if position.seat is not None else asked
        if seat is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the token does not hold a seat in this game",
                reason="permission_denied",
            )
        if position.status != "playing":
            raise not_your_turn(f"the game is {position.status}: seat {seat} has no move to make")
        if not position.legal:
            waiting = ", ".join(str(s) for s in position.to_move) or "nobody"
            raise not_your_turn(f"seat {seat} has no move to make now (to move: {waiting})")
        return seat
