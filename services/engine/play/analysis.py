"""Post-game analysis: the queue of analyses and each game's analysis, kept in Redis (the AI
workers compute it: services/ai/analysis_worker.py; engine.proto says the calls).

Keys:
  game:{id}:analysis   hash: status (queued|running|done|failed), done, total, worker,
                       attempt, result (the whole JSON document, once done), error; it expires
                       with the game (the game's own TTL is copied onto it at every write)
  analysis:{jobs}:queue    zset of game ids by the time they were asked for (oldest first)
  analysis:{jobs}:running  zset of game ids by the time their lease runs out (ms); a worker's
                           every report renews it, so a silent worker's job is taken over

The two job zsets share one hash tag (one cluster slot), so a claim is one script. A result is
a few kB to a few tens of kB (about 120 bytes a decision: a Metro game of 60 decisions is about
8 kB, an Underground game of 120 steps about 30 kB), capped at MAX_RESULT_BYTES.
"""

from __future__ import annotations

import json
import time
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core import validation
from services.engine.core.access import Caller, ClaimedSeats, check_private
from services.engine.core.archive_outbox import finish_analysis
from services.engine.core.edge import failed, not_found
from services.engine.core.store import game_key
from services.engine.core.tables import Tables

QUEUE_KEY = "analysis:{jobs}:queue"
RUNNING_KEY = "analysis:{jobs}:running"
LEASE_MS = 120_000  # a worker silent this long has died: its analysis is handed out again
MAX_RESULT_BYTES = 2_000_000
MAX_ATTEMPTS = 3  # an analysis that kills its worker this often is marked failed
# Analyses waiting for a worker, over every engine: past this a new one is refused (429 at the
# gateway) while those already asked for are answered as before. The gateway's quotas (30 an
# hour per address, 120 a minute for all) keep it short; this bounds what Redis holds.
MAX_QUEUED = 1000
STATUSES = ("queued", "running", "done", "failed")
# An archived game's analysis (its live copy expired: the gateway sends the record) lives this
# long in Redis; the archive keeps it for good once done.
ARCHIVED_TTL_MS = 24 * 3600 * 1000

# Take the job whose lease ran out first (its worker died), else the oldest queued one, and
# lease it: KEYS = queue, running; ARGV = now_ms, lease_ms. Answers the game id or nil.
CLAIM_LUA = """
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 1)
local id = stale[1]
if not id then
  local popped = redis.call('ZPOPMIN', KEYS[1])
  id = popped[1]
end
if not id then return false end
redis.call('ZADD', KEYS[2], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
return id
"""


def analysis_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:analysis"


async def analysing(tables: Tables, game_id: str) -> bool:
    """Whether a worker holds this game's analysis now: the AI credential may then read a
    private game's record (a daily attempt its own player asked to have analysed)."""
    status = await tables.store.redis.hget(analysis_key(game_id), "status")
    return _text(status) == "running"


async def archived_record(tables: Tables, game_id: str) -> str | None:
    """The record an archived game's analysis was queued with (None: not such a game), for the
    AI workers' GetRecord once the game's live copy has expired."""
    kept = await tables.store.redis.hget(analysis_key(game_id), "record")
    return _text(kept) or None


class Analyses:
    """RequestAnalysis, GetAnalysis (anyone, once the game is over) and the workers' calls."""

    def __init__(self, tables: Tables, claims: ClaimedSeats) -> None:
        self.tables = tables
        self.claims = claims
        self.redis = tables.store.redis
        self._claim = self.redis.register_script(CLAIM_LUA)

    async def _over(self, request: engine_pb2.AnalysisRequest, caller: Caller) -> str:
        game_id = validation.game_id(request.game_id)
        if request.record_json and not await self.redis.exists(game_key(game_id)):
            return game_id  # an archived game: the gateway checked who may ask
        table = await self.tables.load(game_id)  # NOT_FOUND for an unknown or expired game
        # A daily attempt: its moves name the day's cards, its player's.
        await check_private(caller, self.claims, table.meta, game_id, "its analysis")
        if table.status != "over":
            raise failed(
                "game_running",
                f"game {game_id} is not over; it can be analysed once it ends (the analysis "
                "reads its record)",
            )
        return game_id

    async def state(self, game_id: str) -> engine_pb2.AnalysisState:
        data = await self.redis.hgetall(analysis_key(game_id))
        fields = {_text(k): _text(v) for k, v in data.items()}
        return engine_pb2.AnalysisState(
            status=fields.get("status", "none"),
            done=int(fields.get("done", 0)),
            total=int(fields.get("total", 0)),
            result_json=fields.get("result", ""),
            error=fields.get("error", ""),
        )

    async def request(
        self, request: engine_pb2.AnalysisRequest, caller: Caller
    ) -> engine_pb2.AnalysisState:
        """Queue the analysis unless it is queued, running or done already (a failed one is
        asked for again)."""
        game_id = await self._over(request, caller)
        key = analysis_key(game_id)
        if not await self.redis.exists(key) and await self.redis.zcard(QUEUE_KEY) >= MAX_QUEUED:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{MAX_QUEUED} analyses are waiting for a worker already; ask again in a while",
                reason="rate_limited",
            )
        created = await self.redis.hsetnx(key, "status", "queued")
        if not created:
            status = _text(await self.redis.hget(key, "status"))
            if status != "failed":
                return await self.state(game_id)
            await self.redis.delete(key)
            if not await self.redis.hsetnx(key, "status", "queued"):
                return await self.state(game_id)
        fields: dict[str, Any] = {"done": 0, "total": 0, "attempt": 0}
        if request.record_json and not await self.redis.exists(game_key(game_id)):
            fields["record"] = request.record_json[:MAX_RESULT_BYTES]
        await self.redis.hset(key, mapping=fields)
        await self._expire_with_game(game_id)
        await self.redis.zadd(QUEUE_KEY, {game_id: time.time() * 1000}, nx=True)
        return await self.state(game_id)

    async def get(
        self, request: engine_pb2.AnalysisRequest, caller: Caller
    ) -> engine_pb2.AnalysisState:
        return await self.state(await self._over(request, caller))

    async def claim(
        self, request: engine_pb2.ClaimAnalysisRequest, caller: Caller
    ) -> engine_pb2.ClaimAnalysisResponse:
        caller.require_ai_service()
        worker = validation.worker_id(request.worker_id)
        while True:
            now = int(time.time() * 1000)
            found = await self._claim(keys=[QUEUE_KEY, RUNNING_KEY], args=[now, LEASE_MS])
            if not found:
                return engine_pb2.ClaimAnalysisResponse()
            game_id = _text(found)
            key = analysis_key(game_id)
            if not await self.redis.exists(key):  # the game (and its analysis) expired
                await self.redis.zrem(RUNNING_KEY, game_id)
                continue
            attempt = await self.redis.hincrby(key, "attempt", 1)
            if attempt > MAX_ATTEMPTS:
                await self._finish(
                    game_id, {"status": "failed", "error": "the analysis failed on every try"}
                )
                continue
            await self.redis.hset(key, mapping={"status": "running", "worker": worker})
            return engine_pb2.ClaimAnalysisResponse(game_id=game_id, attempt=attempt)

    async def report(
        self, request: engine_pb2.ReportAnalysisRequest, caller: Caller
    ) -> engine_pb2.AnalysisState:
        """Progress (renews the lease), then the result or the error, from the worker holding
        the job; another worker's report (it took over from this one) is ABORTED."""
        caller.require_ai_service()
        game_id = validation.game_id(request.game_id)
        worker = validation.worker_id(request.worker_id)
        if not 0 <= request.done <= max(request.total, 0):
            raise invalid_argument("done", "done must lie between 0 and total")
        key = analysis_key(game_id)
        holder = _text(await self.redis.hget(key, "worker"))
        status = _text(await self.redis.hget(key, "status"))
        if holder != worker or status != "running":
            raise ServiceError(
                grpc.StatusCode.ABORTED,
                f"the analysis of {game_id} is not held by {worker} (taken over, or done)",
                reason="analysis_lost",
            )
        if request.result_json:
            await self._finish(game_id, self._result(game_id, request))
        elif request.error:
            await self._finish(
                game_id,
                {
                    "status": "failed",
                    "error": request.error[:500],
                    "done": request.done,
                    "total": request.total,
                },
            )
        else:
            await self.redis.hset(key, mapping={"done": request.done, "total": request.total})
            await self.redis.zadd(
                RUNNING_KEY, {game_id: int(time.time() * 1000) + LEASE_MS}, xx=True
            )
        return await self.state(game_id)

    @staticmethod
    def _result(game_id: str, request: engine_pb2.ReportAnalysisRequest) -> dict[str, Any]:
        if len(request.result_json) > MAX_RESULT_BYTES:
            raise invalid_argument("result_json", f"a result is at most {MAX_RESULT_BYTES} bytes")
        try:
            result = json.loads(request.result_json)
        except ValueError:
            raise invalid_argument("result_json", "result_json must be JSON") from None
        if not isinstance(result, dict) or result.get("game_id") != game_id:
            raise invalid_argument("result_json", "result_json must be this game's analysis")
        if not isinstance(result.get("moves"), list):
            raise invalid_argument("result_json", "result_json must list the moves")
        total = len(result["moves"])
        return {"status": "done", "result": request.result_json, "done": total, "total": total}

    async def _finish(self, game_id: str, fields: dict[str, Any]) -> None:
        # A done analysis is named in the archive's outbox in the same step (archive_outbox.py).
        await finish_analysis(
            self.redis, analysis_key(game_id), game_id, fields,
            archive=self.tables.settings.archive,
        )  # fmt: skip
        await self.redis.zrem(RUNNING_KEY, game_id)
        await self._expire_with_game(game_id)

    async def _expire_with_game(self, game_id: str) -> None:
        """The analysis is the game's: it goes when the game goes."""
        ttl = await self.redis.pttl(game_key(game_id))
        if ttl == -2 and await self.redis.hexists(analysis_key(game_id), "record"):
            ttl = ARCHIVED_TTL_MS  # an archived game's: no live copy to go with
        if ttl is None or ttl < 0:
            raise (
                not_found(game_id)
                if ttl == -2
                else ServiceError(
                    grpc.StatusCode.INTERNAL, "the game has no expiry", reason="internal"
                )
            )
        await self.redis.pexpire(analysis_key(game_id), ttl)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)
