"""Metro X against the limit (issue 22.4): how close each AI level comes, in solo games, to the
score of a planner that knows the whole card sequence. Prints one JSON object. Not a test.

    nice -n 10 .venv/bin/python bench/metrox_planner.py --decks 16 --levels medium,hard
    nice -n 10 .venv/bin/python bench/metrox_planner.py --decks 8 --levels "" --check

A solo game's card sequence is fixed by its seed (every shuffle is a pure function of the
game's source, never of the moves), so with the deck known the game is a deterministic planning
problem. The planner is a beam search over whole turns: a node is a sheet (filled stations,
windows used per line, transfer points so far); nodes with the same filled stations and windows
are merged keeping the best transfer points (the rest of the game depends on nothing else), and
each turn keeps the `beam` best by a look-ahead score (the score now, plus a share of the bonus
of every line that can still be completed). Its best plan is replayed through the real rules
(MetroXState) and must give the same score. The best plan found is a lower bound on the deck's
optimum and, in practice, an upper bound on what a player who does not know the deck reaches:
`--check` doubles the beam until the bound stops rising on the decks, and reports every step.

Per level: mean share of the bound (score / bound, per deck), mean points short, transfers per
game by the number they wrote (0: played on a line whose stations were all filled already), and
the thinking time per move.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.metrox_exact import bound_deck, solo_cards
from games.metrox import maps
from games.metrox.cards import FREE, INFO
from games.metrox.maps import MetroXMap
from games.metrox.plan import SheetPlanner
from games.metrox.state import MetroXState
from services.ai.players import InfoSet, level_for
from services.ai.players.base import derive_seed

DEFAULT_BEAM = 200
CLOSE = (1.0, 0.7, 0.45, 0.25, 0.1)  # beam ranking: share of a line's bonus by stations missing

RANKINGS = ("close", "sheet")
Plan = list[tuple[str, Any]]  # per turn: ("line", index) / ("station", index) / ("pass", None)


class Planner:
    """Beam search over one map's sheets for a known card sequence, from the empty sheet, with
    its plan. The sheet's rules are the AI's planner's (games/metrox/plan.py, which keeps only
    each first move's best); composed, not inherited: that class is compiled."""

    def __init__(self, m: MetroXMap, rank_by: str = "close") -> None:
        self.m = m
        self.sheet = SheetPlanner(m)
        self.rank_by = rank_by
        self.full = self.sheet.full
        self.score = self.sheet.score
        self.line_effect = self.sheet.line_effect
        self.bonus_of = [(m.line_mask[li], m.first_bonus[li]) for li in range(m.line_count)]

    def rank(self, filled: int, lens: tuple[int, ...], tt: int) -> float:
        """How promising a node is: `rank_by` "close" (the score now plus a share of the bonus
        of every line a few stations from complete) or "sheet" (the AI's own expected final
        score of the sheet, games/metrox/evaluate.py)."""
        if self.rank_by == "sheet":
            return self.sheet.rank(filled, lens, tt)
        m = self.m
        value = float(self.score(filled, tt))
        for li, (mask, b) in enumerate(self.bonus_of):
            if filled & mask == mask or lens[li] >= m.windows[li]:
                continue
            missing = (mask & ~filled).bit_count()
            if missing < len(CLOSE):
                value += b * CLOSE[missing]
        return value

    def plan(self, cards: Sequence[str], beam: int) -> tuple[int, Plan]:
        """The best score found and its moves."""
        m = self.m
        start = (0, (0,) * m.line_count)
        layer: dict[tuple[int, tuple[int, ...]], int] = {start: 0}
        parents: list[dict[tuple[int, tuple[int, ...]], tuple[Any, tuple[str, Any]]]] = []
        for code in cards:
            nxt: dict[tuple[int, tuple[int, ...]], int] = {}
            back: dict[tuple[int, tuple[int, ...]], tuple[Any, tuple[str, Any]]] = {}
            free = INFO[code][0] == FREE
            for key, tt in layer.items():
                filled, lens = key
                if free:
                    empty = self.full & ~filled
                    if not empty:
                        options = [((filled, lens), tt, ("pass", None))]
                    else:
                        options = []
                        while empty:
                            low = empty & -empty
                            empty ^= low
                            options.append(
                                ((filled | low, lens), tt, ("station", low.bit_length() - 1))
                            )
                else:
                    options = []
                    for li in range(m.line_count):
                        if lens[li] >= m.windows[li]:
                            continue
                        f2, gain = self.line_effect(filled, li, code)
                        lens2 = (*lens[:li], lens[li] + 1, *lens[li + 1 :])
                        options.append(((f2, lens2), tt + gain, ("line", li)))
                for k2, tt2, move in options:
                    old = nxt.get(k2)
                    if old is None or tt2 > old:
                        nxt[k2] = tt2
                        back[k2] = (key, move)
            if len(nxt) > beam:
                ranked = sorted(nxt, key=lambda k: -self.rank(k[0], k[1], nxt[k]))[:beam]
                nxt = {k: nxt[k] for k in ranked}
            layer = nxt
            parents.append(back)
        best_key = max(layer, key=lambda k: (self.score(k[0], layer[k]), layer[k]))
        best = self.score(best_key[0], layer[best_key])
        moves: Plan = []
        key: Any = best_key
        for back in reversed(parents):
            key, move = back[key]
            moves.append(move)
        moves.reverse()
        return best, moves


def replay_plan(map_id: str, seed: int, plan: Plan) -> MetroXState:
    """The plan played through the real rules (the check that the planner's sheet is right)."""
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    for kind, index in plan:
        if kind == "line":
            move: Any = state.mv.lines[index]
        elif kind == "station":
            move = state.mv.stations[index]
        else:
            move = state.legal_moves(0)[0]
        state.apply(0, move)
    if not state.over:
        raise RuntimeError(f"plan for {map_id}/{seed} ended before the game did")
    return state


def solo_transfers(map_id: str, seed: int, moves: Sequence[Any]) -> list[int]:
    """Replay seat 0's moves and read each transfer's number (0: nothing left to fill)."""
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    out = []
    for move in moves:
        code = state.card
        before = len(state.tnums[0])
        state.apply(0, move)
        if INFO[code][0] == 2:  # type: ignore[index]
            out.append(state.tnums[0][-1][1] if len(state.tnums[0]) > before else 0)
    return out


def plan_deck(job: tuple[str, int, int]) -> dict[str, Any]:
    """The best of two beam searches (two rankings) on one deck, checked by the real rules."""
    map_id, seed, beam = job
    m = maps.get(map_id)
    t0 = time.perf_counter()
    cards = solo_cards(map_id, seed)
    found = {r: Planner(m, r).plan(cards, beam) for r in RANKINGS}
    best, plan = max(found.values(), key=lambda x: x[0])
    elapsed = time.perf_counter() - t0
    state = replay_plan(map_id, seed, plan)
    if state.score(0) != best:
        raise RuntimeError(f"{map_id}/{seed}: planner says {best}, the rules {state.score(0)}")
    moves = [t[0] for t in state.turns]
    return {
        "map": map_id,
        "seed": seed,
        "beam": beam,
        "score": best,
        "by_ranking": {r: found[r][0] for r in RANKINGS},
        "transfers": solo_transfers(map_id, seed, moves),
        "plan_s": round(elapsed, 2),
        "moves": [move.to_json() for move in moves],
    }


def play_deck(job: tuple[str, str, int]) -> dict[str, Any]:
    """One solo game of `level` on the deck: its score, transfers and thinking time."""
    level, map_id, seed = job
    player = level_for(level).make()
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    think, moves = 0.0, []
    while not state.over:
        t0 = time.perf_counter()
        info = InfoSet.from_state(state, 0)
        result = player.search(info, derive_seed(seed, level, len(moves)))
        think += time.perf_counter() - t0
        moves.append(result.best)
        state.apply(0, result.best)
    return {
        "level": level,
        "map": map_id,
        "seed": seed,
        "score": state.score(0),
        "transfers": solo_transfers(map_id, seed, moves),
        "think_s": think,
        "moves": len(moves),
    }


def _pool_map(fn: Any, jobs_list: list[Any], jobs: int) -> list[Any]:
    if jobs <= 1:
        return [fn(j) for j in jobs_list]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return pool.map(fn, jobs_list, chunksize=1)


def transfer_table(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    counts: Counter[int] = Counter(v for r in rows for v in r["transfers"])
    return {str(v): round(counts[v] / len(rows), 2) for v in sorted(counts)}


def summary(rows: Sequence[dict[str, Any]], bound: dict[tuple[str, int], int]) -> dict[str, Any]:
    shares = [r["score"] / bound[r["map"], r["seed"]] for r in rows]
    short = [bound[r["map"], r["seed"]] - r["score"] for r in rows]
    moves = sum(r["moves"] for r in rows)
    paired = list(zip(shares, rows, strict=True))
    return {
        "games": len(rows),
        "mean_share": round(statistics.fmean(shares), 4),
        "share_of_total": round(sum(r["score"] for r in rows) / sum(bound.values()), 4),
        "mean_score": round(statistics.fmean(r["score"] for r in rows), 2),
        "mean_points_short": round(statistics.fmean(short), 2),
        "transfers_per_game_by_value": transfer_table(rows),
        "ms_per_move": round(1000 * sum(r["think_s"] for r in rows) / moves, 1),
        "per_map_share": {
            mp: round(statistics.fmean(s for s, r in paired if r["map"] == mp), 4)
            for mp in sorted({r["map"] for r in rows})
        },
    }


def best_known_summary(
    rows: dict[str, list[dict[str, Any]]],
    bound: dict[tuple[str, int], int],
    exact: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Each level against the best plan known per deck: the planner's, the exact program's
    (`exact`), or any level's game where one scored more (the beam is no proof of the optimum);
    how many games scored above the planner is reported with each level. With `exact`, also
    each level's share of the decks' upper bounds: the optimum lies between the best plan known
    and the upper bound, so a level's share of the optimum lies between its two shares."""
    best = dict(bound)
    if exact:
        for (mp, sd), v in bound.items():
            best[mp, sd] = max(v, exact["decks"][f"{mp}/{sd}"]["score"])
    for level_rows in rows.values():
        for r in level_rows:
            key = (r["map"], r["seed"])
            best[key] = max(best[key], r["score"])
    upper = {k: exact["decks"][f"{k[0]}/{k[1]}"]["upper_bound"] for k in bound} if exact else {}
    if any(best[k] > upper[k] for k in upper):
        raise RuntimeError("a plan scored above its deck's upper bound: the program is wrong")
    out: dict[str, Any] = {}
    for level, level_rows in rows.items():
        above = sum(1 for r in level_rows if r["score"] > bound[r["map"], r["seed"]])
        out[level] = {
            **summary(level_rows, best),
            "share_of_planner": summary(level_rows, bound)["mean_share"],
            "games_above_planner": above,
        }
        if upper:
            of_upper = summary(level_rows, upper)
            out[level]["share_of_upper_bound"] = of_upper["mean_share"]
            out[level]["per_map_share_of_upper_bound"] = of_upper["per_map_share"]
    out["best_known"] = {f"{mp}/{sd}": v for (mp, sd), v in sorted(best.items())}
    if upper:
        out["upper_bound"] = {f"{mp}/{sd}": v for (mp, sd), v in sorted(upper.items())}
        gaps = {k: (upper[k] - best[k]) / upper[k] for k in upper}
        out["best_known_gap"] = {
            "decks_proven_optimal": sum(1 for k in upper if upper[k] == best[k]),
            "mean_gap": round(statistics.fmean(gaps.values()), 4),
            "max_gap": round(max(gaps.values()), 4),
            "per_map_mean_gap": {
                mp: round(statistics.fmean(g for k, g in gaps.items() if k[0] == mp), 4)
                for mp in sorted({k[0] for k in upper})
            },
        }
    return out


def exact_all(
    planner: dict[str, Any],
    limit_s: float,
    jobs: int,
    earlier: dict[str, Any] | None = None,
    known: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Each deck's game as a mixed-integer program (bench/metrox_exact.py), started from the
    best plan known: a plan at least as good, replayed through the rules, and an upper bound.
    With `earlier` (this function's answer from a shorter run), only the decks it left open
    (upper bound above the best score `known`) are solved again, from its plans; each keeps
    the lower of its two upper bounds (both hold)."""
    t0 = time.perf_counter()
    decks: dict[str, dict[str, Any]] = dict(earlier["decks"]) if earlier else {}
    jobs_list = []
    for key, plan in planner["plans"].items():
        old = decks.get(key)
        if old is not None:
            best = max(old["score"], planner["bounds"][key], (known or {}).get(key, 0))
            if old["upper_bound"] <= best:
                continue  # proven optimal already
            plan = old.get("plan", plan)
        jobs_list.append((key.split("/")[0], int(key.split("/")[1]), limit_s, plan))
    for r in _pool_map(bound_deck, jobs_list, jobs):
        key = f"{r['map']}/{r['seed']}"
        row = {k: r[k] for k in ("score", "upper_bound", "optimal", "solve_s", "plan")}
        if key in decks:
            row["upper_bound"] = min(row["upper_bound"], decks[key]["upper_bound"])
            row["solve_s"] += decks[key]["solve_s"]
        decks[key] = row
    return {
        "limit_s": limit_s,
        "decks_solved_again": len(jobs_list) if earlier else None,
        "decks_solved_to_optimality": sum(1 for d in decks.values() if d["optimal"]),
        "decks_above_planner": sum(
            1 for k, d in decks.items() if d["score"] > planner["bounds"][k]
        ),
        "wall_s": round(time.perf_counter() - t0, 1),
        "decks": decks,
    }


def plan_all(decks: Sequence[tuple[str, int]], beam: int, check: bool, jobs: int) -> dict[str, Any]:
    """The planner's bound per deck; with `check`, the beam doubled and what that raised."""
    t0 = time.perf_counter()
    planned = _pool_map(plan_deck, [(mp, s, beam) for mp, s in decks], jobs)
    bound = {f"{r['map']}/{r['seed']}": r["score"] for r in planned}
    out: dict[str, Any] = {
        "beam": beam,
        "rankings": list(RANKINGS),
        "mean_bound": round(statistics.fmean(bound.values()), 2),
        "best_ranking_wins": dict(Counter(_winner(r["by_ranking"]) for r in planned)),
        "transfers_per_game_by_value": transfer_table(planned),
        "s_per_deck": round((time.perf_counter() - t0) / len(decks), 2),
        "bounds": bound,
        "plans": {f"{r['map']}/{r['seed']}": r["moves"] for r in planned},
    }
    if check:
        steps = []
        for factor in (2,):
            wide = [(mp, s, beam * factor) for mp, s in decks]
            wider = _pool_map(plan_deck, wide, jobs)
            diff = [r["score"] - bound[f"{r['map']}/{r['seed']}"] for r in wider]
            steps.append(
                {
                    "beam": beam * factor,
                    "mean_bound": round(statistics.fmean(r["score"] for r in wider), 2),
                    "decks_raised": sum(1 for d in diff if d > 0),
                    "decks_lowered": sum(1 for d in diff if d < 0),
                    "points_raised": sum(d for d in diff if d > 0),
                }
            )
        out["check"] = steps
    return out


def _winner(by: dict[str, int]) -> str:
    top = max(by.values())
    names = [r for r, v in by.items() if v == top]
    return names[0] if len(names) == 1 else "tie"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--maps", default="lakeside,kessel")
    parser.add_argument("--decks", type=int, default=16, help="decks per map (seeds 1..N)")
    parser.add_argument(
        "--first-seed", type=int, default=1, help="the decks' first seed (decks kept apart)"
    )
    parser.add_argument("--beam", type=int, default=DEFAULT_BEAM)
    parser.add_argument("--check", action="store_true", help="also plan with twice the beam")
    parser.add_argument("--levels", default="medium,hard", help="comma-separated; '' for none")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--exact",
        type=float,
        default=0,
        help="seconds per deck for the exact program (bench/metrox_exact.py): its plans join "
        "the best known and its upper bounds give each level's gap; with --bounds, the decks "
        "that run left open are solved again for this long; 0 for none",
    )
    parser.add_argument("--out", type=Path, help="also write the JSON here (after every part)")
    parser.add_argument(
        "--bounds",
        type=Path,
        help="take the bounds from an earlier --out JSON (read after the games are played)",
    )
    args = parser.parse_args()
    map_ids = [x for x in args.maps.split(",") if x]
    seeds = range(args.first_seed, args.first_seed + args.decks)
    decks = [(mp, seed) for mp in map_ids for seed in seeds]
    levels = [x for x in args.levels.split(",") if x]
    for level in levels:
        level_for(level)  # an unknown level fails before any game
    out: dict[str, Any] = {
        "bench": "metrox_planner",
        "python": platform.python_version(),
        "maps": map_ids,
        "decks": len(decks),
        "load_avg_start": [round(x, 2) for x in os.getloadavg()],
    }

    def save() -> None:
        out["load_avg_now"] = [round(x, 2) for x in os.getloadavg()]
        if args.out:
            args.out.write_text(json.dumps(out, indent=1))

    if not args.bounds:
        out["planner"] = plan_all(decks, args.beam, args.check, args.jobs)
        save()
        if args.exact:
            out["exact"] = exact_all(out["planner"], args.exact, args.jobs)
            save()
    rows: dict[str, list[dict[str, Any]]] = {}
    for level in levels:
        t1 = time.perf_counter()
        rows[level] = _pool_map(play_deck, [(level, mp, s) for mp, s in decks], args.jobs)
        out.setdefault("games", {})[level] = {
            "wall_s": round(time.perf_counter() - t1, 1),
            "rows": rows[level],
        }
        save()
    if args.bounds:
        while not args.bounds.exists():  # a planner run still under way writes it
            time.sleep(10)
        earlier = json.loads(args.bounds.read_text())
        out["planner"] = {**earlier["planner"], "bounds_from": str(args.bounds)}
        if "exact" in earlier:
            out["exact"] = earlier["exact"]
        if args.exact:  # the decks the earlier run left open, solved again for longer
            known: dict[str, int] = {}  # the levels' best game per deck
            for r in (r for level_rows in rows.values() for r in level_rows):
                key = f"{r['map']}/{r['seed']}"
                known[key] = max(known.get(key, 0), r["score"])
            out["exact"] = exact_all(out["planner"], args.exact, args.jobs, out.get("exact"), known)
    bounds = out["planner"]["bounds"]
    bound = {(mp, s): bounds[f"{mp}/{s}"] for mp, s in decks}
    out["levels"] = best_known_summary(rows, bound, out.get("exact"))
    save()
    shown = {k: v for k, v in out.items() if k != "games"}
    shown["planner"] = {k: v for k, v in out["planner"].items() if k != "plans"}
    if "exact" in out:
        shown["exact"] = {
            **out["exact"],
            "decks": {
                k: {f: v for f, v in d.items() if f != "plan"}
                for k, d in out["exact"]["decks"].items()
            },
        }
    print(json.dumps(shown))


if __name__ == "__main__":
    main()
