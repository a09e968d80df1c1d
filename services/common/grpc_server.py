"""A grpc.aio server with what every service of ours serves besides its own API: standard
health checking (grpc.health.v1) and server reflection (so `grpcurl ... list` works).

The same health status is also answered over plain HTTP when HEALTH_PORT is set: a container's
health check is then a TCP connection that bash makes itself (docker-compose.yml), not a Python
process importing grpc every few seconds (that cost an idle stack ~40% of a core).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name


def aio_server(
    service_name: str, options: list[tuple[str, Any]]
) -> tuple[grpc.aio.Server, health_aio.HealthServicer]:
    """A server with health and reflection registered; the caller adds its own servicer."""
    server = grpc.aio.server(options=options)
    health = RecordedHealth()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (service_name, HEALTH_SERVICE, reflection.SERVICE_NAME), server
    )
    return server, health


class RecordedHealth(health_aio.HealthServicer):
    """The standard health servicer, remembering each service's status for the HTTP probe."""

    def __init__(self) -> None:
        super().__init__()
        self.statuses: dict[str, int] = {}

    async def set(self, service: str, status: Any) -> None:
        self.statuses[service] = status
        await super().set(service, status)

    async def enter_graceful_shutdown(self) -> None:
        for service in self.statuses:
            self.statuses[service] = health_pb2.HealthCheckResponse.NOT_SERVING
        await super().enter_graceful_shutdown()

    def serving(self) -> bool:
        return self.statuses.get("") == health_pb2.HealthCheckResponse.SERVING


async def serve_health_http(health: RecordedHealth) -> asyncio.Server | None:
    """Answer `GET` on HEALTH_HOST:HEALTH_PORT (default 127.0.0.1; none without a port) with
    `200 SERVING` or `503 NOT_SERVING`: the whole server's grpc.health.v1 status, nothing else."""
    raw = os.environ.get("HEALTH_PORT", "").strip()
    if not raw:
        return None
    try:
        port = int(raw)
    except ValueError:
        raise SystemExit(f"configuration: HEALTH_PORT must be an integer, got {raw!r}") from None
    host = os.environ.get("HEALTH_HOST", "").strip() or "127.0.0.1"

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(reader.readline(), timeout=2.0)  # the request line is enough
            ok = health.serving()
            word = "200 OK" if ok else "503 Service Unavailable"
            body = b"SERVING\n" if ok else b"NOT_SERVING\n"
            writer.write(
                f"HTTP/1.0 {word}\r\nContent-Type: text/plain\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        writer.close()

    return await asyncio.start_server(answer, host, port)
