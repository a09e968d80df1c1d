"""The gateway under gunicorn with deploy/gunicorn.conf.py (its uvicorn worker, given the ASGI
gateway by name): several workers, each with its own lazily made channels, serving moves and
live events; also with the app preloaded in the master before the fork, which must not leave the
workers with a parent's channel. Named the bare Flask app instead, gunicorn stops at boot and
says which app to name."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from services.common.healthcheck import check_http
from tests.fixtures.processes import ServiceProcess, free_port
from tests.fixtures.waits import wait_until

ROOT = Path(__file__).resolve().parents[2]


def call(
    port: int, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    reply = conn.getresponse()
    data = json.loads(reply.read() or b"null")
    conn.close()
    return reply.status, data


@pytest.mark.parametrize("preload", [False, True])
def test_gunicorn_uvicorn_workers_serve_the_api_and_events(
    start_service: Callable[..., ServiceProcess], engine: Any, ai: Any, preload: bool
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy/gunicorn.conf.py")]
    if preload:
        argv.append("--preload")
    argv.append("services.gateway.live.asgi:create_asgi()")
    start_service(
        "gunicorn", argv, port=port,
        env={"GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port), "WEB_CONCURRENCY": "2",
             "GATEWAY_THREADS": "4", "ENGINE_TARGET": engine.address, "AI_TARGET": ai.target},
        ready=lambda: check_http(f"http://127.0.0.1:{port}/", timeout=2.0) is None,
    )  # fmt: skip
    status, health = call(port, "GET", "/healthz")
    assert health["engine"] == "ok", health
    status, made = call(port, "POST", "/api/games", {
        "game": "metro", "rules": {"players": 2},
        "seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}],
    })  # fmt: skip
    assert status == 201, made
    game = made["game_id"]
    tokens = [made["token"], call(port, "POST", f"/api/games/{game}/join", {})[1]["token"]]

    events = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    events.request("GET", f"/api/games/{game}/events")
    stream = events.getresponse()
    assert stream.status == 200
    # Twelve moves over fresh connections: both workers answer, each with its own channels.
    for _ in range(12):
        _, view = call(port, "GET", f"/api/games/{game}", token=tokens[0])
        token = tokens[view["turn"]]
        _, legal = call(port, "GET", f"/api/games/{game}/legal", token=token)
        move = next(m for m in legal["moves"] if m["action"] == "place")
        status, after = call(
            port,
            "POST",
            f"/api/games/{game}/moves",
            {**move, "expected_version": view["version"]},
            token=token,
        )
        assert status == 200, after
    ids: list[str] = []
    while len(ids) < 14:  # create, join and the twelve moves
        line = stream.readline().decode()
        assert line, "the stream ended early"
        if line.startswith("id: "):
            ids.append(line[4:].strip())
    assert ids[-1] == after["last_event_id"]
    events.close()


def test_gunicorn_named_the_flask_app_stops_at_boot_and_names_the_asgi_app() -> None:
    """The worker serves the app as it is named: the bare Flask app (a WSGI app) is refused at
    boot, not wrapped in the ASGI gateway behind the operator's back. gunicorn halts with its
    "app failed to load" status (4) and the message says what to name instead."""
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy/gunicorn.conf.py"),
            "services.gateway.app:create_app()"]  # fmt: skip
    env = {**os.environ, "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port),
           "WEB_CONCURRENCY": "1", "GATEWAY_THREADS": "2"}  # fmt: skip
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        # A loaded machine may take a while to import the app; a served one never exits.
        output, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        pytest.fail(f"gunicorn served the Flask app instead of refusing it:\n{output[-2000:]}")
    assert proc.returncode == 4, output[-2000:]
    assert "services.gateway.live.asgi:create_asgi()" in output, output[-2000:]
    assert "services.gateway.app:create_app()" in output, output[-2000:]


def test_a_stopping_gateway_drains_before_it_stops_listening(
    start_service: Callable[..., ServiceProcess], engine: Any, ai: Any
) -> None:
    """GATEWAY_DRAIN_S (issue 32): after SIGTERM, /readyz answers 503 `draining` while the API is
    still served, so a proxy's check takes the gateway out before it refuses a connection; then
    it stops on its own. Before SIGTERM /readyz is 200 and asks neither backend."""
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy/gunicorn.conf.py"),
            "services.gateway.live.asgi:create_asgi()"]  # fmt: skip
    gateway = start_service(
        "gunicorn", argv, port=port,
        env={"GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port), "WEB_CONCURRENCY": "2",
             "GATEWAY_THREADS": "4", "ENGINE_TARGET": engine.address, "AI_TARGET": ai.target,
             "GATEWAY_DRAIN_S": "15"},
        ready=lambda: check_http(f"http://127.0.0.1:{port}/readyz", timeout=2.0) is None,
    )  # fmt: skip
    assert call(port, "GET", "/readyz") == (200, {"ready": True})
    assert gateway.proc is not None
    gateway.proc.send_signal(signal.SIGTERM)
    wait_until(lambda: call(port, "GET", "/readyz")[0] == 503, timeout=30, what="draining")
    status, body = call(port, "GET", "/readyz")
    assert body["ready"] is False and body["error"]["code"] == "draining", body
    # Still serving everything else, over fresh connections (three calls: well inside 15 s).
    for _ in range(3):
        status, made = call(port, "POST", "/api/games", {
            "game": "metro", "rules": {"players": 2},
            "seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}],
        })  # fmt: skip
        assert status == 201, made
    gateway.proc.wait(timeout=120)  # the rest of the drain, then the graceful stop
    flags = list(Path(tempfile.gettempdir()).glob(f"metro-gateway-{gateway.proc.pid}.draining"))
    assert flags == []  # the arbiter removed its flag on the way out
