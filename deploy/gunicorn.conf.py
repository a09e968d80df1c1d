"""gunicorn settings for the gateway in production.

    gunicorn -c deploy/gunicorn.conf.py 'services.gateway.app:create_app()'

`gthread` because live updates are Server-Sent Events: each open stream holds one thread for as
long as the page is open, while the worker's main loop keeps answering the arbiter, so a long
stream is not mistaken for a hung worker. Open streams per container = workers x threads.
The app is not preloaded: each worker builds its own gRPC channel after the fork.
"""

from __future__ import annotations

import os


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    try:
        return int(raw) if raw else default
    except ValueError:
        raise SystemExit(f"gunicorn.conf.py: {name} must be an integer, got {raw!r}") from None


bind = f"{os.environ.get('GATEWAY_HOST', '0.0.0.0')}:{_int('GATEWAY_PORT', 8000)}"
worker_class = "gthread"
workers = _int("WEB_CONCURRENCY", 2)
threads = _int("GATEWAY_THREADS", 32)
preload_app = False
# Seconds a worker may be silent before the arbiter restarts it (not a request time limit).
timeout = 30
# On SIGTERM, open SSE streams get this long to end before workers are killed; browsers
# reconnect with Last-Event-ID and lose nothing.
graceful_timeout = 20
keepalive = 5
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GATEWAY_LOG_LEVEL", "info")
