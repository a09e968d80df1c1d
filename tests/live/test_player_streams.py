"""A player's own stream (`GET /api/players/me/events`, docs/bots.md) served by the ASGI app's hub
(issue 31 item 1): the same messages as before (an `id:` per event, resumable with Last-Event-ID or
`?last_event_id=`), one stream per player (a newer one ends the one before, and takes over its
engine subscription), the same refusals, and no thread held per stream."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from flask import Flask

from services.gateway.live.asgi import GatewayAsgi
from tests.fixtures import waits
from tests.fixtures.gateway import GatewayApi, asgi_server, live_limits
from tests.fixtures.gateway import api_error as error
from tests.live.sse import Message, Stream, open_player_stream

WAIT_S = 60.0


@pytest.fixture(scope="module")
def hub(gateway_app: Flask) -> Iterator[tuple[str, GatewayAsgi]]:
    """The session's app behind an ASGI router of this module's own (its hub's counts are this
    module's): its URL and the router."""
    asgi = GatewayAsgi(gateway_app, live_limits())
    with asgi_server(asgi) as url:
        yield url, asgi


def new_bot(api: GatewayApi) -> dict[str, Any]:
    status, made = api.post("/api/players", {"name": f"pb-{uuid.uuid4().hex[:10]}", "bot": True})
    assert status == 201, made
    return made


def invite(api: GatewayApi, bot: dict[str, Any]) -> str:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "name": bot["name"]}]
    status, made = api.post("/api/games", {"game": "metro", "rules": {"players": 2},
                                           "seats": seats})  # fmt: skip
    assert status == 201, made
    return str(made["game_id"])


def next_invitation(stream: Stream) -> Message:
    msg = stream.next_event(WAIT_S)
    assert msg.data["type"] == "invitation", msg
    return msg


def test_a_bot_hears_its_invitations_and_resumes_after_the_last_it_read(
    api: GatewayApi, hub: tuple[str, GatewayAsgi]
) -> None:
    url, _ = hub
    bot = new_bot(api)
    games = [invite(api, bot), invite(api, bot)]
    with open_player_stream(url, bot["device_key"]) as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert stream.headers["Cache-Control"] == "no-cache"
        first, second = next_invitation(stream), next_invitation(stream)
        assert "stream open" in stream.comments
    assert [first.data["game_id"], second.data["game_id"]] == games
    assert first.data["from"] == "Ada" and first.data["seat"] == 1 and first.id < second.id
    # Resuming: the header, or the query for a client that cannot set one; the header wins.
    resumes: list[dict[str, Any]] = [
        {"last_event_id": first.id}, {"query": f"?last_event_id={first.id}"},
        {"last_event_id": first.id, "query": "?last_event_id=0-0"},
    ]  # fmt: skip
    for resume in resumes:
        with open_player_stream(url, bot["device_key"], **resume) as stream:
            again = next_invitation(stream)
        assert (again.id, again.data) == (second.id, second.data), resume


def test_a_newer_stream_ends_the_one_before_and_takes_over_its_subscription(
    api: GatewayApi, hub: tuple[str, GatewayAsgi]
) -> None:
    url, asgi = hub
    bot = new_bot(api)
    invite(api, bot)
    with ExitStack() as streams:
        old = streams.enter_context(open_player_stream(url, bot["device_key"]))
        first = next_invitation(old)
        subscriptions = asgi.players.subscriptions
        new = streams.enter_context(
            open_player_stream(url, bot["device_key"], last_event_id=first.id)
        )
        assert new.status == 200
        with pytest.raises(EOFError):
            old.next(WAIT_S)  # ended by the newer stream, which says so before closing
        assert "another stream of this player opened; this one ends" in old.comments
        game = invite(api, bot)
        later = next_invitation(new)
        assert later.data["game_id"] == game and later.id > first.id
        # The newer stream read on from the older one's subscription: no new WatchPlayer.
        assert asgi.players.subscriptions == subscriptions
        assert asgi.players.stats()["watchers"] >= 1


def test_player_streams_hold_no_thread(api: GatewayApi, hub: tuple[str, GatewayAsgi]) -> None:
    """The threaded route held a pool thread and a pump thread per stream: here none."""
    url, asgi = hub
    bots = [new_bot(api) for _ in range(8)]
    for bot in bots:
        invite(api, bot)
    before = threading.active_count()
    with ExitStack() as streams:
        for bot in bots:
            stream = streams.enter_context(open_player_stream(url, bot["device_key"]))
            next_invitation(stream)
        waits.wait_until(lambda: asgi.players.stats()["watchers"] >= len(bots), "watchers")
        held = threading.active_count() - before
    assert held < len(bots), f"{held} threads for {len(bots)} player streams"


def test_refusals_come_before_the_stream_in_the_api_shape(
    api: GatewayApi, hub: tuple[str, GatewayAsgi]
) -> None:
    url, _ = hub
    bot = new_bot(api)
    for key, code in ((None, "bad_player_key"), ("two words", "bad_player_key")):
        with open_player_stream(url, key) as stream:
            assert stream.status == 403, key
            assert error(stream.body())["code"] == code
    with open_player_stream(url, "B" * 12 + "." + "C" * 20) as stream:  # well formed, nobody's
        assert stream.status == 403
        assert error(stream.body())["code"]
    for bad in ("99999999999999999999-0", "1-2-3", "x"):
        resumes: list[dict[str, Any]] = [{"last_event_id": bad}, {"query": f"?last_event_id={bad}"}]
        for resume in resumes:
            with open_player_stream(url, bot["device_key"], **resume) as stream:
                assert stream.status == 400, (bad, resume)
                body = error(stream.body())
                assert body["code"] == "bad_request" and body["field"] == "Last-Event-ID", body
