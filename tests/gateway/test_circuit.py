"""The gateway fails fast while the engine is down, and serves again once it is back.

A real engine process is killed under a real gateway app: the first request pays the channel's
retries and the gateway's one wait (RPC_RETRY_WAIT_S), which opens the engine's circuit; the
requests after it are answered 503 at once with Retry-After (they used to take 6.5 s each, and
/healthz 1.5 s). The engine is started again and, the circuit's moment over, the same gateway
answers 200 without a restart. Times are printed; the bounds only rule out the old waits.
"""

from __future__ import annotations

import time
from typing import Any

from flask.testing import FlaskClient

from services.gateway import calls
from services.gateway.app import create_app
from tests.fixtures.gateway import GatewayApi, gateway_config
from tests.fixtures.waits import wait_until

OPEN_S = 1.0


def timed(client: FlaskClient, path: str, **kw: Any) -> tuple[float, Any]:
    started = time.monotonic()
    answer = client.get(path, **kw)
    return time.monotonic() - started, answer


def test_engine_down_is_answered_at_once_then_served_again(
    redis_url: str, engine_factory: Any, ai: Any
) -> None:
    running = engine_factory(redis_url)
    app = create_app(gateway_config(running.address, ai.target, CIRCUIT_OPEN_S=OPEN_S))
    client = app.test_client()
    api = GatewayApi(client)
    try:
        game, tokens = api.new_game()
        seat = {"Authorization": f"Bearer {tokens[0]}"}
        status, view = api.get(f"/api/games/{game}", token=tokens[0])
        assert status == 200
        status, legal = api.get(f"/api/games/{game}/legal", token=tokens[0])
        move = {**legal["moves"][0], "expected_version": view["version"]}
        assert client.get("/healthz").status_code == 200

        running.process.kill()
        first_s, first = timed(client, f"/api/games/{game}", headers=seat)
        assert first.status_code == 503, first.json
        assert first.json["error"]["code"] == "unavailable"
        assert int(first.headers["Retry-After"]) >= 1
        # The channel's retries (about 1.5 s) and one wait of RETRY_WAIT_S: well under 6.5 s.
        assert first_s < 1.5 + calls.RETRY_WAIT_S + 2.0, first_s

        view_s, view = timed(client, f"/api/games/{game}", headers=seat)
        health_s, health = timed(client, "/healthz")
        move_started = time.monotonic()
        moved = client.post(f"/api/games/{game}/moves", json=move, headers=seat)
        move_s = time.monotonic() - move_started
        print(
            f"engine down: first view 503 in {first_s:.2f} s, then view {view_s:.3f} s, "
            f"/healthz {health_s:.3f} s, move {move_s:.3f} s"
        )
        for answer in (view, moved):
            assert answer.status_code == 503, answer.json
            assert answer.json["error"] == {
                "code": "unavailable",
                "message": answer.json["error"]["message"],
            }
            assert "engine" in answer.json["error"]["message"]
            assert 1 <= int(answer.headers["Retry-After"]) <= OPEN_S + 1
        assert health.status_code == 503
        assert health.json["engine"].startswith("down") and health.json["ai"] == "ok"
        # Not the old 6.5 s (view) or 1.5 s (/healthz): generous, for a loaded machine.
        assert max(view_s, move_s) < 3.0 and health_s < 3.0

        running.process.start()

        def served() -> Any:
            answer = client.get(f"/api/games/{game}", headers=seat)
            return answer.status_code == 200 and answer

        answer = wait_until(
            served, "the same gateway to serve the game again", timeout=60, every=0.2
        )
        assert answer.status_code == 200, answer.json
        assert client.get("/healthz").status_code == 200
        assert client.get(f"/api/games/{game}/legal", headers=seat).status_code == 200
    finally:
        app.extensions["metro_gateway"].backends.close()
