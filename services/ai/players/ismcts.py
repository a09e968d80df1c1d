"""Information-set Monte Carlo tree search (single-observer ISMCTS), for any game of the protocol.

Each iteration deals one world consistent with the searching seat's view (InfoSet.sample) and
walks the tree. At a node, every seat in `world.to_move()` chooses (one seat in a sequential
game; every seat still to choose in a simultaneous turn): decoupled UCT, with per-seat
statistics at the node, each seat's choice selected independently by UCB over the moves
available to it *in that world* (the exploration term counts the times a move was available, not
the node's visits, because moves come and go with hidden things: the tile a draw brings, another
seat's hand). The joint choice is applied in seat order and leads to the child keyed by it, so a
sequential game is ordinary ISMCTS. A new child ends the descent; a few uniformly random moves
(`random_move`) follow, and the game's evaluation (`Game.evaluate`) scores the position; every
seat's statistics take its own margin (evaluate.py).

At the root, the searching seat's moves enter the tree in greedy order and a few at a time
(progressive widening), so a short budget is spent on the moves worth comparing. Exploration is
measured in the game's own points: the constant is a multiple of the spread (standard deviation)
of the searcher's backed-up margins so far, so that one setting suits games scored in tens or in
hundreds.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from games.base import Game, GameState
from services.ai.players.base import RankedMove, SearchResult
from services.ai.players.evaluate import margins
from services.ai.players.infoset import InfoSet
from services.ai.players.simple import greedy_values


class _Edge:
    """One seat's statistics for one of its moves at one node; `mean` is total / visits, kept
    as they change (UCB reads it for every available move, far more often than they change)."""

    __slots__ = ("avail", "mean", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.mean = 0.0
        self.avail = 1


class _Node:
    """A public situation of the tree: per-seat move statistics, children by joint choice."""

    __slots__ = ("children", "stats")

    def __init__(self) -> None:
        self.children: dict[Hashable, _Node] = {}
        self.stats: dict[int, dict[Any, _Edge]] = {}


@dataclass(frozen=True, slots=True)
class SearchParams:
    exploration: float = 0.5  # UCB constant, in standard deviations of the searcher's margins
    min_exploration: float = 1.0  # ...but never below this many points
    rollout_moves: int = 8  # random turns after the tree before the evaluation cuts in (fewer
    # when many seats move at once: at most the turns that hold about 4 x this many moves)
    widen_base: int = 3  # root moves in the tree from the start...
    widen_power: float = 0.4  # ...plus iterations ** power


DEFAULT_PARAMS = SearchParams()

# A timed budget is the whole move's, and the move is not over when the iterations stop: the
# tree is freed after them, ~1.3% of a search's time in Metro (9 ms after 0.7 s, 35 ms after
# 3 s, compiled), so they stop this share of the budget early (bench/move_time.py).
TEARDOWN_SHARE = 0.03


class ISMCTSPlayer:
    """Searches for `budget_s` seconds, or exactly `iterations` iterations when given (then the
    answer depends only on the view and the seed, never on the machine's speed). A budget passed
    to `search` caps the time in either case."""

    def __init__(
        self,
        budget_s: float = 0.7,
        iterations: int | None = None,
        params: SearchParams = DEFAULT_PARAMS,
        name: str = "ismcts",
    ) -> None:
        self.budget_s = budget_s
        self.iterations = iterations
        self.params = params
        self.name = name

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        start = time.perf_counter()
        if not info.to_move:
            return SearchResult([], 0, time.perf_counter() - start)
        rng = random.Random(seed)
        priors = greedy_values(info.game, info.sample(rng), info.seat, rng)
        index = {m: i for i, m in enumerate(priors)}
        order = sorted(priors, key=lambda m: (-priors[m], index[m]))
        limit = self.iterations
        budget = self.budget_s if budget_s is None and limit is None else budget_s
        deadline = None if budget is None else start + budget * (1 - TEARDOWN_SHARE)
        tree = _Search(info.game, info.seat, order, self.params, rng)
        if len(order) > 1:
            sample = info.sampler.sample  # InfoSet.sample without the call between
            while limit is None or tree.iterations < limit:
                if (
                    deadline is not None
                    and not tree.iterations & 7
                    and time.perf_counter() >= deadline
                ):
                    break
                tree.iterate(sample(rng))
        ranking = _ranking(tree.root.stats.get(info.seat, {}), order, priors, index)
        return SearchResult(ranking, tree.iterations, time.perf_counter() - start)


class _Search:
    """One search's tree and running statistics."""

    __slots__ = (
        "evaluate", "iterations", "me", "n", "order", "p", "rng", "root", "s1", "s2", "widened"
    )  # fmt: skip

    def __init__(
        self, game: Game, me: int, order: list[Any], p: SearchParams, rng: random.Random
    ) -> None:
        self.evaluate = game.parts.evaluate  # Game.evaluate's own, one call fewer each time
        self.me = me
        self.order = order
        self.p = p
        self.rng = rng
        self.root = _Node()
        self.iterations = 0
        self.n = 0  # the searcher's backed-up margins: count, sum, sum of squares
        self.s1 = 0.0
        self.s2 = 0.0
        self.widened: list[Any] = []  # order[:widen], kept while widen stays the same

    def iterate(self, world: GameState) -> None:
        p, me, root, rand = self.p, self.me, self.root, self.rng.random
        if len(_LOG) < self.iterations + 2:  # an edge is available at most once an iteration
            _grow_log(self.iterations + 2)
        n = self.n  # the exploration constant, from the spread of the margins so far
        if n < 2:
            c = max(p.min_exploration, 10.0)
        else:
            mean = self.s1 / n
            var = max(0.0, self.s2 / n - mean * mean)
            c = max(p.min_exploration, p.exploration * math.sqrt(var))
        widen = min(len(self.order), p.widen_base + int(self.iterations**p.widen_power))
        widened = self.widened
        if len(widened) != widen:
            widened = self.widened = self.order[:widen]
        path: list[tuple[_Edge, int]] = []
        node = root
        while True:
            movers = world.to_move()
            if not movers:
                break
            joint = []
            for seat in movers:
                stats = node.stats.get(seat)
                if stats is None:
                    stats = node.stats[seat] = {}
                if node is root and seat == me:
                    move = _choose(stats, widened, c, None, path, seat)
                else:
                    move = _choose(stats, world.legal_moves(seat), c, rand, path, seat)
                joint.append(move)
            key: Hashable
            if len(joint) == 1:
                key = joint[0]
                world.apply(movers[0], key)
            else:
                for seat, move in zip(movers, joint, strict=True):
                    world.apply(seat, move)
                key = tuple(joint)
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node()
                break
            node = child
        _rollout(world, p.rollout_moves, rand)
        values = margins(self.evaluate(world))
        self.iterations += 1
        v = values[me]
        self.n += 1
        self.s1 += v
        self.s2 += v * v
        for edge, seat in path:
            visits = edge.visits = edge.visits + 1
            total = edge.total = edge.total + values[seat]
            edge.mean = total / visits


# _LOG[n] is math.log(n), the same float: UCB takes the log of every available edge's count at
# every node it passes, and a list lookup costs a third of the call. Grown as searches need it
# (at most one entry per iteration of the longest search, small beside its tree), under a lock
# (searches may run in threads) and in one extend, so a reader never sees a misplaced entry.
_LOG: list[float] = [-math.inf]
_LOG_LOCK = threading.Lock()


def _grow_log(size: int) -> None:
    with _LOG_LOCK:
        start = len(_LOG)
        _LOG.extend([math.log(n) for n in range(start, max(size, 2 * start, 1024))])


def _choose(
    stats: dict[Any, _Edge],
    legal: Sequence[Any],
    c: float,
    rand: Any,
    path: list[tuple[_Edge, int]],
    seat: int,
) -> Any:
    """One seat's choice at a node: an untried move if any (the first in `legal` when `rand` is
    None, else a random one), else UCB over the available moves; counts availability.

    One pass over `legal` (the search's hottest loop): UCB scores are taken as availability is
    counted, until an untried move turns up; from there on only availability is counted."""
    best, best_edge, best_score = None, None, -math.inf
    log, sqrt = _LOG, math.sqrt
    get = stats.get
    moves = iter(legal)
    for m in moves:
        e = get(m)
        if e is None:
            fresh = [m]
            for m in moves:
                e = get(m)
                if e is None:
                    fresh.append(m)
                else:
                    e.avail += 1
            move = fresh[0] if rand is None else fresh[int(rand() * len(fresh))]
            edge = stats[move] = _Edge()
            path.append((edge, seat))
            return move
        avail = e.avail = e.avail + 1
        visits = e.visits
        score = e.mean + c * sqrt(log[avail] / visits)
        if score > best_score:
            best, best_edge, best_score = m, e, score
    if best_edge is None:  # every score NaN: the first move, as a strict max over them gives
        best = legal[0]
        best_edge = stats[best]
    path.append((best_edge, seat))
    return best


def _rollout(world: GameState, turns: int, rand: Any) -> None:
    """Uniformly random moves for every seat to move, `turns` times (whole turns, fewer when
    many seats move at once: about 4 x `turns` moves at most); cheap, and the evaluation
    corrects for the short horizon."""
    fast = getattr(world, "random_turns", None)  # the same turns by the game's own loop
    (fast or partial(protocol_turns, world))(turns, 4 * turns, rand)


def protocol_turns(world: GameState, turns: int, max_moves: int, rand: Any) -> None:
    """`_rollout` through the game protocol alone: what a game's own `random_turns` must equal
    (tests/ai/test_rollout_fast_paths.py)."""
    for _ in range(turns):
        movers = world.to_move()
        if not movers or max_moves <= 0:
            return
        max_moves -= len(movers)
        for seat in movers:
            world.apply(seat, world.random_move(seat, rand))


def _ranking(
    stats: dict[Any, _Edge], order: list[Any], priors: dict[Any, float], index: dict[Any, int]
) -> list[RankedMove]:
    """Most visited first (the robust choice); moves the search never tried follow, in greedy
    order, valued by greedy."""
    searched = [RankedMove(m, e.total / e.visits, e.visits) for m, e in stats.items() if e.visits]
    searched.sort(key=lambda r: (-r.visits, -r.value, index[r.move]))
    seen = {r.move for r in searched}
    rest = [RankedMove(m, priors[m], 0) for m in order if m not in seen]
    return searched + rest
