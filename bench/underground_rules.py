"""Bench of the On the Underground rules core, one core; prints JSON.

- `games_per_s`: random full 3-player games (uniform atomic moves via `random_move`);
- `route_us`: the passenger's best-ways search per query, on a mid-game board (the position
  after half of a random game's turns), every face-up express/normal set from every station.
  Each query is deterministic and is timed 3 times with the garbage collector off; its time is
  the fastest of the 3, so that a shared, loaded machine's preemptions do not pass for the
  search's own worst case (`route_worst_us`, and `route_p99_us` over the queries).

    .venv/bin/python bench/underground_rules.py [--seconds 5] [--queries 200]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time

from games.underground.passenger import best_ways
from games.underground.rules import UndergroundRules
from games.underground.state import UndergroundState


def random_game(seed: int) -> UndergroundState:
    s = UndergroundState.new(UndergroundRules(3), seed)
    rng = random.Random(seed)
    while not s.is_over:
        seat = s.to_move()[0]
        s.apply(seat, s.random_move(seat, rng.random))
    return s


def mid_game(seed: int) -> UndergroundState:
    s = UndergroundState.new(UndergroundRules(3), seed)
    rng = random.Random(seed)
    while s.turns < 15:
        seat = s.to_move()[0]
        s.apply(seat, s.random_move(seat, rng.random))
    return s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="time spent on random games")
    parser.add_argument("--queries", type=int, default=200, help="route queries per position")
    args = parser.parse_args()
    t0 = time.perf_counter()
    games = 0
    while games == 0 or time.perf_counter() - t0 < args.seconds:
        random_game(games)
        games += 1
    games_per_s = games / (time.perf_counter() - t0)

    times: list[float] = []
    for seed in range(5):
        s = mid_game(seed)
        board = s.board
        lines = s.lines()
        rng = random.Random(seed)
        for _ in range(max(1, args.queries)):
            source = rng.randrange(board.size)
            targets = 0
            for t in rng.sample(board.destinations, 2):
                targets |= 1 << t
            runs = []
            gc.disable()
            for _ in range(3):
                a = time.perf_counter()
                best_ways(board, lines, source, targets)
                runs.append(time.perf_counter() - a)
            gc.enable()
            times.append(min(runs))
    times.sort()
    print(
        json.dumps(
            {
                "games_per_s": round(games_per_s, 1),
                "players": 3,
                "route_us": round(sum(times) / len(times) * 1e6, 1),
                "route_p99_us": round(times[int(0.99 * len(times))] * 1e6, 1),
                "route_worst_us": round(times[-1] * 1e6, 1),
                "route_queries": len(times),
            }
        )
    )


if __name__ == "__main__":
    main()
