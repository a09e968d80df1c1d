"""Information-set Monte Carlo tree search (single-observer ISMCTS).

Each iteration deals one world consistent with the seat's view (InfoSet.sample), walks the tree
with UCB over the moves available *in that world* (a child's exploration term counts the times it
was available, not the parent's visits, because moves come and go with the hidden tiles), expands
one node, plays a short random rollout and scores the position with the evaluation (evaluate.py).
"Draw" leads to a chance node whose children are the drawn tiles, so the placements after a draw
are searched per tile. At the root, moves enter the tree in greedy order and a few at a time
(progressive widening), so a short budget is spent on the moves worth comparing.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from games.metro import DRAW, MetroState
from services.ai.players.base import RankedMove, SearchResult
from services.ai.players.evaluate import DEFAULT_WEIGHTS, Weights, margins, worths
from services.ai.players.infoset import InfoSet
from services.ai.players.policy import random_move
from services.ai.players.simple import greedy_values


class _Node:
    """Statistics of the edge into this node, from the view of the seat that chose it."""

    __slots__ = ("avail", "chance", "children", "total", "visits")

    def __init__(self, chance: bool = False) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1
        self.chance = chance  # children keyed by the drawn tile, not by a move


@dataclass(frozen=True, slots=True)
class SearchParams:
    exploration: float = 6.0  # UCB constant, in points of margin
    rollout_moves: int = 8  # random moves after the tree before the evaluation cuts in
    widen_base: int = 3  # root moves in the tree from the start...
    widen_power: float = 0.4  # ...plus visits ** power
    weights: Weights = DEFAULT_WEIGHTS


DEFAULT_PARAMS = SearchParams()


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
        priors = greedy_values(info, info.sample(rng), self.params.weights)
        order = sorted(priors, key=lambda m: (-priors[m], m))
        root = _Node()
        limit = self.iterations
        deadline: float | None = None
        if budget_s is not None:
            deadline = start + budget_s
        elif limit is None:
            deadline = start + self.budget_s
        if len(order) > 1:
            while limit is None or root.visits < limit:
                if deadline is not None and not root.visits & 7 and time.perf_counter() >= deadline:
                    break
                self._iterate(root, info.sample(rng), order, rng)
        return SearchResult(_ranking(root, order, priors), root.visits, time.perf_counter() - start)

    def _iterate(
        self, root: _Node, world: MetroState, order: list[int], rng: random.Random
    ) -> None:
        p = self.params
        path: list[tuple[_Node, int]] = []
        node = root
        widen = min(len(order), p.widen_base + int(root.visits**p.widen_power))
        while world.seat >= 0:
            if node.chance:  # the draw happened in this world: follow the tile drawn
                child = node.children.get(world.drawn)
                if child is None:
                    child = node.children[world.drawn] = _Node()
                node = child
                continue
            mover = world.seat
            legal = order[:widen] if node is root else world.legal_moves()
            children = node.children
            fresh = [m for m in legal if m not in children]
            if fresh:
                move = fresh[0] if node is root else fresh[int(rng.random() * len(fresh))]
                for m in legal:
                    if m in children:
                        children[m].avail += 1
                child = children[move] = _Node(chance=move == DRAW)
                world.apply(move)
                path.append((child, mover))
                break
            move = _ucb(children, legal, p.exploration)
            world.apply(move)
            node = children[move]
            path.append((node, mover))
        _rollout(world, p.rollout_moves, rng)
        values = margins(worths(world, p.weights))
        root.visits += 1
        for child, mover in path:
            child.visits += 1
            child.total += values[mover]


def _ucb(children: dict[int, _Node], legal: list[int], c: float) -> int:
    best, best_score = legal[0], -math.inf
    for m in legal:
        ch = children[m]
        ch.avail += 1
        score = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
        if score > best_score:
            best, best_score = m, score
    return best


def _rollout(world: MetroState, moves: int, rng: random.Random) -> None:
    """Uniformly random moves; cheap, and the evaluation corrects for the short horizon."""
    rand = rng.random
    for _ in range(moves):
        if world.seat < 0:
            return
        world.apply(random_move(world, rand))


def _ranking(root: _Node, order: list[int], priors: dict[int, float]) -> list[RankedMove]:
    """Most visited first (the robust choice); moves the search never tried follow, in greedy
    order, valued by greedy."""
    searched = [
        RankedMove(m, ch.total / ch.visits, ch.visits)
        for m, ch in root.children.items()
        if ch.visits
    ]
    searched.sort(key=lambda r: (-r.visits, -r.value, r.move))
    seen = {r.move for r in searched}
    rest = [RankedMove(m, priors[m], 0) for m in order if m not in seen]
    return searched + rest
