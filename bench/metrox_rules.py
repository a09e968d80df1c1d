"""Metro X rules-core speed on one core; prints one JSON object. Not a test: nothing asserts.

.venv/bin/python bench/metrox_rules.py [--games N] [--players P] [--map ID] [--repeat N]
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

from games.metrox import GAME
from games.metrox.state import MetroXState


def random_games(rules: dict[str, object], n: int) -> dict[str, object]:
    """Full games of uniformly random legal moves (random_move() then apply())."""
    rand = random.Random(7).random
    choices = 0
    start = time.perf_counter()
    for seed in range(n):
        state = GAME.new_state(rules, seed)
        while not state.is_over:
            for seat in state.to_move():
                state.apply(seat, state.random_move(seat, rand))
                choices += 1
    elapsed = time.perf_counter() - start
    return {
        "rules": rules,
        "games": n,
        "games_per_s": round(n / elapsed, 1),
        "choices_per_s": round(choices / elapsed),
    }


def _mid_game(rules: dict[str, object]) -> MetroXState:
    state = MetroXState.new(rules, 1)
    rand = random.Random(1).random
    while state.turn_number < state.m.total_windows // 2:
        for seat in state.to_move():
            state.apply(seat, state.random_move(seat, rand))
    return state


def _us(fn: object, reps: int) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        fn()  # type: ignore[operator]
    return round((time.perf_counter() - start) / reps * 1e6, 2)


def micro(rules: dict[str, object], repeat: int = 20000) -> dict[str, float]:
    """Microseconds per call on a mid-game state (apply: one whole turn, every seat choosing)."""
    state = _mid_game(rules)
    moves = [state.legal_moves(s)[0] for s in range(state.n)]

    def one_turn() -> None:
        c = state.copy()
        for seat in range(c.n):
            c.apply(seat, moves[seat])

    copy_us = _us(state.copy, repeat)
    return {
        "legal_moves_us": _us(lambda: state.legal_moves(0), repeat),
        "copy_us": copy_us,
        "apply_turn_us": round(_us(one_turn, repeat) - copy_us, 2),
        "view_us": _us(lambda: state.view(0), max(1, repeat // 4)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--map", default="lakeside")
    parser.add_argument("--repeat", type=int, default=20000, help="calls per timed micro-bench")
    args = parser.parse_args()
    rules: dict[str, object] = {"players": args.players, "map": args.map}
    out = {
        "python": platform.python_version(),
        **random_games(rules, args.games),
        **micro(rules, max(1, args.repeat)),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
