"""The two players that do not search: uniform random, and greedy (best position after one move).

Both work for any game of the protocol (games/base.py). Greedy judges a move by the margin
(evaluate.py) that the game's evaluation (`Game.evaluate`) gives the position after it:

- When the move leaves an open simultaneous turn (other seats still to choose, nothing public
  changed yet), those seats fill in random choices (the same for every candidate move, so they
  cancel out in the comparison) and the turn resolves before the position is judged.
- When the seat is still to move afterwards (a draw that must then be placed, a solo game whose
  next turn starts, a turn of several atomic moves), the move is worth the expectation, over the
  next chance event as the seat knows it (`chance_outcomes`, taken before the move), of the best
  continuation: each outcome is forced on a copy of the world before the move is applied. When
  that look-ahead would cost more than LOOKAHEAD_CAP positions (hundreds of next steps after
  each of hundreds of steps), the position after the move is judged as it is.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from games.base import Game, GameState
from services.ai.players.base import RankedMove, SearchResult
from services.ai.players.evaluate import margin
from services.ai.players.infoset import InfoSet

# Moves greedy may make for its look-ahead through chance before it keeps only the likeliest
# outcomes (a seat that keeps the move after many moves, many outcomes, many seats settling).
LOOKAHEAD_CAP = 6000


class RandomPlayer:
    """Every legal move in a random order; the baseline every other player must beat."""

    name = "random"

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        start = time.perf_counter()
        moves = list(dict.fromkeys(info.legal_moves()))  # a move may be listed twice
        random.Random(seed).shuffle(moves)
        ranked = [RankedMove(m, 0.0, 0) for m in moves]
        return SearchResult(ranked, 0, time.perf_counter() - start)


def settle(world: GameState, seat: int, turn: int, seed: int) -> None:
    """Close a simultaneous turn that `seat` has chosen in (`turn`: the turn number before its
    choice) while others have not: they choose at random (seeded by `seed`, so that every
    candidate of `seat` meets the same choices). A move that changed the public position (a
    sequential move, the last choice of a turn) leaves nothing to close."""
    movers = world.to_move()
    if not movers or seat in movers or world.turn_number != turn:
        return
    rand = random.Random(seed).random
    while movers and seat not in movers and world.turn_number == turn:
        for s in movers:
            world.apply(s, world.random_move(s, rand))
        movers = world.to_move()


def _after(world: GameState, seat: int, move: Any, seed: int) -> GameState:
    out = world.copy()
    out.apply(seat, move)
    settle(out, seat, world.turn_number, seed)
    return out


def best_continuation(game: Game, world: GameState, seat: int, seed: int) -> float:
    """The best margin `seat` can reach with one more move (the position's own when none)."""
    moves = world.legal_moves(seat) if seat in world.to_move() else []
    if not moves:
        return margin(game.evaluate(world), seat)
    return max(margin(game.evaluate(_after(world, seat, m, seed)), seat) for m in moves)


def greedy_values(game: Game, world: GameState, seat: int, rng: random.Random) -> dict[Any, float]:
    """Greedy's value of every legal move of `seat` in `world` (one sampled world), in the order
    of `legal_moves` (each move once)."""
    seed = rng.getrandbits(32)
    legal = list(dict.fromkeys(world.legal_moves(seat)))
    values: dict[Any, float] = {}
    staying: dict[Any, GameState] = {}  # moves after which the seat is still to move
    for m in legal:
        after = _after(world, seat, m, seed)
        if seat in after.to_move():
            staying[m] = after
            values[m] = 0.0  # filled in below; keeps `legal`'s order
        else:
            values[m] = margin(game.evaluate(after), seat)
    if not staying:
        return values
    # A look-ahead per outcome costs about |staying| x |legal| positions, each after a move of
    # every seat to move (the others settling an open simultaneous turn).
    cost = len(staying) * max(1, len(legal)) * max(1, len(world.to_move()))
    if cost > LOOKAHEAD_CAP:
        # Too wide to look one move further (a turn of many atomic steps, each with hundreds of
        # next steps): judge the position after the move itself.
        for m, after in staying.items():
            values[m] = margin(game.evaluate(after), seat)
        return values
    outcomes = _likeliest(world.chance_outcomes(seat), cost)
    for m, after in staying.items():
        if not outcomes:
            values[m] = best_continuation(game, after, seat, seed)
            continue
        total = weight = 0.0
        for outcome, p in outcomes:
            forced = world.copy()
            forced.force_chance(outcome)
            total += p * best_continuation(game, _after(forced, seat, m, seed), seat, seed)
            weight += p
        values[m] = total / weight
    return values


def _likeliest(
    outcomes: Sequence[tuple[Hashable, float]], cost_each: int
) -> list[tuple[Hashable, float]]:
    """All outcomes when their look-ahead fits LOOKAHEAD_CAP, else the likeliest that do (at
    least one; ties keep the game's order)."""
    keep = max(1, LOOKAHEAD_CAP // max(1, cost_each))
    if len(outcomes) <= keep:
        return [o for o in outcomes if o[1] > 0]
    return sorted(outcomes, key=lambda o: -o[1])[:keep]


class GreedyPlayer:
    """One-move lookahead on the game's evaluation; `noise` (points, Gumbel-distributed) blurs
    the ranking so that weaker levels make human-like slips."""

    def __init__(self, noise: float = 0.0, name: str = "greedy") -> None:
        self.noise = noise
        self.name = name

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        start = time.perf_counter()
        rng = random.Random(seed)
        if not info.to_move:
            return SearchResult([], 0, time.perf_counter() - start)
        values = greedy_values(info.game, info.sample(rng), info.seat, rng)

        def key(item: tuple[Any, float]) -> tuple[float, float]:
            # Gumbel noise: sorting by value + noise samples the softmax at temperature `noise`.
            blur = -self.noise * math.log(rng.expovariate(1.0)) if self.noise else 0.0
            return (-(item[1] + blur), rng.random())

        ranked = [RankedMove(m, v, 1) for m, v in sorted(values.items(), key=key)]
        return SearchResult(ranked, len(values), time.perf_counter() - start)
