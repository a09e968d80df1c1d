"""Live updates on a threaded server: the engine's WatchGame stream as Server-Sent Events.

Production and `python -m services.gateway` serve this path with the async fan-out hub
(services/gateway/live/); this Flask route answers it where the app runs as plain WSGI (the
Flask test client, a threaded werkzeug server). Both write the same messages
(live/wire.py, docs/api-deltas.md) and check a request the same way (`StreamRequest`).

Each event goes out with `id:` = the engine's event id, so a client that reconnects sends it back
as `Last-Event-ID` and the stream resumes right after it. A comment line every few seconds of
silence keeps proxies from closing the connection and lets the server notice a gone client.

Without a token a stream is a spectator's. With `Authorization: Bearer <seat token>` (proved by
reading that seat's view before the stream opens; a wrong token is 403) it is that seat's: with
`?delta=1` its events carry the seat's own view delta and legal moves. With `?delta=1` the first
message is `event: view`, the audience's whole view, so the page needs no GET to start.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

import grpc
from flask import Blueprint, Response, request
from metro.v1 import engine_pb2

from services.common.grpc_util import bearer
from services.gateway.calls import clients, gateway, rpc
from services.gateway.errors import from_rpc_error
from services.gateway.http_kit import pump
from services.gateway.limits import guard
from services.gateway.live.request import StreamRequest, seat_denied
from services.gateway.live.wire import (
    KEEP_ALIVE,
    OPENING,
    RECONNECT,
    RETRY_MS,
    Snapshot,
    format_event,
    snapshot_of,
    valid_event_id,
    view_message,
    with_delta,
)

__all__ = ["RETRY_MS", "StreamRequest", "bp", "format_event", "valid_event_id"]

bp = Blueprint("events", __name__, url_prefix="/api/games")


@bp.get("/<game_id>/events")
def events(game_id: str) -> Response:
    asked = StreamRequest.parse(request.headers, request.args)
    # Each open stream holds one of this process's threads: beyond the cap, 503 busy (the
    # page tries again by itself), so that moves always find a thread.
    give_back = guard().streams.take()
    try:
        engine = clients().engine
        # Errors of a stream only show once it is read: read the audience's view first, so an
        # unknown game is a 404, a wrong token a 403 and a dead engine a 503, not an empty stream.
        first = rpc(
            engine.GetView,
            engine_pb2.GetViewRequest(game_id=game_id),
            token=asked.token,
            idempotent=True,
        )
        if asked.token is not None and not first.HasField("seat"):
            raise seat_denied()
        state = gateway()
        views = SyncViews(engine, game_id, asked.token, state.deadline_s) if asked.deltas else None
        opening = views.first(first) if views is not None else None
        call = engine.WatchGame(
            engine_pb2.WatchGameRequest(game_id=game_id, after_event_id=asked.after),
            timeout=state.watch_max_s,
            # A private game's events are its seat's: the engine checks the token too.
            metadata=bearer(asked.token) if asked.token else None,
        )
        reply = Response(
            _sse(call, state.heartbeat_s, views, opening),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    except BaseException:
        give_back()
        raise
    # The server closes the response when the stream ends or the client leaves.
    reply.call_on_close(give_back)
    return reply


class SyncViews:
    """One stream's audience, read with blocking calls: its view (and a seat's legal moves) at
    each event, and the snapshot the stream described last."""

    def __init__(self, engine: Any, game_id: str, token: str | None, deadline_s: float) -> None:
        self.engine, self.game_id, self.token, self.deadline_s = engine, game_id, token, deadline_s
        self.last: Snapshot | None = None

    def first(self, reply: engine_pb2.GameView) -> Snapshot | None:
        self.last = self._snapshot(reply)
        return self.last

    def _snapshot(self, reply: engine_pb2.GameView) -> Snapshot | None:
        if self.token is None:
            return snapshot_of(reply)
        for _ in range(3):  # the view and the legal moves of one version
            legal = self.engine.ListLegalMoves(
                engine_pb2.ListLegalMovesRequest(game_id=self.game_id),
                metadata=bearer(self.token),
                timeout=self.deadline_s,
            )
            snap = snapshot_of(reply, legal)
            if snap is not None:
                return snap
            reply = self._view()
        return None

    def _view(self) -> engine_pb2.GameView:
        return self.engine.GetView(  # type: ignore[no-any-return]
            engine_pb2.GetViewRequest(game_id=self.game_id),
            metadata=bearer(self.token) if self.token else None,
            timeout=self.deadline_s,
        )

    def after(self, event_json: str) -> str:
        """The event with `delta` (and a seat's `legal`); as it came when no view was had."""
        try:
            new = self._snapshot(self._view())
        except grpc.RpcError:
            return event_json
        data = with_delta(event_json, self.last, new)
        if new is not None:
            self.last = new
        return data


def _sse(
    call: Any, heartbeat_s: float, views: SyncViews | None, opening: Snapshot | None
) -> Iterator[bytes]:
    items: queue.Queue[tuple[str, Any]] = queue.Queue()
    threading.Thread(target=pump, args=(call, items), name="sse-pump", daemon=True).start()
    try:
        yield OPENING + (view_message(opening) if opening is not None else b"")
        while True:
            try:
                kind, item = items.get(timeout=heartbeat_s)
            except queue.Empty:
                yield KEEP_ALIVE
                continue
            if kind == "event":
                data = views.after(item.json) if views is not None else item.json
                yield format_event(item.event_id, data)
            elif kind == "error":
                yield stream_error(item)
                return
            else:
                return
    finally:
        call.cancel()  # the client left (or the stream ended): stop the engine's side too


def stream_error(err: grpc.RpcError) -> bytes:
    """A stream broken by a deadline is routine (the browser reconnects); say so as a comment."""
    if isinstance(err, grpc.Call) and err.code() in (
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
    ):
        return RECONNECT
    api = from_rpc_error(err, "engine")
    data = json.dumps({"code": api.code, "message": api.message})
    return f"event: failure\ndata: {data}\n\n".encode()
