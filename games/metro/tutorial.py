"""Metro's first-game tutorial: a short scripted game the page walks a new player through.

The deck is fixed (the first tiles below, then the rest of the set in its listed order) and so is
every move, the opponent's included, so each step's explanation can name the station and the
points. The explanations are computed from the rules core as the script is played (the points a
placement completes are the state's own), never typed in: a rules change that alters them changes
the words, and a script that breaks a rule fails loudly (`play` is the checked door).

`steps()` gives, for each of the learner's moves (seat 0), the learner's view before it, the one
move to make and what to say; the last step has no move: the tutorial's end.
"""

from __future__ import annotations

import copy
from collections import Counter
from functools import cache
from typing import Any

from games.metro.moves import MetroMove
from games.metro.preview import previews
from games.metro.record import replay
from games.metro.tiles import TILE_SET, Placement
from games.record import header

LEARNER = 0
RULES = {"players": 2, "rotation": False, "hand_size": 1, "online": False}
# The tiles in draw order: deck[0] to the learner, deck[1] to the opponent, then draws.
DECK_START = ["cbcb", "dbba", "cbcb", "accd", "aacb", "dacc", "dacc", "bcdd", "aaaa", "aacb"]
# Both seats' placements, in turn order: the learner's are the ones to teach.
MOVES = ["cbcb01", "dbba47", "cbcb37", "accd73", "aacb46", "dacc74", "dacc75", "bcdd57", "aaaa45"]


def deck() -> list[str]:
    """The script's whole deck: DECK_START, then every other tile of the set in listed order."""
    rest = Counter(TILE_SET)
    rest.subtract(DECK_START)
    tail = []
    for code in TILE_SET:
        if rest[code] > 0:
            rest[code] -= 1
            tail.append(code)
    return DECK_START + tail


def _say(key: str, **params: Any) -> dict[str, Any]:
    return {"key": f"metro.learn.tut.{key}", "params": params}


def _routes(view: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {r["station"]: r for r in view["routes"]}


def _where(placement: str) -> dict[str, int]:
    """The square of a placement as the board names it: row and column counted from 1."""
    p = Placement.parse(placement)
    return {"row": p.row + 1, "col": p.col + 1}


def _explain(
    before: dict[str, Any], after: dict[str, Any], event: dict[str, Any]
) -> list[dict[str, Any]]:
    """What the learner's placement does, in sentence keys: the routes it completes (their
    length and points as the rules count them), else the learner's routes it extends."""
    where = _where(event["placement"])
    old, new = _routes(before), _routes(after)
    done = [c for c in event.get("completed", []) if c["owner"] == LEARNER]
    lines = []
    for c in done:
        key = "complete_centre" if c["end"] == "centre" else "complete_edge"
        tiles = new[c["station"]]["tiles"]
        lines.append(_say(key, station=c["station"], points=c["points"], tiles=tiles, **where))
    if not done:
        if event.get("completed"):  # the sentences below say it completes nothing at all
            raise ValueError(f"{event['placement']} completes another seat's route: say so")
        grown = [
            s for s, r in new.items() if r["owner"] == LEARNER and r["tiles"] > old[s]["tiles"]
        ]
        if grown:
            lines.append(_say("extend", station=grown[0], **where))
        else:
            lines.append(_say("place", **where))
    return lines


@cache
def _script() -> tuple[dict[str, Any], ...]:
    record = {**header("metro", names_game=False), "rules": RULES, "deck": deck(), "moves": []}
    state = replay(record)
    steps: list[dict[str, Any]] = []
    since: list[dict[str, Any]] = [_say("intro")]
    for placement in MOVES:
        seat = state.to_move()[0]
        move = {"action": "place", "placement": placement}
        before = state.view(LEARNER)
        # the move as the legal listing gives it: with its preview (the page draws its points)
        (preview,) = previews(state, seat, [MetroMove.parse(move)])
        event = state.play(seat, move)
        if seat == LEARNER:
            told = _explain(before, state.view(LEARNER), event)
            listed = {**move, "preview": preview}
            steps.append({"view": before, "move": listed, "say": since + told})
            since = []
            continue
        since.append(_say("opponent", **_where(placement)))
        for c in event.get("completed", []):
            if c["owner"] == seat:
                since.append(_say("opponent_scored", station=c["station"], points=c["points"]))
    scores = state.scores
    steps.append({"view": state.view(LEARNER), "move": None,
                  "say": [*since, _say("end", mine=scores[0], theirs=scores[1])]})  # fmt: skip
    return tuple(steps)


def steps() -> list[dict[str, Any]]:
    """The tutorial's steps (fresh copies: callers may add fields)."""
    return copy.deepcopy(list(_script()))
