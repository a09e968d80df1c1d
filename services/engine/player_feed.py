"""A player's own event stream (issue 24, `GET /api/players/me/events`): one stream per player
for every game it sits at, so a bot needs one connection, not one per game.

Events (JSON, `type` first): `invitation` (invitations.py), `your_turn` (a seat the player holds
must move), `game_over` (with the scores), `paused` and `resumed` (ladder.py). Each is an entry
of the Redis stream `feed:{<player id>}` (capped, FEED_MAXLEN), so its id is the SSE id and a
reconnect with Last-Event-ID resumes exactly after it: nothing lost, nothing twice.

`your_turn` and `game_over` are written after the commit that caused them (tables.py calls
`committed`), by one background task per engine in commit order: a move never waits for them,
and a feed that cannot be written (Redis full) loses those events, never the move. The task
also counts a bot's time-outs and illegal moves (ladder.Pauses).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol

import grpc
import orjson
from metro.v1 import engine_pb2

from services.common.grpc_util import ServiceError
from services.engine import validation
from services.engine.bot_accounts import BotAccounts
from services.engine.edge import storage_unavailable
from services.engine.players import Players, presented_key
from services.engine.store import STORAGE_ERRORS
from services.engine.table import Table


class Strikes(Protocol):
    """What the feed's task tells about a bot's moves (ladder.Pauses; a protocol here, as
    ladder.py imports this module for `publish`)."""

    async def strike(self, player_id: str, what: str, game_id: str) -> None: ...

    async def played(self, player_id: str) -> None: ...

log = logging.getLogger("metro.engine.feed")

FEED_MAXLEN = 1000  # events kept per player (a bot away longer reads its games' state anew)
FEED_TTL_S = 30 * 24 * 3600
QUEUE_MAX = 10_000  # commits waiting for their feed events; beyond, events are dropped (logged)
PAGE = 200
WATCH_SLICE_MS = 5000


def feed_key(player_id: str) -> str:
    return f"feed:{{{player_id}}}"


async def publish(redis: Any, player_id: str, doc: dict[str, Any]) -> str:
    """Append one event to the player's stream; its id."""
    key = feed_key(player_id)
    pipe = redis.pipeline(transaction=False)
    pipe.xadd(key, {"json": orjson.dumps(doc)}, maxlen=FEED_MAXLEN, approximate=True)
    pipe.expire(key, FEED_TTL_S)
    event_id, _ = await pipe.execute()
    return str(event_id)


class Feed:
    """Writes and reads the players' streams."""

    def __init__(
        self, redis: Any, blocking: Any, players: Players, bots: BotAccounts, pauses: Strikes
    ) -> None:
        self.redis = redis
        self.blocking = blocking  # the client for XREAD BLOCK
        self.players = players
        self.bots = bots
        self.pauses = pauses  # counts a bot's time-outs and illegal moves (publishes by `publish`)
        self._queue: asyncio.Queue[tuple[str, Any]] | None = None
        self._worker: asyncio.Task[None] | None = None

    async def publish(self, player_id: str, doc: dict[str, Any]) -> str:
        """Append one event to the player's stream; its id."""
        return await publish(self.redis, player_id, doc)

    # ---- after commits (never in a move's way) -------------------------------------------

    def committed(self, before: Table | None, after: Table, event: dict[str, Any]) -> None:
        """tables.py: `after` was just committed (from `before`; None for a new game)."""
        self._put(("commit", (before, after, event)))

    def illegal(self, game_id: str, seat: int) -> None:
        """moves.py: the rules refused a move of `seat`."""
        self._put(("illegal", (game_id, seat)))

    def _put(self, item: tuple[str, Any]) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue(QUEUE_MAX)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            log.warning("player feed: %d commits waiting; an event was dropped", QUEUE_MAX)

    async def _work(self) -> None:
        assert self._queue is not None
        while True:
            what, args = await self._queue.get()
            try:
                if what == "commit":
                    await self._after_commit(*args)
                else:
                    await self._after_illegal(*args)
            except Exception:
                log.exception("player feed: events after a commit were not written")

    async def _after_commit(
        self, before: Table | None, after: Table, event: dict[str, Any]
    ) -> None:
        fields = await self.players.table(after.game_id)
        holders = {int(k[1:]): v for k, v in fields.items() if k[:1] == "p" and k[1:].isdigit()}
        if not holders:
            return
        meta = after.meta
        if after.status == "playing":
            for seat in after.state.to_move():
                player = holders.get(seat)
                if player and not meta.is_ai(seat):
                    await self.publish(player, your_turn(after, seat))
        if after.status == "over" and (before is None or before.status != "over"):
            scores = list(after.state.scores)
            for seat, player in sorted(holders.items()):
                await self.publish(
                    player,
                    {"type": "game_over", "game_id": after.game_id, "game": meta.kind,
                     "seat": seat, "scores": scores},
                )  # fmt: skip
                await self.bots.game_over(player, after.game_id)
        if event.get("action") == "timeout":
            for seat in event.get("seats") or ():
                if seat in holders:
                    await self.pauses.strike(holders[seat], "timeout", after.game_id)
        mover = event.get("seat")
        if event.get("by") == "player" and isinstance(mover, int) and mover in holders:
            await self.pauses.played(holders[mover])

    async def _after_illegal(self, game_id: str, seat: int) -> None:
        player = (await self.players.table(game_id)).get(f"p{seat}")
        if player:
            await self.pauses.strike(player, "illegal", game_id)

    # ---- reading: WatchPlayer -------------------------------------------------------------

    async def watch(
        self, request: engine_pb2.WatchPlayerRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[engine_pb2.PlayerEvent]:
        """The player's events after the request's id: stored ones, then live ones."""
        try:
            after = validation.event_id(request.after_event_id)
            me = await self.players.who(presented_key(context.invocation_metadata()))
            if await self.bots.is_bot(me.player_id):
                await self.bots.require(me, "the event stream")  # counts the bot's calls
        except ServiceError as err:
            await context.abort(err.code, err.message, err.trailing_metadata())
            return
        except STORAGE_ERRORS:
            await storage_unavailable(context)
            return
        key, last = feed_key(me.player_id), after or "0-0"
        try:
            while True:
                start = f"({last}" if last != "0-0" else "-"
                entries = await self.redis.xrange(key, min=start, max="+", count=PAGE)
                for entry_id, fields in entries:
                    yield engine_pb2.PlayerEvent(event_id=entry_id, json=_text(fields))
                    last = entry_id
                if len(entries) < PAGE:
                    break
            while True:
                remaining = context.time_remaining()
                block = WATCH_SLICE_MS
                if remaining is not None:
                    block = max(1, min(block, int(remaining * 1000)))
                reply = await self.blocking.xread({key: last}, block=block, count=PAGE)
                for _key, entries in reply or ():
                    for entry_id, fields in entries:
                        yield engine_pb2.PlayerEvent(event_id=entry_id, json=_text(fields))
                        last = entry_id
        except STORAGE_ERRORS:
            await storage_unavailable(
                context, f"the store (Redis) stopped answering; resume after event {last}"
            )


def your_turn(table: Table, seat: int) -> dict[str, Any]:
    return {
        "type": "your_turn",
        "game_id": table.game_id,
        "game": table.meta.kind,
        "seat": seat,
        "version": table.version,
    }


def _text(fields: dict[Any, Any]) -> str:
    raw = fields.get("json", fields.get(b"json", b"{}"))
    return raw.decode() if isinstance(raw, bytes) else str(raw)
