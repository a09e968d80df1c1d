"""On the Underground's first-game tutorial: two of the learner's turns and one of the opponent's.

The set-up is fixed (connection symbols, the destination pile) and so is every step, the
opponent's included. Each step is played through `play`, the checked door, and its explanation
is read off the event it makes (the points and tokens each rail earns, where the passenger rides
and whose lines score), so the words always match the rules core.

`steps()` gives, for each of the learner's steps (a rail, or ending the building), the learner's
view before it, the one step to make and what to say; the last step has no move: the end.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from games.record import header
from games.underground.map import load_map
from games.underground.moves import parse_step
from games.underground.preview import previews
from games.underground.record import start_of

LEARNER = 0
RULES = {"players": 2, "map": "london"}
CONNECTIONS = {
    "kings_cross_st_pancras": "a", "victoria": "a", "aldgate": "b", "baker_street": "b",
    "charing_cross": "c", "elephant_and_castle": "c", "hammersmith": "d", "notting_hill_gate": "d",
}  # fmt: skip
# The top of the destination pile (the first four are face up); the rest follow in map order.
PILE_TOP = [
    "oxford_circus",
    "warren_street",
    "richmond",
    "clapham_common",
    "bond_street",
    "stratford",
]


def _rail(colour: str, a: str, b: str) -> dict[str, Any]:
    return {"step": "rail", "colour": colour, "a": a, "b": b}


STOP = {"step": "stop"}
# (seat, step) in order: the learner's red line, the opponent's black one, the learner again.
SCRIPT: list[tuple[int, dict[str, Any]]] = [
    (0, _rail("red", "euston", "warren_street")),
    (0, _rail("red", "warren_street", "oxford_circus")),
    (0, _rail("red", "oxford_circus", "green_park")),
    (0, _rail("red", "green_park", "victoria")),
    (0, STOP),
    (1, _rail("black", "farringdon", "kings_cross_st_pancras")),
    (1, _rail("black", "angel", "kings_cross_st_pancras")),
    (1, STOP),
    (0, _rail("red", "euston", "kings_cross_st_pancras")),
    (0, _rail("red", "oxford_circus", "bond_street")),
    (0, STOP),
]


def _say(key: str, **params: Any) -> dict[str, Any]:
    return {"key": f"underground.learn.tut.{key}", "params": params}


def record() -> dict[str, Any]:
    """The set-up as a record with no moves yet."""
    board = load_map(RULES["map"])
    rest = sorted(board.sid(i) for i in board.destinations if board.sid(i) not in PILE_TOP)
    return {**header("underground"), "rules": RULES,
            "connections": CONNECTIONS, "destinations": PILE_TOP + rest}  # fmt: skip


def _gains(event: dict[str, Any], seat: int, names: dict[str, str]) -> list[dict[str, Any]]:
    """What a step earned `seat`, one sentence key per gain."""
    out = []
    for g in event.get("gained", []):
        if g["seat"] != seat or g["reason"] == "skip":
            continue
        station = names.get(g.get("station", ""), "")
        colour = g.get("colour", "")
        if g["reason"] == "ride":
            out.append(_say("ride", station=station, colour=colour, points=g["points"]))
        elif g["reason"] == "symbol":
            out.append(_say("symbol", colour=colour, points=g["points"]))
        elif g["reason"] == "branch":
            out.append(_say("branch", colour=colour, tokens=-g["tokens"]))
        else:  # rail (national rail), terminus, enclosed
            out.append(_say(g["reason"], station=station, colour=colour, points=g["points"]))
    return out


@cache
def _script() -> tuple[dict[str, Any], ...]:
    state = start_of(record())
    names = {s["id"]: s["name"] for s in load_map(RULES["map"]).to_json()["stations"]}
    steps: list[dict[str, Any]] = []
    since: list[dict[str, Any]] = [_say("intro")]
    for seat, step in SCRIPT:
        before = state.view(LEARNER)
        first = not any(r["colour"] == step.get("colour") for r in before["rails"])
        # the move as the legal listing gives it: with its preview (the page shows its points)
        (preview,) = previews(state, seat, [parse_step(step, state.board.index)])
        listed = {**step, "preview": preview}
        event = state.play(seat, step)
        if seat != LEARNER:
            if step is STOP:
                since.append(_say("opponent_built", count=len(before["turn"]["rails"])))
                since.extend(_gains(event, LEARNER, names))
            continue
        gains = _gains(event, LEARNER, names)
        if step is STOP:
            said = [_say("stop")]
        elif any(g["key"].endswith(".branch") for g in gains):
            said = []  # the branch sentence says where and what it costs
            for g in gains:
                g["params"].update(a=names[step["a"]], b=names[step["b"]])
        else:
            where = {"colour": step["colour"], "a": names[step["a"]], "b": names[step["b"]]}
            said = [_say("start" if first else "extend", **where)]
        steps.append({"view": before, "move": listed, "say": since + said + gains})
        since = []
    scores = state.view(LEARNER)["seats"]
    end = _say("end", mine=scores[0]["score"], theirs=scores[1]["score"])
    steps.append({"view": state.view(LEARNER), "move": None, "say": [*since, end]})
    return tuple(steps)


def steps() -> list[dict[str, Any]]:
    """The tutorial's steps (fresh copies: callers may add fields)."""
    return copy.deepcopy(list(_script()))
