"""gunicorn's worker for the gateway: uvicorn on the plain asyncio loop (grpc.aio's support of
uvloop is not to be relied on), the httptools protocol with the gateway's head limits, serving
the ASGI gateway that gunicorn is given by name:

    gunicorn -c deploy/gunicorn.conf.py 'services.gateway.live.asgi:create_asgi()'

The app is served as it is named: a WSGI app (the bare Flask app of `services.gateway.app`) is
refused at boot with a message that names the ASGI app, never wrapped behind the operator's back
(uvicorn's own guess of the interface is turned off too).
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from gunicorn.errors import AppImportError

from services.gateway.live.uvicorn_internals import UvicornWorker

ASGI_APP = "services.gateway.live.asgi:create_asgi()"  # what gunicorn is to be given
QUIET_PATHS = frozenset({"/healthz", "/readyz"})
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
    wsgi: Any  # gunicorn's loaded app (the attribute's name is gunicorn's): the ASGI gateway
    CONFIG_KWARGS: dict[str, Any] = {  # noqa: RUF012 (uvicorn_worker's own class attribute)
        "loop": "asyncio",
        "http": "services.gateway.live.protocol:GatewayHttpProtocol",
        "lifespan": "on",
        "timeout_graceful_shutdown": GRACEFUL_S,
        "interface": "asgi3",  # not "auto": a WSGI app would be wrapped without a word
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
        if not _is_asgi(self.wsgi):
            named = getattr(self.app, "app_uri", None) or type(self.wsgi).__name__
            raise AppImportError(
                f"The gateway's worker serves an ASGI app and {named!r} is not one (a WSGI app "
                f"such as the bare Flask app is not wrapped silently). Name the ASGI gateway: "
                f"gunicorn -c deploy/gunicorn.conf.py '{ASGI_APP}'"
            )


def _is_asgi(app: Any) -> bool:
    """An ASGI 3 app: its call is a coroutine function (a WSGI app's is a plain function)."""
    return inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(type(app).__call__)
