"""The queue of AI turns (engine.proto, "Bot turns"): jobs in the Redis stream `bot-turns`,
handed to AI workers through one consumer group.

The commit script enqueues a job for every AI seat a change makes due to move and records its
id in the game's hash (`bot:<seat>`); the next public change, or that seat's own hidden choice
in a simultaneous turn, acknowledges and deletes it. So a job is current exactly while the
game's `bot:<seat>` still names it, which is all the staleness check below needs. A job
claimed by a worker that then dies stays pending in the group and is taken over by the next
claim once it has been idle for RECLAIM_IDLE_MS.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from services.engine.store import BOT_GROUP, BOT_STREAM, game_key

RECLAIM_IDLE_MS = 3000
POLL_SLICE_MS = 1000  # a long wait is cut into slices so that dead workers' jobs are seen


@dataclass(frozen=True, slots=True)
class BotJob:
    job_id: str
    game_id: str
    game: str
    seat: int
    version: int
    level: str
    attempt: int


class BotQueue:
    def __init__(self, client: aioredis.Redis, blocking: aioredis.Redis) -> None:
        # Typed loosely: with decode_responses every reply is str, which redis-py's
        # annotations cannot express.
        self.redis: Any = client
        self.blocking: Any = blocking  # blocking reads hold a connection: their own pool
        self._cursor = "0-0"

    async def ensure_group(self) -> None:
        """Create the stream and consumer group if missing (from the start of the stream, so no
        job enqueued before the group existed is lost)."""
        try:
            await self.redis.xgroup_create(BOT_STREAM, BOT_GROUP, id="0", mkstream=True)
        except ResponseError as err:
            if "BUSYGROUP" not in str(err):
                raise

    async def claim(self, worker: str, wait_ms: int) -> BotJob | None:
        """The next current job for `worker`: a dead worker's first, else a new one, waiting up
        to wait_ms. Stale jobs met on the way are acknowledged and dropped."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_ms / 1000
        while True:
            job = await self._reclaim(worker)
            if job is None:
                left_ms = int((deadline - loop.time()) * 1000)
                job = await self._read_new(worker, min(POLL_SLICE_MS, left_ms))
            if job is not None:
                if await self.is_current(job):
                    return job
                await self.drop(job.job_id)
                continue
            if loop.time() >= deadline:
                return None

    async def _reclaim(self, worker: str) -> BotJob | None:
        try:
            reply = await self.redis.xautoclaim(
                BOT_STREAM, BOT_GROUP, worker, RECLAIM_IDLE_MS, start_id=self._cursor, count=1
            )
        except ResponseError as err:
            if "NOGROUP" in str(err):
                await self.ensure_group()
                return None
            raise
        self._cursor = reply[0] if reply and reply[0] else "0-0"
        entries = reply[1] if len(reply) > 1 else []
        for entry_id, fields in entries:
            if not fields:  # deleted meanwhile
                continue
            pending = await self.redis.xpending_range(
                BOT_STREAM, BOT_GROUP, min=entry_id, max=entry_id, count=1
            )
            attempt = int(pending[0]["times_delivered"]) if pending else 2
            return _job(entry_id, fields, attempt)
        return None

    async def _read_new(self, worker: str, block_ms: int) -> BotJob | None:
        try:
            reply = await self.blocking.xreadgroup(
                BOT_GROUP,
                worker,
                {BOT_STREAM: ">"},
                count=1,
                block=block_ms if block_ms > 0 else None,  # 0 would mean "forever"
            )
        except ResponseError as err:
            if "NOGROUP" in str(err):
                await self.ensure_group()
                return None
            raise
        for _stream, entries in reply or ():
            for entry_id, fields in entries:
                if fields:
                    return _job(entry_id, fields, 1)
                await self.drop(entry_id)
        return None

    async def is_current(self, job: BotJob) -> bool:
        return await self.is_current_id(job.game_id, job.seat, job.job_id)

    async def is_current_id(self, game_id: str, seat: int, job_id: str) -> bool:
        return await self.redis.hget(game_key(game_id), f"bot:{seat}") == job_id

    async def job_place(self, job_id: str) -> tuple[str, int] | None:
        """(game id, seat) of a job still in the stream."""
        entries = await self.redis.xrange(BOT_STREAM, min=job_id, max=job_id, count=1)
        if not entries or not entries[0][1]:
            return None
        fields = entries[0][1]
        return fields["game_id"], int(fields["seat"])

    async def drop(self, job_id: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.xack(BOT_STREAM, BOT_GROUP, job_id)
        pipe.xdel(BOT_STREAM, job_id)
        await pipe.execute()


def _job(entry_id: str, fields: dict[str, str], attempt: int) -> BotJob:
    return BotJob(
        job_id=entry_id,
        game_id=fields["game_id"],
        game=fields.get("game", ""),
        seat=int(fields["seat"]),
        version=int(fields["version"]),
        level=fields.get("level", ""),
        attempt=attempt,
    )
