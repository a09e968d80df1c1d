"""The archiver: moves finished games from Redis into PostgreSQL, exactly once, losing none.

It reads the engine's archive outboxes (services/engine/core/archive_outbox.py) in the consumer
group
"archivers", so any number of archivers share the work as the AI workers share bot turns. For
each entry, in this order:
  1. read the game from Redis (gather.py) and write it in ONE PostgreSQL transaction whose
     first insert is idempotent (writes.py): a second write of the same game writes nothing;
  2. give the game's keys their finished TTL (until now they were held: Tables.ttl);
  3. acknowledge and delete the entry.
A kill before 1's commit leaves the entry pending: another archiver (or this one restarted)
takes it over once it has been idle CLAIM_IDLE_MS (XAUTOCLAIM) and writes the game. A kill
between 1 and 3 has the next taker find the game archived and only do 2 and 3. So no finished
game is lost and none is written twice, whichever process dies when.

A rated game waits for its rating (applied by the engine right after the end, in another Redis
slot): its entry stays pending and is tried again with a growing delay, for at most
RATING_WAIT_MS, after which it is archived without ratings (and said so in the log).

When PostgreSQL is down the archiver waits and tries again, logging once per outage; the live
game path never waits on it (the engine only adds an entry to a stream).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from services.archive.gather import NotReady, done_analysis, gather, room_lines
from services.archive.writes import archived, write_analysis, write_chat, write_game
from services.engine.core.archive_outbox import ARCHIVE_GROUP, ARCHIVE_STREAMS
from services.engine.core.outbox_groups import create_groups, group_lost
from services.engine.core.store import (
    STORAGE_ERRORS,
    GameStore,
    answers_key,
    connect,
    events_key,
    game_key,
    pending_key,
)
from services.engine.play.analysis import analysis_key
from services.engine.play.chat import ROOMS, room_key
from services.engine.players.ratings import changes_key

log = logging.getLogger("metro.archive")

PAGE = 50  # entries read from one stream at once
BLOCK_MS = 1000  # a blocking read waits this long, so deferred entries are retried in time
CLAIM_IDLE_MS = 30_000  # an entry pending this long belongs to a dead archiver: taken over
RATING_WAIT_MS = 10 * 60_000  # the longest a rated game waits for its rating
ANALYSIS_WAIT_MS = 10 * 60_000  # an analysis entry whose game is not archived yet, likewise
RETRY_FIRST_S = 0.2
RETRY_MOST_S = 10.0
CLUSTER_POLL_S = 0.2
HEALTHY_WITHIN_S = 60.0


@dataclass
class Deferred:
    stream: str
    entry_id: str
    fields: dict[str, str]
    due: float
    delay: float = RETRY_FIRST_S


@dataclass
class Stats:
    archived: int = 0  # games this archiver wrote
    already: int = 0  # games it found archived (a taken-over entry)
    gone: int = 0  # entries whose game Redis no longer had and the archive lacked
    analyses: int = 0
    chats: int = 0  # games whose archived chat got lines said after the end
    deferred: int = 0
    timings: list[float] = field(default_factory=list)


def consumer_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class Archiver:
    """One archiver process's loop (see the module docstring)."""

    def __init__(
        self,
        redis_url: str,
        database_url: str,
        *,
        finished_ttl_s: int,
        name: str | None = None,
        claim_idle_ms: int = CLAIM_IDLE_MS,
        rating_wait_ms: int = RATING_WAIT_MS,
    ) -> None:
        self.redis = connect(redis_url, longest_block_ms=BLOCK_MS)
        self.cluster = isinstance(self.redis, RedisCluster)
        self.store = GameStore(self.redis)
        self.database_url = database_url
        self.finished_ttl_s = finished_ttl_s
        self.name = name or consumer_name()
        self.claim_idle_ms = claim_idle_ms
        self.rating_wait_ms = rating_wait_ms
        self.pool = AsyncConnectionPool(
            database_url,
            min_size=1,
            max_size=2,
            open=False,
            kwargs={"connect_timeout": 5},
            reconnect_timeout=0,  # never give up: the archive waits for PostgreSQL
        )
        self.deferred: dict[str, Deferred] = {}
        self.stats = Stats()
        self._grouped = False
        self._db_down_since: float | None = None
        self.last_step = time.monotonic()

    def serving(self) -> bool:
        """Healthy while the loop goes round (HEALTH_PORT's answer: services/common/
        grpc_server.py); a PostgreSQL outage is waited out, not a reason to restart."""
        return time.monotonic() - self.last_step < HEALTHY_WITHIN_S

    # ---- the loop -----------------------------------------------------------------------

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Archive until `stop` is set (or forever)."""
        stop = stop or asyncio.Event()
        await self.pool.open(wait=False)
        log.info("archiver %s: reading %d outboxes", self.name, len(ARCHIVE_STREAMS))
        try:
            while not stop.is_set():
                try:
                    await self.step()
                    self.last_step = time.monotonic()
                except asyncio.CancelledError:
                    raise
                except STORAGE_ERRORS as err:
                    log.warning("archiver: Redis is not answering (%s)", err)
                    await asyncio.sleep(1.0)
                except Exception:
                    log.exception("archiver: a step failed")
                    await asyncio.sleep(1.0)
        finally:
            await self.pool.close()
            await self.redis.aclose()

    async def step(self) -> int:
        """One round: entries of dead archivers, deferred ones now due, then new ones. Answers
        how many entries were handled (acknowledged)."""
        await self.ensure_groups()
        found = await self._reclaim()
        now = time.monotonic()
        found += [(d.stream, d.entry_id, d.fields) for d in self.deferred.values() if d.due <= now]
        found += await self._read_new(block=not found and not self.deferred)
        if not found and self.deferred:
            await asyncio.sleep(
                min(1.0, max(0.0, min(d.due for d in self.deferred.values()) - now))
            )
        handled = 0
        for stream, entry_id, fields in found:
            handled += await self.handle(stream, entry_id, fields)
        return handled

    async def ensure_groups(self) -> None:
        if self._grouped:
            return
        await create_groups(self.redis, ARCHIVE_STREAMS, ARCHIVE_GROUP)
        self._grouped = True

    async def _reclaim(self) -> list[tuple[str, str, dict[str, str]]]:
        pipe = self.redis.pipeline(transaction=False)
        for stream in ARCHIVE_STREAMS:
            pipe.xautoclaim(stream, ARCHIVE_GROUP, self.name, self.claim_idle_ms, "0-0", count=PAGE)
        replies = await pipe.execute(raise_on_error=False)
        found = []
        for stream, reply in zip(ARCHIVE_STREAMS, replies, strict=True):
            if self._raise(reply):
                continue
            for entry_id, fields in reply[1] if isinstance(reply, list | tuple) else ():
                if fields and entry_id not in self.deferred:
                    found.append((stream, _text(entry_id), _fields(fields)))
        return found

    async def _read_new(self, *, block: bool) -> list[tuple[str, str, dict[str, str]]]:
        found: list[tuple[str, str, dict[str, str]]] = []
        if self.cluster:  # one slot per command: a sweep, then a short pause when idle
            pipe = self.redis.pipeline(transaction=False)
            for stream in ARCHIVE_STREAMS:
                pipe.xreadgroup(ARCHIVE_GROUP, self.name, {stream: ">"}, count=PAGE)
            replies = await pipe.execute(raise_on_error=False)
            for reply in replies:
                if self._raise(reply):
                    continue  # this stream's group is gone: made again on the next step
                for stream, entries in reply or ():
                    found.extend((_text(stream), _text(i), _fields(f)) for i, f in entries if f)
            if not found and block:
                await asyncio.sleep(CLUSTER_POLL_S)
            return found
        try:
            reply = await self.redis.xreadgroup(
                ARCHIVE_GROUP, self.name, dict.fromkeys(ARCHIVE_STREAMS, ">"), count=PAGE,
                block=BLOCK_MS if block else None,
            )  # fmt: skip
        except ResponseError as err:
            self._raise(err)
            return found
        for stream, entries in reply or ():
            found.extend((_text(stream), _text(i), _fields(f)) for i, f in entries if f)
        return found

    def _raise(self, reply: Any) -> bool:
        """Raise a failed reply; True for a lost group (made again on the next step)."""
        if group_lost(reply):
            self._grouped = False  # the outbox was lost (a flushed store): made again
            return True
        return False

    # ---- one entry ----------------------------------------------------------------------

    async def handle(self, stream: str, entry_id: str, fields: dict[str, str]) -> int:
        """Archive what one entry names; 1 when it was acknowledged, 0 when it waits."""
        game_id = fields.get("game_id", "")
        what = fields.get("what", "game")
        entry_ms = int(entry_id.split("-", 1)[0])
        try:
            if what == "analysis":
                done = await self._analysis(game_id, entry_ms)
            elif what == "chat":
                done = await self._chat(game_id, entry_ms)
            else:
                done = await self._game(game_id, entry_ms)
        except NotReady:
            done = False
        except (psycopg.OperationalError, PoolTimeout) as err:
            self._database_down(err)
            self._defer(stream, entry_id, fields)
            return 0
        if not done:
            self._defer(stream, entry_id, fields)
            return 0
        self._database_up()
        self.deferred.pop(entry_id, None)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xack(stream, ARCHIVE_GROUP, entry_id)
        pipe.xdel(stream, entry_id)
        await pipe.execute()
        return 1

    async def _game(self, game_id: str, entry_ms: int) -> bool:
        """Write the game (once); then release its keys. True when the entry is done."""
        began = time.perf_counter()
        async with self.pool.connection(timeout=5) as conn:
            if await archived(conn, game_id):
                self.stats.already += 1
                await self.release(game_id)
                return True
            row = await gather(
                self.redis, self.store, game_id, entry_ms=entry_ms,
                rating_wait_ms=self.rating_wait_ms,
            )  # fmt: skip
            if row is None:
                self.stats.gone += 1
                log.error(
                    "archiver: game %s is not in Redis any more and was never archived", game_id
                )
                return True
            if row.rated and all(s.rating_after is None for s in row.seats):
                log.warning(
                    "archiver: game %s archived without its rating (not done in time)", game_id
                )
            _fault_point("before_write")
            if await write_game(conn, row):
                self.stats.archived += 1
            else:
                self.stats.already += 1
        _fault_point("after_commit")
        await self.release(game_id, kind=row.kind)
        _fault_point("after_release")
        self.stats.timings.append(time.perf_counter() - began)
        return True

    async def _analysis(self, game_id: str, entry_ms: int) -> bool:
        result = await done_analysis(self.redis, game_id)
        if result is None:
            return True  # no done analysis (it expired, or failed): nothing to keep
        async with self.pool.connection(timeout=5) as conn:
            if await write_analysis(conn, game_id, result):
                self.stats.analyses += 1
                return True
        # The game itself is not archived yet (its entry waits for a rating): wait for it.
        return time.time() * 1000 - entry_ms > ANALYSIS_WAIT_MS

    async def _chat(self, game_id: str, entry_ms: int) -> bool:
        """Lines of the players' room said after the game's end: merged into its archived chat
        (issue 35). The game not archived yet: wait for it, as an analysis does."""
        lines = await room_lines(self.redis, game_id)
        if not lines:
            return True  # the room expired meanwhile: what the archive has is all there is
        async with self.pool.connection(timeout=5) as conn:
            if await write_chat(conn, game_id, lines):
                self.stats.chats += 1
                return True
        return time.time() * 1000 - entry_ms > ANALYSIS_WAIT_MS

    async def release(self, game_id: str, kind: str | None = None) -> None:
        """The archive has the game: its keys get the finished TTL (they were held)."""
        ttl = self.finished_ttl_s
        for key in (game_key(game_id), events_key(game_id), answers_key(game_id)):
            await self.redis.expire(key, ttl)
        await self.redis.expire(pending_key(game_id), ttl)
        await self.redis.expire(analysis_key(game_id), ttl)
        for room in ROOMS:  # the chat rooms too (a room nobody wrote to since the end kept none)
            await self.redis.expire(room_key(game_id, room), ttl)
        if kind is not None:
            await self.redis.delete(changes_key(kind, game_id))

    def _defer(self, stream: str, entry_id: str, fields: dict[str, str]) -> None:
        now = time.monotonic()
        old = self.deferred.get(entry_id)
        delay = min(RETRY_MOST_S, old.delay * 2) if old else RETRY_FIRST_S
        self.deferred[entry_id] = Deferred(stream, entry_id, fields, now + delay, delay)
        self.stats.deferred += 1

    def _database_down(self, err: Exception) -> None:
        if self._db_down_since is None:
            self._db_down_since = time.monotonic()
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            log.warning("archiver: PostgreSQL is not answering (%s); waiting for it", first)

    def _database_up(self) -> None:
        if self._db_down_since is not None:
            log.warning(
                "archiver: PostgreSQL answers again after %.1f s",
                time.monotonic() - self._db_down_since,
            )
            self._db_down_since = None


def _fault_point(name: str) -> None:
    """Crash tests only (tests/archive): ARCHIVER_CRASH_AT=<name> makes this process die by
    SIGKILL here, as a machine losing power would, at that exact point of an entry."""
    if os.environ.get("ARCHIVER_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _fields(fields: Any) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in (fields or {}).items()}
