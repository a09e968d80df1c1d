"""What the service benchmarks share: a Redis on a Unix socket, and waiting for a gRPC server
to report SERVING."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.redis_server import RedisServer


class SocketRedisServer(RedisServer):
    """The same server, also listening on a Unix socket in its data directory."""

    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    def _argv(self) -> list[str]:
        return [*super()._argv(), "--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]


def wait_serving(
    target: str,
    timeout: float = 120.0,
    proc: subprocess.Popen[bytes] | None = None,
    log: Path | None = None,
) -> None:
    """Wait for health, not for a fixed time: a loaded machine may take long to start a server.
    A server that exits meanwhile ends the wait at once, with its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            text = log.read_text(errors="replace")[-4000:] if log else ""
            raise SystemExit(f"bench: the server for {target} exited ({proc.returncode}):\n{text}")
        with grpc.insecure_channel(target) as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=1.0
                )
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
        time.sleep(0.1)
    raise SystemExit(f"bench: the server at {target} did not become healthy")


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM, then SIGKILL for a server that a loaded machine keeps from leaving in time (a
    bench measures the work, not how fast a busy machine stops a process)."""
    for proc in reversed(procs):
        proc.terminate()
    for proc in reversed(procs):
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
