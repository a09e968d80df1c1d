"""`python -m services.gateway`: the development server on GATEWAY_PORT (threads, no reloader).
Production runs the same app under gunicorn (deploy/gunicorn.conf.py)."""

from __future__ import annotations

import logging

from services.common.config import Settings
from services.gateway.app import create_app
from services.gateway.errors import JsonErrorRequestHandler


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s gateway %(levelname)s %(message)s")
    settings = Settings.from_env()
    create_app().run(
        host=settings.gateway_host,
        port=settings.gateway_port,
        threaded=True,
        use_reloader=False,
        request_handler=JsonErrorRequestHandler,  # its own refusals (414, 431) as JSON too
    )


if __name__ == "__main__":
    main()
