"""The engine's view of whether Redis answers, kept by a quick probe (issue 32).

Without it, a Redis that is gone (a stopped container's address: connections hang until a
timeout) held every call until its whole deadline (RPC_DEADLINE_S, 10 s) and the client got
`503 deadline_exceeded`. The server's watcher pings Redis every PROBE_INTERVAL_S on a client of
its own whose connect and reply timeouts are PROBE_TIMEOUT_S; a missed ping closes the gate.
While it is closed every unary call is answered UNAVAILABLE `storage_unavailable` at once, and
calls already waiting on Redis are ended then (edge.py), so an outage is answered within about
PROBE_INTERVAL_S + PROBE_TIMEOUT_S. The first ping answered opens it again.

Writes that were already sent when the gate closed may have landed: the store marks them
(`note_write`), and edge.py answers those `outcome_unknown` instead, as for a lost reply.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

PROBE_INTERVAL_S = 0.25
PROBE_TIMEOUT_S = 0.5

# Per call (each gRPC call runs in a task of its own): whether a write was sent to Redis.
_WRITE_SENT: ContextVar[bool] = ContextVar("metro_write_sent", default=False)


def note_write() -> None:
    """The calling task is sending a change to Redis (store.py, before each write script)."""
    _WRITE_SENT.set(True)


def start_call() -> None:
    """A new call begins: no write sent yet."""
    _WRITE_SENT.set(False)


def write_sent() -> bool:
    """Whether this call sent a change to Redis (its outcome is unknown if no reply came)."""
    return _WRITE_SENT.get()


class StorageGate:
    """Open while Redis answers; closed (calls refused at once) from a missed probe until the
    next answered one. One per engine process; asyncio only (no locks needed)."""

    def __init__(self) -> None:
        self.down = False
        self._listeners: set[Callable[[], None]] = set()

    def mark(self, answering: bool) -> bool:
        """Record a probe's outcome; True when that changed the state."""
        if answering != self.down:
            return False
        self.down = not answering
        if self.down:
            for listener in list(self._listeners):
                listener()
        return True

    def on_down(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` when the gate closes; returns the function that unsubscribes."""
        self._listeners.add(listener)
        return lambda: self._listeners.discard(listener)
