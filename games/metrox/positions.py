"""A finished Metro X game's positions for its replay (Game.positions): each seat's sheet and the
lines' completions after every turn, and the scores then, worked out by the rules core from the
record (RULES-METROX.md §7), so that the page applies no card itself. Public only: every sheet is
public, and a record is given out once the game is over."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import JSON
from games.metrox.record import replay, steps
from games.metrox.state import MetroXState
from games.metrox.view import view


def _position(state: MetroXState) -> JSON:
    shown = view(state, None)
    return {"sheets": shown["sheets"], "lines": shown["lines"]}


def positions(record: Mapping[str, Any]) -> JSON:
    """`{"positions": [{"sheets", "lines"}, ...], "scores": [[...], ...]}`: [i] after the
    record's first i turns (the view's `sheets` and `lines` then), [len(turns)] the end.
    RecordError for a bad record."""
    out: list[JSON] = []
    scores: list[list[int]] = []
    for turn, state, _seat, _move in steps(record):
        while len(out) <= turn:  # the first decision of each turn: the turns before resolved
            out.append(_position(state))
            scores.append(state.scores)
    final = replay(record)
    while len(out) <= len(record["turns"]):
        out.append(_position(final))
        scores.append(final.scores)
    return {"positions": out, "scores": scores}
