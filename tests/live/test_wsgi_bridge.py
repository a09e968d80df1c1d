"""The Flask API under the ASGI gateway (services/gateway/live/wsgi_bridge.py, issue 31 item 7):
a request crosses from the event loop to the pool and back once, whatever its body (a2wsgi's
thread went back to the loop and waited for it on each read of the body and each piece of the
answer, the most of why moves were slower than under the threaded worker); a stream still goes
out as it comes; a body that says it is too large is refused unread."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from services.gateway.live.asgi import GatewayAsgi, create_asgi
from services.gateway.live.wsgi_bridge import WsgiBridge
from tests.fixtures.gateway import dead_target, gateway_config

Message = dict[str, Any]


@pytest.fixture(scope="module")
def gateway() -> Iterator[GatewayAsgi]:
    """The whole ASGI gateway, its engine and AI not answering (none of these needs them)."""
    app = create_asgi(gateway_config(dead_target(), dead_target()))
    yield app
    app.wsgi.close()
    app.flask.extensions["metro_gateway"].backends.close()


def scope_of(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }  # fmt: skip


def call(app: Any, scope: dict[str, Any], pieces: list[bytes]) -> tuple[list[Message], int]:
    """Run one request through `app` on a fresh loop: the messages sent and the number of
    times a pool thread handed work back to the loop (`call_soon_threadsafe`)."""
    sent: list[Message] = []
    queue = [
        {"type": "http.request", "body": p, "more_body": i < len(pieces) - 1}
        for i, p in enumerate(pieces or [b""])
    ]

    async def receive() -> Message:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        crossings = 0
        plain = loop.call_soon_threadsafe

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal crossings
            crossings += 1
            return plain(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]
        await app(scope, receive, send)
        return crossings

    crossings = asyncio.run(main())
    return sent, crossings


def answer(sent: list[Message]) -> tuple[int, dict[bytes, bytes], bytes]:
    assert sent and sent[0]["type"] == "http.response.start", sent
    assert sent[-1].get("more_body", False) is False, sent[-1]
    headers = {k.lower(): v for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


def test_a_get_crosses_to_the_pool_and_back_once(gateway: GatewayAsgi) -> None:
    sent, crossings = call(gateway, scope_of("GET", "/i18n/en.json", []), [])
    status, headers, body = answer(sent)
    assert status == 200
    assert int(headers[b"content-length"]) == len(body) > 0
    assert json.loads(body)
    assert crossings == 1, f"{crossings} hand-overs from the pool to the loop for one GET"


def test_a_post_in_pieces_crosses_once_and_its_body_is_read_whole(gateway: GatewayAsgi) -> None:
    body = json.dumps({"seats": [{"kind": "human"}, {"kind": "ai"}], "game": "bogus"})
    raw = body.encode()
    headers = [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")]
    sent, crossings = call(gateway, scope_of("POST", "/api/games", headers),
                           [raw[:5], raw[5:30], raw[30:]])  # fmt: skip
    status, _, answered = answer(sent)
    error = json.loads(answered)["error"]
    # The whole body was read: the refusal names the game at its end, not unreadable JSON.
    assert status == 400 and error["code"] == "wrong_game" and "bogus" in error["message"], error
    assert crossings == 1, f"{crossings} hand-overs from the pool to the loop for one POST"


def test_a_body_that_says_it_is_too_large_is_refused_unread(gateway: GatewayAsgi) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"1000000")]
    sent, _ = call(gateway, scope_of("POST", "/api/games", headers), [b"{" * 100])
    status, _, answered = answer(sent)
    assert status == 413, answered
    assert "error" in json.loads(answered)


def test_a_client_gone_before_its_body_is_whole_gets_no_answer(gateway: GatewayAsgi) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"40")]
    scope = scope_of("POST", "/api/games", headers)
    sent: list[Message] = []
    pieces: list[Message] = [{"type": "http.request", "body": b"{", "more_body": True},
              {"type": "http.disconnect"}]  # fmt: skip

    async def receive() -> Message:
        return pieces.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(gateway(scope, receive, send))
    assert sent == []


def test_a_stream_goes_out_as_it_comes() -> None:
    """A response without a Content-Length is sent chunk by chunk: the app's second chunk waits
    until the first has reached the client (it would wait forever if the first were held)."""
    first_out = threading.Event()

    def app(environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        yield b"data: 1\n\n"
        reached = first_out.wait(timeout=60)  # a bound for a broken bridge, not a pace
        yield b"data: 2\n\n" if reached else b"data: held\n\n"

    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)
        if message.get("body") == b"data: 1\n\n":
            first_out.set()

    bridge = WsgiBridge(app, 2, None)
    try:
        asyncio.run(bridge(scope_of("GET", "/s", []), receive, send))
    finally:
        bridge.close()
    assert [m["type"] for m in sent] == ["http.response.start"] + ["http.response.body"] * 3
    assert [m.get("body") for m in sent[1:]] == [b"data: 1\n\n", b"data: 2\n\n", b""]
    assert [m.get("more_body") for m in sent[1:]] == [True, True, False]


def test_a_header_name_with_an_underscore_is_dropped() -> None:
    """`X_Forwarded_For` must not pass for X-Forwarded-For (both would be HTTP_X_FORWARDED_FOR,
    the address ProxyFix and the rate limits trust): dropped, as gunicorn does."""
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        start_response("204 No Content", [])
        return []

    headers = [(b"x-forwarded-for", b"10.0.0.1"), (b"x_forwarded_for", b"6.6.6.6"),
               (b"x-custom", b"a"), (b"x-custom", b"b")]  # fmt: skip
    bridge = WsgiBridge(app, 1, None)
    try:
        sent, _ = call(bridge, scope_of("GET", "/", headers), [])
    finally:
        bridge.close()
    assert answer(sent)[0] == 204
    assert seen["HTTP_X_FORWARDED_FOR"] == "10.0.0.1"
    assert seen["HTTP_X_CUSTOM"] == "a,b"
