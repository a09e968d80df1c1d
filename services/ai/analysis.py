"""Post-game analysis of one finished record (pure code: no I/O, no engine, no Redis).

Each decision of the record (`Game.replay_steps`) is judged from what its seat could see then:
its view of the position before the move (`state.view(seat)`, the same projection the hints
read), the game's sampler dealing every hidden thing anew (never the record's true tiles, deck
or other seats' pending choices), and a search of a FIXED number of iterations seeded from
(game_id, index), so the same record analysed twice gives the same figures on any machine.

The search is the hints' ISMCTS, with the move played forced into the root's first candidates
(so its value is a searched one, never greedy's guess); `value` is the expected final margin
after the played move, `best_value` that of the search's choice (the most visited move), and
`loss = max(0, best_value - value)`, in the game's own points. Labels come from the loss as a
share of what is at stake in that game: the winner's final score (at least STAKE_FLOOR points),
so one rule fits a Metro game of 150 points and a Metro X sheet of 60.

Time: a game's analysis is bounded by `game_budget_s` (issue 34: an Underground game, whose
rollouts cost ~10x Metro's, took 7.6 minutes at 800 iterations a decision). What is left of it is
split evenly over the decisions still to judge (a forced decision searches nothing and leaves its
share to the others); a search stops at its share, but never before `min_iterations` (nor after
`iterations`). Each move says how many iterations it got. Fixed-iteration runs (no budget) stay
reproducible on any machine; with ample time the figures are exactly those.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import games
from services.ai.players import InfoSet
from services.ai.players.base import derive_seed
from services.ai.players.ismcts import DEFAULT_PARAMS, _ranking, _Search
from services.ai.players.simple import greedy_values

LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
STAKE_FLOOR = 20.0  # points: the smallest stake the shares below are taken of


@dataclass(frozen=True, slots=True)
class AnalysisParams:
    """The fixed budget and the label thresholds (shares of the game's stake; a loss above
    `mistake` is a blunder). Part of every result, so a reader knows what the labels mean."""

    iterations: int = 800
    game_budget_s: float = 40.0  # a whole game's analysis on this machine (at most ~60 s)
    min_iterations: int = 40  # no decision gets fewer, whatever the budget
    good: float = 0.02
    inaccuracy: float = 0.05
    mistake: float = 0.10

    def thresholds(self, stake: float) -> dict[str, float]:
        """The largest loss (points) of each label but the last, for a game worth `stake`."""
        return {
            "good": round(self.good * stake, 2),
            "inaccuracy": round(self.inaccuracy * stake, 2),
            "mistake": round(self.mistake * stake, 2),
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision to judge: where it is in the record, whose it was, what was played, and
    what that seat could see then (its view: nothing hidden from it reaches the search)."""

    index: int  # 0.. over every decision of the record
    entry: int  # the record's entry (move or turn) it belongs to: the replay's position
    seat: int
    move: dict[str, Any]
    view: Mapping[str, Any]


def decisions(
    record: Mapping[str, Any], start: int = 0, stop: int | None = None
) -> Iterator[Decision]:
    """The decisions `start`..`stop` of a finished record (all by default), in order; those
    before `start` are only replayed (no view is built for them)."""
    game = games.get(str(record.get("game", games.default().kind)))
    for index, (entry, state, seat, move) in enumerate(game.replay_steps(record)):
        if stop is not None and index >= stop:
            return
        if index >= start:
            yield Decision(index, entry, seat, dict(move), state.view(seat))


def count_decisions(record: Mapping[str, Any]) -> int:
    """How many decisions a record holds (RecordError when it does not replay)."""
    game = games.get(str(record.get("game", games.default().kind)))
    return sum(1 for _ in game.replay_steps(record))


_replayed: dict[str, list[Decision]] = {}  # the game a worker process is analysing, replayed once


def _decisions_of(game_id: str, record: Mapping[str, Any]) -> list[Decision]:
    """Every decision of the record, replayed once per game in a worker process (the pieces
    used to replay the whole record each: 130 replays of an Underground game)."""
    key = f"{game_id}:{hash(json.dumps(record, sort_keys=True, default=str))}"
    if key not in _replayed:
        _replayed.clear()
        _replayed[key] = list(decisions(record))
    return _replayed[key]


def move_budget_s(left_s: float, decisions_left: int) -> float:
    """The next decision's share of what is left of a game's budget (never negative)."""
    return max(0.0, left_s) / max(1, decisions_left)


def judge_range(
    game_id: str,
    record: Mapping[str, Any],
    params: AnalysisParams,
    start: int,
    stop: int,
    budget_s: float | None = None,
) -> list[dict[str, Any]]:
    """judge() for the decisions `start`..`stop`: one piece of work for a worker process;
    `budget_s` (None: no time limit) is split evenly over the piece's decisions."""
    found = _decisions_of(game_id, record)[start:stop]
    if budget_s is None:
        return [judge(d, game_id, params) for d in found]
    out = []
    ends = time.perf_counter() + budget_s
    for i, d in enumerate(found):
        share = move_budget_s(ends - time.perf_counter(), len(found) - i)
        out.append(judge(d, game_id, params, share))
    return out


def judge(
    decision: Decision,
    game_id: str,
    params: AnalysisParams,
    budget_s: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Any]:
    """The played move's value against the search's best, for the decision's seat (searched
    from its information set only, with `params.iterations` iterations, or fewer, down to
    `params.min_iterations`, once `budget_s` has passed; a seed derived from the game and the
    decision's index)."""
    info = InfoSet.from_view(decision.view, decision.seat)
    game = info.game
    played = game.parse_move(decision.move)
    rng = random.Random(derive_seed("analysis", game_id, decision.index))
    priors = greedy_values(game, info.sample(rng), info.seat, rng)
    if played not in priors:
        raise ValueError(f"decision {decision.index}: the record's move is not a legal move")
    index = {m: i for i, m in enumerate(priors)}
    order = sorted(priors, key=lambda m: (-priors[m], index[m]))
    order.remove(played)
    order.insert(min(1, len(order)), played)  # always among the root's first candidates
    tree = _Search(game, info.seat, order, DEFAULT_PARAMS, rng)
    deadline = None if budget_s is None else clock() + budget_s
    floor = min(params.min_iterations, params.iterations)
    if len(order) > 1:
        while tree.iterations < params.iterations:
            if deadline is not None and tree.iterations >= floor and clock() >= deadline:
                break
            tree.iterate(info.sample(rng))
    ranking = _ranking(tree.root.stats.get(info.seat, {}), order, priors, index)
    best = ranking[0]
    value = next(r.value for r in ranking if r.move == played)
    loss = 0.0 if best.move == played else max(0.0, best.value - value)
    return {
        "index": decision.index,
        "entry": decision.entry,
        "seat": decision.seat,
        "move": decision.move,
        "value": round(value, 2),
        "best": best.move.to_json(),
        "best_value": round(max(best.value, value) if loss == 0 else best.value, 2),
        "loss": round(loss, 2),
        "choices": len(order),
        "iterations": tree.iterations,
    }


def label(loss: float, thresholds: Mapping[str, float]) -> str:
    """best (nothing lost), good, inaccuracy, mistake or blunder, by the loss in points."""
    if loss <= 0:
        return "best"
    for name in ("good", "inaccuracy", "mistake"):
        if loss <= thresholds[name]:
            return name
    return "blunder"


def stake_of(record: Mapping[str, Any]) -> float:
    """What a game was worth: the winner's final score, at least STAKE_FLOOR points."""
    scores = [s for s in record.get("scores") or [] if isinstance(s, int | float)]
    return max([STAKE_FLOOR, *map(float, scores)])


def summarise(
    game_id: str, record: Mapping[str, Any], judged: list[dict[str, Any]], params: AnalysisParams
) -> dict[str, Any]:
    """The whole result: every move labelled, each seat's mean loss and counts, the params."""
    stake = stake_of(record)
    thresholds = params.thresholds(stake)
    moves = [{**m, "label": label(m["loss"], thresholds)} for m in judged]
    seats = []
    for seat in range(len(record.get("seats") or [])):
        mine = [m for m in moves if m["seat"] == seat]
        counts = {name: sum(1 for m in mine if m["label"] == name) for name in LABELS}
        mean = sum(m["loss"] for m in mine) / len(mine) if mine else 0.0
        seats.append(
            {"seat": seat, "moves": len(mine), "mean_loss": round(mean, 3), "labels": counts}
        )
    return {
        "status": "done",
        "game_id": game_id,
        "game": str(record.get("game", games.default().kind)),
        "moves": moves,
        "seats": seats,
        "params": {
            **asdict(params),
            "stake": stake,
            "thresholds": thresholds,
            "budget": f"{params.iterations} ISMCTS iterations a move (at least "
            f"{params.min_iterations}), {params.game_budget_s:g} s a game",
        },
    }


def analyse(
    game_id: str,
    record: Mapping[str, Any],
    params: AnalysisParams,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Analyse a whole record in this process, within params.game_budget_s (tests, benches;
    the workers go move by move)."""
    found = list(decisions(record))
    judged = []
    ends = time.perf_counter() + params.game_budget_s
    for i, d in enumerate(found):
        share = move_budget_s(ends - time.perf_counter(), len(found) - i)
        judged.append(judge(d, game_id, params, share))
        if progress is not None:
            progress(i + 1, len(found))
    return summarise(game_id, record, judged, params)
