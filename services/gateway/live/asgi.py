"""The gateway as one ASGI application: the live streams, `GET /api/games/{id}/events` and a
player's own `GET /api/players/me/events`, served natively on the event loop by the fan-out hub
(hub.py, players.py), everything else by the Flask app in a thread pool (wsgi_bridge.py). Same
origin, same paths, one process: the only server of Server-Sent Events (issue 31 item 1).

    uvicorn --factory services.gateway.live.asgi:create_asgi          (development)
    gunicorn -c deploy/gunicorn.conf.py 'services.gateway.live.asgi:create_asgi()'

Why: an open page costs a coroutine, a socket and a small buffer here, not a thread, a pump
thread and a Redis connection in the engine; the Flask API keeps its threads for moves, sized so
a move always finds one (GATEWAY_THREADS), however many pages are open.

Limits (docs/gateway.md, live updates): at most `LiveLimits.max_streams` open streams per process (a
memory budget; beyond, `503 busy` with Retry-After), at most `per_client` per client address
(beyond, `429 rate_limited` with Retry-After), a keep-alive comment after each SSE_HEARTBEAT_S of
silence, and a stream whose client stops reading is closed once its buffer passes its bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import grpc
import orjson
from flask import Flask
from werkzeug.datastructures import Headers

from services.common.config import LiveLimits
from services.gateway.calls import EXTENSION, Gateway
from services.gateway.errors import ApiError, retry_later
from services.gateway.limits import STREAM_RETRY_AFTER_S
from services.gateway.live.caps import AddressCaps
from services.gateway.live.hub import BufferLimits, Feed, Hub, Watcher, api_error
from services.gateway.live.players import PlayerFeeds
from services.gateway.live.protocol import TRANSPORT
from services.gateway.live.request import PlayerStreamRequest, StreamRequest, seat_denied
from services.gateway.live.wire import (
    KEEP_ALIVE,
    OPENING,
    RECONNECT,
    Snapshot,
    format_event,
    view_message,
    with_delta,
)
from services.gateway.live.wsgi_bridge import WsgiBridge

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Asked = TypeVar("Asked")
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

EVENTS_PATH = re.compile(r"/api/games/([^/]+)/events")
PLAYER_EVENTS_PATH = "/api/players/me/events"
STREAM_HEADERS = [
    (b"Content-Type", b"text/event-stream; charset=utf-8"),
    (b"Transfer-Encoding", b"chunked"),  # said, not left to the server: the hub writes chunks
    (b"Cache-Control", b"no-cache"),
    (b"X-Accel-Buffering", b"no"),
    (b"X-Content-Type-Options", b"nosniff"),
    (b"Referrer-Policy", b"no-referrer"),
]


class StreamSlots:
    """Open streams of this process, in all and per client address."""

    def __init__(self, cap: int, per_client: int) -> None:
        self.cap, self.per_client = cap, per_client
        self.open = 0
        self.by_client: Counter[str] = Counter()

    def take(self, client: str) -> Callable[[], None]:
        """A slot, or the refusal (503 when the process is full, 429 for one address)."""
        if self.open >= self.cap:
            raise retry_later(503, "busy", "too many live streams on this server; retrying in "
                              "a few seconds", STREAM_RETRY_AFTER_S)  # fmt: skip
        if self.per_client and self.by_client[client] >= self.per_client:
            raise retry_later(
                429, "rate_limited",
                f"at most {self.per_client} live streams from one address; close one first",
                STREAM_RETRY_AFTER_S,
            )  # fmt: skip
        self.open += 1
        self.by_client[client] += 1
        given = False

        def give_back() -> None:
            nonlocal given
            if not given:
                given = True
                self.open -= 1
                self.by_client[client] -= 1
                if self.by_client[client] <= 0:
                    del self.by_client[client]

        return give_back


class GatewayAsgi:
    """The router: the stream path to `stream`, lifespan here, the rest to Flask."""

    def __init__(self, app: Flask, limits: LiveLimits) -> None:
        self.flask = app
        state: Gateway = app.extensions[EXTENSION]
        self.state = state
        # Flask in a pool of threads, two crossings per request (wsgi_bridge.py, issue 31).
        self.wsgi = WsgiBridge(app, limits.threads, app.config.get("MAX_CONTENT_LENGTH"))
        self.hub = Hub(
            state.backends.engine_target, state.deadline_s, state.watch_max_s,
            BufferLimits(limits.buffer_kb * 1024, limits.buffer_events),
        )  # fmt: skip
        self.players = PlayerFeeds(self.hub)
        self.slots = StreamSlots(limits.max_streams, limits.per_client)
        # The cap per address over every worker, and the rate of opens (caps.py, issue 30).
        guard = app.extensions["metro_limits"]
        self.caps = AddressCaps(
            guard.settings.storage_url if guard.settings.enabled else "",
            limits.per_client, limits.opens if guard.settings.enabled else 0, limits.opens_window_s,
        )  # fmt: skip
        self.proxies: int = app.extensions["metro_limits"].settings.proxies
        self.pumping: set[Watcher] = set()  # streams past their catch-up, for the ticker
        self.ticker: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self.lifespan(receive, send)
            return
        if kind == "http" and scope["method"] == "GET":
            found = EVENTS_PATH.fullmatch(scope["path"])
            if found:
                await self.stream(scope, receive, send, found.group(1))
                return
            if scope["path"] == PLAYER_EVENTS_PATH:
                await self.player_stream(scope, receive, send)
                return
        await self.wsgi(scope, receive, send)

    async def lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.ticker is not None:
                    self.ticker.cancel()
                await self.players.close()
                await self.hub.close()
                await self.caps.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def client_address(self, scope: Scope, headers: Headers) -> str:
        """Who the per-address cap counts: the peer, or behind GATEWAY_PROXIES trusted proxies
        the address they saw (X-Forwarded-For's entry that many from the right, as ProxyFix)."""
        if self.proxies:
            seen = [a.strip() for a in headers.get("X-Forwarded-For", "").split(",") if a.strip()]
            if len(seen) >= self.proxies:
                return seen[-self.proxies]
        client = scope.get("client")
        return str(client[0]) if client else "unknown"

    async def stream(self, scope: Scope, receive: Receive, send: Send, game_id: str) -> None:
        """A game's stream (a spectator's or a seat's)."""

        async def serve(asked: StreamRequest) -> None:
            await self._serve(scope, receive, send, game_id, asked)

        await self._limited(scope, send, StreamRequest.parse, serve)

    async def player_stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A player's own stream (docs/bots.md): every game of the player, one stream."""

        async def serve(asked: PlayerStreamRequest) -> None:
            await self._serve_player(scope, receive, send, asked)

        await self._limited(scope, send, PlayerStreamRequest.parse, serve)

    async def _limited(
        self, scope: Scope, send: Send, parse: Callable[[Headers, dict[str, str]], Asked],
        serve: Callable[[Asked], Awaitable[None]],
    ) -> None:  # fmt: skip
        """Check the request (400, 403), take a slot of this process (503) and a lease of its
        address (429), serve the stream, give both back: the same for every kind of stream."""
        headers = _headers(scope)
        args: dict[str, str] = {}
        for key, value in parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                                    keep_blank_values=True):  # fmt: skip
            args.setdefault(key, value)
        try:
            asked = parse(headers, args)
            address = self.client_address(scope, headers)
            give_back = self.slots.take(address)
        except ApiError as err:
            await answer_error(send, err)
            return
        try:
            release = await self.caps.take(address)
        except ApiError as err:
            give_back()
            await answer_error(send, err)
            return
        try:
            await serve(asked)
        finally:
            release()
            give_back()

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, game_id: str, asked: StreamRequest
    ) -> None:
        hub = self.hub
        try:
            watcher, feed, opening, upto = await self._join(game_id, asked)
        except grpc.aio.AioRpcError as err:
            await answer_error(send, api_error(err))
            return
        except ApiError as err:
            await answer_error(send, err)
            return
        except TimeoutError:
            await answer_error(send, retry_later(
                503, "unavailable", "the game's events could not be read in time", 2))  # fmt: skip
            return
        watcher.transport = bound_buffers(scope)

        async def head() -> None:
            nonlocal opening
            await self._catch_up(send, watcher, feed, opening, asked.after or "0-0", upto)
            # The opening view is the audience's to keep, not this stream's: a stream holds
            # no view of its own while it waits (memory, and objects every full GC walks).
            opening = None

        await self._hold(receive, send, watcher, head, lambda: hub.leave(feed, watcher))
        if watcher.ended == "slow":
            # Returning with the response unfinished makes the server close the connection.
            log.warning("live stream of game %s dropped: its client stopped reading", game_id)

    async def _serve_player(
        self, scope: Scope, receive: Receive, send: Send, asked: PlayerStreamRequest
    ) -> None:
        """Who the key is first (a key of nobody is a 403, a dead engine a 503, not an empty
        stream), then the player's feed: its events, a keep-alive after each quiet spell, until
        WATCH_MAX_S passes, the client leaves or a newer stream of the player opens."""
        metadata = [("x-client-id", self.client_address(scope, _headers(scope))),
                    ("x-player-key", asked.key)]  # fmt: skip
        try:
            me = await self.players.player(metadata)
        except grpc.aio.AioRpcError as err:
            await answer_error(send, api_error(err))
            return
        feed, watcher = self.players.join(me.player_id, asked.after, metadata)

        async def head() -> None:
            await _body(send, OPENING)

        await self._hold(receive, send, watcher, head, lambda: feed.remove(watcher))
        if watcher.ended == "slow":
            log.warning("player stream of %s dropped: its client stopped reading", me.player_id)

    async def _hold(
        self, receive: Receive, send: Send, watcher: Watcher,
        head: Callable[[], Awaitable[None]], leave: Callable[[], None],
    ) -> None:  # fmt: skip
        """One open stream, of a game or a player alike: the response's start, its head, then
        the watcher's messages until it ends. A client that stopped reading ends it without
        cancelling the server's task (the connection is then closed); whatever ends it, the
        listener for the client's leaving stops and the watcher leaves its feed."""
        listener = asyncio.get_running_loop().create_task(_listen(receive, watcher))
        watcher.task = asyncio.current_task()
        try:
            await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
            await head()
            await self._pump(send, watcher)
        except asyncio.CancelledError:
            if watcher.ended != "slow":
                raise
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
        finally:
            watcher.task = None
            listener.cancel()
            leave()

    async def _join(
        self, game_id: str, asked: StreamRequest
    ) -> tuple[Watcher, Feed, Snapshot | None, str]:
        """Check the stream may open (an unknown game is a 404, a wrong token a 403) and join
        the game's feed: the watcher, the feed, its opening snapshot, the feed's last event."""
        hub = self.hub
        reply = await hub.view(game_id, asked.token)
        seat = reply.seat if reply.HasField("seat") else None
        room = "players" if seat is not None else "spectators"
        if asked.token is not None and seat is None:
            # A token of no seat opens only the party host's stream with its chat: the host
            # screen's feed of the phones' presets is the players' room (as GET .../chat).
            if not asked.chat or await hub.chat_room(game_id, asked.token) != "players":
                raise seat_denied()
            room = "players"
        first = await hub.snapshot(game_id, seat, asked.token, reply) if asked.deltas else None
        watcher = Watcher(game_id, seat, asked.deltas, asked.after, hub.limits)
        watcher.room = room if asked.chat else None
        feed, opening, upto = await hub.join(watcher, asked.token, first, reply.last_event_id)
        return watcher, feed, opening, upto

    async def _catch_up(
        self, send: Send, watcher: Watcher, feed: Feed, opening: Snapshot | None,
        after: str, upto: str,
    ) -> None:  # fmt: skip
        """The stream's head (with `?delta=1` the opening view), then what it missed."""
        await _body(send, OPENING + (view_message(opening) if opening is not None else b""))
        async for event_id, data in feed.missed(after, upto):
            if opening is not None:
                data = with_delta(data, opening, opening)  # the opening view holds it
            await _body(send, format_event(event_id, data))
            if watcher.ended in ("slow", "closed"):
                return

    async def _pump(self, send: Send, watcher: Watcher) -> None:
        """The watcher's messages as they come, a keep-alive after each quiet spell, until the
        stream ends (the game ended, the client left or lagged, or WATCH_MAX_S passed).

        It waits on the watcher's own wake-up only: the process's one ticker (`_tick`) wakes
        it when a keep-alive or its end is due. A timer per stream per wait made each event
        cost every stream a new task, the most of what fanning out cost."""
        heartbeat_s = watcher.heartbeat_s = self.state.heartbeat_s
        now = time.monotonic()
        watcher.until, watcher.quiet_until = now + self.state.watch_max_s, now + heartbeat_s
        self.pumping.add(watcher)
        self._start_ticker()
        try:
            while True:
                watcher.wake.clear()
                if watcher.pending:
                    await _body(send, watcher.take())
                    watcher.quiet_until = time.monotonic() + heartbeat_s
                    continue  # more may have come while writing
                if watcher.ended is not None:
                    if watcher.ended in ("over", "failure", "closed"):
                        await send({"type": "http.response.body", "body": watcher.final,
                                    "more_body": False})  # fmt: skip
                    return
                now = time.monotonic()
                if now >= watcher.until:
                    await send({"type": "http.response.body", "body": RECONNECT,
                                "more_body": False})  # fmt: skip
                    return
                if now >= watcher.quiet_until:
                    await _body(send, KEEP_ALIVE)
                    watcher.quiet_until = now + heartbeat_s
                    continue
                watcher.parked = True  # from here the hub may write to the socket itself
                try:
                    await watcher.wake.wait()
                finally:
                    watcher.parked = False
        finally:
            self.pumping.discard(watcher)

    def _start_ticker(self) -> None:
        if self.ticker is None or self.ticker.done():
            self.ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        """Wake the streams whose keep-alive or end is due (twice a heartbeat: a keep-alive
        goes out between one and one and a half heartbeats of silence)."""
        period = max(0.05, self.state.heartbeat_s / 2)
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            for watcher in self.pumping:
                if now >= watcher.quiet_until or now >= watcher.until:
                    watcher.wake.set()


# A stream's bytes not yet taken by its client, beyond the hub's own buffer: the socket's send
# buffer in the kernel and the transport's buffer above it. Small, so that a client that stops
# reading blocks its stream soon, and its buffer then fills and it is dropped (BufferLimits);
# an event is a few KB at most, which these hold many of.
SOCKET_SEND_BUFFER = 16 * 1024  # (Linux doubles it)
TRANSPORT_HIGH_WATER = 16 * 1024


def bound_buffers(scope: Scope) -> Any:
    """Shrink the stream's connection buffers (when the server says which they are); the
    transport, or None under a server that does not say."""
    transport = (scope.get("extensions") or {}).get(TRANSPORT)
    if transport is None:
        return None
    transport.set_write_buffer_limits(high=TRANSPORT_HIGH_WATER)
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_SEND_BUFFER)
    return transport


def _headers(scope: Scope) -> Headers:
    return Headers([(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]])


async def _body(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def _listen(receive: Receive, watcher: Watcher) -> None:
    """End the watcher when its client goes away (ASGI tells by `http.disconnect`)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            watcher.end("closed")
            return


async def answer_error(send: Send, err: ApiError) -> None:
    """An API error answer (API.md's shape), as the Flask side writes them."""
    body: dict[str, Any] = {"code": err.code, "message": err.message, **err.extra}
    data = orjson.dumps({"error": body})
    headers = [
        (b"Content-Type", b"application/json"),
        (b"Content-Length", str(len(data)).encode()),
        (b"Cache-Control", b"no-store"),
        (b"X-Content-Type-Options", b"nosniff"),
        *((k.encode(), str(v).encode()) for k, v in err.headers.items()),
    ]
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": data, "more_body": False})


def create_asgi(config: Mapping[str, Any] | None = None,
                limits: LiveLimits | None = None) -> GatewayAsgi:  # fmt: skip
    """The gateway's ASGI application (`config` as `create_app`'s)."""
    from services.gateway.app import create_app

    return GatewayAsgi(create_app(config), limits or LiveLimits.from_env())
