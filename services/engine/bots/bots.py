"""The queue of AI turns (engine.proto, "Bot turns"): jobs in the Redis streams
`bot-turns:{tag}` (one per shard, store.py), handed to AI workers through one consumer group
per stream.

The commit script enqueues a job for every AI seat a change makes due to move in the stream of
the game's shard and records its entry id in the game's hash (`bot:<seat>`); the next public
change, or that seat's own hidden choice in a simultaneous turn, acknowledges and deletes it. So
a job is current exactly while the game's `bot:<seat>` still names it, which is all the
staleness check below needs. A job claimed by a worker that then dies stays pending in its
group and is taken over by a later claim once it has been idle for its lease: the job's level's
time budget, doubled, plus a few seconds (services/common/levels.py job_lease_ms), so a search
that runs past its budget is never handed to a second worker for a duplicate search.

Reading every shard: on one server (or Sentinel's primary) one XREADGROUP blocks on all the
streams at once. A cluster refuses a command over keys of several slots, so there the streams
are read without blocking, in one pipeline per sweep (per node), every CLUSTER_POLL_MS while a
claim waits. A read may deliver jobs of several shards at once: the ones not handed out stay in
this process's queue, are re-assigned to the worker that takes them (XCLAIM, which also restarts
their idle time), and are left to the reclaim of another process once they grow old here.

A job's public id is "<shard>:<entry id>", so acknowledging it needs nothing else.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from services.common.levels import LEASE_BASE_MS, job_lease_ms
from services.engine.core.shards import SHARD_COUNT
from services.engine.core.store import BOT_GROUP, BOT_STREAMS, game_key

RECLAIM_IDLE_MS = LEASE_BASE_MS  # the shortest lease: jobs idle this long are looked at
RECLAIM_SCAN = 8  # idle jobs looked at per shard and sweep (a long search's may come first)
RECLAIM_EVERY_S = 1.0  # how often one process sweeps every stream for dead workers' jobs
POLL_SLICE_MS = 1000  # a long wait is cut into slices so that dead workers' jobs are seen
CLUSTER_POLL_MS = 50  # a cluster cannot block on every shard at once: how often to look
QUEUED_FOR_MS = RECLAIM_IDLE_MS // 2  # a delivered job older than this is left to a reclaim

JOB_ID = re.compile(r"([0-9]{1,3}):([0-9]{1,20}-[0-9]{1,20})")


def public_job_id(shard: int, entry_id: str) -> str:
    return f"{shard}:{entry_id}"


def parse_job_id(job_id: str) -> tuple[int, str] | None:
    """(shard, stream entry id) of a public job id; None when it is not one."""
    found = JOB_ID.fullmatch(job_id)
    if found is None or int(found[1]) >= SHARD_COUNT:
        return None
    return int(found[1]), found[2]


@dataclass(frozen=True, slots=True)
class BotJob:
    job_id: str  # public: "<shard>:<entry id>"
    game_id: str
    game: str
    seat: int
    version: int
    level: str
    attempt: int


class BotQueue:
    def __init__(self, client: Any, blocking: Any) -> None:
        # Typed loosely: with decode_responses every reply is str, which redis-py's
        # annotations cannot express; a cluster client shares the commands, not the type.
        self.redis: Any = client
        self.blocking: Any = blocking  # blocking reads hold a connection: their own pool
        self.cluster = isinstance(client, RedisCluster)
        self._queued: deque[tuple[float, int, str, dict[str, str]]] = deque()
        self._next_reclaim = 0.0

    async def ensure_group(self) -> None:
        """Create every shard's stream and consumer group if missing (from the start of the
        stream, so no job enqueued before the group existed is lost)."""
        pipe = self.redis.pipeline(transaction=False)
        for stream in BOT_STREAMS:
            pipe.xgroup_create(stream, BOT_GROUP, id="0", mkstream=True)
        for reply in await pipe.execute(raise_on_error=False):
            if isinstance(reply, Exception) and "BUSYGROUP" not in str(reply):
                raise reply

    async def claim(self, worker: str, wait_ms: int) -> BotJob | None:
        """The next current job for `worker`: a dead worker's first, else a new one, waiting up
        to wait_ms. Stale jobs met on the way are acknowledged and dropped."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_ms / 1000
        while True:
            job = await self._take_queued(worker)
            if job is None and loop.time() >= self._next_reclaim:
                self._next_reclaim = loop.time() + RECLAIM_EVERY_S
                await self._reclaim(worker)
                job = await self._take_queued(worker)
            if job is None:
                left_ms = int((deadline - loop.time()) * 1000)
                await self._read_new(worker, min(POLL_SLICE_MS, left_ms))
                job = await self._take_queued(worker)
            if job is not None:
                if await self.is_current(job):
                    return job
                await self.drop(job.job_id)
                continue
            if loop.time() >= deadline:
                return None

    async def _take_queued(self, worker: str) -> BotJob | None:
        """The oldest job delivered to this process, now made `worker`'s (XCLAIM)."""
        now = asyncio.get_running_loop().time()
        while self._queued:
            since, shard, entry_id, fields = self._queued.popleft()
            if (now - since) * 1000 > QUEUED_FOR_MS:
                continue  # left pending: another claim's reclaim takes it over
            moved = await self.redis.xclaim(
                BOT_STREAMS[shard], BOT_GROUP, worker, 0, [entry_id], justid=True
            )
            if not moved:
                continue  # settled meanwhile
            attempt = int(fields.pop("_attempt", "1"))
            return _job(shard, entry_id, fields, attempt)
        return None

    def _queue(self, shard: int, entries: list[Any], attempt: int | None = None) -> None:
        now = asyncio.get_running_loop().time()
        for entry_id, fields in entries:
            if fields:  # (an entry deleted meanwhile comes back without fields)
                if attempt is not None:
                    fields = {**fields, "_attempt": str(attempt)}
                self._queued.append((now, shard, entry_id, fields))

    async def _reclaim(self, worker: str) -> None:
        """Take over the jobs that dead workers left (at most one per shard): a job is retaken
        once it has idled past its level's lease (job_lease_ms), never sooner, so a search
        that runs long is not duplicated. XCLAIM with that idle time is atomic: a job renewed
        or taken meanwhile is left alone."""
        pipe = self.redis.pipeline(transaction=False)
        for stream in BOT_STREAMS:
            pipe.xpending_range(
                stream, BOT_GROUP, min="-", max="+", count=RECLAIM_SCAN, idle=RECLAIM_IDLE_MS
            )
        replies = await pipe.execute(raise_on_error=False)
        for shard, reply in enumerate(replies):
            if isinstance(reply, ResponseError) and "NOGROUP" in str(reply):
                await self.ensure_group()
                return
            if isinstance(reply, Exception):
                raise reply
            for pending in reply:
                if await self._retake(worker, shard, pending):
                    break

    async def _retake(self, worker: str, shard: int, pending: dict[str, Any]) -> bool:
        """Queue one idle job if its lease has run out; whether it was taken."""
        stream, entry_id = BOT_STREAMS[shard], pending["message_id"]
        entries = await self.redis.xrange(stream, min=entry_id, max=entry_id, count=1)
        if not entries or not entries[0][1]:  # deleted but left pending: nothing to play
            await self.redis.xack(stream, BOT_GROUP, entry_id)
            return False
        lease = job_lease_ms(entries[0][1].get("level", ""))
        if int(pending["time_since_delivered"]) < lease:
            return False
        moved = await self.redis.xclaim(stream, BOT_GROUP, worker, lease, [entry_id])
        moved = [e for e in moved or () if e[1]]
        if not moved:
            return False
        self._queue(shard, moved, int(pending["times_delivered"]) + 1)
        return True

    async def _read_new(self, worker: str, block_ms: int) -> None:
        """Queue new jobs: blocking on every stream at once, or, on a cluster, one sweep
        (then a short pause when it found nothing)."""
        try:
            if self.cluster:
                await self._sweep_new(worker, block_ms)
                return
            reply = await self.blocking.xreadgroup(
                BOT_GROUP,
                worker,
                dict.fromkeys(BOT_STREAMS, ">"),
                count=1,
                block=block_ms if block_ms > 0 else None,  # 0 would mean "forever"
            )
        except ResponseError as err:
            if "NOGROUP" in str(err):
                await self.ensure_group()
                return
            raise
        shard_of_stream = {stream: shard for shard, stream in enumerate(BOT_STREAMS)}
        for stream, entries in reply or ():
            self._queue(shard_of_stream[stream], entries)

    async def _sweep_new(self, worker: str, block_ms: int) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for stream in BOT_STREAMS:
            pipe.xreadgroup(BOT_GROUP, worker, {stream: ">"}, count=1)
        replies = await pipe.execute(raise_on_error=False)
        for shard, reply in enumerate(replies):
            if isinstance(reply, Exception):
                raise reply
            for _stream, entries in reply or ():
                self._queue(shard, entries)
        if not self._queued and block_ms > 0:
            await asyncio.sleep(min(block_ms, CLUSTER_POLL_MS) / 1000)

    async def is_current(self, job: BotJob) -> bool:
        return await self.is_current_id(job.game_id, job.seat, job.job_id)

    async def is_current_id(self, game_id: str, seat: int, job_id: str) -> bool:
        place = parse_job_id(job_id)
        if place is None:
            return False
        return await self.redis.hget(game_key(game_id), f"bot:{seat}") == place[1]

    async def job_place(self, job_id: str) -> tuple[str, int] | None:
        """(game id, seat) of a job still in the stream."""
        place = parse_job_id(job_id)
        if place is None:
            return None
        shard, entry_id = place
        entries = await self.redis.xrange(BOT_STREAMS[shard], min=entry_id, max=entry_id, count=1)
        if not entries or not entries[0][1]:
            return None
        fields = entries[0][1]
        return fields["game_id"], int(fields["seat"])

    async def drop(self, job_id: str) -> None:
        place = parse_job_id(job_id)
        if place is None:
            return
        shard, entry_id = place
        pipe = self.redis.pipeline(transaction=False)
        pipe.xack(BOT_STREAMS[shard], BOT_GROUP, entry_id)
        pipe.xdel(BOT_STREAMS[shard], entry_id)
        await pipe.execute()


def _job(shard: int, entry_id: str, fields: dict[str, str], attempt: int) -> BotJob:
    return BotJob(
        job_id=public_job_id(shard, entry_id),
        game_id=fields["game_id"],
        game=fields.get("game", ""),
        seat=int(fields["seat"]),
        version=int(fields["version"]),
        level=fields.get("level", ""),
        attempt=attempt,
    )
