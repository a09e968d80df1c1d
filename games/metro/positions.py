"""A finished Metro game's positions for its replay (Game.positions): what the page draws of
each, so that it traces no route itself (RULES.md §4). Public only: a record is given out once
the game is over, and a position holds the board's routes and the scores, never a hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import JSON
from games.metro.record import states
from games.metro.view import routes


def positions(record: Mapping[str, Any]) -> JSON:
    """`{"positions": [{"routes": [...]}, ...], "scores": [[...], ...]}`: [0] the set-up, [i]
    after the record's i-th entry (`moves[i - 1]`); each position's routes as the view's
    `routes`, its scores per seat. RecordError for a bad record."""
    out: list[JSON] = []
    scores: list[list[int]] = []
    for state in states(record):
        out.append({"routes": routes(state)})
        scores.append(state.scores[:])
    return {"positions": out, "scores": scores}
