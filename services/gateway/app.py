"""The gateway's Flask app factory: JSON API, health and the static web page. Servers run it
inside the ASGI gateway (services/gateway/live/asgi.py), which also serves the live event streams
and is what gunicorn is given by name:

    gunicorn -c deploy/gunicorn.conf.py 'services.gateway.live.asgi:create_asgi()'

Nothing here opens a connection: the gRPC channels are made by the first request of each
process (services/gateway/backends.py), which keeps the app safe to build before a fork.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, send_from_directory

import games
from games.errors import GameError
from services.common.config import GatewayLimits, Settings
from services.gateway import (
    analysis_api,
    archive_api,
    bots_api,
    chat_api,
    daily_api,
    errors,
    games_api,
    health,
    i18n,
    learn_api,
    limits,
    openapi,
    party_api,
    players_api,
)
from services.gateway.backends import CIRCUIT_OPEN_S, Backends, env_seconds
from services.gateway.calls import EXTENSION, Gateway

WEB_ROOT = Path(__file__).resolve().parents[2] / "web"

# What the page may load: itself only. Styles set from scripts go through the CSSOM, which this
# policy allows; inline markup styles and scripts are refused.
_CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A gateway app. `config` overrides the environment's settings: ENGINE_TARGET, AI_TARGET,
    RPC_DEADLINE_S, RPC_RETRY_WAIT_S and CIRCUIT_OPEN_S (calls.py), SSE_HEARTBEAT_S (seconds of
    silence before a keep-alive), WATCH_MAX_S
    (longest life of one event stream), WEB_ROOT, LIMITS (a GatewayLimits, else the
    environment's: rates, hints at once, live streams), PUBLIC_URL and any Flask setting."""
    options = dict(config or {})
    settings = Settings.from_env()
    limit_settings = options.pop("LIMITS", None) or GatewayLimits.from_env()
    web_root = Path(options.pop("WEB_ROOT", WEB_ROOT))
    # The archive of finished games (PostgreSQL; None: DATABASE_URL from the environment).
    options_url = options.pop("DATABASE_URL", None)
    app = Flask(__name__, static_folder=str(web_root), static_url_path="")
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024  # every request body of the API is small
    state = Gateway(
        backends=Backends(
            str(options.pop("ENGINE_TARGET", settings.engine_target)),
            str(options.pop("AI_TARGET", settings.ai_target)),
            float(options.pop("CIRCUIT_OPEN_S", env_seconds("CIRCUIT_OPEN_S") or CIRCUIT_OPEN_S)),
        ),
        deadline_s=float(options.pop("RPC_DEADLINE_S", settings.rpc_deadline_s)),
        heartbeat_s=float(options.pop("SSE_HEARTBEAT_S", 15.0)),
        watch_max_s=float(options.pop("WATCH_MAX_S", 30 * 60.0)),
        retry_wait_s=options.pop("RPC_RETRY_WAIT_S", None) or env_seconds("RPC_RETRY_WAIT_S"),
    )
    app.config.update(options)
    app.config.setdefault("PUBLIC_URL", settings.public_url)  # links the server makes
    app.extensions[EXTENSION] = state

    app.register_blueprint(games_api.bp)
    app.register_blueprint(analysis_api.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(i18n.bp)
    app.register_blueprint(players_api.bp)
    app.register_blueprint(bots_api.bp)
    app.register_blueprint(learn_api.bp)
    app.register_blueprint(daily_api.bp)
    app.register_blueprint(party_api.bp)
    app.register_blueprint(chat_api.bp)
    archive_api.install(app, options_url)
    errors.register(app)
    # A hint's slot is held at most as long as its call may take, plus a margin.
    limits.install(app, limit_settings, hint_hold_s=state.deadline_s + 5.0)

    @app.get("/")
    def index() -> Response:
        return app.send_static_file("index.html")

    @app.get("/games/<kind>/<path:name>")
    def game_page_module(kind: str, name: str) -> Response:
        """A game's own page module (its board), from its package: `games/<kind>/web/`."""
        try:
            web_dir = games.get(kind).web_dir
        except GameError:
            abort(404)
        if web_dir is None:
            abort(404)
        return send_from_directory(web_dir, name)

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if response.mimetype == "text/html":
            response.headers.setdefault("Content-Security-Policy", _CSP)
        if response.mimetype == "application/json":
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app
