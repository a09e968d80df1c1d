"""The gateway under abuse and faults: every refusal in the API's JSON error shape (also those the
HTTP server makes before the app runs, under the development server and under gunicorn), event
ids out of range refused up front, rule options of the wrong type named, and idempotent calls
tried again while the engine restarts (however long a loaded machine takes to start it)."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from flask import Flask
from metro.v1 import engine_pb2

import games
from services.common.healthcheck import check_http
from services.engine.core import validation
from services.gateway import calls
from services.gateway.app import create_app
from services.gateway.live.wire import valid_event_id
from tests.fixtures.gateway import GatewayApi, dead_target, gateway_config
from tests.fixtures.processes import ServiceProcess, free_port
from tests.live.sse import open_stream

ROOT = Path(__file__).resolve().parents[2]
U64_MAX = 2**64 - 1


def raw_request(port: int, head: bytes, timeout: float = 20.0) -> tuple[int, dict[str, str], Any]:
    """Send a request head as given and read the answer: (status, headers, JSON body or None).
    The server may answer and close before it has read everything: the head is sent from a
    thread while the answer is read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def send() -> None:
        with contextlib.suppress(OSError):  # refused part-way: the answer says why
            sock.sendall(head)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    data = b""
    try:
        while b"\r\n\r\n" not in data or len(data) < _expected_length(data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        sender.join(timeout)
        sock.close()
    head_text, _, body = data.partition(b"\r\n\r\n")
    lines = head_text.decode("latin1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    decoded = (
        json.loads(body) if headers.get("content-type", "").startswith("application/json") else None
    )
    return status, headers, decoded


def _expected_length(data: bytes) -> int:
    head, sep, _ = data.partition(b"\r\n\r\n")
    if not sep:
        return sys.maxsize
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == b"content-length":
            return len(head) + 4 + int(value.strip())
    return sys.maxsize  # no length: read until the server closes


def get(path: str, *headers: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin1")


OVERSIZED: dict[str, tuple[bytes, int]] = {
    "a 200 KB Authorization header": (
        get("/api/meta", "Authorization: Bearer " + "a" * 200_000),
        431,
    ),
    "a 100 KB header": (get("/api/meta", "X-Junk: " + "b" * 100_000), 431),
    "200 headers": (get("/api/meta", *(f"X-H{i}: {i}" for i in range(200))), 431),
    "a 100 KB URL": (get("/api/games/" + "c" * 100_000), 414),
}


def assert_json_error(status: int, headers: dict[str, str], body: Any, expected: int) -> None:
    assert status == expected, (status, headers, body)
    assert headers["content-type"].startswith("application/json"), headers
    assert isinstance(body, dict) and set(body) == {"error"}, body
    assert isinstance(body["error"]["code"], str) and body["error"]["code"], body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], body


@pytest.mark.parametrize("case", sorted(OVERSIZED))
def test_the_development_server_refuses_oversized_heads_in_json(
    gateway_process: str, case: str
) -> None:
    port = int(gateway_process.rsplit(":", 1)[1])
    head, expected = OVERSIZED[case]
    assert_json_error(*raw_request(port, head), expected)


def test_gunicorn_refuses_oversized_heads_in_json_and_takes_real_ones(
    start_service: Callable[..., ServiceProcess], engine: Any, ai: Any
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy/gunicorn.conf.py"),
            "services.gateway.live.asgi:create_asgi()"]  # fmt: skip
    start_service(
        "gunicorn", argv, port=port,
        env={"GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port), "WEB_CONCURRENCY": "1",
             "GATEWAY_THREADS": "4", "ENGINE_TARGET": engine.address, "AI_TARGET": ai.target},
        ready=lambda: check_http(f"http://127.0.0.1:{port}/", timeout=2.0) is None,
    )  # fmt: skip
    for case, (head, expected) in OVERSIZED.items():
        status, headers, body = raw_request(port, head)
        assert_json_error(status, headers, body, expected)
        print(f"gunicorn, {case}: {status} {body}")
    # What real clients send passes: an 8 KB cookie, 60 headers, a 4 KB query string.
    real = get(
        "/api/meta?pad=" + "d" * 4000,
        "Cookie: " + "; ".join(f"c{i}={'e' * 80}" for i in range(90)),
        *(f"X-Real-{i}: {i}" for i in range(60)),
    )
    status, _, body = raw_request(port, real)
    assert status == 200 and body["games"], body


def test_every_http_error_of_the_app_is_json(api: GatewayApi) -> None:
    for method, path in (("GET", "/no/such/page"), ("PUT", "/api/games"), ("GET", "/api/nope")):
        reply = api.client.open(path, method=method)
        assert reply.mimetype == "application/json", (path, reply.data[:200])
        assert set(reply.get_json()) == {"error"}
    big = api.client.post("/api/games", data=b"{" + b" " * 100_000 + b"}",
                          content_type="application/json")  # fmt: skip
    assert big.status_code == 413 and big.get_json()["error"]["code"] == "request_entity_too_large"


# ---- Last-Event-ID -------------------------------------------------------------------------


def test_event_ids_out_of_range_are_refused_up_front(api: GatewayApi, gateway_server: str) -> None:
    game, _ = api.new_game()
    for bad in ("99999999999999999999-0", f"0-{U64_MAX + 1}", f"{U64_MAX + 1}-0"):
        with open_stream(gateway_server, game, last_event_id=bad) as stream:
            assert stream.status == 400, (bad, stream.status)
            assert stream.body()["error"]["field"] == "Last-Event-ID"
        with open_stream(gateway_server, game, query=f"?last_event_id={bad}") as stream:
            assert stream.status == 400, (bad, stream.status)
    assert valid_event_id(f"{U64_MAX}-{U64_MAX}") and valid_event_id("0-0")
    assert not valid_event_id(f"{U64_MAX}-{U64_MAX + 1}")
    assert validation.event_id(f"{U64_MAX}-{U64_MAX}")


def test_the_engine_refuses_event_ids_out_of_range(engine: Any) -> None:
    client = engine.client()
    game = client.create({"players": 2}).game_id
    stream = client.events(game, after="99999999999999999999-0")
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(stream))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "after_event_id" in (refused.value.details() or "")


# ---- rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", games.kinds())
@pytest.mark.parametrize("players", ["2", 2.0, True, None, [2]])
def test_a_rule_option_of_the_wrong_type_is_a_400_naming_it(
    api: GatewayApi, kind: str, players: Any
) -> None:
    status, body = api.post(
        "/api/games", {"game": kind, "rules": {"players": players}, "seats": [{"kind": "human"}]}
    )
    assert status == 400, body
    assert body["error"]["field"] == "rules.players", body


# ---- retries while the engine restarts ------------------------------------------------------


class Unavailable(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """What a call to a restarting engine raises."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection refused"

    def trailing_metadata(self) -> Any:
        return ()

    def initial_metadata(self) -> Any:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float | None:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


def test_only_idempotent_calls_are_tried_again(gateway_app: Flask) -> None:
    tries: list[dict[str, Any]] = []

    def down(request: Any, **kw: Any) -> Any:
        tries.append(kw)
        raise Unavailable()

    with gateway_app.app_context():
        for idempotent, expected in ((False, 1), (True, 2)):
            tries.clear()
            with pytest.raises(calls.ApiError) as answered:
                calls.rpc(down, engine_pb2.GetViewRequest(game_id="g"), idempotent=idempotent)
            assert answered.value.status == 503 and answered.value.code == "unavailable"
            assert len(tries) == expected
        assert tries[1]["wait_for_ready"] is True and tries[1]["timeout"] <= calls.RETRY_WAIT_S
        # The fake's failures opened the session gateway's engine circuit: close it again.
        calls.clients().circuits["engine"].up()


# How long the gateway's second try may wait for the restarted engine here. A loaded machine
# (a CI run beside other jobs) once took longer than the default 5 s to start the engine again,
# and the test failed on the machine's speed, not the gateway's behaviour: the window is set
# far above any start, so the test waits for the engine to be back, however long that takes.
RESTART_WINDOW_S = 120.0


def test_views_and_moves_with_a_move_id_ride_out_an_engine_restart(
    redis_url: str, engine_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = engine_factory(redis_url)
    monkeypatch.setattr(calls, "RETRY_WAIT_S", RESTART_WINDOW_S)
    app = create_app(
        gateway_config(running.address, dead_target(), RPC_DEADLINE_S=RESTART_WINDOW_S)
    )
    api = GatewayApi(app.test_client())
    game, tokens = api.new_game()
    status, view = api.get(f"/api/games/{game}", token=tokens[0])
    assert status == 200
    status, legal = api.get(f"/api/games/{game}/legal", token=tokens[0])
    move = {**legal["moves"][0], "expected_version": view["version"], "move_id": "m-1"}

    def restart_later(gap_s: float) -> threading.Thread:
        """Kill the engine now, start it again (same port) after gap_s."""
        running.process.kill()

        def start() -> None:
            time.sleep(gap_s)  # the engine stays down this long: the outage the gateway rides out
            running.process.start()

        thread = threading.Thread(target=start)
        thread.start()
        return thread

    # A gap longer than the channel's own retries (about 1.5 s): only the gateway's retry helps.
    restarting = restart_later(2.0)
    killed = time.monotonic()
    without_id = {k: v for k, v in move.items() if k != "move_id"}
    status, body = api.post(f"/api/games/{game}/moves", without_id, token=tokens[0])
    no_id_s = time.monotonic() - killed
    assert status == 503 and body["error"]["code"] == "unavailable", body  # not repeated
    status, after = api.post(f"/api/games/{game}/moves", move, token=tokens[0])
    moved_s = time.monotonic() - killed
    restarting.join()
    assert status == 200, after
    assert after["version"] == view["version"] + 1
    print(f"engine down 2 s + its start: a move without move_id 503 after {no_id_s:.1f} s; "
          f"with one answered after {moved_s:.1f} s")  # fmt: skip

    restarting = restart_later(2.0)
    killed = time.monotonic()
    for path in (f"/api/games/{game}", f"/api/games/{game}/legal"):
        status, body = api.get(path, token=tokens[1])
        assert status == 200, (path, body)
    print(f"view and legal moves through a restart: {time.monotonic() - killed:.1f} s")
    restarting.join()
    app.extensions["metro_gateway"].backends.close()
