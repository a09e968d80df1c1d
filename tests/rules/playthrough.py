"""Golden playthroughs (as OpenSpiel's): every answer of the rules API along fixed games.

A change in any rule shows up as a diff against tests/rules/golden/. After a deliberate rules
change, regenerate with `.venv/bin/python -m tests.rules.playthrough` and review the diff.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import games

GOLDEN = Path(__file__).parent / "golden"
CASES: dict[str, tuple[dict[str, Any], int]] = {
    "classic_2p": ({}, 1),
    "classic_4p_hand3": ({"players": 4, "hand_size": 3}, 2),
    "rotation_3p": ({"players": 3, "rotation": True}, 3),
    "online_5p_hand2": ({"players": 5, "online": True, "hand_size": 2}, 4),
}


def playthrough(rules: dict[str, Any], seed: int) -> dict[str, Any]:
    state = games.get("metro").new_state(rules, seed)
    rng = random.Random(seed)
    turns = []
    while not state.is_over:
        (seat,) = state.to_move()
        legal = [m.to_json() for m in state.legal_moves(seat)]
        move = legal[rng.randrange(len(legal))]
        event = state.play(seat, move)
        turns.append({"seat": seat, "legal": len(legal), "move": move, "event": event})
    return {"rules": rules, "seed": seed, "turns": turns, "record": state.record()}


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, (rules, seed) in CASES.items():
        text = json.dumps(playthrough(rules, seed), indent=1, sort_keys=True)
        (GOLDEN / f"{name}.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
