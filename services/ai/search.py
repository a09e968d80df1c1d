"""Running a player off the event loop, within a deadline.

Searches run in threads of this process: the service scales by processes (one per core, as many
replicas as wanted), and a search in a thread keeps its CPU time on the worker that answered,
which is what an operator sees and balances. The event loop still gets the GIL every few
milliseconds, so health checks and claims go on while a search runs.

Bot moves and hints run on separate pools: hints (seconds each at `expert`, asked by anyone) on
`hint_threads`, bot-seat moves on threads of their own, one per bot loop. A flood of hints then
queues behind itself and never in front of an AI seat's move; it only shares the core with it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

from services.ai.players import InfoSet, Level, SearchResult
from services.ai.players.levels import MAX_BUDGET_MS


class Searcher:
    def __init__(self, hint_threads: int, bot_threads: int = 1) -> None:
        self.pool = concurrent.futures.ThreadPoolExecutor(hint_threads, thread_name_prefix="hint")
        self.bot_pool = concurrent.futures.ThreadPoolExecutor(
            max(1, bot_threads), thread_name_prefix="bot"
        )
        self.running = 0  # searches under way (hints and AI seats): post-game analyses wait

    @property
    def busy(self) -> bool:
        """A hint or an AI seat's move is being searched now (analysis_worker.py waits)."""
        return self.running > 0

    async def search(
        self, info: InfoSet, level: Level, seed: int, budget_s: float | None, *, bot: bool = False
    ) -> SearchResult:
        """`budget_s` None: the level's own default (a fixed-iteration level then runs to its
        count, capped by the service's longest budget). `bot`: an AI seat's move, on the bot
        threads; else a hint."""
        if budget_s is None and not level.timed:
            budget_s = MAX_BUDGET_MS / 1000
        # A deadline, not a duration: time spent queued for a thread counts against the budget.
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        loop = asyncio.get_running_loop()
        pool = self.bot_pool if bot else self.pool
        self.running += 1
        try:
            return await loop.run_in_executor(pool, _run, info, level, seed, deadline)
        finally:
            self.running -= 1

    def close(self) -> None:
        for pool in (self.pool, self.bot_pool):
            pool.shutdown(wait=False, cancel_futures=True)


def _run(info: InfoSet, level: Level, seed: int, deadline: float | None) -> SearchResult:
    budget_s = None if deadline is None else max(0.001, deadline - time.perf_counter())
    return level.make().search(info, seed, budget_s)
