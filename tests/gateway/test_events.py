"""Server-Sent Events over a real socket: ids, resuming from Last-Event-ID, keep-alives, errors."""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.fixtures.gateway import GatewayApi
from tests.live.sse import Stream, open_stream


class Events:
    """The live tests' stream read here as (id, data) per message of any kind (a `?delta=1` stream
    opens with `event: view`), with its keep-alive comments and the raw reply for errors."""

    def __init__(self, live: Stream) -> None:
        self.live = live
        self.reply = live.reply
        self.comments = live.comments

    def next_event(self, timeout: float = 10.0) -> tuple[str, Any]:
        message = self.live.next(timeout)
        return message.id, message.data


@contextmanager
def stream(
    base: str, game: str, last_event_id: str | None = None, query: str = ""
) -> Iterator[tuple[int, http.client.HTTPMessage, Events]]:
    # (header names are case-insensitive: uvicorn writes them in lower case)
    with open_stream(base, game, query=query, last_event_id=last_event_id, timeout=10) as live:
        yield live.status, live.headers, Events(live)


def first_move(api: GatewayApi, game: str, token: str, version: int) -> dict[str, Any]:
    status, body = api.get(f"/api/games/{game}/legal", token=token)
    assert status == 200
    move = next(m for m in body["moves"] if m["action"] == "place")
    status, after = api.post(
        f"/api/games/{game}/moves", {**move, "expected_version": version}, token=token
    )
    assert status == 200, after
    return after


def test_events_carry_ids_and_resume_after_last_event_id(
    api: GatewayApi, gateway_server: str
) -> None:
    game, tokens = api.new_game()
    with stream(gateway_server, game) as (status, headers, events):
        assert status == 200
        assert headers["Content-Type"].startswith("text/event-stream")
        assert headers["Cache-Control"] == "no-cache"
        create_id, created = events.next_event()
        join_id, joined = events.next_event()
        assert create_id == created["event_id"] and join_id == joined["event_id"]
        assert joined["action"] == "join" and joined["name"] == "P1"
        after = first_move(api, game, tokens[0], joined["version"])
        move_id, moved = events.next_event()  # a live event, while the stream is open
        assert move_id == after["last_event_id"]
        assert moved["action"] == "place" and moved["placement"] == after["board"][0]
        assert moved["seat"] == 0 and moved["turn"] == 1 and moved["version"] == after["version"]
        assert "hand" not in moved and "token" not in json.dumps(moved)
    # A browser reconnecting sends the last id it saw: only what came after it arrives.
    with stream(gateway_server, game, last_event_id=join_id) as (status, _, events):
        assert status == 200
        resumed_id, resumed = events.next_event()
        assert resumed_id == move_id and resumed["action"] == "place"
    # The page's first connection may name its view's last event id in the query instead.
    with stream(gateway_server, game, query=f"?last_event_id={move_id}") as (_, _, events):
        second = first_move(api, game, tokens[1], after["version"])
        next_id, nxt = events.next_event()
        assert next_id == second["last_event_id"] and nxt["seat"] == 1


def test_a_quiet_stream_sends_keep_alive_comments(api: GatewayApi, gateway_server: str) -> None:
    game, _ = api.new_game()
    with stream(gateway_server, game) as (_, _, events):
        events.next_event()
        events.next_event()
        start = time.monotonic()
        with contextlib.suppress(TimeoutError):
            events.next_event(timeout=1.6)  # the test app beats every 0.5 s
        assert time.monotonic() - start >= 1.5
        assert events.comments.count("keep-alive") >= 2, events.comments


def test_event_stream_errors_are_plain_http_errors(api: GatewayApi, gateway_server: str) -> None:
    with stream(gateway_server, "no-such-game") as (status, _, events):
        assert status == 404
        assert json.loads(events.reply.read())["error"]["code"] == "game_not_found"
    game, _ = api.new_game()
    with stream(gateway_server, game, last_event_id="yesterday") as (status, _, events):
        assert status == 400
        assert "Last-Event-ID" in json.loads(events.reply.read())["error"]["message"]
