"""Live updates: the engine's WatchGame stream as Server-Sent Events.

Each event goes out with `id:` = the engine's event id, so a browser that reconnects sends it back
as `Last-Event-ID` and the stream resumes right after it. A comment line every few seconds of
silence keeps proxies from closing the connection and lets the server notice a gone client.
Events are public (the engine builds them from the public view), so no token is needed, and an
EventSource could not send one in a header anyway.

With `?delta=1` each event also carries `delta`: the JSON Patch from the public view the stream
sent last to the public view now (docs/api-deltas.md), so a spectator keeps its view current
without fetching it after every event.
"""

from __future__ import annotations

import json
import queue
import re
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import orjson
from flask import Blueprint, Response, request
from metro.v1 import engine_pb2

from services.gateway.calls import clients, gateway, rpc
from services.gateway.delta import diff
from services.gateway.errors import bad_request, from_rpc_error
from services.gateway.limits import guard

bp = Blueprint("events", __name__, url_prefix="/api/games")

_EVENT_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_U64_MAX = 2**64 - 1  # a Redis stream id is two unsigned 64-bit integers
RETRY_MS = 3000


def valid_event_id(text: str) -> bool:
    """A Redis stream id "<ms>-<seq>" whose both parts fit in 64 unsigned bits."""
    if not _EVENT_ID.fullmatch(text):
        return False
    return all(int(part) <= _U64_MAX for part in text.split("-"))


@bp.get("/<game_id>/events")
def events(game_id: str) -> Response:
    after = request.headers.get("Last-Event-ID") or request.args.get("last_event_id", "")
    after = after.strip()
    if after and not valid_event_id(after):
        raise bad_request(
            "Last-Event-ID must be an event id such as '1718000000000-0' (two whole numbers "
            "below 2^64).",
            field="Last-Event-ID",
        )
    flag = request.args.get("delta", "0")
    if flag not in ("0", "1"):
        raise bad_request("'delta' must be 1 (events carry a delta) or 0.", field="delta")
    want_deltas = flag == "1"
    # Each open stream holds one of this process's threads: beyond the cap, 503 busy (the
    # page's EventSource tries again by itself), so that moves always find a thread.
    give_back = guard().streams.take()
    try:
        engine = clients().engine
        # Errors of a stream only show once it is read: ask for the public view first, so an
        # unknown game is a 404 and a dead engine a 503, not an empty stream.
        first = rpc(engine.GetView, engine_pb2.GetViewRequest(game_id=game_id), idempotent=True)
        state = gateway()
        deltas = PublicDeltas(engine, game_id, first, state.deadline_s) if want_deltas else None
        call = engine.WatchGame(
            engine_pb2.WatchGameRequest(game_id=game_id, after_event_id=after),
            timeout=state.watch_max_s,
        )
        reply = Response(
            _sse(call, state.heartbeat_s, deltas),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    except BaseException:
        give_back()
        raise
    # The server closes the response when the stream ends or the client leaves.
    reply.call_on_close(give_back)
    return reply


def _pump(call: Any, out: queue.Queue[tuple[str, Any]]) -> None:
    """Read the gRPC stream in its own thread, so the response can beat while it waits."""
    try:
        for event in call:
            out.put(("event", event))
        out.put(("end", None))
    except grpc.RpcError as err:
        out.put(("error", err))


class PublicDeltas:
    """The public view a stream last described, and the patch from it to the view now."""

    def __init__(self, engine: Any, game_id: str, first: engine_pb2.GameView, deadline_s: float):
        self.engine, self.game_id, self.deadline_s = engine, game_id, deadline_s
        self.version, self.view = first.version, orjson.loads(first.json)

    def after(self, event_json: str) -> str:
        """The event's JSON with `delta` added; without it when the view could not be had (the
        client then fetches the view, as it would without deltas)."""
        try:
            reply = self.engine.GetView(
                engine_pb2.GetViewRequest(game_id=self.game_id), timeout=self.deadline_s
            )
        except grpc.RpcError:
            return event_json
        if not (event_json.startswith("{") and event_json.endswith("}")):
            return event_json
        view = orjson.loads(reply.json)
        delta = {"since": self.version, "version": reply.version, "patch": diff(self.view, view)}
        self.version, self.view = reply.version, view
        return f'{event_json[:-1]},"delta":{orjson.dumps(delta).decode()}}}'


def _sse(call: Any, heartbeat_s: float, deltas: PublicDeltas | None = None) -> Iterator[str]:
    items: queue.Queue[tuple[str, Any]] = queue.Queue()
    threading.Thread(target=_pump, args=(call, items), name="sse-pump", daemon=True).start()
    try:
        yield f"retry: {RETRY_MS}\n: stream open\n\n"
        while True:
            try:
                kind, item = items.get(timeout=heartbeat_s)
            except queue.Empty:
                yield ": keep-alive\n\n"
                continue
            if kind == "event":
                data = deltas.after(item.json) if deltas is not None else item.json
                yield format_event(item.event_id, data)
            elif kind == "error":
                yield _stream_error(item)
                return
            else:
                return
    finally:
        call.cancel()  # the client left (or the stream ended): stop the engine's side too


def format_event(event_id: str, data: str) -> str:
    """One SSE message: the id to resume from, then the event's JSON (one line: the engine
    writes it compact, and JSON text never holds a raw newline)."""
    return f"id: {event_id}\ndata: {data}\n\n"


def _stream_error(err: grpc.RpcError) -> str:
    """A stream broken by a deadline is routine (the browser reconnects); say so as a comment."""
    if isinstance(err, grpc.Call) and err.code() in (
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
    ):
        return ": stream closed, reconnect\n\n"
    api = from_rpc_error(err, "engine")
    data = json.dumps({"code": api.code, "message": api.message})
    return f"event: failure\ndata: {data}\n\n"
