"""The Flask API under the ASGI gateway: each request's WSGI call runs in a thread pool, with as
few crossings between the event loop and the pool as a request allows.

Why not a general ASGI-to-WSGI adapter (a2wsgi, used before; issue 31 item 7): its pool thread
went back to the loop and waited for it on every read of the body, on the response's start, on
each chunk and on the end, four or five round trips per request. Each crossing waits for the GIL
behind every pool thread busy with Flask, and plain-HTTP moves were ~11% slower than under
gunicorn's threaded worker. Here a request crosses twice: the loop reads the body (small and
bounded by the app's MAX_CONTENT_LENGTH), the pool runs Flask and collects the response, the loop
writes it. Only a response that does not say its length (a stream) is sent chunk by chunk as it
comes, its thread waiting for each chunk to be written (backpressure, as before).
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import sys
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Reply = tuple[int, list[tuple[bytes, bytes]], bytes]

NO_BODY_STATUSES = frozenset({204, 304})


class WsgiBridge:
    """An ASGI app serving a WSGI app's HTTP requests from a pool of `threads` threads.

    `body_limit`: the most body bytes worth reading for the app (its MAX_CONTENT_LENGTH); one
    more is read so that the app sees a body without a Content-Length break its limit, and a
    body that says it is larger is not read at all (the app refuses it by its header)."""

    def __init__(self, app: WsgiApp, threads: int, body_limit: int | None) -> None:
        self.app = app
        self.body_limit = body_limit
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wsgi")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan and websockets are the router's (asgi.GatewayAsgi)
        body = await read_body(scope, receive, self.body_limit)
        if body is None:
            return  # the client left before its request was whole: nothing to answer
        loop = asyncio.get_running_loop()
        call = WsgiCall(self.app, environ_of(scope, body), loop, send)
        context = contextvars.copy_context()
        reply = await loop.run_in_executor(self.executor, context.run, call.run)
        if reply is not None:
            status, headers, data = reply
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": data, "more_body": False})

    def close(self) -> None:
        """Stop taking work (the pool's threads end once their requests have)."""
        self.executor.shutdown(wait=False)


async def read_body(scope: Scope, receive: Receive, limit: int | None) -> bytes | None:
    """The request's body, read on the loop: up to `limit` + 1 bytes, nothing when its
    Content-Length is over `limit`, None when the client went away first."""
    declared = _content_length(scope)
    if declared is not None and limit is not None and declared > limit:
        return b""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None  # http.disconnect
        chunk = message.get("body", b"")
        if chunk:
            parts.append(chunk)
            size += len(chunk)
        if not message.get("more_body", False) or (limit is not None and size > limit):
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def environ_of(scope: Scope, body: bytes) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP scope (PEP 3333: text as latin-1 of the raw bytes)."""
    root = scope.get("root_path", "").encode("utf-8").decode("latin-1")
    path = scope["path"].encode("utf-8").decode("latin-1")
    if root and path.startswith(root):
        path = path[len(root) :]
    server = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root,
        "PATH_INFO": path,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 0),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        # The input ends where the body does: a body without a Content-Length (chunked) is
        # read too, still bounded by MAX_CONTENT_LENGTH (werkzeug otherwise reads it as empty).
        "wsgi.input_terminated": True,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = str(client[0]), str(client[1])
    for raw_name, raw_value in scope["headers"]:
        if b"_" in raw_name:
            # `X_Forwarded_For` would read as X-Forwarded-For once `-` becomes `_`: dropped,
            # as gunicorn and werkzeug's own server drop such names.
            continue
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        if name not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            name = "HTTP_" + name
        value = raw_value.decode("latin-1")
        if name in environ:
            value = f"{environ[name]},{value}"  # repeated headers join, as a server's would
        environ[name] = value
    return environ


class WsgiCall:
    """One WSGI call, run in a pool thread: `run` returns the whole response for the loop to
    write, or None when it streamed the response itself (no Content-Length)."""

    def __init__(
        self, app: WsgiApp, environ: dict[str, Any], loop: asyncio.AbstractEventLoop, send: Send
    ) -> None:
        self.app, self.environ, self.loop, self.send = app, environ, loop, send
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: list[bytes] = []
        self.streaming = False
        self.started = False  # (streaming) the response's start is sent

    def run(self) -> Reply | None:
        iterable = self.app(self.environ, self.start_response)
        try:
            for chunk in iterable:
                if chunk:
                    self.write(chunk)
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()
        if not self.streaming:
            return self.status, self.headers, b"".join(self.chunks)
        self._start_stream()
        self._on_loop({"type": "http.response.body", "body": b"", "more_body": False})
        return None

    def start_response(
        self, status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], None]:
        if exc_info is not None and self.started:
            raise exc_info[1].with_traceback(exc_info[2])  # too late to change the answer
        self.status = int(status.split(" ", 1)[0])
        self.headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        self.chunks.clear()
        sized = any(k.lower() == "content-length" for k, _ in headers)
        self.streaming = not sized and not self._bodiless()
        if self.streaming:
            self._start_stream()  # a stream's head goes out at once, before its first chunk
        return self.write

    def write(self, chunk: bytes) -> None:
        if not self.streaming:
            self.chunks.append(chunk)
            return
        self._start_stream()
        self._on_loop({"type": "http.response.body", "body": chunk, "more_body": True})

    def _bodiless(self) -> bool:
        return (
            self.environ["REQUEST_METHOD"] == "HEAD"
            or self.status in NO_BODY_STATUSES
            or self.status < 200
        )

    def _start_stream(self) -> None:
        if not self.started:
            self.started = True
            self._on_loop(
                {"type": "http.response.start", "status": self.status, "headers": self.headers}
            )

    def _on_loop(self, message: Message) -> None:
        """Send on the loop and wait until it is written (the stream's backpressure)."""

        async def deliver() -> None:
            await self.send(message)

        asyncio.run_coroutine_threadsafe(deliver(), self.loop).result()
