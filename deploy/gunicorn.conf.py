"""gunicorn settings for the gateway in production.

    gunicorn -c deploy/gunicorn.conf.py 'services.gateway.live.asgi:create_asgi()'

gunicorn is given the ASGI gateway by name; the worker refuses a WSGI app (the bare Flask app)
at boot instead of wrapping it. Each worker is one uvicorn process
(services/gateway/live/worker.py) serving the gateway as an ASGI application: live streams
(Server-Sent Events) run on its event loop, fanned out by one engine subscription per game
(services/gateway/live/hub.py), so an open page costs memory, not a thread; the Flask API runs
in a pool of GATEWAY_THREADS threads beside it. Open streams per worker are capped by memory
(GATEWAY_STREAM_MEMORY_MB / GATEWAY_STREAM_COST_KB, or GATEWAY_MAX_STREAMS). The app is not
preloaded: each worker builds its own gRPC channels after the fork.

Request size limits: the worker's HTTP protocol refuses an oversized request line (414) or
header (431) itself, in the API's JSON error shape, before the app runs
(services/gateway/live/protocol.py reads the GATEWAY_LIMIT_REQUEST_* settings below). The limits
are generous for real clients (browsers send URLs well under 8 KiB to this API and cookies up to
about 8 KiB; an Authorization header is a 32-character token) and small enough that a request's
head stays cheap. `_json_write_error` below writes any refusal gunicorn's own parser makes (under
a worker class other than the gateway's, chosen with `-k`) in the same shape.
"""

from __future__ import annotations

import json
import os
import socket
import time
from typing import Any

from gunicorn import glogging, util

from services.gateway.drain import drain_seconds, flag_path


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    try:
        return int(raw) if raw else default
    except ValueError:
        raise SystemExit(f"gunicorn.conf.py: {name} must be an integer, got {raw!r}") from None


bind = f"{os.environ.get('GATEWAY_HOST', '0.0.0.0')}:{_int('GATEWAY_PORT', 8000)}"
worker_class = "services.gateway.live.worker.GatewayWorker"
workers = _int("WEB_CONCURRENCY", 2)
# Threads of each worker's Flask pool (read by services/common/config.py LiveLimits; the gateway's
# worker class does not read gunicorn's own `threads`). The same default as
# DEFAULT_GATEWAY_THREADS.
threads = _int("GATEWAY_THREADS", 256)
preload_app = False
# Seconds a worker may be silent before the arbiter restarts it (not a request time limit). A
# worker says it is alive from its event loop, which on a saturated machine with thousands of
# open streams can be late by tens of seconds (bench/watchers.py saw both workers killed at 30
# s, and every stream they held reconnecting at once): restart only a loop truly stuck.
timeout = _int("GATEWAY_WORKER_TIMEOUT_S", 120)
# On SIGTERM, a worker stops taking connections; open SSE streams get a few seconds
# (GatewayWorker.GRACEFUL_S) and the rest of this before the worker is killed; browsers
# reconnect with Last-Event-ID and lose nothing.
graceful_timeout = 20
keepalive = 5
accesslog = "-"
errorlog = "-"
# Health checks every few seconds would bury the access log: a passing check on one of these paths
# is not logged (a failing one is).
QUIET_PATHS = frozenset({"/healthz", "/readyz"})


class QuietHealthLogger(glogging.Logger):
    """gunicorn's logger, less the access lines of passing health checks."""

    def access(self, resp: Any, req: Any, environ: dict, request_time: Any) -> None:
        if req.path in QUIET_PATHS and getattr(resp, "status_code", None) == 200:
            return
        super().access(resp, req, environ, request_time)


logger_class = QuietHealthLogger
loglevel = os.environ.get("GATEWAY_LOG_LEVEL", "info")

# The request's head: URL (request line) up to 8190 bytes, gunicorn's maximum; each header up to
# 16 KiB; at most 100 headers. Larger ones are refused with 414 / 431 (JSON, see below).
limit_request_line = _int("GATEWAY_LIMIT_REQUEST_LINE", 8190)
limit_request_field_size = _int("GATEWAY_LIMIT_REQUEST_FIELD_SIZE", 16 * 1024)
limit_request_fields = _int("GATEWAY_LIMIT_REQUEST_FIELDS", 100)


def _json_write_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's refusals (a request it could not parse or that broke a limit) in the API's
    error shape `{"error": {"code", "message"}}` instead of an HTML page. Same signature as
    gunicorn.util.write_error, which every worker class calls for these."""
    code = "_".join(reason.lower().replace("-", " ").split()) or "error"
    message = f"{reason}: {mesg}" if mesg else reason
    body = json.dumps({"error": {"code": code, "message": message[:300]}}).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin1") + body)


# Workers are forked from the arbiter that read this file, so they all use it.
util.write_error = _json_write_error


# GATEWAY_DRAIN_S (services/gateway/drain.py): on SIGTERM the arbiter first marks itself draining
# (/readyz answers 503) and keeps every worker serving that long, so the proxy in front stops
# sending requests here before the listening socket closes. The graceful stop follows as usual.
DRAIN_S = drain_seconds()


def on_starting(server: Any) -> None:
    if DRAIN_S <= 0:
        return
    stop = server.handle_term

    def drain_then_stop() -> None:
        flag = flag_path(os.getpid())
        flag.touch()
        server.log.info("draining: not ready for %.1f s, then stopping", DRAIN_S)
        time.sleep(DRAIN_S)
        stop()

    # The arbiter looks its signal handlers up on itself (`handle_term` for SIGTERM).
    server.handle_term = drain_then_stop


def on_exit(server: Any) -> None:
    flag_path(os.getpid()).unlink(missing_ok=True)
