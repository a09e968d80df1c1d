"""A timed level's whole move against its budget (issue 34 item 2: "a level's time per move
stays within its documented budget, p95"), timed as `metro arena` times it: the seat's
information set, the search, and the search's end (its tree freed), at the level's own budget.

Positions are taken at evenly spread depths of seeded random games (two players in each game,
and solo Metro X, where `hard` plans hindsight worlds); each is searched once per level.

    .venv/bin/python bench/move_time.py --positions 20

With `--before PATH` A is another checkout as it is (a git worktree, its rules core compiled
there with `../main/.venv/bin/python games/native.py build`), searching in a worker process in
turn with this one (ABBA over the positions), so both see the same load; B is this checkout.

    git worktree add /tmp/before e563cb4
    .venv/bin/python bench/move_time.py --positions 20 --before /tmp/before

Prints one JSON object: per game and level, the budget and each side's median, p95 and largest
milliseconds a move and how many moves ran over the budget. Against e563cb4 (the tree freed and
a last hindsight world planned after the deadline) on the quiet machine: 112 of 117 moves over,
p95 up to 3,044 ms for 3,000; now none, p95 688 ms for 700 and 2,960 for 3,000 (docs/ai.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from checkouts import Before, checkout_root

sys.path.insert(0, str(checkout_root(__file__)))

import games
from games.base import GameState
from services.ai.players import InfoSet
from services.ai.players.levels import LEVELS
from services.common.levels import offered_levels

TABLES = (("metro", 2), ("metrox", 2), ("underground", 2), ("metrox", 1))


def _random_game(kind: str, players: int, seed: int, moves: int | None) -> tuple[GameState, int]:
    """A seeded game played at random for `moves` moves (None: to its end), and the moves."""
    game = games.get(kind)
    state = game.new_state(game.normalise_rules({"players": players}), 700 + seed)
    rng = random.Random(seed)
    played = 0
    while not state.is_over and (moves is None or played < moves):
        for seat in state.to_move():
            state.apply(seat, state.random_move(seat, rng.random))
            played += 1
    return state, played


def positions(kind: str, players: int, count: int) -> list[GameState]:
    """`count` positions with a choice to make, the k-th taken (k + 1/2)/count of the way
    through its own game, or at the first choice after that (a seat with one legal move is
    answered without a search, and would flatter the figures)."""
    out = []
    for k in range(count):
        length = _random_game(kind, players, k, None)[1]
        state = _random_game(kind, players, k, int(length * (k + 0.5) / count))[0]
        rng = random.Random(k)
        while not state.is_over and len(state.legal_moves(state.to_move()[0])) < 2:
            for seat in state.to_move():
                state.apply(seat, state.random_move(seat, rng.random))
        if not state.is_over:
            out.append(state)
    return out


def move_ms(state: GameState, level: str, seed: int) -> float:
    """One whole move at the level's own budget, in milliseconds."""
    seat = state.to_move()[0]
    started = time.perf_counter()
    info = InfoSet.from_state(state, seat)
    LEVELS[level].make().search(info, seed, None)
    return 1000 * (time.perf_counter() - started)


def serve() -> None:
    """The `--before` worker: reads "game players level position" lines, answers each move's ms."""
    count = int(sys.argv[sys.argv.index("--positions") + 1])
    cache: dict[tuple[str, int], list[GameState]] = {}
    for line in sys.stdin:
        kind, players, level, index = line.split()
        key = (kind, int(players))
        if key not in cache:
            cache[key] = positions(kind, int(players), count)
        print(move_ms(cache[key][int(index)].copy(), level, int(index)), flush=True)


def summary(ms: list[float], budget_ms: int) -> dict[str, Any]:
    ordered = sorted(ms)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[round(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
        "over_budget": sum(1 for m in ordered if m > budget_ms),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=20, help="per game and player count")
    p.add_argument("--levels", default="hard,expert", help="timed levels, where offered")
    p.add_argument("--before", help="A = the checkout at this path, as it is (B: this one)")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--root", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        serve()
        return 0
    before = None
    if args.before:
        before = Before(__file__, args.before, "--positions", str(args.positions))
    report: dict[str, Any] = {"bench": "move_time", "positions": args.positions}
    for kind, players in TABLES:
        states = positions(kind, players, args.positions)
        for level in args.levels.split(","):
            if level not in offered_levels(kind):
                continue
            budget_ms = LEVELS[level].budget_ms
            a: list[float] = []
            b: list[float] = []
            for i, state in enumerate(states):
                sides = ("A", "B") if i % 2 == 0 else ("B", "A")  # neither always goes first
                for side in sides:
                    if side == "A" and before is not None:
                        a.append(before.ask(kind, players, level, i))
                    elif side == "B":
                        b.append(move_ms(state.copy(), level, i))
            row: dict[str, Any] = {
                "budget_ms": budget_ms,
                "moves": len(b),
                "B": summary(b, budget_ms),
            }
            if a:
                row["A"] = summary(a, budget_ms)
            report[f"{kind}/{players}/{level}"] = row
    if before is not None:
        before.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
