"""An upper bound on a solo Metro X deck's optimum (issue 34 item 3): the game as a mixed-integer
program, solved by HiGHS. Not a test; bench/metrox_planner.py reports its `--exact` column.

    .venv/bin/python bench/metrox_exact.py lakeside 102 --limit 120

A solo deck's cards are fixed by its seed (RULES-METROX.md §2: shuffles never depend on the
moves), and the game lasts until the sheet's last window is used, so the turns are known too.
The program is then the whole game, turn by turn, with every rule of §3-§5 as constraints:

- `filled[t][s]`: station s is filled after turn t (never emptied: each turn adds its fills);
- a window card picks one line (`on[t][l]`), and every line gets exactly its windows;
- `new[t][l][i]`: the card of turn t fills the line's i-th station. It may only if the stations
  before it on the line are filled after the move (each card starts at the line's first empty
  station); a number card fills one unbroken run (one `start`), at most n stations, and goes on
  until n, the end of the line or a filled station; a skip fills every empty station in line
  order until it has n; a transfer fills the first empty station and writes 2 x its degree;
- a free card fills one empty station, and must while one is empty;
- the score: the first bonus of every complete line, the transfer numbers, minus the penalty
  (e for e <= 10 empty stations, then 2 per station: max(e, 2e - 10), a convex function).

Every legal plan is a solution with its own score and every solution is a legal plan (a plan
read back from the solution is replayed through MetroXState, which must give the program's
score), so the solver's best solution is a plan and its dual bound, at any time limit, an upper
bound on every plan's score: the deck's optimum lies between the two.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import highspy

from games.metrox import maps
from games.metrox.cards import FREE, INFO, NUMBER, SKIP, TRANSFER
from games.metrox.maps import MetroXMap
from games.metrox.state import MetroXState

FEASIBLE = int(highspy.SolutionStatus.kSolutionStatusFeasible)
Expr = Any  # a HiGHS variable, a linear expression of them, or an int (a fixed value)


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """File descriptor 1 sent to /dev/null meanwhile (the C++ library writes there itself)."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def solo_cards(map_id: str, seed: int) -> list[str]:
    """Every card a solo game with this seed reveals, in order (moves never change them)."""
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    while not state.over:
        state.apply(0, state.legal_moves(0)[0])
    return list(state.cards)


class DeckProgram:
    """One deck's game as a mixed-integer program (the module's docstring says which)."""

    def __init__(self, m: MetroXMap, cards: list[str]) -> None:
        self.m = m
        self.cards = cards
        with _quiet_stdout():  # HiGHS greets on stdout; a bench prints one JSON object there
            self.h = highspy.Highs()
        self.h.silent()
        # One thread a deck (benches run decks in parallel jobs); HiGHS takes the thread count
        # only before its first solve.
        self._option("threads", 1)
        self.lines = [list(m.line_stations[li]) for li in range(m.line_count)]
        self.on: dict[int, list[Any]] = {}  # turn of a window card -> its line choice
        self.free: dict[int, list[Any]] = {}  # turn of a free card -> its station choice
        self.points: list[Expr] = []  # what transfer cards write
        filled: list[Expr] = [0] * m.station_count
        before = [[0] * len(st) for st in self.lines]  # a line's stations 0..i all filled
        for t, code in enumerate(cards):
            kind, n, _ = INFO[code]
            now = self._binaries(m.station_count)
            after = [self._prefix(stations, now) for stations in self.lines]
            if kind == FREE:
                fills = self._free_card(t, filled)
            else:
                fills = self._window_card(t, kind, n, filled, before, after)
            for s in range(m.station_count):
                self.h.addConstr(now[s] == filled[s] + fills[s])
            filled, before = now, after
        self.filled = filled
        # Set once: changing the objective later would drop a starting solution.
        self.h.setObjective(self._score(filled), highspy.ObjSense.kMaximize)

    def _option(self, name: str, value: Any) -> None:
        if self.h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise RuntimeError(f"HiGHS refused option {name}={value!r}")

    def _binaries(self, count: int) -> list[Any]:
        return [self.h.addBinary() for _ in range(count)]

    def _prefix(self, stations: list[int], filled: list[Any]) -> list[Any]:
        """`prefix[i]`: the line's stations 0..i are all filled (exactly: an AND)."""
        h = self.h
        prefix = self._binaries(len(stations))
        for i, s in enumerate(stations):
            h.addConstr(prefix[i] <= filled[s])
            if i:
                h.addConstr(prefix[i] <= prefix[i - 1])
            h.addConstr(prefix[i] >= (prefix[i - 1] if i else 1) + filled[s] - 1)
        return prefix

    def _free_card(self, t: int, filled: list[Expr]) -> list[Expr]:
        h = self.h
        pick = self._binaries(self.m.station_count)
        self.free[t] = pick
        chosen = sum(pick)
        h.addConstr(chosen <= 1)
        for s, was in enumerate(filled):
            if not isinstance(was, int):
                h.addConstr(pick[s] + was <= 1)
            h.addConstr(chosen >= 1 - was)  # a station is empty: one is filled
        return list(pick)

    def _window_card(
        self,
        t: int,
        kind: int,
        n: int,
        filled: list[Expr],
        before: list[list[Expr]],
        after: list[list[Any]],
    ) -> list[Expr]:
        """The fills of a number, skip or transfer card. `before[l][i]` / `after[l][i]`: the
        line's stations 0..i are all filled before / after the turn."""
        h = self.h
        on = self._binaries(self.m.line_count)
        self.on[t] = on
        h.addConstr(sum(on) == 1)
        fills: list[Expr] = [0] * self.m.station_count
        for li, stations in enumerate(self.lines):
            k = len(stations)
            new = self._binaries(k)
            was = [filled[s] for s in stations]
            ahead = [1, *before[li][:-1]]  # every station before i is filled before the move
            for i in range(k):
                h.addConstr(new[i] <= on[li])
                if not isinstance(was[i], int):
                    h.addConstr(new[i] + was[i] <= 1)
                if i:
                    h.addConstr(new[i] <= after[li][i - 1])  # from the first empty station on
                fills[stations[i]] = fills[stations[i]] + new[i]
            cap = 1 if kind == TRANSFER else n
            h.addConstr(sum(new) <= cap * on[li])
            if kind in (NUMBER, TRANSFER):
                for i in range(k):  # the first empty station is filled
                    if not (isinstance(ahead[i], int) and ahead[i] == 0):
                        h.addConstr(new[i] >= on[li] + ahead[i] - was[i] - 1)
            if kind == NUMBER:
                start = self._binaries(k)
                h.addConstr(sum(start) <= on[li])
                for i in range(k):  # one unbroken run
                    h.addConstr(new[i] <= (new[i - 1] if i else 0) + start[i])
                for i in range(k - 1):  # ... that goes on until n, a filled station or the end
                    done = h.addBinary()
                    h.addConstr(n * done <= sum(new[: i + 1]))
                    h.addConstr(new[i + 1] >= new[i] - was[i + 1] - done)
            elif kind == SKIP:
                for i in range(k):  # every empty station in line order until n are filled
                    if i == 0:
                        h.addConstr(new[0] >= on[li] - was[0])
                        continue
                    done = h.addBinary()
                    h.addConstr(n * done <= sum(new[:i]))
                    h.addConstr(new[i] >= on[li] - was[i] - done)
            elif kind == TRANSFER:
                self.points += [2 * self.m.degree[s] * new[i] for i, s in enumerate(stations)]
        return fills

    def _score(self, filled: list[Expr]) -> Expr:
        h, m = self.h, self.m
        for li in range(m.line_count):
            h.addConstr(sum(self.on[t][li] for t in self.on) == m.windows[li])
        bonus: Expr = 0
        for li, stations in enumerate(self.lines):
            complete = h.addBinary()
            for s in stations:
                h.addConstr(complete <= filled[s])
            bonus = bonus + m.first_bonus[li] * complete
        empty = m.station_count - sum(filled)
        penalty = h.addVariable(lb=0)
        h.addConstr(penalty >= empty)
        h.addConstr(penalty >= 2 * empty - 10)
        return bonus + sum(self.points) - penalty

    def _choices(self, moves: list[Any] | None) -> None:
        """Fix every turn's choice to `moves` (record moves), or free them all (None)."""
        m, h = self.m, self.h
        for t in range(len(self.cards)):
            chosen = None if moves is None else moves[t]
            if t in self.on:
                options, key, ids = self.on[t], "line", m.line_ids
            else:
                options, key, ids = self.free[t], "station", m.station_ids
            for j, var in enumerate(options):
                if chosen is None:
                    h.changeColBounds(var.index, 0, 1)
                else:
                    v = 1 if chosen.get(key) == ids[j] else 0
                    h.changeColBounds(var.index, v, v)

    def value_of(self, moves: list[Any]) -> tuple[int, Any] | None:
        """The program's score of one plan with every choice fixed, and the whole solution;
        None when the program has no such solution (an illegal plan)."""
        h = self.h
        self._choices(moves)
        try:
            h.solve()
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                return None
            return round(h.getInfo().objective_function_value), h.getSolution()
        finally:
            self._choices(None)

    def solve(self, limit_s: float, start: list[Any] | None = None) -> dict[str, Any]:
        """Solve within `limit_s` seconds, from the plan `start` when given (the solver then
        knows a good solution from the outset and prunes with it): the best plan found and
        the upper bound."""
        h = self.h
        if start is not None:
            known = self.value_of(start)
            if known is None:
                raise ValueError("the starting plan is not a legal plan of this deck")
            h.setSolution(known[1])
        self._option("time_limit", float(limit_s))
        t0 = time.perf_counter()
        h.solve()
        info = h.getInfo()
        found = info.primal_solution_status == FEASIBLE  # none yet in a short run without start
        bound = min(info.mip_dual_bound, 1e9)  # infinite while presolve has not finished
        return {
            "score": round(info.objective_function_value) if found else None,
            "upper_bound": min(self.simple_bound(), int(bound + 1e-6)),  # scores are integers
            "optimal": h.getModelStatus() == highspy.HighsModelStatus.kOptimal,
            "solve_s": round(time.perf_counter() - t0, 1),
            "plan": self.plan() if found else None,
        }

    def simple_bound(self) -> int:
        """A bound that needs no solver: every line's first bonus, and each transfer card on
        its own station of the highest degrees left, with no station empty."""
        kinds = [INFO[code][0] for code in self.cards]
        degrees = sorted(self.m.degree, reverse=True)[: kinds.count(TRANSFER)]
        return sum(self.m.first_bonus) + sum(2 * d for d in degrees)

    def plan(self) -> list[Any]:
        """The solution's moves, as records write them."""
        m, h = self.m, self.h
        moves: list[Any] = []
        for t in range(len(self.cards)):
            if t in self.on:
                li = max(range(m.line_count), key=lambda li: h.val(self.on[t][li]))
                moves.append({"line": m.line_ids[li]})
            else:
                picked = [s for s in range(m.station_count) if h.val(self.free[t][s]) > 0.5]
                moves.append({"station": m.station_ids[picked[0]]} if picked else {"pass": True})
        return moves


def replay(map_id: str, seed: int, moves: list[Any]) -> int:
    """A plan's score by the real rules (each move through the checked door: a move the rules
    refuse raises)."""
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    for move in moves:
        state.apply(0, state.check(0, move))
    if not state.over:
        raise RuntimeError(f"the plan for {map_id}/{seed} ends before the game")
    return state.score(0)


def bound_deck(job: tuple[str, int, float, list[Any] | None]) -> dict[str, Any]:
    """One deck: the program's best plan (checked by the rules) and its upper bound, starting
    from a known plan when one is given."""
    map_id, seed, limit_s, start = job
    t0 = time.perf_counter()
    program = DeckProgram(maps.get(map_id), solo_cards(map_id, seed))
    built = time.perf_counter() - t0
    out = program.solve(limit_s, start)
    rules = None if out["plan"] is None else replay(map_id, seed, out["plan"])
    if rules != out["score"]:
        raise RuntimeError(f"{map_id}/{seed}: the program says {out['score']}, the rules {rules}")
    return {"map": map_id, "seed": seed, **out, "build_s": round(built, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("map")
    parser.add_argument("seed", type=int)
    parser.add_argument("--limit", type=float, default=120, help="seconds for the solver")
    args = parser.parse_args()
    row = bound_deck((args.map, args.seed, args.limit, None))
    print(json.dumps({k: v for k, v in row.items() if k != "plan"}))


if __name__ == "__main__":
    main()
