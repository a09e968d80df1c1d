"""A player's own event stream (issue 24, `GET /api/players/me/events`): one stream per player
for every game it sits at, so a bot needs one connection, not one per game.

Events (JSON, `type` first): `invitation` (invitations.py), `your_turn` (a seat the player holds
must move), `game_over` (with the scores), `paused` and `resumed` (ladder.py). Each is an entry
of the Redis stream `feed:{<player id>}` (capped, FEED_MAXLEN), so its id is the SSE id and a
reconnect with Last-Event-ID resumes exactly after it: nothing lost, nothing twice.

`your_turn` and `game_over` are owed by the commit that caused them: the commit script writes
what is owed into its shard's feed outbox in the same atomic step as the move (issue 30 item 4,
feed_outbox.py), and every engine's OutboxReader hands each entry to `deliver`, acknowledging it
only once written; so a move never waits for the feeds, and no kill of an engine or of Redis
(with its AOF) loses an event. Each event is written once per outbox entry (PUBLISH_ONCE_LUA),
even when an entry is handled twice. `deliver` also counts a bot's time-outs and moves, and
`illegal` its illegal moves (ladder.Pauses; these counts are kept in memory until written).
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
from services.engine.core import validation
from services.engine.core.edge import storage_unavailable
from services.engine.core.feed_outbox import PUBLISH_ONCE_LUA, OutboxReader
from services.engine.core.store import STORAGE_ERRORS
from services.engine.core.table import Table
from services.engine.players.bot_accounts import BotAccounts
from services.engine.players.players import Players, presented_key


class Strikes(Protocol):
    """What the feed's task tells about a bot's moves (ladder.Pauses; a protocol here, as
    ladder.py imports this module for `publish`)."""

    async def strike(self, player_id: str, what: str, game_id: str) -> None: ...

    async def played(self, player_id: str) -> None: ...


log = logging.getLogger("metro.engine.feed")

FEED_MAXLEN = 1000  # events kept per player (a bot away longer reads its games' state anew)
FEED_TTL_S = 30 * 24 * 3600
QUEUE_MAX = 10_000  # refused moves waiting to be counted; beyond, they are dropped (logged)
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
        self._queue: asyncio.Queue[tuple[str, int]] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._once = redis.register_script(PUBLISH_ONCE_LUA)

    async def publish(self, player_id: str, doc: dict[str, Any]) -> str:
        """Append one event to the player's stream; its id."""
        return await publish(self.redis, player_id, doc)

    def reader(self, cluster: bool, name: str) -> OutboxReader:
        """The reader of the commits' feed outboxes that hands their entries to `deliver`
        (server.py runs it)."""
        return OutboxReader(self.redis, self.blocking, cluster, self.deliver, name)

    # ---- after commits (never in a move's way) -------------------------------------------

    async def deliver(self, entry: str, game_id: str, version: int, doc: dict[str, Any]) -> None:
        """One feed outbox entry (what the commit of `version` owes): written to the streams
        of the players at the table, each event once per entry however often this runs."""
        fields = await self.players.table(game_id)
        holders = {int(k[1:]): v for k, v in fields.items() if k[:1] == "p" and k[1:].isdigit()}
        if not holders:
            return
        kind = str(doc.get("game", ""))
        for seat in doc.get("turn") or ():
            if seat in holders:
                turn = {"type": "your_turn", "game_id": game_id, "game": kind, "seat": seat,
                        "version": version}  # fmt: skip
                await self._publish_once(holders[seat], f"{entry}:t{seat}", turn)
        if doc.get("over") is not None:
            for seat, player in sorted(holders.items()):
                over = {"type": "game_over", "game_id": game_id, "game": kind, "seat": seat,
                        "scores": doc["over"]}  # fmt: skip
                await self._publish_once(player, f"{entry}:o{seat}", over)
                await self.bots.game_over(player, game_id)
        for seat in doc.get("timeouts") or ():
            if seat in holders:
                await self.pauses.strike(holders[seat], "timeout", game_id)
        mover = doc.get("mover")
        if isinstance(mover, int) and mover in holders:
            await self.pauses.played(holders[mover])

    async def _publish_once(self, player_id: str, entry: str, doc: dict[str, Any]) -> None:
        key = feed_key(player_id)
        shard_ms = entry.split(":", 2)[1].split("-", 1)[0]
        await self._once(
            keys=[key, f"{key}:sent"],
            args=[entry, orjson.dumps(doc), FEED_MAXLEN, FEED_TTL_S, shard_ms],
        )

    # ---- refused moves (never in a move's way) -------------------------------------------

    def illegal(self, game_id: str, seat: int) -> None:
        """moves.py: the rules refused a move of `seat`."""
        if self._queue is None:
            self._queue = asyncio.Queue(QUEUE_MAX)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())
        try:
            self._queue.put_nowait((game_id, seat))
        except asyncio.QueueFull:
            log.warning("player feed: %d refused moves waiting; one was not counted", QUEUE_MAX)

    async def _work(self) -> None:
        assert self._queue is not None
        while True:
            game_id, seat = await self._queue.get()
            try:
                await self._after_illegal(game_id, seat)
            except Exception:
                log.exception("player feed: a refused move was not counted")

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
