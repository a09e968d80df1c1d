"""How each Metro X map plays (issue 33): seeded solo games of one AI level per map, reporting the
mean score, the spread of lines completed, the empty stations left and the bonus / transfer /
penalty parts. Used to tune windows and bonuses; prints one JSON object. Not a test.

    nice -n 10 .venv/bin/python bench/metrox_maps.py --games 16 --level medium
    nice -n 10 .venv/bin/python bench/metrox_maps.py --maps paris --games 4 --level easy

A solo game's cards are fixed by its seed, so every map sees the same seeds 1..N and the figures
compare maps, not luck. The AI's evaluation knows nothing of any one sheet (games/metrox/
evaluate.py reads the map's tables), so the same level is fair on every map.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.metrox import maps
from games.metrox.position import penalty
from games.metrox.state import MetroXState
from services.ai.players import InfoSet, level_for
from services.ai.players.base import derive_seed


def play(level: str, map_id: str, seed: int) -> dict[str, Any]:
    """One solo game: score, lines completed, empty stations, parts of the score."""
    player = level_for(level).make()
    state = MetroXState.new({"players": 1, "map": map_id}, seed)
    turn = 0
    while not state.over:
        result = player.search(InfoSet.from_state(state, 0), derive_seed(seed, level, turn))
        state.apply(0, result.best)
        turn += 1
    view = state.view(0)
    sheet = view["sheets"][0]
    m = maps.get(map_id)
    empty = m.station_count - len(sheet["filled"])
    return {
        "score": state.score(0),
        "lines": len(sheet["bonuses"]),
        "empty": empty,
        "bonus": sum(b["bonus"] for b in sheet["bonuses"]),
        "transfers": sum(sheet["transfers"].values()),
        "penalty": penalty(empty),
        "turns": turn,
    }


def summary(rows: list[dict[str, Any]], m: maps.MetroXMap) -> dict[str, Any]:
    def mean(key: str) -> float:
        return round(statistics.fmean(r[key] for r in rows), 1)

    lines = Counter(r["lines"] for r in rows)
    return {
        "lines": m.line_count,
        "stations": m.station_count,
        "windows": m.total_windows,
        "beginner": m.beginner,
        "games": len(rows),
        "mean_score": mean("score"),
        "score_sd": round(statistics.pstdev(r["score"] for r in rows), 1),
        "score_range": [min(r["score"] for r in rows), max(r["score"] for r in rows)],
        "lines_completed_mean": mean("lines"),
        "lines_completed": {str(k): lines[k] for k in sorted(lines)},
        "empty_mean": mean("empty"),
        "bonus_mean": mean("bonus"),
        "transfers_mean": mean("transfers"),
        "penalty_mean": mean("penalty"),
        "turns_mean": mean("turns"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--maps", default=",".join(maps.shipped()))
    parser.add_argument("--games", type=int, default=16, help="seeds 1..N per map")
    parser.add_argument("--level", default="medium")
    args = parser.parse_args()
    level_for(args.level)  # an unknown level fails before any game
    out: dict[str, Any] = {"bench": "metrox_maps", "level": args.level, "maps": {}}
    t0 = time.perf_counter()
    for map_id in [x for x in args.maps.split(",") if x]:
        rows = [play(args.level, map_id, seed) for seed in range(1, args.games + 1)]
        out["maps"][map_id] = summary(rows, maps.get(map_id))
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
