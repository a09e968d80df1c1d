"""IS-MCTS iterations per second, A/B interleaved in one run (issue 34 item 4): A is the search
as before, with the Underground passenger's routes computed afresh each time and a random move
drawn from the whole list of legal moves; B with the routes remembered (games/underground/
position.py `_best_ways`, emptied before each B search, so B never profits from A's or an
earlier search's work) and a random move made without making the others. Metro and Metro X
have neither: their A and B are the same code, a control for the machine's noise.

    .venv/bin/python bench/search_speed.py --seconds 1 --rounds 3

Prints one JSON object: per game, A's and B's mean iterations/s and B/A. A measurement on a
shared machine: quote it with the load it ran under. tests/ai/test_search_pinned.py shows that
B's results equal A's at a fixed iteration count.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from games.underground import position as underground  # noqa: E402
from games.underground.passenger import best_ways  # noqa: E402
from services.ai.players import InfoSet  # noqa: E402
from services.ai.players.ismcts import ISMCTSPlayer  # noqa: E402

CACHED = underground._best_ways
STATE = underground.UndergroundPosition
NEW_RANDOM_MOVE = STATE.random_move


def old_random_move(self: Any, seat: int, rand: Any) -> Any:
    moves = self.legal_moves(seat)
    return moves[int(rand() * len(moves))]


def uncached(board: Any, lines: Any, source: int, targets: int) -> tuple[Any, ...]:
    return tuple(best_ways(board, lines, source, targets)[1])


def positions(kind: str, count: int) -> list[InfoSet]:
    """Information sets of the seat to move, spread over seeded random games."""
    game = games.get(kind)
    out = []
    for seed in range(count):
        state = game.new_state(game.normalise_rules({"players": 2}), 100 + seed)
        rng = random.Random(seed)
        for _ in range(8 + 9 * seed):
            if state.is_over:
                break
            for seat in state.to_move():
                state.apply(seat, state.random_move(seat, rng.random))
        if not state.is_over:
            out.append(InfoSet.from_state(state, state.to_move()[0]))
    return out


def rate(info: InfoSet, seconds: float, cached: bool) -> float:
    underground._best_ways = CACHED if cached else uncached  # type: ignore[assignment]
    STATE.random_move = NEW_RANDOM_MOVE if cached else old_random_move  # type: ignore[method-assign]
    CACHED.cache_clear()
    result = ISMCTSPlayer(budget_s=seconds).search(info, 1, seconds)
    return result.iterations / result.elapsed_s


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="metro,metrox,underground")
    p.add_argument("--positions", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.0, help="per search")
    p.add_argument("--rounds", type=int, default=2, help="A/B pairs per position")
    args = p.parse_args()
    report: dict[str, Any] = {"bench": "search_speed", "seconds": args.seconds}
    for kind in args.games.split(","):
        a: list[float] = []
        b: list[float] = []
        for info in positions(kind, args.positions):
            for r in range(args.rounds):  # ABBA: neither side always goes first
                first, second = (False, True) if r % 2 == 0 else (True, False)
                for cached in (first, second):
                    (b if cached else a).append(rate(info, args.seconds, cached))
        report[kind] = {
            "A_iterations_per_s": round(statistics.mean(a)),
            "B_iterations_per_s": round(statistics.mean(b)),
            # None when A finished no iteration in its budget (a tiny budget on a loaded box)
            "B_over_A": round(statistics.mean(b) / statistics.mean(a), 2) if any(a) else None,
            "searches_each": len(a),
        }
    underground._best_ways = CACHED  # type: ignore[assignment]
    STATE.random_move = NEW_RANDOM_MOVE  # type: ignore[method-assign]
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
