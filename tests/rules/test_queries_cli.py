"""`metro rules` (RULES.md §10): JSON lines in, one answer per line, errors do not stop it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import games
from games.metro.queries import answer

ROOT = Path(__file__).resolve().parents[2]
METRO_BIN = Path(sys.executable).parent / "metro"


def run_cli(lines: list[str]) -> list[dict]:  # type: ignore[type-arg]
    out = subprocess.run(
        [str(METRO_BIN), "rules"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


def played_sequence(n: int, seed: int = 1) -> str:
    state = games.get("metro").new_state({}, seed)
    rng = random.Random(seed)
    for _ in range(n):
        state.apply_code(rng.choice([m for m in state.legal_codes() if m < 24 * 64]))
    return "".join(state.board_placements())


def test_cli_answers_each_line_in_order_and_survives_bad_lines() -> None:
    seq = played_sequence(10)
    answers = run_cli(
        [
            json.dumps({"op": "validate", "placements": seq}),
            "this is not json",
            json.dumps({"op": "fly"}),
            json.dumps({"op": "validate", "placements": seq + "aacb00"}),
            json.dumps({"op": "legal", "placements": "", "tile": "dddd"}),
            json.dumps([1, 2]),
            json.dumps({"op": "score", "placements": seq, "rules": {"players": 4}}),
        ]
    )
    assert len(answers) == 7
    assert answers[0] == {"valid": True}
    assert set(answers[1]) == {"error"} and "JSON" in answers[1]["error"]
    assert "unknown op" in answers[2]["error"]
    assert answers[3] == {"valid": False, "first_invalid": 10}  # aacb00 breaks rule (c)
    assert len(answers[4]["legal"]) == 28 and answers[4]["legal"] == sorted(answers[4]["legal"])
    assert "error" in answers[5]
    assert len(answers[6]["scores"]) == 4


def test_validate_points_at_the_first_invalid_placement() -> None:
    assert answer({"op": "validate", "placements": "aacb01aacb01"}) == {
        "valid": False,
        "first_invalid": 1,
    }
    assert answer({"op": "validate", "placements": "aacb00"}) == {
        "valid": False,
        "first_invalid": 0,
    }
    assert answer({"op": "validate", "placements": "aacb22"}) == {
        "valid": False,
        "first_invalid": 0,
    }
    assert answer({"op": "validate", "placements": ""}) == {"valid": True}
    # a fifth copy of a tile the set holds four of is not valid
    five = "aaaa01aaaa02aaaa03aaaa04aaaa05"
    assert answer({"op": "validate", "placements": five}) == {"valid": False, "first_invalid": 4}
    assert "error" in answer({"op": "validate", "placements": "aacb0"})


def test_legal_lists_sorted_placements_and_rotations() -> None:
    legal = answer({"op": "legal", "placements": "", "tile": "aacb"})["legal"]
    assert "aacb00" not in legal and "aacb01" in legal and legal == sorted(legal)
    rotated = answer({"op": "legal", "placements": "", "tile": "aacb", "rules": {"rotation": True}})
    assert {p[:4] for p in rotated["legal"]} == {"aacb", "acba", "cbaa", "baac"}
    assert "error" in answer({"op": "legal", "placements": "", "tile": "zzzz"})
    assert "error" in answer({"op": "legal", "placements": "", "tile": "aaaa", "rules": {"x": 1}})


def test_score_and_replay_agree_with_the_engine_of_rules() -> None:
    state = games.get("metro").new_state({"players": 3}, 9)
    rng = random.Random(9)
    while not state.is_over:
        state.apply_code(rng.choice(state.legal_codes()))
    record = state.record()
    assert answer({"op": "replay", "record": record}) == {"scores": state.scores}
    seq = "".join(state.board_placements())
    assert answer({"op": "score", "placements": seq, "rules": {"players": 3}}) == {
        "scores": state.scores
    }
    record["moves"][4]["placement"] = record["moves"][2]["placement"]
    bad = answer({"op": "replay", "record": record})
    assert set(bad) == {"error", "move"} and bad["move"] == 4


def test_cli_routes_each_query_to_its_game() -> None:
    """Queries name their game (a replay's record may name it instead); none means Metro."""
    metrox = games.get("metrox")
    state = metrox.new_state(metrox.normalise_rules({"players": 2}), 5)
    rng = random.Random(5)
    while not state.is_over:
        for seat in state.to_move():
            state.apply(seat, state.random_move(seat, rng.random))
    record = state.record()
    answers = run_cli(
        [
            json.dumps({"op": "maps", "game": "metrox"}),
            json.dumps({"op": "map", "game": "metrox", "map": "lakeside"}),
            json.dumps({"op": "replay", "record": record}),
            json.dumps({"op": "validate", "placements": played_sequence(3)}),
            json.dumps({"op": "maps", "game": "chess"}),
        ]
    )
    maps, one, replayed, metro, unknown = answers
    cities = {"amsterdam", "berlin", "paris", "madrid"}  # the seed's four (issue 33)
    assert {m["id"] for m in maps["maps"]} >= {"lakeside", "kessel"} | cities
    assert one["id"] == "lakeside" and one["lines"]
    assert replayed == {"scores": state.scores}
    assert metro == {"valid": True}
    assert "unknown game 'chess'" in unknown["error"]
