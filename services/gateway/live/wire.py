"""The bytes of a live stream (docs/api-deltas.md): what a message looks like, nothing about who
gets it. Every stream of the gateway, a game's and a player's own, writes exactly these.

An audience is what a stream may see: the spectators' public view (seat None) or one seat's own
view plus its legal moves, proven by that seat's token before the stream opens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson
from metro.v1 import engine_pb2

from services.gateway.delta import diff

_EVENT_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_U64_MAX = 2**64 - 1  # a Redis stream id is two unsigned 64-bit integers
RETRY_MS = 3000
OPENING = f"retry: {RETRY_MS}\n: stream open\n\n".encode()
KEEP_ALIVE = b": keep-alive\n\n"
RECONNECT = b": stream closed, reconnect\n\n"


def valid_event_id(text: str) -> bool:
    """A Redis stream id "<ms>-<seq>" whose both parts fit in 64 unsigned bits."""
    if not _EVENT_ID.fullmatch(text):
        return False
    return all(int(part) <= _U64_MAX for part in text.split("-"))


def id_key(event_id: str) -> tuple[int, int]:
    """An event id as a sortable pair ("0-0" for none)."""
    ms, _, seq = (event_id or "0-0").partition("-")
    return int(ms), int(seq or 0)


@dataclass(frozen=True)
class Snapshot:
    """An audience's view at one version, and for a seat its legal moves (the JSON object
    `GET /api/games/{id}/legal` answers, as text) read at the same version."""

    version: int
    view: Any  # the decoded view
    legal: str | None = None


def legal_text(seat: int, version: int, moves: list[str]) -> str:
    """`{"moves", "seat", "version"}`, as GET .../legal writes it (moves are JSON already)."""
    return f'{{"moves":[{",".join(moves)}],"seat":{seat},"version":{version}}}'


def snapshot_of(
    view: engine_pb2.GameView, legal: engine_pb2.ListLegalMovesResponse | None = None
) -> Snapshot | None:
    """An audience's snapshot from the engine's `GameView` and, for a seat, its
    `ListLegalMovesResponse`; None when the two are not of one version."""
    if legal is None:
        return Snapshot(view.version, orjson.loads(view.json))
    if legal.version != view.version:
        return None
    moves = legal_text(legal.seat, legal.version, list(legal.moves))
    return Snapshot(view.version, orjson.loads(view.json), moves)


def format_event(event_id: str, data: str | bytes) -> bytes:
    """One SSE message: the id to resume from, then the event's JSON (one line: the engine
    writes it compact, and JSON text never holds a raw newline)."""
    body = data if isinstance(data, bytes) else data.encode()
    return b"id: " + event_id.encode() + b"\ndata: " + body + b"\n\n"


def view_message(snap: Snapshot) -> bytes:
    """The `event: view` message that opens a `?delta=1` stream: the whole current view."""
    legal = f',"legal":{snap.legal}' if snap.legal is not None else ""
    view = orjson.dumps(snap.view).decode()
    return f'event: view\ndata: {{"version":{snap.version},"view":{view}{legal}}}\n\n'.encode()


def with_delta(event_json: str, old: Snapshot | None, new: Snapshot | None) -> str:
    """The event's JSON with `delta` (old -> new) and, for a seat, `legal` added; unchanged when
    there is no view to describe (the client then fetches, as without deltas)."""
    if old is None or new is None or not (event_json.startswith("{") and event_json.endswith("}")):
        return event_json
    patch = [] if new is old else diff(old.view, new.view)
    delta = orjson.dumps({"since": old.version, "version": new.version, "patch": patch}).decode()
    legal = f',"legal":{new.legal}' if new.legal is not None else ""
    return f'{event_json[:-1]},"delta":{delta}{legal}}}'


def chat_message(room: str, line_json: str) -> bytes:
    """The `event: chat` message of one line (no `id:`: a line is no game event)."""
    data = b'{"room":' + orjson.dumps(room) + b',"line":' + line_json.encode() + b"}"
    return b"event: chat\ndata: " + data + b"\n\n"
