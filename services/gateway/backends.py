"""The gateway's gRPC clients: one channel to the engine and one to the AI workers per process.

Channels are made on first use, never at import or in `create_app`, and remade when the process id
changes: gRPC channels do not survive a fork, and gunicorn forks its workers after loading the
app when preloading. Stubs are cheap wrappers around a channel, so they are made once with it.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2_grpc
from metro.v1 import ai_pb2_grpc, engine_pb2_grpc

from services.common.grpc_util import insecure_channel


@dataclass(frozen=True)
class Clients:
    """The stubs one process uses; all share the two channels."""

    engine: engine_pb2_grpc.EngineStub
    ai: ai_pb2_grpc.AiStub
    engine_health: health_pb2_grpc.HealthStub
    ai_health: health_pb2_grpc.HealthStub
    channels: tuple[grpc.Channel, grpc.Channel]


class Backends:
    """Lazily made, per-process clients for the engine and AI targets."""

    def __init__(self, engine_target: str, ai_target: str) -> None:
        self.engine_target = engine_target
        self.ai_target = ai_target
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._clients: Clients | None = None

    def get(self) -> Clients:
        """The clients of this process, made on the first call after start or fork."""
        clients, pid = self._clients, os.getpid()
        if clients is not None and self._pid == pid:
            return clients
        with self._lock:
            if self._clients is None or self._pid != pid:
                # A parent's channels are unusable in a child: make new ones, leave theirs be.
                self._clients = self._connect()
                self._pid = pid
            return self._clients

    def _connect(self) -> Clients:
        engine = insecure_channel(self.engine_target)
        # The AI target may list several workers (or a dns:/// name): the shared options
        # spread calls round-robin and re-resolve the name within seconds.
        ai = insecure_channel(self.ai_target)
        return Clients(
            engine=engine_pb2_grpc.EngineStub(engine),
            ai=ai_pb2_grpc.AiStub(ai),
            engine_health=health_pb2_grpc.HealthStub(engine),
            ai_health=health_pb2_grpc.HealthStub(ai),
            channels=(engine, ai),
        )

    def close(self) -> None:
        """Close this process's channels (tests and orderly shutdown)."""
        with self._lock:
            if self._clients is not None and self._pid == os.getpid():
                for channel in self._clients.channels:
                    channel.close()
            self._clients = None
            self._pid = None

    def __repr__(self) -> str:
        state = "connected" if self._clients is not None else "not connected"
        return f"Backends(engine={self.engine_target!r}, ai={self.ai_target!r}, {state})"
