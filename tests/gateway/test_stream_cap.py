"""Live streams must not starve moves: one gunicorn gateway process with deploy/gunicorn.conf.py
(1 uvicorn worker, THREADS threads for the API) holds at most GATEWAY_MAX_STREAMS streams (here
8; by default a memory budget, tests/live/test_limits.py) and answers the rest `503 busy` with
Retry-After, while moves and /healthz keep answering (never waiting for a stream to end)."""

from __future__ import annotations

import http.client
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.common.healthcheck import check_http
from tests.fixtures.processes import ServiceProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
THREADS = 16
MOVES = 50
STARVED_S = 10.0  # far above any answer on a loaded machine; a starved call never answers


def call(port: int, method: str, path: str, body: Any = None,
         token: str | None = None) -> tuple[int, Any, float]:  # fmt: skip
    """(status, JSON body, seconds) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    started = time.perf_counter()
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    reply = conn.getresponse()
    data = json.loads(reply.read() or b"null")
    elapsed = time.perf_counter() - started
    conn.close()
    return reply.status, data, elapsed


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


def test_watchers_beyond_the_cap_get_503_and_moves_stay_fast(
    start_service: Callable[..., ServiceProcess], engine: Any, ai: Any, redis_url: str
) -> None:
    port = free_port()
    start_service(
        "gunicorn",
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy/gunicorn.conf.py"),
         "services.gateway.live.asgi:create_asgi()"],
        port=port,
        env={"GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port), "WEB_CONCURRENCY": "1",
             "GATEWAY_THREADS": str(THREADS), "GATEWAY_MAX_STREAMS": str(THREADS // 2),
             "ENGINE_TARGET": engine.address,
             "AI_TARGET": ai.target, "REDIS_URL": redis_url},
        ready=lambda: check_http(f"http://127.0.0.1:{port}/", timeout=2.0) is None,
    )  # fmt: skip
    status, made, _ = call(port, "POST", "/api/games", {
        "game": "metro", "rules": {"players": 2},
        "seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}],
    })  # fmt: skip
    assert status == 201, made
    game = made["game_id"]
    tokens = [made["token"], call(port, "POST", f"/api/games/{game}/join", {})[1]["token"]]

    # Twice the cap: half get a stream, half are turned away.
    streams: list[http.client.HTTPConnection] = []
    replies: list[http.client.HTTPResponse] = []
    answered: list[int] = []
    try:
        for _ in range(THREADS):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            conn.request("GET", f"/api/games/{game}/events")
            reply = conn.getresponse()
            answered.append(reply.status)
            if reply.status == 200:
                assert reply.readline().startswith(b"retry:")  # the stream is open and held
                streams.append(conn)
                replies.append(reply)
            else:
                assert reply.status == 503
                assert reply.getheader("Retry-After") == "5"
                error = json.loads(reply.read())["error"]
                assert error == {"code": "busy", "message": "too many live streams on this "
                                 "server; retrying in a few seconds"}  # fmt: skip
                conn.close()
        assert answered == [200] * (THREADS // 2) + [503] * (THREADS // 2), answered

        # Every stream the cap allows is held: moves and health checks still answer fast.
        timings: list[float] = []
        health: list[float] = []
        while len(timings) < MOVES:
            _, view, _ = call(port, "GET", f"/api/games/{game}", token=tokens[0])
            if view["status"] == "over":
                break
            token = tokens[view["turn"]]
            _, legal, _ = call(port, "GET", f"/api/games/{game}/legal", token=token)
            move = next(m for m in legal["moves"] if m["action"] == "place")
            body = {**move, "expected_version": view["version"]}
            status, after, took = call(port, "POST", f"/api/games/{game}/moves", body, token)
            assert status == 200, after
            timings.append(took)
            status, _, took = call(port, "GET", "/healthz")
            assert status == 200
            health.append(took)
        assert len(timings) >= 40, len(timings)
        print(f"{len(streams)} streams held, {THREADS // 2} refused; {len(timings)} moves: "
              f"median {statistics.median(timings) * 1000:.1f} ms, p99 {p99(timings) * 1000:.1f} "
              f"ms; /healthz p99 {p99(health) * 1000:.1f} ms")  # fmt: skip
        # A starved call would wait for a held stream to end (never, here) and time out; a slow
        # machine only makes calls slower. So no latency figure is asserted (this once failed at
        # p99 147 ms against 100 ms on a loaded 2-core machine), only that none waited for that.
        assert max(timings) < STARVED_S, sorted(timings)[-5:]
        assert max(health) < STARVED_S, sorted(health)[-5:]

        # The held streams saw every move (and the create and join before them).
        for reply in (replies[0], replies[-1]):
            ids = 0
            while ids < len(timings) + 2:
                line = reply.readline()
                assert line, "the stream ended early"
                ids += line.startswith(b"id: ")
    finally:
        for conn in streams:
            conn.close()
