"""IS-MCTS iterations per second, A/B interleaved in one run (issue 34 item 4): A is the search
as before, with the Underground passenger's routes computed afresh each time and a random move
drawn from the whole list of legal moves; B with the routes remembered (games/underground/
position.py `_best_ways`, emptied before each B search, so B never profits from A's or an
earlier search's work) and a random move made without making the others. Metro and Metro X
have neither: their A and B are the same code, a control for the machine's noise.

    .venv/bin/python bench/search_speed.py --seconds 1 --rounds 3

With `--before PATH` A is instead another checkout as it is (a git worktree of the commit
before), searching in a worker process in turn with this one, one search at a time, so both
see the same load; B is this checkout as it is. Against 34acde4 (Metro and Metro X sped up in
the rules core and the search), six runs at load 0.7-1.0: Metro 12,221 -> 16,878 iterations/s
(x1.38), Metro X 7,539 -> 10,590 (x1.40), Underground 1,615 -> 1,621 (x1.00); docs/ai.md says
what moved the figures.

    git worktree add /tmp/before 34acde4
    nice -n 10 .venv/bin/python bench/search_speed.py --seconds 1 --rounds 2 --before /tmp/before

A checkout from before any speed work (f8c7083^, issue 34 item 4's baseline) works as A too; the
third round's figures against it are in docs/ai.md.

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
from typing import Any

from checkouts import Before, checkout_root

ROOT = checkout_root(__file__)
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from games.underground import position as underground  # noqa: E402
from games.underground.passenger import best_ways  # noqa: E402
from services.ai.players import InfoSet  # noqa: E402
from services.ai.players.ismcts import ISMCTSPlayer  # noqa: E402

# None in a checkout from before the routes were remembered (f8c7083^, as a `--before` worker)
CACHED = getattr(underground, "_best_ways", None)
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


def rate(info: InfoSet, seconds: float, cached: bool | None) -> float:
    """One search's iterations/s; `cached` None: the code as it is (the two-checkout mode)."""
    if cached is not None:
        underground._best_ways = CACHED if cached else uncached  # type: ignore[assignment]
        STATE.random_move = NEW_RANDOM_MOVE if cached else old_random_move  # type: ignore[method-assign]
    if CACHED is not None:
        CACHED.cache_clear()
    result = ISMCTSPlayer(budget_s=seconds).search(info, 1, seconds)
    return result.iterations / result.elapsed_s


def serve() -> None:
    """The `--before` worker: reads "game position seconds" lines, answers each search's rate."""
    infos: dict[str, list[InfoSet]] = {}
    count = int(sys.argv[sys.argv.index("--positions") + 1])
    for line in sys.stdin:
        kind, index, seconds = line.split()
        if kind not in infos:
            infos[kind] = positions(kind, count)
        print(rate(infos[kind][int(index)], float(seconds), None), flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="metro,metrox,underground")
    p.add_argument("--positions", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.0, help="per search")
    p.add_argument("--rounds", type=int, default=2, help="A/B pairs per position")
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
    report: dict[str, Any] = {"bench": "search_speed", "seconds": args.seconds}
    for kind in args.games.split(","):
        a: list[float] = []
        b: list[float] = []
        for i, info in enumerate(positions(kind, args.positions)):
            for r in range(args.rounds):  # ABBA: neither side always goes first
                first, second = (False, True) if r % 2 == 0 else (True, False)
                for cached in (first, second):
                    if before is not None and not cached:
                        a.append(before.ask(kind, i, args.seconds))
                    else:
                        (b if cached else a).append(
                            rate(info, args.seconds, None if before else cached)
                        )
        report[kind] = {
            "A_iterations_per_s": round(statistics.mean(a)),
            "B_iterations_per_s": round(statistics.mean(b)),
            # None when A finished no iteration in its budget (a tiny budget on a loaded box)
            "B_over_A": round(statistics.mean(b) / statistics.mean(a), 2) if any(a) else None,
            "searches_each": len(a),
        }
    underground._best_ways = CACHED  # type: ignore[assignment]
    STATE.random_move = NEW_RANDOM_MOVE  # type: ignore[method-assign]
    if before is not None:
        before.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
