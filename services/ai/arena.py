"""`metro arena`: AI tournaments on seeded games of any kind, with a progress bar, a table and JSON.

    metro arena hard medium --games 200 --jobs 2 --json out.json
    metro arena medium random easy --hand-size 2 --games 30
    metro arena hard medium random --game <kind> --players 1 --games 40
    metro arena expert hard --sprt --tc 0.1 --games 400

`--sprt`: a sequential test that the first of two entrants is stronger (services/ai/sprt.py:
H0 it wins 50%, H1 it wins --h1, default 60%, alpha = beta = 0.05), played deal by deal from both
seats until one hypothesis is accepted or --games (the cap) are played; it prints the decision,
the games, the first entrant's win rate with its Wilson 95% interval, and the time spent.
`--tc F` scales every timed entrant's budget by F (a short time control: hard's 700 ms at 0.1
is 70 ms); say the factor when quoting a result.

Entrants are levels (docs/ai.md), optionally with a time budget: `hard:500`. The number of
entrants is the number of players; with `--players 1` (and for a game only played alone) every
entrant plays every deal alone and the table compares mean scores. The game's own options are
flags (`--game <kind> --help` lists them). The progress bar goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import games
from games.base import Game
from games.errors import GameError
from services.ai.players.levels import UnknownLevelError, parse_spec
from services.ai.sprt import H0_ACCEPTED, H1_ACCEPTED, UNDECIDED, Sprt
from services.ai.tournament import (
    entrant_names,
    run,
    scale_spec,
    score_of,
    summarise,
    tasks,
    wilson,
)


def _pick_game(argv: Sequence[str]) -> Game:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default="")
    known, _ = pre.parse_known_args(list(argv))
    return games.get(known.game) if known.game else games.default()


def parse_args(argv: Sequence[str], game: Game) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="metro arena", description=__doc__.split("\n\n")[0])
    p.add_argument("entrants", nargs="+", help="levels, one per seat, e.g. hard medium")
    p.add_argument("--game", default=game.kind, choices=games.kinds(),
                   help=f"the game (default {games.default().kind})")  # fmt: skip
    p.add_argument("--players", type=int, default=0, help="seats: the number of entrants "
                   "(default), or 1: every entrant plays every deal alone")  # fmt: skip
    p.add_argument("--games", type=int, default=None, help="games to play (rounded up to whole "
                   "seat rotations; default 20), or with --sprt the cap (default 400)")  # fmt: skip
    p.add_argument("--sprt", action="store_true", help="sequential test: is the first of two "
                   "entrants stronger? Stops as soon as it is decided")  # fmt: skip
    p.add_argument("--h0", type=float, default=0.5, help="SPRT H0 win rate (default 0.5)")
    p.add_argument("--h1", type=float, default=0.6, help="SPRT H1 win rate (default 0.6)")
    p.add_argument("--alpha", type=float, default=0.05, help="SPRT false positive rate")
    p.add_argument("--beta", type=float, default=0.05, help="SPRT false negative rate")
    p.add_argument("--time-limit-s", type=float, default=None, help="stop after this long "
                   "with the games played by then (an SPRT then says 'no decision')")  # fmt: skip
    p.add_argument("--tc", type=float, default=1.0, metavar="FACTOR", help="scale every timed "
                   "entrant's budget by FACTOR (a short time control; default 1)")  # fmt: skip
    p.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default: up to 2)")  # fmt: skip
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-': stdout)")
    p.add_argument("--resume", metavar="FILE", help="go on from an earlier run's --json (the "
                   "same entrants, game, rules, seed and --tc): its whole deals count, play "
                   "starts at the next deal and a test continues where it stopped")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    options = p.add_argument_group(f"{game.name} options")
    for opt in game.options:
        if opt.name == "players":
            continue
        flag = "--" + opt.name.replace("_", "-")
        text = f"{opt.label}: {opt.help}" if opt.help else opt.label
        if opt.kind == "bool":
            options.add_argument(flag, dest=opt.name, action=argparse.BooleanOptionalAction,
                                 default=None, help=text)  # fmt: skip
        elif opt.kind == "choice":
            values = [v for v, _ in opt.choices]
            options.add_argument(flag, dest=opt.name, type=type(opt.default), choices=values,
                                 default=None, help=text)  # fmt: skip
        else:
            options.add_argument(flag, dest=opt.name, type=int, default=None, help=text)
    args = p.parse_args(list(argv))
    if args.games is None:
        args.games = 400 if args.sprt else 20
    args.rules = {
        opt.name: getattr(args, opt.name)
        for opt in game.options
        if opt.name != "players" and getattr(args, opt.name) is not None
    }
    return args


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
        scores: list[list[float]] = [[] for _ in self.names]
        for r in results:
            for k in r["winners"]:
                wins[r["entrants"][k]] += 1 / len(r["winners"])
            for seat, e in enumerate(r["entrants"]):
                scores[e].append(r["scores"][seat])
        if all(len(r["scores"]) == 1 for r in results):  # solo: mean scores
            rates = " ".join(
                f"{n} {sum(s) / len(s):.1f}" if s else f"{n} -"
                for n, s in zip(self.names, scores, strict=True)
            )
        else:
            rates = " ".join(f"{n} {w / done:.0%}" for n, w in zip(self.names, wins, strict=True))
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} games | {rates} | "
            f"{elapsed:.0f}s, ~{left:.0f}s left "
        )
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def table(rows: list[dict[str, Any]]) -> str:
    solo = bool(rows) and "wins" not in rows[0]
    if solo:
        head: tuple[str, ...] = ("entrant", "games", "mean score", "ms/move", "p95 ms")
    else:
        head = (
            "entrant",
            "games",
            "wins",
            "win %",
            "95% CI",
            "mean score",
            "margin",
            "ms/move",
            "p95 ms",
        )
    lines: list[tuple[str, ...]] = []
    for r in rows:
        score = f"{r['mean_score']:.1f} ± {r['score_ci95']:.1f}"
        if solo:
            lines.append(
                (
                    r["entrant"],
                    str(r["games"]),
                    score,
                    f"{r['ms_per_move']:.1f}",
                    f"{r['p95_ms']:.0f}",
                )
            )
            continue
        lines.append(
            (
                r["entrant"],
                str(r["games"]),
                f"{r['wins']:g}",
                f"{100 * r['win_rate']:.1f}",
                f"{100 * r['win_ci95'][0]:.1f}-{100 * r['win_ci95'][1]:.1f}",
                score,
                f"{r['mean_margin']:+.1f}",
                f"{r['ms_per_move']:.1f}",
                f"{r['p95_ms']:.0f}",
            )
        )
    widths = [max(len(x) for x in col) for col in zip(head, *lines, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join(fmt.format(*row) for row in (head, *lines))


def resumed(
    path: str, header: dict[str, Any], names: list[str], seats: int
) -> tuple[list[dict[str, Any]], float]:
    """An earlier run's whole deals and its time, from its --json; ValueError when it was not
    the same match (entrants, game, rules, seed, time control), so two matches never mix."""
    with open(path) as f:
        earlier = json.load(f)
    for key, value in header.items():
        if earlier.get(key) != value:
            raise ValueError(f"{path} has {key} {earlier.get(key)!r}, this run {value!r}")
    theirs = [row.get("entrant") for row in earlier.get("entrants", [])]
    if theirs != names:
        raise ValueError(f"{path} has the entrants {theirs}, this run {names}")
    results = earlier.get("results", [])
    whole = len(results) - len(results) % seats  # a deal cut by a time limit is played again
    prior = sorted(results, key=lambda r: (r["deal"], r["rotation"]))[:whole]
    expected = [(d, r) for d in range(whole // seats) for r in range(seats)]
    if [(r["deal"], r["rotation"]) for r in prior] != expected:
        raise ValueError(f"{path} does not hold the first {whole // seats} deals in order")
    return prior, float(earlier.get("elapsed_s", 0.0))  # all the time it took, cut deal too


def _with_prior(
    bar: ProgressBar | None, prior: list[dict[str, Any]]
) -> Callable[[int, int, list[dict[str, Any]]], None] | None:
    """The progress bar counting an earlier run's games too."""
    if bar is None or not prior:
        return bar
    return lambda done, total, new: bar(len(prior) + done, len(prior) + total, prior + new)


def _stopper(test: Sprt, seats: int) -> Callable[[list[dict[str, Any]]], bool]:
    """Whether a sequential test is decided, looked at after each whole deal (every seat
    rotation played), so both entrants have had the same luck."""

    def decided(results: list[dict[str, Any]]) -> bool:
        if len(results) % seats:
            return False
        return test.decide(test.llr(score_of(0, r) for r in results)) != UNDECIDED

    return decided


def sprt_report(
    test: Sprt, names: list[str], results: list[dict[str, Any]], elapsed_s: float
) -> dict[str, Any]:
    """The test's outcome: decision, games, the first entrant's win rate and interval, time."""
    scores = [score_of(0, r) for r in results]
    llr = test.llr(scores)
    wins = sum(scores)
    low, high = wilson(wins, len(scores))
    return {
        "candidate": names[0],
        "baseline": names[1],
        "h0": test.p0,
        "h1": test.p1,
        "alpha": test.alpha,
        "beta": test.beta,
        "decision": test.decide(llr),
        "llr": round(llr, 3),
        "bounds": [round(b, 3) for b in test.bounds],
        "games": len(scores),
        "wins": round(wins, 2),
        "win_rate": round(wins / len(scores), 4) if scores else 0.0,
        "win_ci95": [round(low, 4), round(high, 4)],
        "elapsed_s": elapsed_s,
    }


def sprt_line(s: dict[str, Any]) -> str:
    """The decision in words, for the terminal."""
    verdict = {
        H1_ACCEPTED: f"H1 accepted: {s['candidate']} is stronger than {s['baseline']}",
        H0_ACCEPTED: f"H0 accepted: {s['candidate']} is not stronger than {s['baseline']} "
        f"by the margin",
        UNDECIDED: "no decision: the game cap or the time limit came first",
    }[s["decision"]]
    low, high = s["win_ci95"]
    return (
        f"SPRT (H0 {s['h0']:.0%}, H1 {s['h1']:.0%}, alpha {s['alpha']}, beta {s['beta']}): "
        f"{verdict}; {s['games']} games, {s['candidate']} won {s['wins']:g} "
        f"({s['win_rate']:.1%}, 95% CI {low:.1%}-{high:.1%}), LLR {s['llr']:+.2f} in "
        f"[{s['bounds'][0]:+.2f}, {s['bounds'][1]:+.2f}], {s['elapsed_s']:.0f} s"
    )


def main(argv: Sequence[str]) -> int:
    try:
        game = _pick_game(argv)
    except GameError as e:
        print(f"metro arena: {e}", file=sys.stderr)
        return 2
    args = parse_args(argv, game)
    low, high = game.players
    solo = args.players == 1 or high == 1
    n = 1 if solo else (args.players or len(args.entrants))
    if solo and low > 1:
        print(f"metro arena: {game.name} needs {low}-{high} players", file=sys.stderr)
        return 2
    if not solo and (n != len(args.entrants) or not low <= n <= high):
        print(f"metro arena: give {max(2, low)}-{high} entrants for {game.name} (one per seat), "
              "or --players 1 to compare entrants playing alone", file=sys.stderr)  # fmt: skip
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
    if not 0.001 <= args.tc <= 100:
        print("metro arena: --tc must lie between 0.001 and 100", file=sys.stderr)
        return 2
    test = None
    if args.sprt:
        if solo or len(args.entrants) != 2:
            print("metro arena: --sprt compares exactly two entrants, one per seat",
                  file=sys.stderr)  # fmt: skip
            return 2
        try:
            test = Sprt(args.h0, args.h1, args.alpha, args.beta)
        except ValueError as e:
            print(f"metro arena: --sprt: {e}", file=sys.stderr)
            return 2
    specs = [scale_spec(spec, args.tc) for spec in args.entrants]
    try:
        rules = game.normalise_rules({**args.rules, "players": n})
    except GameError as e:
        print(f"metro arena: {e}", file=sys.stderr)
        return 2
    names = entrant_names(specs)
    todo = tasks(specs, rules, args.games, args.seed, game=game.kind, solo=solo)
    header = {"game": game.kind, "rules": rules, "solo": solo, "seed": args.seed, "tc": args.tc}
    prior: list[dict[str, Any]] = []
    prior_s = 0.0
    if args.resume:
        try:
            prior, prior_s = resumed(args.resume, header, names, len(specs))
        except (OSError, ValueError) as e:
            print(f"metro arena: --resume: {e}", file=sys.stderr)
            return 2
    started = time.monotonic()
    stop = None if test is None else _stopper(test, len(specs))
    bar = None if args.quiet else ProgressBar(names)
    results = prior + run(
        todo[len(prior) :], args.jobs, _with_prior(bar, prior), time_limit_s=args.time_limit_s,
        stop=None if stop is None else (lambda new: stop(prior + new)),
    )  # fmt: skip
    rows = summarise(specs, results)
    report = {
        **header,
        "games": len(results),
        "jobs": args.jobs,
        "elapsed_s": round(prior_s + time.monotonic() - started, 1),
        "entrants": rows,
        "results": results,
    }
    if test is not None:
        report["sprt"] = sprt_report(test, names, results, report["elapsed_s"])
    if args.json == "-":
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(table(rows))
        if test is not None:
            print(sprt_line(report["sprt"]))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
    return 0
