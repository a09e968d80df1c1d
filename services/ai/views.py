"""The engine's messages as the rules core's shapes: a GameView as the dict of
games/metro/view.py, and moves as the fast door's ints.

Built field by field rather than through a JSON round trip, so every field the AI relies on is
named here, and a missing `unseen` (an engine that does not send it) is recomputed from what the
seat sees anyway: the tile set minus the board minus its own hand (RULES.md §5).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from metro.v1 import engine_pb2, metro_pb2

from games.metro import DRAW, INDEX, Placement, move_text
from games.metro.tiles import CODES, ROTATIONS, SET_COUNTER


def rules_dict(rules: engine_pb2.GameRules) -> dict[str, Any]:
    m = rules.metro
    return {name: getattr(m, name) for name in ("players", "rotation", "hand_size", "online")
            if m.HasField(name)}  # fmt: skip


def unseen_from_public(board: list[str], hand: list[str], drawn: str | None) -> dict[str, int]:
    """The unseen multiset from the board and the seat's own tiles. With rotation a placed code
    may be any orientation of the physical tile; one with copies left is taken, which changes
    nothing for play (orientations of a tile are interchangeable under rotation)."""
    left = Counter(SET_COUNTER)
    for code in [*hand, *([drawn] if drawn else [])]:
        left[code] -= 1
    for text in board:
        code = text[:4]
        if left[code] <= 0:
            code = next((CODES[t] for t in ROTATIONS[INDEX[code]] if left[CODES[t]] > 0), code)
        left[code] -= 1
    return {code: n for code, n in sorted(left.items()) if n > 0}


def view_dict(view: engine_pb2.GameView) -> dict[str, Any]:
    """The seat's view in the rules core's shape (what InfoSet.from_view reads)."""
    m = view.metro
    board, hand = list(m.board), list(m.hand)
    drawn = m.drawn if m.HasField("drawn") else None
    seats = [
        {"seat": s.seat, "score": s.score, "out": s.out, "hand_count": s.metro.hand_count}
        for s in view.seats
    ]
    unseen = dict(sorted(m.unseen.items()))
    if not unseen and (m.deck_count or any(s["hand_count"] for s in seats)):
        unseen = unseen_from_public(board, hand, drawn)
    return {
        "game": view.game,
        "status": view.status,
        "rules": rules_dict(view.rules),
        "seats": seats,
        "turn": view.turn if view.HasField("turn") else None,
        "deck_count": m.deck_count,
        "board": board,
        "hand": hand,
        "drawn": drawn,
        "drawing": m.drawing,
        "unseen": unseen,
    }


def move_int(move: metro_pb2.MetroMove) -> int:
    """A move from the engine's legal list as the fast door's int (InvalidMoveError if not)."""
    if move.action == "draw":
        return DRAW
    p = Placement.parse(move.placement)
    return p.tile_index * 64 + p.square


def move_message(move: int) -> metro_pb2.MetroMove:
    if move == DRAW:
        return metro_pb2.MetroMove(action="draw")
    return metro_pb2.MetroMove(action="place", placement=move_text(move))
