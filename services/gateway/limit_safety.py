"""What the rate limits do when their store fails, and what they do not count twice (issue 30
items 5 and 9); limits.py puts both around every rated endpoint.

- **Fail closed for costly calls**: while the limits' Redis is down or full (flask-limiter then
  counts in this process's memory, from zero), the calls that cost the platform (creating games,
  players and parties, joining, accepting invitations, hints, analyses, position queries) answer
  `503 limits_unavailable` with Retry-After instead of going on unlimited; reads and moves stay
  open (counted in memory), so running games and pages go on.
- **A replay is not a new request**: a create or join whose `Idempotency-Key` already passed the
  limits (from the same address) is not counted again: the engine answers it with the first
  request's game, so retries through an outage do not use up the allowance. The key is marked
  only once every limit let the request through, so a refused request earns no free replay.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import redis
from flask import request
from flask_limiter import Limiter
from redis.exceptions import RedisClusterException

from services.common.redis_url import sync_client
from services.gateway.errors import retry_later

log = logging.getLogger(__name__)

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAY_PREFIX = "metro:limits:replay"
REPLAY_TTL_S = 24 * 3600  # as long as the engine keeps a create's key (a day)
LOCAL_MARKS = 10_000  # marks kept in memory when no Redis is configured
STORE_RETRY_AFTER_S = 5
REDIS_TIMEOUT_S = 1.0
_ERRORS = (redis.RedisError, RedisClusterException)

# Endpoints that answer 503 while the limits cannot be counted (the rest stay open).
FAIL_CLOSED = frozenset(
    {
        "games.create_game",
        "daily.start_daily",
        "party.start_party",
        "players.rematch",
        "games.join_game",
        "party.join_by_code",
        "bots.accept_invitation",
        "games.hint",
        "analysis.request_analysis",
        "players.create_player",
        "games.rules_query",
    }
)
# Endpoints whose Idempotency-Key makes a repeat the same request (calls.py).
REPLAYABLE = frozenset(
    {"games.create_game", "daily.start_daily", "games.join_game", "party.join_by_code"}
)


class ReplayMarks:
    """Idempotency keys that passed the limits, per address and endpoint: in Redis (shared by
    every gateway, expiring), else in this process's memory."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._redis: Any = None
        self._lock = threading.Lock()
        self._local: OrderedDict[str, float] = OrderedDict()

    def _key(self, endpoint: str) -> str | None:
        header = request.headers.get(IDEMPOTENCY_HEADER, "")
        if not header:
            return None
        digest = hashlib.sha256(header.encode()).hexdigest()[:32]
        return f"{REPLAY_PREFIX}:{request.remote_addr or 'unknown'}:{endpoint}:{digest}"

    def _client(self) -> Any:
        if self._redis is None:
            self._redis = sync_client(
                self._url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
        return self._redis

    def replayed(self, endpoint: str) -> bool:
        """Whether this request repeats a key that passed the limits before."""
        key = self._key(endpoint)
        if key is None:
            return False
        if self._url:
            try:
                return bool(self._client().exists(key))
            except _ERRORS:
                return False  # unknown: counted as new (the store is failing: closed anyway)
        with self._lock:
            born = self._local.get(key)
            return born is not None and time.monotonic() - born < REPLAY_TTL_S

    def mark(self, endpoint: str) -> None:
        """This request passed every limit: its key's repeats are not counted again."""
        key = self._key(endpoint)
        if key is None:
            return
        if self._url:
            try:
                self._client().set(key, "1", ex=REPLAY_TTL_S)
            except _ERRORS as err:
                log.warning("replay marks: Redis is not answering (%s)", err)
            return
        with self._lock:
            self._local[key] = time.monotonic()
            self._local.move_to_end(key)
            while len(self._local) > LOCAL_MARKS:
                self._local.popitem(last=False)


def counted_store_down(limiter: Limiter) -> bool:
    """Whether the limiter counts in memory because its store failed (flask-limiter's own flag:
    set when a count raised, cleared once a later check finds the store answering)."""
    return bool(getattr(limiter, "_storage_dead", False))


def after_limits(
    limiter: Limiter, endpoint: str, marks: ReplayMarks, view: Callable[..., Any]
) -> Callable[..., Any]:
    """`view`, run only once every limit let the request through: a costly call refused while
    the limits' store fails, a replayable key marked."""
    closed = endpoint in FAIL_CLOSED
    replayable = endpoint in REPLAYABLE

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if closed and counted_store_down(limiter):
            raise retry_later(
                503,
                "limits_unavailable",
                "The rate limits cannot be counted right now, so this costly request is "
                "refused for a moment; try again shortly.",
                STORE_RETRY_AFTER_S,
            )
        if replayable:
            marks.mark(endpoint)
        return view(*args, **kwargs)

    return guarded
