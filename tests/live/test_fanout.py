"""The fan-out hub (issue 21) against a Redis and an engine of its own, so that the engine's Redis
connections can be counted: one engine subscription per game per gateway process however many
watch, every event to every watcher once, resumption from an old Last-Event-ID without gaps or
duplicates (from the feed's ring and from a catch-up of its own), a client that stops reading
dropped with its buffer bounded, and the stream caps."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any

import pytest
import redis

from services.common.config import LiveLimits
from services.gateway.app import create_app
from services.gateway.delta import apply
from services.gateway.live import hub as hub_module
from services.gateway.live.asgi import GatewayAsgi
from tests.fixtures.gateway import (
    GatewayApi,
    asgi_server,
    dead_target,
    gateway_config,
    live_limits,
    relaxed_limits,
)
from tests.fixtures.waits import wait_until
from tests.live.sse import open_stream
from tests.live.test_seat_streams import exact, play_one

WAIT_S = 60.0  # generous: the machine is shared and slow


@dataclass
class Stack:
    url: str
    asgi: GatewayAsgi
    api: GatewayApi
    redis: redis.Redis


@pytest.fixture
def stack_factory(
    redis_server_factory: Callable[..., Any], engine_factory: Callable[..., Any]
) -> Iterator[Callable[..., Stack]]:
    """make(**live_limit_changes) -> a Redis, an engine and an ASGI gateway of the test's own."""
    with ExitStack() as stack:

        def make(**changes: Any) -> Stack:
            server = redis_server_factory(appendonly=False)
            engine = engine_factory(server.url)
            app = create_app(gateway_config(engine.address, dead_target()))
            stack.callback(app.extensions["metro_gateway"].backends.close)
            asgi = GatewayAsgi(app, live_limits(**changes))
            url = stack.enter_context(asgi_server(asgi))
            client = redis.Redis.from_url(server.url)
            stack.callback(client.close)
            return Stack(url, asgi, GatewayApi(app.test_client()), client)

        yield make


def blocked_reads(client: redis.Redis) -> int:
    """The engine's connections blocked in XREAD now (one per live subscription)."""
    return sum(
        1 for c in client.client_list() if "b" in c.get("flags", "") and c.get("cmd") == "xread"
    )


def test_one_engine_subscription_per_game_however_many_watch(
    stack_factory: Callable[..., Stack],
) -> None:
    s = stack_factory()
    rng = random.Random(5)
    games = [s.api.new_game() for _ in range(2)]
    with ExitStack() as stack:
        streams = []
        for game, tokens in games:
            for i in range(12):
                token = (tokens[0], tokens[1], None)[i % 3]
                query = "?delta=1" if i % 2 else ""
                streams.append((game, stack.enter_context(
                    open_stream(s.url, game, token=token, query=query))))  # fmt: skip
        assert all(stream.status == 200 for _, stream in streams)
        # 24 open streams, 2 games: 2 subscriptions, 2 connections blocked in the engine's Redis.
        wait_until(lambda: blocked_reads(s.redis) == 2, "two blocked reads")
        assert s.asgi.hub.stats()["subscriptions"] == 2
        assert s.asgi.hub.stats()["watchers"] == 24
        for _, stream in streams:  # history: the creation and the join
            assert [stream.next_event().data["action"] for _ in range(2)] == ["create", "join"]
        # The audiences (public and both seats; seat 0 opened each feed without deltas) came
        # after each feed had subscribed: each feed asked again, once for those that came
        # together (at most once each), for their views to come with the events.
        wait_until(lambda: s.asgi.hub.stats()["unasked"] == 0, "every audience's views asked for")
        assert 2 <= s.asgi.hub.stats()["widenings"] <= 6
        for game, tokens in games:
            moved = [play_one(s.api, game, tokens, rng)["last_event_id"] for _ in range(4)]
            for stream_game, stream in streams:
                if stream_game == game:
                    assert [stream.next_event().id for _ in range(4)] == moved
        wait_until(lambda: blocked_reads(s.redis) == 2, "two blocked reads")
        stats = s.asgi.hub.stats()
        # Every event carried every audience's views: none was read.
        assert stats["subscriptions"] == 2 and stats["view_reads"] == 0, stats
        for game, tokens in games:
            moved = [play_one(s.api, game, tokens, rng)["last_event_id"] for _ in range(4)]
            for stream_game, stream in streams:
                if stream_game == game:
                    assert [stream.next_event().id for _ in range(4)] == moved
        assert s.asgi.hub.stats() == {**stats, "watchers": 24}


def _ids_of(stream: Any, count: int) -> list[str]:
    return [stream.next_event().id for _ in range(count)]


@pytest.mark.parametrize("ring", [512, 3])
def test_resuming_from_an_old_event_gets_every_event_once(
    stack_factory: Callable[..., Stack], monkeypatch: pytest.MonkeyPatch, ring: int
) -> None:
    """A stream resuming from an event long gone by (ring 3: older than the feed's ring, so a
    catch-up subscription of its own) while moves go on gets each later event once, in order,
    and with `?delta=1` a patch chain that keeps its copy equal to the view."""
    monkeypatch.setattr(hub_module, "RING", ring)
    s = stack_factory()
    game, tokens = s.api.new_game()
    rng = random.Random(8)
    ids = [play_one(s.api, game, tokens, rng)["last_event_id"] for _ in range(8)]
    with open_stream(s.url, game) as keeper:  # the feed is live and has passed those events
        history = _ids_of(keeper, 10)
        assert history[2:] == ids
        stop = threading.Event()
        played: list[str] = []

        def mover() -> None:
            while not stop.is_set() and len(played) < 10:
                played.append(play_one(s.api, game, tokens, rng)["last_event_id"])
                time.sleep(0.05)  # a pace: moves keep coming while the resumed stream catches up

        thread = threading.Thread(target=mover)
        thread.start()
        try:
            with open_stream(s.url, game, token=tokens[0], query="?delta=1",
                             last_event_id=ids[1]) as resumed:  # fmt: skip
                opening = resumed.next()
                assert opening.kind == "view"
                copy = opening.data["view"]
                got: list[str] = []
                thread.join(WAIT_S)
                while len(got) < len(ids) - 2 + len(played):
                    event = resumed.next_event()
                    got.append(event.id)
                    assert event.data["delta"]["since"] == copy["version"]
                    copy = apply(copy, event.data["delta"]["patch"])
                assert got == ids[2:] + played  # every event after ids[1] once, in order
                _, truth = s.api.get(f"/api/games/{game}", token=tokens[0])
                assert exact(copy) == exact(truth)
        finally:
            stop.set()
            thread.join(WAIT_S)
        assert _ids_of(keeper, len(played)) == played
    catch_ups = s.asgi.hub.stats()["catch_ups"]
    # Ring 3: the keeper (from the start) and the resumed stream each caught up on their own.
    assert catch_ups == (2 if ring == 3 else 0), catch_ups
    assert s.asgi.hub.stats()["subscriptions"] == 1


def test_a_seat_stream_opened_as_a_player_joins_shows_the_join(
    stack_factory: Callable[..., Stack], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ada's stream reads its opening view, then Bob joins and the game's feed (live for a
    spectator) publishes the join before Ada's stream is added to it: her stream must still bring
    her copy to the join. Before, the join went out as "no change since the opening view" and
    her page showed the waiting table until the next event (its Resign button never came)."""
    s = stack_factory()
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    status, made = s.api.post("/api/games", {"game": "metro", "rules": {"players": 2},
                                             "seats": seats})  # fmt: skip
    assert status == 201, made
    game, ada = made["game_id"], made["token"]
    hub = s.asgi.hub
    real_snapshot = hub.snapshot
    joined: list[Any] = []

    def join_bob() -> Any:
        status, body = s.api.post(f"/api/games/{game}/join", {"name": "Bob"})
        assert status == 200, body
        return body

    async def snapshot_then_join(*args: Any, **kwargs: Any) -> Any:
        snap = await real_snapshot(*args, **kwargs)
        if args[1] == 0 and not joined:  # Ada's opening view: Bob joins just after its read
            joined.append(await asyncio.to_thread(join_bob))
            assert snap is not None
            feed = hub.feeds[game]
            deadline = time.monotonic() + WAIT_S
            while feed.last_version <= snap.version:  # until the feed has published the join
                assert time.monotonic() < deadline, "the feed never published the join"
                await asyncio.sleep(0.01)
        return snap

    with open_stream(s.url, game) as spectator:  # the game's feed is live
        assert spectator.status == 200
        monkeypatch.setattr(hub, "snapshot", snapshot_then_join)
        with open_stream(s.url, game, token=ada, query="?delta=1") as stream:
            assert stream.status == 200 and joined
            opening = stream.next()
            assert opening.kind == "view"
            copy = opening.data["view"]
            for _ in range(2):  # the creation and the join
                delta = stream.next_event().data["delta"]
                if delta["version"] > copy["version"]:
                    assert delta["since"] == copy["version"], delta
                    copy = apply(copy, delta["patch"])
            _, truth = s.api.get(f"/api/games/{game}", token=ada)
            assert truth["status"] == "playing"
            assert exact(copy) == exact(truth)


def test_a_client_that_stops_reading_is_dropped_and_memory_stays_bounded(
    stack_factory: Callable[..., Stack],
) -> None:
    s = stack_factory(buffer_kb=16, buffer_events=4)
    game, tokens = s.api.new_game()
    rng = random.Random(13)
    for _ in range(20):  # a history whose replay (with a seat's legal moves) fills the socket
        play_one(s.api, game, tokens, rng)
    port = int(s.url.rsplit(":", 1)[1])
    lazy = socket.socket()
    lazy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    lazy.connect(("127.0.0.1", port))
    lazy.sendall(
        f"GET /api/games/{game}/events?delta=1 HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {tokens[0]}\r\n\r\n".encode()
    )
    try:
        wait_until(lambda: s.asgi.hub.stats()["watchers"] == 1, "the lazy stream is open")
        with open_stream(s.url, game) as reader:  # a reading neighbour on the same feed
            seen = 0
            largest = 0
            for _ in range(36):
                play_one(s.api, game, tokens, rng)
                seen += 1
                feed = s.asgi.hub.feeds.get(game)
                if feed is not None:
                    largest = max([largest, *(w.size for w in feed.watchers)])
                if s.asgi.slots.open == 1:
                    break
            # The lazy client was dropped; its buffer never passed the bound; the reader is fine.
            wait_until(lambda: s.asgi.slots.open == 1, "the lazy stream was dropped")
            print(f"dropped after {seen} moves; largest buffer {largest} bytes")
            assert largest <= 16 * 1024
            assert s.asgi.hub.stats()["watchers"] == 1
            ids = _ids_of(reader, 22 + seen)  # the history and every move since
            assert len(set(ids)) == len(ids)
        # The server closed the lazy connection: reading it now ends.
        lazy.settimeout(WAIT_S)
        while lazy.recv(65536):
            pass
    finally:
        lazy.close()


def test_stream_caps_per_process_and_per_address(stack_factory: Callable[..., Stack]) -> None:
    s = stack_factory(max_streams=3, per_client=2)
    game, _ = s.api.new_game()
    with ExitStack() as stack:
        held = [stack.enter_context(open_stream(s.url, game)) for _ in range(2)]
        assert [h.status for h in held] == [200, 200]
        with open_stream(s.url, game) as third:  # a third from the same address
            assert third.status == 429
            assert third.headers["Retry-After"] == "5"
            assert third.body()["error"]["code"] == "rate_limited"
    # Per process: with the address cap out of the way, the fourth of three is 503 busy.
    s.asgi.slots.per_client = 0
    with ExitStack() as stack:
        held = [stack.enter_context(open_stream(s.url, game)) for _ in range(3)]
        wait_until(lambda: s.asgi.slots.open == 3, "three streams open")
        with open_stream(s.url, game) as fourth:
            assert fourth.status == 503
            assert fourth.headers["Retry-After"] == "5"
            assert fourth.body()["error"] == {
                "code": "busy",
                "message": "too many live streams on this server; retrying in a few seconds",
            }
        held[0].reply.close()
    wait_until(lambda: s.asgi.slots.open == 0, "closed streams give their slots back")
    with open_stream(s.url, game) as again:
        assert again.status == 200


def test_the_default_cap_is_a_memory_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GATEWAY_MAX_STREAMS", raising=False)
    monkeypatch.setenv("GATEWAY_STREAM_MEMORY_MB", "10")
    monkeypatch.setenv("GATEWAY_STREAM_COST_KB", "20")
    assert LiveLimits.from_env().max_streams == 512
    monkeypatch.setenv("GATEWAY_MAX_STREAMS", "7")
    assert LiveLimits.from_env().max_streams == 7
    monkeypatch.setenv("GATEWAY_STREAM_COST_KB", "lots")
    with pytest.raises(SystemExit):
        LiveLimits.from_env()


def test_errors_before_the_stream_opens_are_json(stack_factory: Callable[..., Stack]) -> None:
    s = stack_factory()
    with open_stream(s.url, "nosuchgame00000") as missing:
        assert missing.status == 404
        assert json.loads(json.dumps(missing.body()))["error"]["code"] == "game_not_found"


# ---- limits over every worker (issue 30 item 10) ------------------------------------------------


@pytest.fixture
def two_workers(
    redis_server_factory: Callable[..., Any], engine_factory: Callable[..., Any]
) -> Iterator[Callable[..., tuple[list[str], GatewayApi]]]:
    """make(**live_limit_changes) -> the URLs of two gateway workers (ASGI apps of their own, as
    gunicorn runs them) sharing one Redis for their limits, and an API client."""
    with ExitStack() as stack:

        def make(**changes: Any) -> tuple[list[str], GatewayApi]:
            server = redis_server_factory(appendonly=False)
            engine = engine_factory(server.url)
            limits = replace(relaxed_limits(), storage_url=server.url)
            urls, api = [], None
            for _ in range(2):
                app = create_app(gateway_config(engine.address, dead_target(), LIMITS=limits))
                stack.callback(app.extensions["metro_gateway"].backends.close)
                urls.append(
                    stack.enter_context(asgi_server(GatewayAsgi(app, live_limits(**changes))))
                )
                api = api or GatewayApi(app.test_client())
            assert api is not None
            return urls, api

        yield make


def test_the_address_cap_counts_over_every_worker(two_workers: Callable[..., Any]) -> None:
    """One address with 2 streams on one worker gets no third on the other (each worker counted
    its own: 64 per worker held 128 with two)."""
    (a, b), api = two_workers(per_client=2)
    game, _ = api.new_game()
    with open_stream(a, game) as first:
        with open_stream(a, game) as second:
            assert (first.status, second.status) == (200, 200)
            with open_stream(b, game) as third:
                assert third.status == 429  # (a 200 would be a stream without end)
                assert third.headers["Retry-After"] == "5"
                assert third.body()["error"]["code"] == "rate_limited"

        def opens() -> bool:  # the second's connection is closed: its lease is given back
            with open_stream(b, game) as again:
                return bool(again.status == 200)

        wait_until(opens, "a closed stream's lease is given back")


def test_opening_streams_is_rate_limited(two_workers: Callable[..., Any]) -> None:
    """At most `opens` streams opened per window from one address, over every worker; beyond,
    429 with Retry-After (129 opens a second from one address went through before)."""
    window = 3600  # the opens are counted in fixed windows (caps.py): start well inside one
    (a, b), api = two_workers(opens=3, opens_window_s=window)
    game, _ = api.new_game()
    # Four opens across a window's edge would count in two windows (the fourth then let through,
    # as a loaded run once saw): begin with at least a minute of this window left.
    wait_until(lambda: window - time.time() % window > 60, "a minute left in the window", 70)
    for url in (a, b, a):
        with open_stream(url, game) as opened:
            assert opened.status == 200
    with open_stream(b, game) as refused:
        assert refused.status == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= window
        error = refused.body()["error"]
        assert (
            error["code"] == "rate_limited"
            and f"3 live streams opened per {window} s" in error["message"]
        )
