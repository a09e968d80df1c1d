"""A grpc.aio server with what every service of ours serves besides its own API: standard
health checking (grpc.health.v1) and server reflection (so `grpcurl ... list` works)."""

from __future__ import annotations

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
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (service_name, HEALTH_SERVICE, reflection.SERVICE_NAME), server
    )
    return server, health
