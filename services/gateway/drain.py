"""A stopping gateway says so before it stops listening (issue 32's rolling upgrade).

gunicorn closes a gateway's listening socket the moment it gets SIGTERM. A proxy that checks its
gateways every second may still send a request there in that second: the connection is refused,
and Caddy 2.6 cannot retry an HTTP/1.1 POST it already read (caddyserver/caddy 5454, 7546), so
the move fails. With GATEWAY_DRAIN_S (deploy/gunicorn.conf.py), SIGTERM first raises this flag
and the arbiter keeps serving for that long while `/readyz` answers 503: the proxy's check takes
the gateway out of its rotation before anything is refused. Then the ordinary graceful stop.

The flag is a file named after the arbiter's pid, which every worker knows as its parent: one
`stat` per check, and two gateways on one machine (`metro up --gateways 2`) never share one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

DRAIN_ENV = "GATEWAY_DRAIN_S"


def drain_seconds() -> float:
    """GATEWAY_DRAIN_S: how long a stopping gateway stays up but not ready (0: it stops at once)."""
    raw = os.environ.get(DRAIN_ENV, "").strip()
    try:
        seconds = float(raw) if raw else 0.0
    except ValueError:
        raise SystemExit(
            f"configuration: {DRAIN_ENV} must be a number of seconds, got {raw!r}"
        ) from None
    return max(0.0, seconds)


def flag_path(arbiter_pid: int) -> Path:
    return Path(tempfile.gettempdir()) / f"metro-gateway-{arbiter_pid}.draining"


def draining() -> bool:
    """Whether this worker's arbiter is stopping (a worker's parent is its arbiter)."""
    return flag_path(os.getppid()).exists()
