"""The storage watermark: new games stop before moves do (issue 30 item 8).

Redis runs with maxmemory and noeviction: at the cap every write is refused, a running game's
moves as much as a new game. So new games (created, daily attempts, rematches, ladder games) are
refused first, once the store holds NEW_GAMES_WATERMARK of its maxmemory (default 0.9): the
last tenth is kept for the games already running. The refusal is `UNAVAILABLE storage_full`
(the gateway's 503) with a sentence that says running games go on.

The usage is read with INFO memory at most every CHECK_EVERY_S per engine process, so a create
costs no extra round trip most of the time. A store without maxmemory (0) has no watermark; an
INFO that fails refuses nothing here (the write that follows meets the same store).
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import grpc

from services.common.grpc_util import ServiceError

log = logging.getLogger(__name__)

DEFAULT_WATERMARK = 0.9
CHECK_EVERY_S = 0.5


def watermark_from_env() -> float:
    """NEW_GAMES_WATERMARK: a fraction of maxmemory in (0, 1]; a bad value stops the start."""
    raw = os.environ.get("NEW_GAMES_WATERMARK", "").strip()
    if not raw:
        return DEFAULT_WATERMARK
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise SystemExit(
            f"configuration: NEW_GAMES_WATERMARK must be a fraction such as 0.9 (got {raw!r})"
        )
    return value


def _usage(info: Any) -> float:
    """The fullest node's used_memory / maxmemory (one server: its own; a cluster client
    answers per node); 0 when no node has a cap."""
    nodes = [info] if isinstance(info, dict) and "used_memory" in info else []
    if not nodes and isinstance(info, dict):
        nodes = [v for v in info.values() if isinstance(v, dict) and "used_memory" in v]
    fullest = 0.0
    for node in nodes:
        cap = int(node.get("maxmemory", 0) or 0)
        if cap > 0:
            fullest = max(fullest, int(node["used_memory"]) / cap)
    return fullest


class Watermark:
    """Refuses new games while the store is above its watermark."""

    def __init__(self, redis: Any, ratio: float | None = None) -> None:
        self.redis = redis
        self.ratio = watermark_from_env() if ratio is None else ratio
        self._usage = 0.0
        self._read_at = float("-inf")

    async def check_new_game(self) -> None:
        """Nothing while there is room; ServiceError UNAVAILABLE storage_full above the mark."""
        now = time.monotonic()
        if now - self._read_at >= CHECK_EVERY_S:
            self._read_at = now
            try:
                self._usage = _usage(await self.redis.info("memory"))
            except Exception as err:  # any failure: the write that follows will tell
                log.debug("storage watermark: INFO memory failed: %s", err)
                self._usage = 0.0
        if self._usage >= self.ratio:
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                f"the game store is nearly full ({self._usage:.0%} of its memory): new games "
                "are refused for now, moves in running games go on; try again later",
                reason="storage_full",
            )
