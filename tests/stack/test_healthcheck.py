"""The health probe used by compose healthchecks and `metro up`, against real servers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from services.common.healthcheck import check
from tests.fixtures.processes import ServiceProcess, free_port


def probe(target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "services.common.healthcheck", target],
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.fixture
def grpc_health() -> Iterator[tuple[str, health.HealthServicer]]:
    servicer = health.HealthServicer()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}", servicer
    server.stop(None)


def test_grpc_serving_then_not_serving(grpc_health) -> None:
    target, servicer = grpc_health
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    done = probe(target)
    assert done.returncode == 0, done.stderr
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    done = probe(target)
    assert done.returncode == 1
    assert "NOT_SERVING" in done.stderr


def test_grpc_nothing_listening_is_unhealthy() -> None:
    done = probe(f"127.0.0.1:{free_port()}")
    assert done.returncode == 1
    assert "UNAVAILABLE" in done.stderr


def test_http_200_healthy_404_not(tmp_path: Path) -> None:
    (tmp_path / "healthz").write_text("{}")
    port = free_port()
    argv = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    with ServiceProcess("http", argv, port=port, log_dir=tmp_path, cwd=tmp_path):
        assert check(f"http://127.0.0.1:{port}/healthz") is None
        done = probe(f"http://127.0.0.1:{port}/missing")
        assert done.returncode == 1
        assert "HTTP 404" in done.stderr


def test_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "services.common.healthcheck"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "usage" in done.stderr
