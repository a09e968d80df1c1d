"""Per-address stream limits counted over every gateway worker (issue 30 item 10).

A gateway runs several worker processes (and replicas); a cap counted in one process's memory let
one address hold 64 streams in each (128 with two workers where the docs say 64). So each open
stream holds a *lease* in Redis (`metro:streams:{<address>}:held`, a sorted set of lease ids
scored by their expiry): taken by a script that first drops expired leases and then refuses
beyond the cap, renewed by this process every LEASE_S / 3 while the stream lives, given back
when it ends. A worker that dies stops renewing, so its leases lapse within LEASE_S.

Opening streams is rate-limited per address too (129 opens a second from one address went
through): at most `opens` per `window_s` seconds (a fixed window counted in the same script),
beyond which `429 rate_limited` with Retry-After the rest of the window.

Without Redis (none configured, or it stops answering) the rate of opens is counted in this
process, and the cap per address by asgi.py's StreamSlots (per process, as before): streams are
reads, which stay open while the limits' store fails (docs/gateway.md, limits).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import redis
from redis.exceptions import RedisClusterException

from services.common.redis_url import async_client
from services.gateway.errors import ApiError, retry_later

log = logging.getLogger(__name__)

LEASE_S = 60  # a lease not renewed for this long is dropped (its worker died)
RETRY_AFTER_S = 5
PREFIX = "metro:streams"
REDIS_TIMEOUT_S = 1.0
_ERRORS = (redis.RedisError, RedisClusterException, OSError)

# KEYS[1] the address's leases (zset: lease id -> expiry ms)   KEYS[2] its opens this window
# ARGV: lease id, lease ms, cap (0: none), opens allowed (0: none), window s
# Returns {0, 0} taken | {1, 0} the address holds `cap` | {2, seconds left in the window}.
TAKE_LUA = r"""
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local opens, window = tonumber(ARGV[4]), tonumber(ARGV[5])
if opens > 0 then
  local count = redis.call('INCR', KEYS[2])
  if count == 1 then
    redis.call('EXPIRE', KEYS[2], window)
  end
  if count > opens then
    return {2, redis.call('TTL', KEYS[2])}
  end
end
local cap = tonumber(ARGV[3])
if cap > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= cap then
    return {1, 0}
  end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
return {0, 0}
"""


def held_key(address: str) -> str:
    return f"{PREFIX}:{{{address}}}:held"


def opens_key(address: str, window_s: int) -> str:
    return f"{PREFIX}:{{{address}}}:opens:{int(time.time()) // max(1, window_s)}"


class AddressCaps:
    """Streams one address holds over every worker, and how fast it opens them."""

    def __init__(self, url: str, per_client: int, opens: int, window_s: int) -> None:
        self.url = url
        self.per_client = per_client
        self.opens = opens
        self.window_s = max(1, window_s)
        self._redis: Any = None
        self._take: Any = None
        self._held: dict[str, str] = {}  # lease id -> address, renewed while held
        self._renewer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # This process's own count of opens (no Redis, or while it fails).
        self._local_opens: Counter[tuple[str, int]] = Counter()
        self._warned_at = 0.0

    @property
    def active(self) -> bool:
        return self.per_client > 0 or self.opens > 0

    async def take(self, address: str) -> Callable[[], None]:
        """A lease for one stream of `address`, or the 429; the function gives it back (once)."""
        if not self.active:
            return lambda: None
        if self.url:
            lease = uuid.uuid4().hex
            try:
                if self._redis is None:
                    self._redis = async_client(
                        self.url, socket_timeout=REDIS_TIMEOUT_S,
                        socket_connect_timeout=REDIS_TIMEOUT_S,
                    )  # fmt: skip
                    self._take = self._redis.register_script(TAKE_LUA)
                full, wait = await self._take(
                    keys=[held_key(address), opens_key(address, self.window_s)],
                    args=[lease, LEASE_S * 1000, self.per_client, self.opens, self.window_s],
                )
            except _ERRORS as err:
                self._warn(err)
            else:
                if int(full):
                    raise self._refusal(int(full), int(wait))
                self._held[lease] = address
                self._renew_soon()
                return self._giver(lease, address)
        return self._take_local(address)

    async def close(self) -> None:
        """At shutdown: stop renewing, finish the give-backs, close the client."""
        if self._renewer is not None:
            self._renewer.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=REDIS_TIMEOUT_S)
        if self._redis is not None:
            client, self._redis = self._redis, None
            with contextlib.suppress(*_ERRORS):
                await client.aclose()

    def _giver(self, lease: str, address: str) -> Callable[[], None]:
        def give_back() -> None:
            if self._held.pop(lease, None) is not None:
                task = asyncio.get_running_loop().create_task(self._drop(lease, address))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        return give_back

    async def _drop(self, lease: str, address: str) -> None:
        try:
            await self._redis.zrem(held_key(address), lease)
        except _ERRORS as err:
            self._warn(err)  # the lease lapses by itself

    def _renew_soon(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew())

    async def _renew(self) -> None:
        """Keep this process's leases alive while their streams are open."""
        while self._held:
            await asyncio.sleep(LEASE_S / 3)
            until = int(time.time() * 1000) + LEASE_S * 1000
            try:
                for lease, address in list(self._held.items()):
                    await self._redis.zadd(held_key(address), {lease: until}, xx=True)
                    await self._redis.pexpire(held_key(address), LEASE_S * 1000 + 1000)
            except _ERRORS as err:
                self._warn(err)

    def _take_local(self, address: str) -> Callable[[], None]:
        """The rate of opens in this process (StreamSlots caps the address per process)."""
        window = int(time.time()) // self.window_s
        if self.opens > 0:
            for key in [k for k in self._local_opens if k[1] != window]:
                del self._local_opens[key]
            self._local_opens[(address, window)] += 1
            if self._local_opens[(address, window)] > self.opens:
                raise self._refusal(2, self.window_s - int(time.time()) % self.window_s)
        return lambda: None

    def _refusal(self, which: int, wait_s: int) -> ApiError:
        if which == 1:
            return retry_later(
                429, "rate_limited",
                f"at most {self.per_client} live streams from one address; close one first",
                RETRY_AFTER_S,
            )  # fmt: skip
        return retry_later(
            429, "rate_limited",
            f"at most {self.opens} live streams opened per {self.window_s} s from one address; "
            "wait before opening more",
            max(1, wait_s),
        )  # fmt: skip

    def _warn(self, err: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at > 60:
            self._warned_at = now
            log.warning("stream caps: Redis is not answering (%s); counting per process", err)
