"""A small SSE client for the live tests: one stream over a raw HTTP connection, read message by
message with its `event:` type, `id:` and decoded `data:`."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Message:
    kind: str  # "message" for an unnamed event, else the `event:` field
    id: str
    data: Any


class Stream:
    def __init__(self, reply: http.client.HTTPResponse) -> None:
        self.reply = reply
        self.status = reply.status
        self.headers = reply.headers  # case-insensitive names
        self.comments: list[str] = []

    def body(self) -> Any:
        return json.loads(self.reply.read() or b"null")

    def next(self, timeout: float = 30.0) -> Message:
        deadline = time.monotonic() + timeout
        fields: dict[str, str] = {}
        while time.monotonic() < deadline:
            line = self.reply.readline().decode()
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
            elif line == "":
                if "data" in fields:
                    return Message(
                        fields.get("event", "message"), fields.get("id", ""),
                        json.loads(fields["data"]),
                    )  # fmt: skip
                fields = {}
            else:
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")
        raise TimeoutError("no message in time")

    def next_event(self, timeout: float = 30.0) -> Message:
        """The next unnamed message (an engine event)."""
        while True:
            msg = self.next(timeout)
            if msg.kind == "message":
                return msg


@contextmanager
def open_stream(
    base: str, game: str, *, token: str | None = None, query: str = "",
    last_event_id: str | None = None, timeout: float = 60.0,
) -> Iterator[Stream]:  # fmt: skip
    parts = urlsplit(base)
    if parts.hostname is None:
        raise ValueError(f"not a URL with a host: {base!r}")
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    headers = {"Accept": "text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    conn.request("GET", f"/api/games/{game}/events{query}", headers=headers)
    try:
        yield Stream(conn.getresponse())
    finally:
        conn.close()


@contextmanager
def open_player_stream(
    base: str, key: str | None, *, last_event_id: str | None = None, query: str = "",
    timeout: float = 60.0,
) -> Iterator[Stream]:  # fmt: skip
    """`GET /api/players/me/events` with the player's device key (None: without one)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    headers = {"Accept": "text/event-stream"}
    if key is not None:
        headers["X-Player-Key"] = key
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    conn.request("GET", f"/api/players/me/events{query}", headers=headers)
    try:
        yield Stream(conn.getresponse())
    finally:
        conn.close()
