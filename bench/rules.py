"""Rules-core speed on one core; prints one JSON object. Not a test: nothing here asserts.

.venv/bin/python bench/rules.py [--games N] [--repeat N]
(tests/bench/test_benches.py runs it with tiny figures, so that an API change cannot rot it.)
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from games.metro.state import MetroState

METRO = games.get("metro")


def random_games(rules: dict, n: int) -> dict:  # type: ignore[type-arg]
    """Full games of uniformly random legal moves (legal_moves() then apply())."""
    rng = random.Random(7)
    moves = 0
    start = time.perf_counter()
    for seed in range(n):
        state = METRO.new_state(rules, seed)
        while not state.is_over:
            state.apply_code(rng.choice(state.legal_codes()))
            moves += 1
    elapsed = time.perf_counter() - start
    return {
        "rules": rules,
        "games": n,
        "games_per_s": round(n / elapsed, 1),
        "moves_per_s": round(moves / elapsed),
    }


def mid_game(seed: int = 11, placed: int = 30) -> MetroState:
    state = METRO.new_state({}, seed)
    rng = random.Random(seed)
    while state.placed < placed:
        state.apply_code(rng.choice([m for m in state.legal_codes() if m < 24 * 64]))
    return state


def per_call_us(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return round(best * 1e6, 2)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20000, help="calls per timed micro-bench")
    args = parser.parse_args()
    repeat = max(1, args.repeat)
    state = mid_game()
    moves = state.legal_codes()
    some_move = moves[0]

    def copy_apply() -> None:
        state.copy().apply_code(some_move)

    result = {
        "bench": "rules",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "random_games_2p_classic": random_games({}, args.games),
        "random_games_variants": [
            random_games(r, max(min(50, args.games), args.games // 10))
            for r in (
                {"players": 4},
                {"players": 6, "hand_size": 3},
                {"rotation": True},
                {"players": 3, "online": True},
            )
        ],
        "mid_game": {
            "placed": state.placed,
            "legal_moves": len(moves),
            "legal_moves_us": per_call_us(lambda: state.legal_moves(state.seat), repeat),
            "copy_us": per_call_us(state.copy, repeat),
            "copy_and_apply_us": per_call_us(copy_apply, repeat),
            "view_us": per_call_us(lambda: state.view(0), max(1, repeat // 40)),
            "to_dict_us": per_call_us(state.to_dict, max(1, repeat // 10)),
        },
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
