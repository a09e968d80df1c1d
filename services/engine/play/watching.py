"""Looking at a game: a seat's or a spectator's view (GetView), the legal moves (ListLegalMoves),
the public events as they happen (WatchGame) and a finished game's record (GetRecord).
Nothing here writes."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.common.auth import MAX_TOKEN_LENGTH
from services.common.grpc_util import ServiceError
from services.engine.core import messages, validation
from services.engine.core.access import Caller, ClaimedSeats, check_private, seat_if_any, seat_of
from services.engine.core.edge import failed, storage_unavailable
from services.engine.core.party_keys import is_host_token
from services.engine.core.store import STORAGE_ERRORS
from services.engine.core.table import legal_of, seat_view
from services.engine.core.tables import Tables
from services.engine.play.analysis import analysing, archived_record
from services.engine.play.chat_watch import chat_cursors, wait_with_chat

WATCH_SLICE_MS = 5000
EVENT_PAGE = 200


class Watching:
    def __init__(self, tables: Tables, claims: ClaimedSeats, blocking: Any) -> None:
        self.tables = tables
        self.claims = claims
        self.blocking = blocking  # the client for blocking reads (XREAD BLOCK)

    async def view(self, request: engine_pb2.GetViewRequest, caller: Caller) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        await check_private(caller, self.claims, table.meta, game_id, "its view", ai_may=True)
        requested = request.seat if request.HasField("seat") else None
        try:
            seat = await seat_if_any(caller, self.claims, table.meta, game_id, requested)
        except ServiceError:
            # A party table's host token (a host who only hosts holds no seat) reads the public
            # view, as a spectator: never a seat's private fields.
            if requested is not None or not await is_host_token(
                self.tables.store.redis, game_id, caller.token
            ):
                raise
            seat = None
        return seat_view(table, seat)

    async def legal(
        self, request: engine_pb2.ListLegalMovesRequest, caller: Caller
    ) -> engine_pb2.ListLegalMovesResponse:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        requested = request.seat if request.HasField("seat") else None
        seat = await seat_of(caller, self.claims, table.meta, game_id, requested)
        return legal_of(table, seat)

    async def event_message(
        self, game_id: str, event_id: str, event: dict[str, Any],
        carry: engine_pb2.WatchGameRequest | None, newest: int,
    ) -> engine_pb2.GameEvent:  # fmt: skip
        """A stored event as WatchGame sends it; `carry`: the request whose views it carries
        (given for the first event of a batch read up to now, whose last event is at version
        `newest`)."""
        message = messages.game_event(game_id, event_id, event)
        if carry is not None and (carry.public_view or carry.seat_tokens):
            await self.attach_views(message, carry, newest)
        return message

    async def attach_views(
        self, message: engine_pb2.GameEvent, request: engine_pb2.WatchGameRequest, newest: int
    ) -> None:
        """The views a live event carries (WatchGameRequest): at the batch's `newest` version
        or later, each seat's only for a token that proves that seat now. The table is this
        replica's own when it has committed that version (every subscriber of a game after a
        move here: no read, after that commit's own answer if need be), and every view and
        legal list comes from the table's own caches, so all subscribers of a game share one
        build of each."""
        table = await self.tables.settled(message.game_id, newest)
        if table is None:
            try:
                table = await self.tables.load(message.game_id)
            except ServiceError:
                return  # gone meanwhile (expired): the event goes as it is, the stream ends
        if request.public_view:
            message.views.append(seat_view(table, None))
        for token in request.seat_tokens:
            if not token or len(token) > MAX_TOKEN_LENGTH:
                continue
            caller = Caller(token=token, is_ai_service=False)
            try:
                seat = await seat_of(caller, self.claims, table.meta, message.game_id, None)
            except ServiceError:
                continue  # proves no seat (any more): that audience reads its view itself
            message.views.append(seat_view(table, seat))
            message.legal.append(legal_of(table, seat))

    async def record(
        self, request: engine_pb2.GetRecordRequest, caller: Caller | None = None
    ) -> engine_pb2.GetRecordResponse:
        game_id = validation.game_id(request.game_id)
        try:
            table = await self.tables.load(game_id)
        except ServiceError:
            kept = await archived_record(self.tables, game_id) if caller else None
            if caller is None or not caller.is_ai_service or kept is None:
                raise
            # An archived game's analysis: the worker reads the record it was queued with.
            return engine_pb2.GetRecordResponse(
                format=str(json.loads(kept).get("format", "")), record_json=kept
            )
        if table.meta.private:  # the AI reads it only to analyse it for its player
            ai_may = caller is not None and caller.is_ai_service
            await check_private(
                caller or Caller(token=None, is_ai_service=False), self.claims, table.meta,
                game_id, "its record", ai_may=ai_may and await analysing(self.tables, game_id),
            )  # fmt: skip
        if table.status != "over":
            raise failed(
                "game_running",
                f"game {game_id} is not over; its record (which holds the deck order) is "
                "available once it ends",
            )
        record = table.state.record()
        record["seats"] = [s.public() for s in table.meta.seats]
        if table.meta.ended is not None:  # stopped by agreement (offers.py): how, and winners
            record["ended"] = table.meta.ended
        return engine_pb2.GetRecordResponse(
            format=str(record.get("format", "")),
            record_json=json.dumps(record, separators=(",", ":")),
        )

    async def watch(
        self,
        request: engine_pb2.WatchGameRequest,
        context: grpc.aio.ServicerContext,
        caller: Callable[[], Caller],
    ) -> AsyncIterator[engine_pb2.GameEvent]:
        """The public events after the request's event id: stored ones in pages, then live
        ones, one blocking read at a time, until the game ends or expires. A private game's
        (its `resolve` events name the day's cards) only for a token of its seat."""
        store = self.tables.store
        try:
            game_id = validation.game_id(request.game_id)
            after = validation.event_id(request.after_event_id)
            table = await self.tables.load(game_id)
            # The AI reads it while it plays a seat of it (when it took the seat over: pace.py).
            ai_plays = any(seat.played_by_ai for seat in table.meta.seats)
            await check_private(
                caller(), self.claims, table.meta, game_id, "its event stream", ai_may=ai_plays
            )
            # Chat rooms to carry (chat_watch.py): their cursors are taken before the pages, so
            # a line written meanwhile is still sent live.
            rooms = await chat_cursors(store.redis, self.claims, table.meta, game_id, request)
        except ServiceError as err:
            await context.abort(err.code, err.message, err.trailing_metadata())
            return
        except STORAGE_ERRORS:
            await storage_unavailable(context)
            return
        last = after or "0-0"
        try:
            while True:  # what was missed, in pages
                batch = await store.events_after(game_id, last, EVENT_PAGE)
                final = len(batch) < EVENT_PAGE  # the last page: up to now, as a live batch
                newest = _newest(batch)
                for index, (event_id, event) in enumerate(batch):
                    carry = request if final and index == 0 else None
                    yield await self.event_message(game_id, event_id, event, carry, newest)
                    last = event_id
                    if event.get("status") == "over":
                        break
                if final or last_over(batch, last):
                    break
            if table.status == "over" or last_over(batch, last):
                async for line in self.chat_after_end(context, game_id, last, rooms):
                    yield line
                return
            while True:  # then live
                remaining = context.time_remaining()
                block = WATCH_SLICE_MS
                if remaining is not None:
                    block = max(1, min(block, int(remaining * 1000)))
                if rooms:
                    batch, lines = await wait_with_chat(self.blocking, game_id, last, rooms, block)
                    for line in lines:
                        yield line
                    if lines and not batch:
                        continue
                else:
                    batch = await store.wait_events(self.blocking, game_id, last, block)
                if not batch:
                    if await store.version_of(game_id) is None:
                        return  # expired
                    continue
                newest = _newest(batch)
                for index, (event_id, event) in enumerate(batch):
                    carry = request if index == 0 else None
                    yield await self.event_message(game_id, event_id, event, carry, newest)
                    last = event_id
                    if event.get("status") == "over":
                        async for line in self.chat_after_end(context, game_id, last, rooms):
                            yield line
                        return
        except STORAGE_ERRORS:
            await storage_unavailable(
                context, f"the game store (Redis) stopped answering; resume after event {last}"
            )

    async def chat_after_end(
        self, context: grpc.aio.ServicerContext, game_id: str, last: str, rooms: dict[str, str]
    ) -> AsyncIterator[engine_pb2.GameEvent]:
        """A finished game's chat lines, live, for CHAT_AFTER_END_S after its end (its last
        event `last`, whose status "over" the stream has sent): a "gg" typed after the end
        shows at once. Only a subscription with chat (`rooms`) waits; without, the stream ends
        with the game as before. Ends early when the game's keys expire."""
        if not rooms:
            return
        grace_ms = self.tables.settings.chat_after_end_s * 1000
        until_ms = int(last.partition("-")[0] or 0) + grace_ms
        while True:
            left_ms = until_ms - int(time.time() * 1000)
            remaining = context.time_remaining()
            if remaining is not None:
                left_ms = min(left_ms, int(remaining * 1000))
            if left_ms <= 0:
                return
            _, lines = await wait_with_chat(
                self.blocking, game_id, last, rooms, max(1, min(WATCH_SLICE_MS, left_ms))
            )
            for line in lines:
                yield line
            if not lines and await self.tables.store.version_of(game_id) is None:
                return  # expired


def last_over(batch: list[tuple[str, dict[str, Any]]], last: str) -> bool:
    """Whether the page's event `last` is the game's end (its status "over")."""
    return any(event_id == last and event.get("status") == "over" for event_id, event in batch)


def _newest(batch: list[tuple[str, dict[str, Any]]]) -> int:
    """The version of a batch's last event (0 for none)."""
    return int(batch[-1][1].get("version", 0)) if batch else 0
