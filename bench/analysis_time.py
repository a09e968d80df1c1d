"""How long one finished game's post-game analysis takes in one process, with the service's
default AnalysisParams (iterations a decision, the game's time budget, the floor): the figure
issue 34 bounds (any game <= 60 s on this machine; an Underground game took 7.6 minutes at
800 iterations a decision before the budget).

    .venv/bin/python bench/analysis_time.py --game underground --seed 3

The game is a seeded random 2-player game. Prints one JSON object: decisions, wall time, the
iterations each searched decision got (min, median, max), and the labels. A measurement, not a
test (tests/ai/test_analysis_core.py pins the budget with a simulated clock).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from services.ai.analysis import AnalysisParams, analyse  # noqa: E402


def random_record(kind: str, seed: int) -> dict[str, Any]:
    """A seeded random 2-player game, played to its end."""
    game = games.get(kind)
    state = game.new_state(game.normalise_rules({"players": 2}), seed)
    rng = random.Random(seed)
    while not state.is_over:
        for seat in state.to_move():
            state.apply(seat, state.random_move(seat, rng.random))
    return dict(state.record())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="underground", choices=games.kinds())
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--iterations", type=int, default=AnalysisParams().iterations)
    p.add_argument("--budget-s", type=float, default=AnalysisParams().game_budget_s)
    args = p.parse_args()
    params = AnalysisParams(iterations=args.iterations, game_budget_s=args.budget_s)
    record = random_record(args.game, args.seed)
    started, cpu = time.perf_counter(), time.process_time()
    result = analyse(f"bench-{args.seed}", record, params)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    searched = [m["iterations"] for m in result["moves"] if m["choices"] > 1]
    print(json.dumps({
        "bench": "analysis_time", "game": args.game, "seed": args.seed,
        "params": result["params"]["budget"], "decisions": len(result["moves"]),
        "searched": len(searched), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "iterations": {"min": min(searched, default=0), "max": max(searched, default=0),
                       "median": statistics.median(searched) if searched else 0},
        "labels": dict(Counter(m["label"] for m in result["moves"])),
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
