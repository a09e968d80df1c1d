"""Hindsight optimisation: the `hard` level of a game whose worlds can be planned to the end
(`Game.hindsight`; Metro X).

Each sampled world deals the hidden future (the rest of the deck, every later shuffle); the
game's planner finds, with that future known, the seat's best final score after each of its
candidate moves; the move with the best mean over the worlds is played. The same worlds score
every candidate (common random numbers), so the comparison between moves is much tighter than
each value. Knowing the future flatters every move alike but not equally (a plan that needs a
lucky card looks good in the worlds that deal it): the mean over many worlds is what corrects
for it. In solo Metro X this comes within ~1.5% of the best plan of a player who knows the
deck, where a tree search with the evaluation stayed ~6% short (docs/ai.md). A world the game
does not plan (Metro X with other seats still playing: the race for first bonuses) is left to
`fallback`.
"""

from __future__ import annotations

import random
import time

from services.ai.players.base import Player, RankedMove, SearchResult
from services.ai.players.infoset import InfoSet
from services.ai.players.simple import greedy_values

CANDIDATES = 12  # moves planned per world, the greedy's best (a free card offers up to 90)
MIN_WORLDS = 4  # planned even past the budget: fewer gives a coin toss between close moves
MAX_WORLDS = 400


class HindsightPlayer:
    """Plans sampled worlds for `budget_s` seconds (or exactly `worlds` worlds: then the answer
    depends only on the view and the seed) with a beam of `beam` sheets a turn; a game without
    a planner is searched by `fallback` instead."""

    def __init__(
        self,
        budget_s: float,
        name: str,
        fallback: Player,
        beam: int = 60,
        worlds: int | None = None,
    ) -> None:
        self.budget_s = budget_s
        self.name = name
        self.fallback = fallback
        self.beam = beam
        self.worlds = worlds

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        plan = info.game.parts.hindsight
        if plan is None:
            return self.fallback.search(info, seed, budget_s)
        start = time.perf_counter()
        if not info.to_move:
            return SearchResult([], 0, time.perf_counter() - start)
        rng = random.Random(seed)
        first = info.sample(rng)
        if plan(first, info.seat, (), 0) is None:
            return self.fallback.search(info, seed, budget_s)  # not planned: a tree search
        if budget_s is not None:
            deadline = start + budget_s
        elif self.worlds is not None:
            deadline = float("inf")
        else:
            deadline = start + self.budget_s
        least, most = (self.worlds, self.worlds) if self.worlds else (MIN_WORLDS, MAX_WORLDS)
        priors = greedy_values(info.game, first, info.seat, rng)
        index = {m: i for i, m in enumerate(priors)}
        order = sorted(priors, key=lambda m: (-priors[m], index[m]))
        candidates = order[:CANDIDATES]
        totals = [0.0] * len(candidates)
        # A seat planned plays alone: the others have retired and their scores are final, the
        # same in every world (a value is a margin: API.md's hints).
        seats = info.game.parts.evaluate(first)
        rival = max((v for p, v in enumerate(seats) if p != info.seat), default=0.0)
        worlds = 0
        if len(order) > 1:
            longest = 0.0  # the longest world so far
            now = time.perf_counter()
            while worlds < most:
                # A world is begun only if one as long as the longest so far ends in time: a
                # world near the start of a game takes ~50 ms, a fourteenth of the budget.
                if worlds >= least and now + longest > deadline:
                    break
                world = info.sample(rng)
                values = plan(world, info.seat, candidates, self.beam)
                if values is None:
                    raise RuntimeError("a world of a planned seat was not planned")
                for i, v in enumerate(values):
                    totals[i] += v
                worlds += 1
                began, now = now, time.perf_counter()
                longest = max(longest, now - began)
        ranking: list[RankedMove] = []
        if worlds:
            ranked = sorted(range(len(candidates)), key=lambda i: (-totals[i], i))
            ranking = [
                RankedMove(candidates[i], totals[i] / worlds - rival, worlds) for i in ranked
            ]
        planned = {r.move for r in ranking}
        # The moves not planned follow, in the greedy's order, valued by its margins.
        ranking += [RankedMove(m, priors[m], 0) for m in order if m not in planned]
        return SearchResult(ranking, worlds, time.perf_counter() - start)


__all__ = ["HindsightPlayer"]
