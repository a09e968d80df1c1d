"""Route tracing from scratch (RULES.md §4): the path a station's train takes over the board.

The state keeps routes incrementally for speed; this module walks them again from the departure
for views and for tests that check the incremental bookkeeping.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.metro.board import CENTRE, DEPARTURE, EDGE, STEP
from games.metro.tiles import EXIT

Step = tuple[int, int, int, int]  # row, col, entry connector, exit connector


def trace(board: Sequence[int], station: int) -> tuple[list[Step], str]:
    """(path, end) of a station's route; end is "open", "edge" or "centre"."""
    path: list[Step] = []
    pos = DEPARTURE[station]
    while True:
        sq, entry = pos >> 3, pos & 7
        tile = board[sq]
        if tile < 0:
            return path, "open"
        exit_ = EXIT[tile * 8 + entry]
        path.append((sq // 8, sq % 8, entry, exit_))
        pos = STEP[sq * 8 + exit_]
        if pos == EDGE:
            return path, "edge"
        if pos == CENTRE:
            return path, "centre"


def points(path: Sequence[Step], end: str) -> int:
    """1 per tile crossed, doubled into the centre; an open route scores nothing yet."""
    if end == "open":
        return 0
    return len(path) * (2 if end == "centre" else 1)
