"""The fan-out hub: per gateway process, one engine `WatchGame` per watched game, shared by every
stream of that game in the process (issue 21).

A game's `Feed` starts with its first watcher and stops LINGER_S after its last one leaves. For
each event it reads, once, the view of each audience that has `?delta=1` watchers (the public
view for spectators, each proven seat's own view and legal moves), makes each audience's message
once, and appends those bytes to every watcher's buffer. Nothing here waits on a watcher: a
watcher whose buffer passes its bounds (a client that stopped reading) is ended, never grown.

A view read is skipped when the audience's last snapshot is already at or past the event's
version (history replayed at a feed's start, or a catch-up): the message then carries an empty
patch from and to that snapshot, which is the truth for a client holding it. A watcher that
resumes from an older event id gets what it missed first (from the feed's ring of recent events,
else from a short WatchGame of its own that stops at the event the feed had published when the
watcher joined), then the shared feed: every event once, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import orjson
from metro.v1 import engine_pb2, engine_pb2_grpc

from services.common.grpc_util import aio_insecure_channel, bearer
from services.gateway.errors import ApiError, from_rpc_error
from services.gateway.live import wire
from services.gateway.live.resubscribe import resubscribe_after
from services.gateway.live.wire import Snapshot, format_event, id_key, snapshot_of, with_delta

log = logging.getLogger(__name__)

RING = 512  # recent events a feed keeps for streams that resume (a whole Metro game fits)
WIDEN_AFTER_S = 0.25  # a new audience's views are asked for this long after it came
LINGER_S = 5.0  # a feed outlives its last watcher this long (a page reloading comes back)
Key = tuple[int, int]


@dataclass(frozen=True)
class BufferLimits:
    """When a watcher counts as not reading: more bytes or messages waiting than these."""

    max_bytes: int = 256 * 1024
    max_events: int = 512


class Watcher:
    """One open stream's end of the hub: the messages not yet written to its socket."""

    def __init__(
        self, game_id: str, seat: int | None, deltas: bool, after: str, limits: BufferLimits
    ) -> None:
        self.game_id, self.seat, self.deltas, self.limits = game_id, seat, deltas, limits
        self.floor: Key = id_key(after)  # events at or before this were sent (or not wanted)
        self.pending: deque[bytes] = deque()
        self.size = 0
        self.wake = asyncio.Event()
        self.ended: str | None = None  # "slow", "over", "failure" or "closed"
        self.final = b""  # written last before the stream closes (a failure message)
        self.task: asyncio.Task[Any] | None = None  # the stream's task, while it writes
        self.until = self.quiet_until = 0.0  # when the stream ends, when a keep-alive is due
        self.heartbeat_s = 0.0
        # While the stream's task is parked with nothing waiting and its socket has taken all
        # it was given, a message is written straight to `transport` as one HTTP chunk (the
        # response is chunked: asgi.STREAM_HEADERS), with no task to wake: with thousands of
        # streams per event, waking each one's coroutine was most of a fan-out's cost.
        self.transport: Any = None
        self.parked = False
        # The chat room this stream reads (`?chat=1`): "players" (a seat's or the party host's
        # token) or "spectators"; None: no chat lines on this stream.
        self.room: str | None = None

    def offer(self, key: Key, data: bytes, now: float) -> None:
        if self.ended is not None or key <= self.floor:
            return
        self.floor = key
        self.push(data, now)

    def offer_chat(self, room: str, data: bytes, now: float) -> None:
        """A chat line, to a stream of its room only (no event id: it moves no resume point)."""
        if self.ended is None and self.room == room:
            self.push(data, now)

    def push(self, data: bytes, now: float) -> None:
        transport = self.transport
        if (
            self.parked and not self.pending and transport is not None
            and not transport.is_closing() and not transport.get_write_buffer_size()
        ):  # fmt: skip
            transport.write(b"%x\r\n%b\r\n" % (len(data), data))
            self.quiet_until = now + self.heartbeat_s
            return
        self.pending.append(data)
        self.size += len(data)
        if self.size > self.limits.max_bytes or len(self.pending) > self.limits.max_events:
            self.end("slow")  # the client does not read: drop it, keep memory bounded
            return
        self.wake.set()

    def end(self, why: str, final: bytes = b"") -> None:
        if self.ended is None:
            self.ended, self.final = why, final
            if why == "slow":
                self.pending.clear()
                self.size = 0
                if self.task is not None:
                    self.task.cancel()  # it may be stuck writing to a socket nobody reads
        self.wake.set()

    def take(self) -> bytes:
        """Everything waiting, as one write."""
        data = b"".join(self.pending)
        self.pending.clear()
        self.size = 0
        return data


class Audience:
    """The streams of one game that see the same view: a seat's (proven token) or the public."""

    def __init__(self, seat: int | None, token: str | None, snap: Snapshot | None) -> None:
        self.seat, self.token, self.snap = seat, token, snap
        self.watchers = 0  # with deltas


class Feed:
    """One game's shared subscription and its watchers."""

    def __init__(self, hub: Hub, game_id: str, start: str) -> None:
        self.hub, self.game_id = hub, game_id
        # The game's last event when the feed began: until the feed has read that far (the
        # history, into the ring only) no watcher joins, so none gets history through its buffer.
        self.start: Key = id_key(start)
        self.ready = asyncio.Event()
        if self.start == (0, 0):
            self.ready.set()
        self.watchers: set[Watcher] = set()
        self.audiences: dict[int | None, Audience] = {}
        self.ring: deque[tuple[Key, str, str]] = deque(maxlen=RING)
        self.ring_floor: Key = (0, 0)  # the ring holds every event the feed saw after this
        self.last_id = "0-0"
        self.last_version = 0  # the game's version after the last event published
        self.task: asyncio.Task[None] | None = None
        self.linger: asyncio.TimerHandle | None = None
        self.finished = False
        self.over = False  # the game's "over" event was published (only chat streams stay)
        # The subscription now and the audiences whose views it asked the engine for; a new
        # audience cancels it (`widen_now`), and `run` asks again with that one included.
        self.call: Any = None
        self.asked: set[int | None] = set()
        self.widen_now = False
        self.widening: asyncio.TimerHandle | None = None
        # What the subscription shows the engine: the first watcher's seat token (None: a
        # spectator's). Only a private game's seat may watch it (the watcher's own GetView said
        # so before it came), and the engine checks the subscription as well.
        self.credential: str | None = None
        # Chat (issue 35 item 2): whether any watcher asked for it, the token that proves the
        # players' room to the engine (the first such watcher's), the rooms' last lines sent (a
        # new subscription reads on from there), and what the subscription now asked.
        self.chat = False
        self.chat_token = ""
        self.chat_after: dict[str, str] = {}
        self.chat_asked: tuple[bool, str] = (False, "")
        self.chat_floor = ""  # the game's last event when chat was first asked (chat_request)

    def metadata(self) -> Any:
        return bearer(self.credential) if self.credential else None

    # ---- the subscription ------------------------------------------------------------------

    async def run(self) -> None:
        """Read the game's events until it ends (or expires), subscribing again after a
        deadline, a lost engine or a new audience; watchers get a failure message when it
        stays lost."""
        failures = 0
        widened = False
        while True:
            if widened:
                self.hub.widenings += 1
            else:
                self.hub.subscriptions += 1
            asked = set(self.audiences)  # the views the engine will carry with the events
            call = self.hub.engine().WatchGame(
                engine_pb2.WatchGameRequest(
                    game_id=self.game_id, after_event_id=self.last_id,
                    public_view=None in asked,
                    seat_tokens=[a.token for a in self.audiences.values()
                                 if a.seat is not None and a.token],
                    **self.chat_request(),
                ),
                timeout=self.hub.watch_max_s, metadata=self.metadata(),
            )  # fmt: skip
            widened = False
            self.call, self.asked = call, asked
            self.chat_asked = (self.chat, self.chat_token)
            try:
                async for event in call:
                    failures = 0
                    await self.publish(event)
                break  # the game ended (over, or expired): the engine closed the stream
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not self.widen_now or (task is not None and task.cancelling()):
                    raise
                widened = True  # `add` cancelled the call for a new audience
            except grpc.aio.AioRpcError as err:
                if err.code() == grpc.StatusCode.CANCELLED and self.widen_now:
                    widened = True
                    continue
                went_on = await resubscribe_after(err, failures)
                if went_on is None:
                    self.close_all("failure", failure_message(err))
                    return
                failures = went_on
            finally:
                call.cancel()
                self.call, self.widen_now = None, False
        self.close_all("over")

    def chat_request(self) -> dict[str, Any]:
        """The chat fields of the next WatchGameRequest. The first subscription with chat reads
        each room from now; a later one (a widening, a lost engine) reads on from the last line
        sent, or for a room with none yet from the game's last event when chat was first asked
        (a Redis time at or before that first subscription: a line between the two subscriptions
        is never lost, one sent again is told by its id; the page's GET has it too)."""
        if not self.chat:
            return {}
        after = dict(self.chat_after)
        if not self.chat_floor:
            ms, seq = max(id_key(self.last_id), self.start)
            self.chat_floor = f"{ms}-{seq}"
        else:
            for room in ("players", "spectators"):
                after.setdefault(room, self.chat_floor)
        return {"chat": True, "chat_token": self.chat_token, "chat_after": after}

    async def publish(self, event: engine_pb2.GameEvent) -> None:
        """One event to every watcher: each audience's view taken from the event when the engine
        carried it (else read once), the bytes made once. A chat line goes to its
        room's watchers only (engine.proto GameEvent.chat_room)."""
        if event.chat_room:
            self.chat_after[event.chat_room] = event.event_id
            data = wire.chat_message(event.chat_room, event.json)
            now = time.monotonic()
            for watcher in list(self.watchers):
                watcher.offer_chat(event.chat_room, data, now)
            return
        carried = carried_snapshots(event)
        reading = [
            a for a in self.audiences.values()
            if a.watchers and a.seat not in carried
            and (a.snap is None or a.snap.version < event.version)
        ]  # fmt: skip
        self.hub.view_reads += len(reading)
        fresh = await asyncio.gather(
            *(self.hub.snapshot(self.game_id, a.seat, a.token) for a in reading),
            return_exceptions=True,
        )
        # From here on nothing waits: no watcher joins or leaves halfway through an event.
        key = id_key(event.event_id)
        plain = format_event(event.event_id, event.json)
        made: dict[int | None, bytes] = {}
        read: dict[int | None, Snapshot | BaseException | None] = dict(
            zip((a.seat for a in reading), fresh, strict=True)
        )
        for seat, audience in self.audiences.items():
            if not audience.watchers:
                continue
            new = read.get(seat, audience.snap)
            ahead = carried.get(seat)
            if ahead is not None and (new is None or isinstance(new, BaseException)
                                      or ahead.version > new.version):  # fmt: skip
                new = ahead
            if isinstance(new, BaseException) or new is None:
                made[seat] = plain  # no view: the client fetches, as without deltas
                continue
            old = audience.snap if audience.snap is not None else new
            made[seat] = format_event(event.event_id, with_delta(event.json, old, new))
            audience.snap = new
        if len(self.ring) == self.ring.maxlen:
            self.ring_floor = self.ring[0][0]
        self.ring.append((key, event.event_id, event.json))
        self.last_id = event.event_id
        self.last_version = max(self.last_version, event.version)
        if key >= self.start:
            self.ready.set()
        now = time.monotonic()
        for watcher in list(self.watchers):
            watcher.offer(key, made.get(watcher.seat, plain) if watcher.deltas else plain, now)
        if event.status == "over":  # streams without chat end; chat ones stay for "gg"
            self.over = True
            for watcher in [w for w in self.watchers if w.room is None]:
                watcher.end("over")

    def close_all(self, why: str, final: bytes = b"") -> None:
        self.finished = True
        self.ready.set()
        for watcher in list(self.watchers):
            watcher.end(why, final)
        if self.hub.feeds.get(self.game_id) is self:
            del self.hub.feeds[self.game_id]

    # ---- watchers --------------------------------------------------------------------------

    def add(self, watcher: Watcher, token: str | None, first: Snapshot | None) -> Snapshot | None:
        """Join; the snapshot the watcher's first deltas start from (its opening view)."""
        if self.linger is not None:
            self.linger.cancel()
            self.linger = None
        self.watchers.add(watcher)
        self.add_chat(watcher, token)
        if not watcher.deltas:
            return None
        audience = self.audiences.get(watcher.seat)
        if audience is None:
            audience = self.audiences[watcher.seat] = Audience(watcher.seat, token, first)
            if watcher.seat not in self.asked and self.widening is None:
                self.widening = asyncio.get_running_loop().call_later(WIDEN_AFTER_S, self.widen)
        elif audience.snap is None:
            audience.snap = first
        audience.watchers += 1
        return audience.snap

    def add_chat(self, watcher: Watcher, token: str | None) -> None:
        """A watcher of a chat room: the subscription carries that room's lines (asked again
        when it did not yet)."""
        if watcher.room is None:
            return
        self.chat = True
        if watcher.room == "players" and not self.chat_token and token:
            self.chat_token = token
        if (
            self.call is not None and self.chat_asked != (self.chat, self.chat_token)
            and self.widening is None
        ):  # fmt: skip
            self.widening = asyncio.get_running_loop().call_later(WIDEN_AFTER_S, self.widen)

    def widen(self) -> None:
        """Ask the engine again, now with the views of the audiences that came since (those
        that came together, one new subscription); until then their views are read."""
        self.widening = None
        behind = not set(self.audiences) <= self.asked or self.chat_asked != (
            self.chat, self.chat_token
        )  # fmt: skip
        if self.call is not None and behind and not self.widen_now:
            self.widen_now = True
            self.call.cancel()

    def remove(self, watcher: Watcher) -> None:
        if watcher not in self.watchers:
            return
        self.watchers.discard(watcher)
        audience = self.audiences.get(watcher.seat) if watcher.deltas else None
        if audience is not None:
            audience.watchers -= 1
            if audience.watchers <= 0:
                del self.audiences[watcher.seat]
        if not self.watchers and not self.finished:
            self.linger = asyncio.get_running_loop().call_later(LINGER_S, self.stop)

    def stop(self) -> None:
        """No watcher came back: cancel the subscription."""
        if self.watchers:
            return
        if self.widening is not None:
            self.widening.cancel()
            self.widening = None
        if self.task is not None:
            self.task.cancel()
        if self.hub.feeds.get(self.game_id) is self:
            del self.hub.feeds[self.game_id]

    async def missed(self, after: str, upto: str) -> AsyncIterator[tuple[str, str]]:
        """The events after `after` up to `upto` (the feed's last when the watcher joined):
        from the ring when it reaches back that far, else from a short WatchGame of its own."""
        start, end = id_key(after), id_key(upto)
        if end <= start:
            return
        if start >= self.ring_floor:
            for key, event_id, data in list(self.ring):
                if start < key <= end:
                    yield event_id, data
            return
        self.hub.catch_ups += 1
        call = self.hub.engine().WatchGame(
            engine_pb2.WatchGameRequest(game_id=self.game_id, after_event_id=after),
            timeout=self.hub.watch_max_s,
            metadata=self.metadata(),
        )
        try:
            async for event in call:
                key = id_key(event.event_id)
                if key > end:
                    return
                yield event.event_id, event.json
                if key == end:
                    return
        finally:
            call.cancel()


class Hub:
    """This process's feeds, and its asyncio channel to the engine (made in the running loop)."""

    def __init__(
        self, engine_target: str, deadline_s: float, watch_max_s: float, limits: BufferLimits
    ) -> None:
        self.engine_target = engine_target
        self.deadline_s, self.watch_max_s = deadline_s, watch_max_s
        self.limits = limits
        self.feeds: dict[str, Feed] = {}
        self._channel: grpc.aio.Channel | None = None
        self._stub: engine_pb2_grpc.EngineStub | None = None
        self.subscriptions = 0  # WatchGame calls the feeds made (tests and the bench read it)
        self.widenings = 0  # ... and made again to have the views of a new audience carried
        self.view_reads = 0  # audiences' views read for an event that did not carry them
        self.catch_ups = 0  # WatchGame calls made for one resuming watcher

    def engine(self) -> engine_pb2_grpc.EngineStub:
        if self._stub is None:
            self._channel = aio_insecure_channel(self.engine_target)
            self._stub = engine_pb2_grpc.EngineStub(self._channel)
        return self._stub

    async def view(self, game_id: str, token: str | None) -> engine_pb2.GameView:
        reply: engine_pb2.GameView = await self.engine().GetView(
            engine_pb2.GetViewRequest(game_id=game_id),
            metadata=bearer(token) if token else None,
            timeout=self.deadline_s,
        )
        return reply

    async def chat_room(self, game_id: str, token: str) -> str:
        """The chat room `token` reads at this game (the engine's GetChat decides)."""
        reply: engine_pb2.ChatLines = await self.engine().GetChat(
            engine_pb2.ChatRequest(game_id=game_id), metadata=bearer(token),
            timeout=self.deadline_s,
        )  # fmt: skip
        return str(reply.room)

    async def snapshot(
        self, game_id: str, seat: int | None, token: str | None,
        reply: engine_pb2.GameView | None = None,
    ) -> Snapshot | None:  # fmt: skip
        """The audience's view (and a seat's legal moves of the same version); None when the
        two could not be had at one version."""
        for _ in range(3):
            if reply is None:
                reply = await self.view(game_id, token)
            if seat is None or token is None:
                return snapshot_of(reply)
            legal = await self.engine().ListLegalMoves(
                engine_pb2.ListLegalMovesRequest(game_id=game_id),
                metadata=bearer(token),
                timeout=self.deadline_s,
            )
            snap = snapshot_of(reply, legal)
            if snap is not None:
                return snap
            reply = None
        return None

    async def join(
        self, watcher: Watcher, token: str | None, first: Snapshot | None, last_event_id: str
    ) -> tuple[Feed, Snapshot | None, str]:
        """Add a watcher to its game's feed (started if need be; `last_event_id`: the game's
        latest event as its first view said). Returns the feed, the opening snapshot and the
        feed's last event id: what the watcher missed up to there comes from `Feed.missed`, the
        rest from the feed. TimeoutError when a new feed could not read the history in time."""
        feed = self.feeds.get(watcher.game_id)
        if feed is None or feed.finished:
            feed = self.feeds[watcher.game_id] = Feed(self, watcher.game_id, last_event_id)
            feed.credential = token
            feed.add_chat(watcher, token)  # its first subscription carries this one's room
            if watcher.deltas:  # its first subscription asks for this watcher's views already
                feed.audiences[watcher.seat] = Audience(watcher.seat, token, None)
            feed.task = asyncio.get_running_loop().create_task(self._run(feed))
        try:
            if not feed.ready.is_set():
                await asyncio.wait_for(feed.ready.wait(), self.deadline_s)
            # A view older than the feed's events (sent as "no change since" it) is read again.
            for _ in range(3):
                if first is None or first.version >= feed.last_version or feed.finished:
                    break
                first = await self.snapshot(watcher.game_id, watcher.seat, token)
        except BaseException:
            if not feed.watchers:
                feed.stop()
            raise
        opening = feed.add(watcher, token, first)
        upto = feed.last_id
        watcher.floor = max(watcher.floor, id_key(upto))
        if feed.finished or (feed.over and watcher.room is None):
            watcher.end("over")  # the game ended: what it missed, then the stream closes
        return feed, opening, upto

    async def _run(self, feed: Feed) -> None:
        try:
            await feed.run()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not leave watchers waiting forever
            log.exception("live feed of game %s failed", feed.game_id)
            feed.close_all("failure", failure_message(None))

    def leave(self, feed: Feed, watcher: Watcher) -> None:
        feed.remove(watcher)

    def stats(self) -> dict[str, Any]:
        return {
            "games": len(self.feeds),
            "watchers": sum(len(f.watchers) for f in self.feeds.values()),
            "subscriptions": self.subscriptions,
            "widenings": self.widenings,
            "view_reads": self.view_reads,
            # audiences whose views the feeds' subscriptions do not ask for yet
            "unasked": sum(len(set(f.audiences) - f.asked) for f in self.feeds.values()),
            "catch_ups": self.catch_ups,
        }

    async def close(self) -> None:
        for feed in list(self.feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
                with contextlib.suppress(BaseException):
                    await feed.task
            feed.close_all("closed")
        if self._channel is not None:
            await self._channel.close()
            self._channel = self._stub = None


class _Failed(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """A finished asyncio call's error as the blocking API's `grpc.Call`, which
    `errors.from_rpc_error` reads (an AioRpcError is none)."""

    def __init__(self, err: grpc.aio.AioRpcError) -> None:
        self.err = err

    def code(self) -> grpc.StatusCode:
        return self.err.code()

    def details(self) -> str | None:
        return self.err.details()

    def trailing_metadata(self) -> Any:
        return tuple(self.err.trailing_metadata() or ())

    def initial_metadata(self) -> Any:
        return tuple(self.err.initial_metadata() or ())

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float | None:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


def api_error(err: grpc.aio.AioRpcError) -> ApiError:
    """The HTTP answer for a failed asyncio call to the engine (as for a blocking one)."""
    return from_rpc_error(_Failed(err), "engine")


def carried_snapshots(event: engine_pb2.GameEvent) -> dict[int | None, Snapshot]:
    """The audiences' snapshots an event carries (WatchGameRequest's views): the public one
    under None, a seat's only with its legal moves of the same version."""
    legal = {listed.seat: listed for listed in event.legal}
    out: dict[int | None, Snapshot] = {}
    for view in event.views:
        seat = view.seat if view.HasField("seat") else None
        if seat is not None and seat not in legal:
            continue
        snap = snapshot_of(view, None if seat is None else legal[seat])
        if snap is not None:
            out[seat] = snap
    return out


def failure_message(err: grpc.aio.AioRpcError | None) -> bytes:
    """The `event: failure` that ends a stream whose subscription could not be kept."""
    if err is None:
        data = {"code": "internal", "message": "the live feed stopped; reconnect"}
    else:
        api = api_error(err)
        data = {"code": api.code, "message": api.message}
    return b"event: failure\ndata: " + orjson.dumps(data) + b"\n\n"
