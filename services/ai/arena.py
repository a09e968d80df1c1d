"""`metro arena`: AI tournaments on seeded games, with a progress bar, a table and JSON.

    metro arena hard greedy --games 200 --jobs 2 --json out.json
    metro arena medium random easy --hand-size 2 --games 30

Entrants are levels (docs/ai.md), optionally with a time budget: `hard:500`. The number of
entrants is the number of players. The progress bar goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from services.ai.players.levels import UnknownLevelError, parse_spec
from services.ai.tournament import entrant_names, run, summarise, tasks


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="metro arena", description=__doc__.split("\n\n")[0])
    p.add_argument("entrants", nargs="+", help="levels, one per seat (2-6), e.g. hard greedy")
    p.add_argument("--games", type=int, default=20, help="games to play (rounded up to whole "
                   "seat rotations; default 20)")  # fmt: skip
    p.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default: up to 2)")  # fmt: skip
    p.add_argument("--rotation", action="store_true", help="rotation variant")
    p.add_argument("--hand-size", type=int, default=1, choices=(1, 2, 3))
    p.add_argument("--online", action="store_true", help="online (Hungarian) variant")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-': stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p.parse_args(list(argv))


class ProgressBar:
    """One self-rewriting line on stderr: games done, the leader's win rate, time left."""

    def __init__(self, names: list[str], stream: TextIO | None = None, width: int = 30) -> None:
        self.names = names
        self.stream = stream or sys.stderr
        self.width = width
        self.start = time.monotonic()

    def __call__(self, done: int, total: int, results: list[dict[str, Any]]) -> None:
        filled = self.width * done // total
        elapsed = time.monotonic() - self.start
        left = elapsed / done * (total - done)
        wins = [0.0] * len(self.names)
        for r in results:
            for k in r["winners"]:
                wins[r["entrants"][k]] += 1 / len(r["winners"])
        rates = " ".join(f"{n} {w / done:.0%}" for n, w in zip(self.names, wins, strict=True))
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} games | {rates} | "
            f"{elapsed:.0f}s, ~{left:.0f}s left "
        )
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def table(rows: list[dict[str, Any]]) -> str:
    head = ("entrant", "games", "wins", "win %", "95% CI", "mean score", "margin", "ms/move")
    lines = [
        (
            r["entrant"],
            str(r["games"]),
            f"{r['wins']:g}",
            f"{100 * r['win_rate']:.1f}",
            f"{100 * r['win_ci95'][0]:.1f}-{100 * r['win_ci95'][1]:.1f}",
            f"{r['mean_score']:.1f} ± {r['score_ci95']:.1f}",
            f"{r['mean_margin']:+.1f}",
            f"{r['ms_per_move']:.1f}",
        )
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *lines, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join(fmt.format(*row) for row in (head, *lines))


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if not 2 <= len(args.entrants) <= 6:
        print("metro arena: give 2-6 entrants (one per seat)", file=sys.stderr)
        return 2
    try:
        for spec in args.entrants:
            parse_spec(spec)
    except UnknownLevelError as e:
        print(f"metro arena: {e}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("metro arena: --games must be at least 1", file=sys.stderr)
        return 2
    rules = {
        "players": len(args.entrants),
        "rotation": args.rotation,
        "hand_size": args.hand_size,
        "online": args.online,
    }
    names = entrant_names(args.entrants)
    todo = tasks(args.entrants, rules, args.games, args.seed)
    started = time.monotonic()
    results = run(todo, args.jobs, None if args.quiet else ProgressBar(names))
    rows = summarise(args.entrants, results)
    report = {
        "rules": rules,
        "seed": args.seed,
        "games": len(results),
        "jobs": args.jobs,
        "elapsed_s": round(time.monotonic() - started, 1),
        "entrants": rows,
        "results": results,
    }
    if args.json == "-":
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(table(rows))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
    return 0
