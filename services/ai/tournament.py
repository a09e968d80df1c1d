"""Tournaments between AI players on seeded games of any kind, with the rules core only.

Each deal (a seeded game) is played once per seat rotation, so every entrant plays every seat
with the same luck. In a solo game (one seat) every entrant plays every deal alone instead, and
what counts is its mean score. Players get only their seat's information set, exactly as in the
service; in a simultaneous turn every seat to move decides on the same position, then the
choices are applied in seat order. Games run in worker processes; results come back as dicts.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import games
from games.base import Game
from services.ai.players.base import Player, derive_seed
from services.ai.players.infoset import InfoSet
from services.ai.players.levels import MAX_BUDGET_MS, MIN_BUDGET_MS, parse_spec


@dataclass(frozen=True, slots=True)
class GameTask:
    specs: tuple[str, ...]  # entrants, as "level" or "level:budget_ms"
    rules: dict[str, Any]  # the game's options, "players" included
    seed: int
    deal: int
    rotation: int  # seat k is played by entrant (k + rotation) % entrants (solo: the entrant)
    game: str = ""  # the game kind; "" for the registry's default game
    solo: bool = False  # one seat, played by entrant `rotation`


def game_of(kind: str) -> Game:
    """The game called `kind`, or the default game for ""."""
    return games.get(kind) if kind else games.default()


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game to the end; per seat: entrant, score, thinking time and moves."""
    game = game_of(task.game)
    rules = game.normalise_rules(task.rules)
    n = game.seat_count(rules)
    deal_seed = derive_seed(task.seed, task.deal)
    state = game.new_state(rules, deal_seed)
    if task.solo:
        entrant_of = [task.rotation] * n
    else:
        entrant_of = [(k + task.rotation) % len(task.specs) for k in range(n)]
    players: dict[int, tuple[Player, float | None]] = {}
    for e in dict.fromkeys(entrant_of):
        level, budget = parse_spec(task.specs[e])
        players[e] = (level.make(), budget)
    think = [0.0] * n
    moves = [0] * n
    move_ms: list[list[float]] = [[] for _ in range(n)]  # each decision's time, for the p95
    while not state.is_over:
        chosen = []
        for seat in state.to_move():  # all decide on the same position, then all apply
            player, budget = players[entrant_of[seat]]
            t0 = time.perf_counter()
            info = InfoSet.from_state(state, seat)
            seed = derive_seed(deal_seed, task.rotation, seat, moves[seat])
            result = player.search(info, seed, budget)
            took = time.perf_counter() - t0
            think[seat] += took
            move_ms[seat].append(round(1000 * took, 1))
            moves[seat] += 1
            chosen.append((seat, result.best if result.moves else None))
        for seat, move in chosen:
            if move is None or move not in state.legal_moves(seat):
                spec = task.specs[entrant_of[seat]]
                raise RuntimeError(f"{spec} chose an illegal move {move!r} in deal {task.deal}")
            state.apply(seat, move)
    outcome = state.outcome()
    assert outcome is not None
    return {
        "deal": task.deal,
        "rotation": task.rotation,
        "entrants": entrant_of,
        "scores": list(outcome.scores),
        "winners": list(outcome.winners),
        "think_s": think,
        "moves": moves,
        "move_ms": move_ms,
    }


def tasks(
    specs: Sequence[str],
    rules: Mapping[str, Any],
    games: int,
    seed: int,
    game: str = "",
    solo: bool = False,
) -> list[GameTask]:
    """`games` rounded up to whole rotations: each deal played once with each seat rotation
    (solo: once by each entrant). `rules` are the game's options; "players" defaults to the
    number of entrants (1 when solo)."""
    n = len(specs)
    deals = max(1, math.ceil(games / n))
    full = {**rules, "players": 1 if solo else rules.get("players", n)}
    return [
        GameTask(tuple(specs), dict(full), seed, d, r, game, solo)
        for d in range(deals)
        for r in range(n)
    ]


def run(
    all_tasks: Sequence[GameTask],
    jobs: int,
    progress: Callable[[int, int, list[dict[str, Any]]], None] | None = None,
    time_limit_s: float | None = None,
    stop: Callable[[list[dict[str, Any]]], bool] | None = None,
) -> list[dict[str, Any]]:
    """Play every task, in worker processes when jobs > 1; results sorted by (deal, rotation).
    With `time_limit_s`, stop once it has passed and return the games finished by then. With
    `stop` (a sequential test), results come in task order and play ends once it says so."""
    started = time.monotonic()
    results: list[dict[str, Any]] = []
    stream: Iterator[dict[str, Any]]
    if jobs <= 1:
        stream = map(play_game, all_tasks)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs)
        ordered = pool.imap if stop is not None else pool.imap_unordered
        stream = ordered(play_game, all_tasks)
    try:
        for result in stream:
            results.append(result)
            if progress:
                progress(len(results), len(all_tasks), results)
            if time_limit_s is not None and time.monotonic() - started > time_limit_s:
                break
            if stop is not None and stop(results):
                break
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    results.sort(key=lambda r: (r["deal"], r["rotation"]))
    return results


def scale_spec(spec: str, factor: float) -> str:
    """An entrant with its time budget (given, or its level's own) scaled by `factor`: a short
    time control for every timed entrant at once ("hard" at 0.1 is "hard:70"). Entrants that
    do not search by time are left as they are."""
    level, budget_s = parse_spec(spec)
    if factor == 1 or (budget_s is None and not level.timed):
        return spec
    ms = budget_s * 1000 if budget_s is not None else level.budget_ms
    return f"{level.name}:{min(MAX_BUDGET_MS, max(MIN_BUDGET_MS, round(ms * factor)))}"


def score_of(entrant: int, result: Mapping[str, Any]) -> float:
    """An entrant's share of a game's win: 1, 1/k for a win shared by k seats, or 0."""
    seats = [k for k, e in enumerate(result["entrants"]) if e == entrant]
    return sum(1 / len(result["winners"]) for k in seats if k in result["winners"])


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


def percentile(xs: Sequence[float], q: float) -> float:
    """The q-quantile of xs by the nearest rank (0.0 for none): a level's time per move is held
    to its budget at the 95th percentile, not on average."""
    if not xs:
        return 0.0
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Display names, numbered when the same spec plays more than once."""
    return [f"{s}#{i + 1}" if specs.count(s) > 1 else s for i, s in enumerate(specs)]


def summarise(specs: Sequence[str], results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per entrant: games, mean score with its interval, thinking time per move; and, unless
    every game was solo, wins (a shared win counts 1/k), win rate with its interval and mean
    margin over the best other seat."""
    solo = bool(results) and all(len(r["scores"]) == 1 for r in results)
    out = []
    for e, name in enumerate(entrant_names(specs)):
        wins = 0.0
        scores: list[float] = []
        margins: list[float] = []
        times: list[float] = []  # each decision's milliseconds
        for r in results:
            for seat, who in enumerate(r["entrants"]):
                if who != e:
                    continue
                if seat in r["winners"]:
                    wins += 1 / len(r["winners"])
                score = r["scores"][seat]
                scores.append(score)
                others = [s for k, s in enumerate(r["scores"]) if k != seat]
                margins.append(score - max(others) if others else 0.0)
                times.extend(r["move_ms"][seat])
        n = len(scores)
        mean, half = mean_ci(scores)
        row: dict[str, Any] = {"entrant": name, "games": n}
        if not solo:
            low, high = wilson(wins, n)
            row.update(
                wins=round(wins, 2),
                win_rate=round(wins / n, 4) if n else 0.0,
                win_ci95=[round(low, 4), round(high, 4)],
            )
        row.update(mean_score=round(mean, 2), score_ci95=round(half, 2))
        if not solo:
            row["mean_margin"] = round(sum(margins) / n, 2) if n else 0.0
        row.update(
            ms_per_move=round(sum(times) / len(times), 1) if times else 0.0,
            p95_ms=percentile(times, 0.95),
            moves=len(times),
        )
        out.append(row)
    return out
