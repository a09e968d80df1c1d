"""The players' feed outbox (issue 30 item 4): what a commit owes the players' own streams,
written by the commit script itself, so a kill at any moment loses no `your_turn`.

A player's stream `feed:{<player id>}` lives in the player's cluster slot, and a script touches
keys of one slot only; so the commit script (commit_lua.py) appends one entry to its shard's
outbox `feed-out:{<shard tag>}` (in the game's slot, like `bot-turns:{tag}`), in the same atomic
write as the move. Every engine reads the outboxes in the consumer group "feed-writers"
(`OutboxReader`): an entry is acknowledged (and deleted) only once its events are in the
players' streams; one left pending by an engine that died, or whose write failed, is taken over
after RECLAIM_IDLE_MS. The write to a player's stream is keyed by the outbox entry
(PUBLISH_ONCE_LUA), so an entry handled twice still gives each event once.

An entry's fields: game_id, version (of the commit) and doc, the JSON of `feed_doc`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from redis.exceptions import ResponseError

from services.engine.core.outbox_groups import create_groups, group_lost
from services.engine.core.shards import SHARD_COUNT
from services.engine.core.store import STORAGE_ERRORS
from services.engine.core.store_keys import feed_outbox_key

log = logging.getLogger("metro.engine.feed")

OUTBOX_GROUP = "feed-writers"
OUTBOX_MAXLEN = 100_000  # approximate cap of one shard's outbox (entries are deleted when done)
RECLAIM_IDLE_MS = 3000  # an entry delivered this long ago and not acknowledged is retaken
GIVE_UP_MS = 3600 * 1000  # an entry older than this that still fails is dropped (logged)
PAGE = 100
BLOCK_MS = 1000
CLUSTER_POLL_S = 0.05

Handler = Callable[[str, str, int, dict[str, Any]], Awaitable[None]]  # (entry key, game, v, doc)


OUTBOXES = tuple(feed_outbox_key(shard) for shard in range(SHARD_COUNT))


def feed_doc(
    kind: str,
    turn: list[int],
    over: list[int] | None,
    timeouts: list[int],
    mover: int | None,
) -> str:
    """What one commit owes the feeds ("" when nothing): the human seats now to move, the
    scores when the commit ended the game, the seats that timed out, the seat that moved."""
    if not turn and over is None and not timeouts and mover is None:
        return ""
    doc: dict[str, Any] = {"game": kind, "turn": turn}
    if over is not None:
        doc["over"] = over
    if timeouts:
        doc["timeouts"] = timeouts
    if mover is not None:
        doc["mover"] = mover
    return orjson.dumps(doc).decode()


# KEYS[1] the player's feed stream   KEYS[2] its sent set (zset: outbox entry keys by ms)
# ARGV: entry key, event JSON, feed MAXLEN (approximate), TTL s, score (ms).
# Returns the new event id, or false when this entry's event was written before.
PUBLISH_ONCE_LUA = r"""
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return false
end
-- The event first: a script's writes are not undone when a later command fails.
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'json', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[3]) + 1))
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return id
"""


class OutboxReader:
    """Reads every shard's outbox in the group and hands each entry to `handle` (at least once:
    acknowledged only after `handle` returns)."""

    def __init__(
        self, redis: Any, blocking: Any, cluster: bool, handle: Handler, name: str
    ) -> None:
        self.redis = redis
        self.blocking = blocking
        self.cluster = cluster
        self.handle = handle
        self.name = name  # this engine's consumer name
        self._grouped = False

    async def run(self) -> None:
        """Forever: retake idle entries, read new ones, handle them (a store that stops
        answering only pauses this)."""
        while True:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except STORAGE_ERRORS as err:
                log.warning("feed outbox: the store is not answering (%s)", err)
                await asyncio.sleep(1.0)
            except Exception:
                log.exception("feed outbox: a read failed")
                await asyncio.sleep(1.0)

    async def step(self) -> None:
        await self.ensure_groups()
        found = await self._reclaim()
        found += await self._read_new(block=not found)
        for shard, entry_id, fields in found:
            await self._one(shard, entry_id, fields)

    async def ensure_groups(self) -> None:
        if self._grouped:
            return
        await create_groups(self.redis, OUTBOXES, OUTBOX_GROUP)
        self._grouped = True

    async def _reclaim(self) -> list[tuple[int, str, dict[str, str]]]:
        pipe = self.redis.pipeline(transaction=False)
        for stream in OUTBOXES:
            pipe.xautoclaim(stream, OUTBOX_GROUP, self.name, RECLAIM_IDLE_MS, "0-0", count=PAGE)
        replies = await pipe.execute(raise_on_error=False)
        found: list[tuple[int, str, dict[str, str]]] = []
        for shard, reply in enumerate(replies):
            if self._raise(reply):
                continue
            for entry_id, fields in reply[1] if len(reply) > 1 else ():
                found.append((shard, entry_id, fields or {}))
        return found

    async def _read_new(self, *, block: bool) -> list[tuple[int, str, dict[str, str]]]:
        shard_of = {stream: shard for shard, stream in enumerate(OUTBOXES)}
        found: list[tuple[int, str, dict[str, str]]] = []
        if self.cluster:  # one slot per command: a sweep, then a short pause when idle
            pipe = self.redis.pipeline(transaction=False)
            for stream in OUTBOXES:
                pipe.xreadgroup(OUTBOX_GROUP, self.name, {stream: ">"}, count=PAGE)
            replies = await pipe.execute(raise_on_error=False)
            for reply in replies:
                if self._raise(reply):
                    continue
                for stream, entries in reply or ():
                    found.extend((shard_of[stream], i, f or {}) for i, f in entries)
            if not found and block:
                await asyncio.sleep(CLUSTER_POLL_S)
            return found
        try:
            reply = await self.blocking.xreadgroup(
                OUTBOX_GROUP, self.name, dict.fromkeys(OUTBOXES, ">"), count=PAGE,
                block=BLOCK_MS if block else None,
            )  # fmt: skip
        except ResponseError as err:
            self._raise(err)
            return found
        for stream, entries in reply or ():
            found.extend((shard_of[stream], i, f or {}) for i, f in entries)
        return found

    def _raise(self, reply: Any) -> bool:
        """Raise a failed reply; True for a lost group (made again on the next step)."""
        if group_lost(reply):
            self._grouped = False  # the outbox was lost (a flushed store): made again
            return True
        return False

    async def _one(self, shard: int, entry_id: str, fields: dict[str, str]) -> None:
        """Handle one entry; acknowledged and deleted when done (or hopeless)."""
        stream = OUTBOXES[shard]
        if fields.get("doc"):
            try:
                doc = orjson.loads(fields["doc"])
                await self.handle(
                    f"{shard}:{entry_id}", fields["game_id"], int(fields["version"]), doc
                )
            except STORAGE_ERRORS:
                raise
            except Exception:
                born_ms = int(entry_id.split("-", 1)[0])
                if time.time() * 1000 - born_ms < GIVE_UP_MS:
                    log.warning("feed outbox: entry %s not written; retried later", entry_id)
                    return  # left pending: retaken after RECLAIM_IDLE_MS
                log.exception("feed outbox: entry %s dropped after an hour of failures", entry_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xack(stream, OUTBOX_GROUP, entry_id)
        pipe.xdel(stream, entry_id)
        await pipe.execute()
