"""What each of a seat's legal moves would do (RULES.md §4, §6): the routes a placement would
complete and the points they bring, so the page shows a placement's gain without tracing routes
itself. Kept apart from the fast door (position.py): only the engine's legal listing calls it,
once per seat and version, never the search.

A preview reads only the board and the routes, which everyone sees; a draw has none (its tile is
hidden until drawn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.base import JSON
from games.metro.board import CENTRE, EDGE, STEP
from games.metro.moves import DRAW, MetroMove
from games.metro.position import MetroPosition
from games.metro.tiles import EXIT


def _completed(state: MetroPosition, tile: int, sq: int) -> list[JSON]:
    """The routes waiting at `sq` that `tile` laid there would complete: each as the `place`
    event's `completed` entries say it (station, owner, end, points)."""
    board = state.board
    out: list[JSON] = []
    for station in sorted(state.waiting[sq]):
        pos, n = state.heads[station], state.lengths[station]
        while True:
            at = pos >> 3
            t = tile if at == sq else board[at]
            if t < 0:
                break  # runs on to another empty square: still open
            n += 1
            pos = STEP[(pos & ~7) | EXIT[t * 8 + (pos & 7)]]
            if pos in (EDGE, CENTRE):
                owner = state.owner[station]
                out.append(
                    {
                        "station": station,
                        "owner": owner if owner >= 0 else None,
                        "end": "centre" if pos == CENTRE else "edge",
                        "points": n * 2 if pos == CENTRE else n,
                    }
                )
                break
    return out


def previews(state: Any, seat: int, moves: Sequence[MetroMove]) -> list[JSON | None]:
    """One preview per move of `moves` (the seat's legal moves, in order): for a placement
    `{"completed": [...], "gains": [points per seat]}` (a retired seat gains nothing, as §7
    freezes its score); None for a draw."""
    n = state.rules.players
    retired = state.retired_mask
    out: list[JSON | None] = []
    for move in moves:
        if move.code == DRAW:
            out.append(None)
            continue
        tile, sq = divmod(move.code, 64)
        completed = _completed(state, tile, sq)
        gains = [0] * n
        for c in completed:
            owner = c["owner"]
            if owner is not None and not retired >> owner & 1:
                gains[owner] += c["points"]
        out.append({"completed": completed, "gains": gains})
    return out
