"""Tournaments between AI players on seeded games, with the rules core only (no services).

Each deal (a seeded shuffle) is played once per seat rotation, so every entrant plays every seat
with the same tiles and luck evens out. Players get only their seat's information set, exactly
as in the service. Games run in worker processes; results come back as plain dicts.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from games.metro import MetroRules, MetroState
from services.ai.players.base import derive_seed
from services.ai.players.infoset import InfoSet
from services.ai.players.levels import parse_spec


@dataclass(frozen=True, slots=True)
class GameTask:
    specs: tuple[str, ...]  # entrants, as "level" or "level:budget_ms"
    rules: dict[str, Any]
    seed: int
    deal: int
    rotation: int  # seat k is played by entrant (k + rotation) % players


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game to the end; per seat: entrant, score, thinking time and moves."""
    rules = MetroRules.parse(task.rules)
    n = rules.players
    deal_seed = derive_seed(task.seed, task.deal)
    state = MetroState.new(rules, deal_seed)
    entrant_of = [(k + task.rotation) % n for k in range(n)]
    players, budgets = [], []
    for spec in task.specs:
        level, budget = parse_spec(spec)
        players.append(level.make())
        budgets.append(budget)
    think = [0.0] * n
    moves = [0] * n
    while not state.is_over:
        seat = state.seat
        e = entrant_of[seat]
        t0 = time.perf_counter()
        info = InfoSet.from_state(state, seat)
        result = players[e].search(info, derive_seed(deal_seed, task.rotation, moves), budgets[e])
        think[seat] += time.perf_counter() - t0
        moves[seat] += 1
        move = result.best
        if move not in state.legal_moves():
            raise RuntimeError(f"{task.specs[e]} chose an illegal move {move} in deal {task.deal}")
        state.apply(move)
    best = max(state.scores)
    return {
        "deal": task.deal,
        "rotation": task.rotation,
        "entrants": entrant_of,
        "scores": state.scores[:],
        "winners": [k for k, s in enumerate(state.scores) if s == best],
        "think_s": think,
        "moves": moves,
    }


def tasks(specs: Sequence[str], rules: dict[str, Any], games: int, seed: int) -> list[GameTask]:
    """`games` rounded up to whole rotations: each deal played once with each seat rotation."""
    n = len(specs)
    deals = max(1, math.ceil(games / n))
    return [GameTask(tuple(specs), dict(rules), seed, d, r) for d in range(deals) for r in range(n)]


def run(
    all_tasks: Sequence[GameTask],
    jobs: int,
    progress: Callable[[int, int, list[dict[str, Any]]], None] | None = None,
    time_limit_s: float | None = None,
) -> list[dict[str, Any]]:
    """Play every task, in worker processes when jobs > 1; results sorted by (deal, rotation).
    With `time_limit_s`, stop once it has passed and return the games finished by then."""
    started = time.monotonic()
    results: list[dict[str, Any]] = []
    stream: Iterator[dict[str, Any]]
    if jobs <= 1:
        stream = map(play_game, all_tasks)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs)
        stream = pool.imap_unordered(play_game, all_tasks)
    try:
        for result in stream:
            results.append(result)
            if progress:
                progress(len(results), len(all_tasks), results)
            if time_limit_s is not None and time.monotonic() - started > time_limit_s:
                break
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    results.sort(key=lambda r: (r["deal"], r["rotation"]))
    return results


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (well-behaved near 0 and 1)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(xs: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% interval."""
    n = len(xs)
    if n == 0:
        return (0.0, 0.0)
    m = sum(xs) / n
    if n == 1:
        return (m, 0.0)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return (m, z * sd / math.sqrt(n))


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Display names, numbered when the same spec plays more than once."""
    return [f"{s}#{i + 1}" if specs.count(s) > 1 else s for i, s in enumerate(specs)]


def summarise(specs: Sequence[str], results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per entrant: wins (a shared win counts 1/k), win rate with its interval, mean score with
    its interval, mean margin over the best opponent, thinking time per move."""
    out = []
    for e, name in enumerate(entrant_names(specs)):
        wins = 0.0
        scores, margins, think, moves = [], [], 0.0, 0
        for r in results:
            seat = r["entrants"].index(e)
            if seat in r["winners"]:
                wins += 1 / len(r["winners"])
            score = r["scores"][seat]
            scores.append(score)
            margins.append(score - max(s for k, s in enumerate(r["scores"]) if k != seat))
            think += r["think_s"][seat]
            moves += r["moves"][seat]
        n = len(results)
        low, high = wilson(wins, n)
        mean, half = mean_ci(scores)
        out.append(
            {
                "entrant": name,
                "games": n,
                "wins": round(wins, 2),
                "win_rate": round(wins / n, 4) if n else 0.0,
                "win_ci95": [round(low, 4), round(high, 4)],
                "mean_score": round(mean, 2),
                "score_ci95": round(half, 2),
                "mean_margin": round(sum(margins) / n, 2) if n else 0.0,
                "ms_per_move": round(1000 * think / moves, 1) if moves else 0.0,
                "moves": moves,
            }
        )
    return out
