"""Golden playthroughs (as OpenSpiel's): every answer of the rules API along fixed games.

A change in any rule shows up as a diff against tests/rules/golden/. After a deliberate rules
change, regenerate with `.venv/bin/python -m tests.rules.playthrough` and review the diff.

Each case is a seeded game of one kind played through the checked door with seeded random legal
moves. Metro's files pin every move, its legal count, its event and the record. The other
games' files pin, besides, every seat's score after each move and every view (each seat's and
a spectator's) as a digest of its canonical JSON: a view that changes anywhere changes its
digest, and the test names the move where it first did.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import games

GOLDEN = Path(__file__).parent / "golden"
# name -> (game kind, rules, seed)
CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    "classic_2p": ("metro", {}, 1),
    "classic_4p_hand3": ("metro", {"players": 4, "hand_size": 3}, 2),
    "rotation_3p": ("metro", {"players": 3, "rotation": True}, 3),
    "online_5p_hand2": ("metro", {"players": 5, "online": True, "hand_size": 2}, 4),
    "metrox_lakeside_3p": ("metrox", {"players": 3, "map": "lakeside"}, 5),
    "metrox_kessel_solo_daily": ("metrox", {"players": 1, "map": "kessel", "daily": "golden"}, 6),
    "underground_2p": ("underground", {"players": 2}, 7),
    "underground_4p": ("underground", {"players": 4}, 8),
}


def digest(value: Any) -> str:
    """A short, stable digest of a JSON value (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def views(state: Any) -> list[str]:
    """The digest of every seat's view, then of a spectator's."""
    return [digest(state.view(seat)) for seat in range(state.seat_count)] + [
        digest(state.view(None))
    ]


def playthrough(kind: str, rules: dict[str, Any], seed: int) -> dict[str, Any]:
    game = games.get(kind)
    state = game.new_state(game.normalise_rules(rules), seed)
    rng = random.Random(seed)
    turns = []
    pin_views = kind != "metro"  # Metro's files predate the pinned views
    while not state.is_over:
        # The lowest seat still to move: every seat of a simultaneous turn moves in turn.
        seat = state.to_move()[0]
        legal = [m.to_json() for m in state.legal_moves(seat)]
        move = legal[rng.randrange(len(legal))]
        event = state.play(seat, move)
        turn: dict[str, Any] = {"seat": seat, "legal": len(legal), "move": move, "event": event}
        if pin_views:
            turn["scores"] = list(state.scores)
            turn["views"] = views(state)
        turns.append(turn)
    out: dict[str, Any] = {"rules": rules, "seed": seed, "turns": turns, "record": state.record()}
    if kind != "metro":
        out["game"] = kind
    return out


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, (kind, rules, seed) in CASES.items():
        text = json.dumps(playthrough(kind, rules, seed), indent=1, sort_keys=True)
        (GOLDEN / f"{name}.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
