"""Seats whose player is gone: the AI plays them, or (at a table that chose so) they lose.

Three ways a seat changes hands, each one public change committed like a move:
- its clock runs out (the clock keeper below finds it, even with no browser open and after an
  engine restart: deadlines live in Redis, in the clock index the commit script keeps);
- its player leaves (SetAway with away = true);
- its player comes back (SetAway with away = false, or simply by moving: a move by the seat's own
  token takes the seat back in the same commit).
At a table whose clock says `on_timeout: "lose"`, a time-out (or leaving) retires the seat for
good through the rules core's `retire(seat)`: its score is frozen and its turns are skipped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from games.base import GameState
from services.engine.core.meta import GameMeta

log = logging.getLogger("metro.engine.clock")

KEEPER_INTERVAL_S = 0.5  # how often the keeper looks for deadlines that have passed
KEEPER_BATCH = 64
CATCH_UP_S = 5.0  # the most a start spends on deadlines that passed while no engine ran


def now_ms() -> int:
    return int(time.time() * 1000)


def timed_seats(meta: GameMeta, state: GameState, status: str) -> tuple[int, ...]:
    """The seats whose clock runs now: people to move (not the AI, not a retired seat)."""
    if status != "playing":
        return ()
    return tuple(s for s in state.to_move() if not meta.is_ai(s) and not meta.seats[s].lost)


def clocked(
    meta: GameMeta,
    state: GameState,
    status: str,
    at_ms: int,
    *,
    moved: Iterable[int] = (),
    new_turn: bool = True,
    resumed: Iterable[int] = (),
) -> GameMeta:
    """`meta` with its clock moved on to a public change at `at_ms` (unchanged without a clock).

    `moved`: seats whose move this change was (their overrun comes out of their bank);
    `new_turn`: every seat to move gets a fresh deadline (a move, a resolved turn, the start);
    else running deadlines stay, and `resumed` seats (taken back from the AI) get a fresh one.
    """
    if meta.clock_rules is None or meta.clock is None:
        return meta
    timed = timed_seats(meta, state, status)
    clock = meta.clock.after_change(meta.clock_rules, moved, timed, at_ms, new_turn)
    fresh = [s for s in resumed if s in timed]
    if fresh and not new_turn:
        clock = clock.resume(meta.clock_rules, fresh, at_ms)
    return replace(meta, clock=clock)


def deadline_of(meta: GameMeta) -> int | None:
    """The game's next deadline for the clock index (None: nothing to time)."""
    return meta.clock.next_deadline_ms if meta.clock is not None else None


class ClockKeeper:
    """Acts on passed deadlines: asks the service to settle each game whose deadline is due.

    Every engine replica runs one; two replicas settling the same game race on the commit's
    version check like any two moves, so a time-out is committed exactly once."""

    def __init__(self, service: Any, interval_s: float = KEEPER_INTERVAL_S) -> None:
        self.service = service
        self.interval_s = interval_s

    async def run(self) -> None:
        while True:
            try:
                await self.tick(now_ms())
            except asyncio.CancelledError:
                raise
            except Exception:  # a store hiccup: look again on the next tick
                log.exception("clock keeper: a pass failed; trying again")
            await asyncio.sleep(self.interval_s)

    async def catch_up(self, limit_s: float = CATCH_UP_S) -> int:
        """The first pass after a start: settle every overdue deadline now, batch after batch,
        for at most `limit_s` (the store may be down: the loop takes over then); how many games
        were looked at."""
        done = 0
        try:
            async with asyncio.timeout(limit_s):
                while True:
                    looked = await self.tick(now_ms())
                    done += looked
                    if looked < KEEPER_BATCH:
                        return done
        except TimeoutError:
            log.warning("clock keeper: overdue deadlines left to the keeper's loop")
        except Exception:
            log.exception("clock keeper: the first pass failed; the loop tries again")
        return done

    async def tick(self, at_ms: int) -> int:
        """Settle every game due at `at_ms`; how many were looked at."""
        due = await self.service.store.due_games(at_ms, KEEPER_BATCH)
        for game_id in due:
            try:
                await self.service.settle_clock(game_id, at_ms)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("clock keeper: game %s could not be settled", game_id)
        return len(due)
