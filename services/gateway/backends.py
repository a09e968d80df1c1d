"""The gateway's gRPC clients: one channel to the engine and one to the AI workers per process.

Channels are made on first use, never at import or in `create_app`, and remade when the process id
changes: gRPC channels do not survive a fork, and gunicorn forks its workers after loading the
app when preloading. Stubs are cheap wrappers around a channel, so they are made once with it.

Each process also keeps a `Circuit` per backend: once a backend was found unreachable, calls to
it are answered 503 at once for CIRCUIT_OPEN_S instead of each waiting out the channel's
retries and the gateway's own (seconds per request, and a worker held all that time).
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2_grpc
from metro.v1 import ai_pb2_grpc, engine_pb2_grpc

from services.common.grpc_util import insecure_channel

# How long a backend found unreachable is answered for at once, before one call tries it again.
CIRCUIT_OPEN_S = 5.0


def env_seconds(name: str) -> float | None:
    """A positive number of seconds from the environment (None when unset); a typo stops the
    start."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise SystemExit(f"configuration: {name} must be a positive number of seconds, not {raw!r}")
    return value


class Circuit:
    """Remembers, for one process, that a backend was found unreachable.

    Closed: calls go through. Open (after `down()`): `retry_after()` answers the seconds left,
    and the caller answers 503 without calling. When the time is up it is half-open: one call
    (the trial) goes through, the others are still refused until the trial says `up()` (closed)
    or `down()` (open again). A trial that never reports frees the slot after `open_s`.
    """

    def __init__(self, open_s: float) -> None:
        self.open_s = open_s
        self._lock = threading.Lock()
        self._open_until = 0.0  # 0: closed
        self._trial_until = 0.0  # a trial call is under way until then

    def retry_after(self) -> float | None:
        """None when a call may go ahead (closed, or this call is the trial); else the seconds
        until the backend is tried again."""
        now = time.monotonic()
        with self._lock:
            if not self._open_until:
                return None
            if now < self._open_until:
                return self._open_until - now
            if now < self._trial_until:
                return self._trial_until - now
            self._trial_until = now + self.open_s
            return None

    def down(self) -> None:
        """The backend did not answer: refuse calls at once for `open_s`."""
        with self._lock:
            self._open_until = time.monotonic() + self.open_s
            self._trial_until = 0.0

    def up(self) -> None:
        """The backend answered (whatever it said): close."""
        if self._open_until:  # (no lock on the common path: a plain read of a float)
            with self._lock:
                self._open_until = self._trial_until = 0.0

    @property
    def is_open(self) -> bool:
        return bool(self._open_until)


@dataclass(frozen=True)
class Clients:
    """The stubs one process uses; all share the two channels."""

    engine: engine_pb2_grpc.EngineStub
    ai: ai_pb2_grpc.AiStub
    engine_health: health_pb2_grpc.HealthStub
    ai_health: health_pb2_grpc.HealthStub
    channels: tuple[grpc.Channel, grpc.Channel]
    # "engine" and "ai": made with the channels, so a forked process starts closed.
    circuits: dict[str, Circuit] = field(default_factory=dict)


class Backends:
    """Lazily made, per-process clients for the engine and AI targets."""

    def __init__(
        self, engine_target: str, ai_target: str, circuit_open_s: float = CIRCUIT_OPEN_S
    ) -> None:
        self.engine_target = engine_target
        self.ai_target = ai_target
        self.circuit_open_s = circuit_open_s
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
            circuits={name: Circuit(self.circuit_open_s) for name in ("engine", "ai")},
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
