"""The two players that do not search: uniform random, and greedy (best position after one move).

Greedy judges a placement by the margin it leaves (evaluate.py: points scored and fed, open
routes lengthened); it judges "draw" by the average, over the tiles it might draw, of the best
placement of that tile, since every unseen tile is equally likely to be on top of the deck.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter

from games.metro import DRAW, MetroState
from services.ai.players.base import RankedMove, SearchResult
from services.ai.players.evaluate import DEFAULT_WEIGHTS, Weights, margin, worths
from services.ai.players.infoset import InfoSet


class RandomPlayer:
    """Every legal move in a random order; the baseline every other player must beat."""

    name = "random"

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        start = time.perf_counter()
        moves = list(dict.fromkeys(info.legal_moves()))  # a move may be listed twice
        random.Random(seed).shuffle(moves)
        ranked = [RankedMove(m, 0.0, 0) for m in moves]
        return SearchResult(ranked, 0, time.perf_counter() - start)


def placement_value(world: MetroState, move: int, seat: int, weights: Weights) -> float:
    """The margin for `seat` right after `move` (a placement) in `world`."""
    after = world.copy()
    after.apply(move)
    return margin(worths(after, weights), seat)


def draw_value(info: InfoSet, world: MetroState, weights: Weights) -> float:
    """Expected margin of drawing: each unseen tile as likely as its count, then its best
    placement."""
    total = 0.0
    counts = Counter(info.pool)
    for tile, count in counts.items():
        drawn = world.copy()
        drawn.drawn = tile
        drawn.deck_pos += 1
        best = max(placement_value(drawn, m, info.seat, weights) for m in drawn.legal_moves())
        total += count * best
    return total / len(info.pool)


def greedy_values(
    info: InfoSet, world: MetroState, weights: Weights = DEFAULT_WEIGHTS
) -> dict[int, float]:
    """Greedy's value of every legal move of the seat in `world` (a sample of `info`)."""
    values = {}
    for m in world.legal_moves():
        if m == DRAW:
            values[m] = draw_value(info, world, weights)
        else:
            values[m] = placement_value(world, m, info.seat, weights)
    return values


class GreedyPlayer:
    """One-move lookahead on the evaluation; `noise` (points, Gumbel-distributed) blurs the
    ranking so that weaker levels make human-like slips."""

    def __init__(
        self, weights: Weights = DEFAULT_WEIGHTS, noise: float = 0.0, name: str = "greedy"
    ) -> None:
        self.weights = weights
        self.noise = noise
        self.name = name

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        start = time.perf_counter()
        rng = random.Random(seed)
        if not info.to_move:
            return SearchResult([], 0, time.perf_counter() - start)
        values = greedy_values(info, info.sample(rng), self.weights)

        def key(item: tuple[int, float]) -> tuple[float, float]:
            # Gumbel noise: sorting by value + noise samples the softmax at temperature `noise`.
            blur = -self.noise * math.log(rng.expovariate(1.0)) if self.noise else 0.0
            return (-(item[1] + blur), rng.random())

        ranked = [RankedMove(m, v, 1) for m, v in sorted(values.items(), key=key)]
        return SearchResult(ranked, len(values), time.perf_counter() - start)
