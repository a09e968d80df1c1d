"""`python -m services.gateway`: the gateway on GATEWAY_PORT, one uvicorn process (the plain
asyncio loop: grpc.aio's support of uvloop is not to be relied on). Live streams run on the
event loop, the Flask API in GATEWAY_THREADS threads (services/gateway/live/asgi.py).
Production runs the same application under gunicorn (deploy/gunicorn.conf.py)."""

from __future__ import annotations

import logging

import uvicorn

from services.common.config import Settings

GRACEFUL_S = 5  # open streams get this long on shutdown; their pages reconnect elsewhere


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s gateway %(levelname)s %(message)s")
    settings = Settings.from_env()
    uvicorn.run(
        "services.gateway.live.asgi:create_asgi",
        factory=True,
        host=settings.gateway_host,
        port=settings.gateway_port,
        loop="asyncio",
        http="services.gateway.live.protocol:GatewayHttpProtocol",
        lifespan="on",
        access_log=False,
        log_config=None,  # the logging set up above
        timeout_graceful_shutdown=GRACEFUL_S,
        backlog=4096,
    )


if __name__ == "__main__":
    main()
