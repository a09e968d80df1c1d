"""An AI seat's move is never queued behind hints: bot searches have threads of their own
(services/ai/search.py), so a flood of slow hints (8 `expert` hints at once) leaves the bot
seats' moves as fast as the core allows."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from services.ai.players import Level, SearchResult
from services.ai.search import Searcher


class Blocked:
    """A player whose search waits until `release` is set (a slow `expert` hint)."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def search(self, info: Any, seed: int, budget_s: float | None = None) -> SearchResult:
        self.release.wait(10)
        return SearchResult([], 0, 0.0)


class Quick:
    def search(self, info: Any, seed: int, budget_s: float | None = None) -> SearchResult:
        return SearchResult([], 1, 0.0)


def test_bot_moves_do_not_wait_behind_hints() -> None:
    release = threading.Event()
    slow = Level("slow", "a hint that takes long", lambda: Blocked(release), 0)
    quick = Level("quick", "a bot move", Quick, 0)
    searcher = Searcher(2, bot_threads=1)

    async def scenario() -> tuple[int, bool]:
        hints = [asyncio.create_task(searcher.search(None, slow, 1, 30.0)) for _ in range(8)]
        await asyncio.sleep(0.05)
        # Every hint thread is busy and six hints queue: a bot move is answered at once...
        moved = await asyncio.wait_for(searcher.search(None, quick, 1, 1.0, bot=True), 2.0)
        # ...while one more hint waits its turn behind the others.
        waiting = asyncio.create_task(searcher.search(None, quick, 1, 1.0))
        await asyncio.sleep(0.2)
        queued = not waiting.done()
        release.set()
        await asyncio.gather(*hints, waiting)
        return moved.iterations, queued

    try:
        iterations, hint_queued = asyncio.run(scenario())
    finally:
        release.set()
        searcher.close()
    assert iterations == 1
    assert hint_queued
