"""The engine's messages as the rules core's shapes: a GameView as the dict of
games/metro/view.py, and moves as the fast door's ints.

Built field by field rather than through a JSON round trip, so every field the AI relies on is
named here. The engine always sends `unseen` and `board_tiles`; a view whose counts do not add up
is refused by the rules core's `world_from_view`, never patched up here.
"""

from __future__ import annotations

from typing import Any

from metro.v1 import engine_pb2, metro_pb2

from games.metro import DRAW, Placement, move_text


def rules_dict(rules: engine_pb2.GameRules) -> dict[str, Any]:
    m = rules.metro
    return {name: getattr(m, name) for name in ("players", "rotation", "hand_size", "online")
            if m.HasField(name)}  # fmt: skip


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
    return {
        "game": view.game,
        "status": view.status,
        "rules": rules_dict(view.rules),
        "seats": seats,
        "turn": view.turn if view.HasField("turn") else None,
        "deck_count": m.deck_count,
        "board": board,
        "board_tiles": list(m.board_tiles),
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
