"""Costly work that anyone may ask for, bounded so that it cannot starve the API (issue 30).

- **WorkGate**: at most `at_once` jobs of one kind run at once in this process and at most
  `queue` wait for a turn (each for at most `wait_s`); the next is answered `503 busy` with
  Retry-After at once. `POST /api/rules` runs behind one: a position query is pure CPU in the
  gateway's own process, so without a gate 40 hostile queries at once held every thread's share
  of the interpreter for minutes while moves waited.
- **FairTurns**: recovery codes are checked one at a time (a slow hash in the engine, over every
  gateway: limits.RecoverySlots). Whose code goes next is decided here per process: each client
  address waits in its own short queue (`per_address`), and the addresses are served in turn
  (round-robin), so an address that floods gets one check in turn like everyone else and the rest
  of its requests are refused at once (`429` with Retry-After, its own count, nobody else's).
  Each waiting code holds a thread, so at most `most_waiting` wait in all (32 per process).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterator

from services.gateway.errors import retry_later

BUSY_RETRY_AFTER_S = 2


class WorkGate:
    """At most `at_once` jobs at once and `queue` waiting; the rest `503 busy`."""

    def __init__(self, what: str, at_once: int, queue: int, wait_s: float) -> None:
        self.what = what
        self.at_once = max(1, at_once)
        self.queue = max(0, queue)
        self.wait_s = wait_s
        self.running = 0
        self.waiting = 0
        self._cond = threading.Condition()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """A turn while the block runs; `503 busy` + Retry-After when none comes in time."""
        with self._cond:
            if self.running >= self.at_once:
                if self.waiting >= self.queue:
                    raise self._busy()
                self.waiting += 1
                try:
                    turn = self._cond.wait_for(lambda: self.running < self.at_once, self.wait_s)
                finally:
                    self.waiting -= 1
                if not turn:
                    raise self._busy()
            self.running += 1
        try:
            yield
        finally:
            with self._cond:
                self.running -= 1
                self._cond.notify()

    def _busy(self) -> Exception:
        return retry_later(
            503,
            "busy",
            f"Too many {self.what} are being worked out on this server; try again in a moment.",
            BUSY_RETRY_AFTER_S,
        )


class _Ticket:
    __slots__ = ("granted",)

    def __init__(self) -> None:
        self.granted = False


class FairTurns:
    """One turn at a time (per process), given to the client addresses in rotation."""

    def __init__(
        self, per_address: int, wait_s: float, retry_after_s: int, most_waiting: int = 32
    ) -> None:
        self.per_address = max(1, per_address)
        # Each code waiting holds a gateway thread: never more than this many in all.
        self.most_waiting = max(1, most_waiting)
        self.waiting = 0
        self.wait_s = wait_s
        self.retry_after_s = retry_after_s
        self.busy = False
        # address -> its tickets waiting, oldest first; the dict's order is the rotation.
        self._queues: OrderedDict[str, deque[_Ticket]] = OrderedDict()
        self._cond = threading.Condition()

    @contextlib.contextmanager
    def turn(self, address: str) -> Iterator[None]:
        """The block runs in `address`'s turn; 429 when its queue is full or no turn came."""
        ticket = _Ticket()
        with self._cond:
            if not self.busy and not self._queues:
                self.busy = True
                ticket.granted = True
            else:
                queue = self._queues.get(address, deque())
                if len(queue) >= self.per_address:
                    raise self._refusal("Your recovery codes are being checked already")
                if self.waiting >= self.most_waiting:
                    raise self._refusal("Many recovery codes are waiting to be checked")
                queue.append(ticket)
                self._queues[address] = queue
                self.waiting += 1
                deadline = time.monotonic() + self.wait_s
                while not ticket.granted:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._drop(address, ticket)
                        raise self._refusal("Many recovery codes are waiting to be checked")
                    self._cond.wait(left)
        try:
            yield
        finally:
            with self._cond:
                self._next()

    def _drop(self, address: str, ticket: _Ticket) -> None:
        queue = self._queues.get(address)
        if queue is not None:
            queue.remove(ticket)
            self.waiting -= 1
            if not queue:
                del self._queues[address]

    def _next(self) -> None:
        """Hand the turn to the head of the next address in rotation (or free it)."""
        if not self._queues:
            self.busy = False
            return
        address, queue = next(iter(self._queues.items()))
        ticket = queue.popleft()
        self.waiting -= 1
        del self._queues[address]
        if queue:
            self._queues[address] = queue  # to the back of the rotation
        ticket.granted = True
        self._cond.notify_all()

    def _refusal(self, what: str) -> Exception:
        return retry_later(
            429, "rate_limited", f"{what}; try again in a moment.", self.retry_after_s
        )
