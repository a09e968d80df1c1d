"""gunicorn's worker for the gateway: uvicorn on the plain asyncio loop (grpc.aio's support of
uvloop is not to be relied on), the httptools protocol with the gateway's head limits, and the
app given to gunicorn served as the ASGI gateway: `services.gateway.app:create_app()` (the Flask
app, as every deployment names it) is wrapped in `GatewayAsgi`, an ASGI app is served as is.

    gunicorn -c deploy/gunicorn.conf.py 'services.gateway.app:create_app()'
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask
from uvicorn_worker import UvicornWorker

from services.common.config import LiveLimits

QUIET_PATHS = frozenset({"/healthz"})
GRACEFUL_S = 5  # open streams get this long at shutdown; their pages reconnect elsewhere


class QuietHealthChecks(logging.Filter):
    """No access line for a passing health check (deploy/gunicorn.conf.py QUIET_PATHS): checks
    every few seconds would bury the log. uvicorn's access record's args are (client, method,
    path, HTTP version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5:
            return not (args[2] in QUIET_PATHS and args[4] == 200)
        return True


class GatewayWorker(UvicornWorker):
    wsgi: Any  # gunicorn's loaded app: the Flask app, then the ASGI router around it
    CONFIG_KWARGS: dict[str, Any] = {  # noqa: RUF012 (uvicorn_worker's own class attribute)
        "loop": "asyncio",
        "http": "services.gateway.live.protocol:GatewayHttpProtocol",
        "lifespan": "on",
        "timeout_graceful_shutdown": GRACEFUL_S,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        logging.getLogger("uvicorn.access").addFilter(QuietHealthChecks())
        # uvicorn tells the arbiter it is alive once per `timeout_notify`, which uvicorn_worker
        # sets to the arbiter's own `timeout`: a loop a little late (thousands of streams
        # opening on a busy machine) was then killed as hung, with every stream it held.
        self.config.timeout_notify = max(1, self.timeout // 4)

    def load_wsgi(self) -> None:
        super().load_wsgi()
        if isinstance(self.wsgi, Flask):
            from services.gateway.live.asgi import GatewayAsgi

            self.wsgi = GatewayAsgi(self.wsgi, LiveLimits.from_env())
