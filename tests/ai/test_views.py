"""The engine's GameView read back into the rules core's view shape gives the same information
set as the core's own view; a view without its `unseen` map is refused, not guessed at."""

from __future__ import annotations

from typing import Any

import pytest
from metro.v1 import engine_pb2

from games.metro import MetroRules, MetroState
from games.metro.tiles import CODES
from services.ai.players import InfoSet
from services.ai.views import move_int, move_message, view_dict
from tests.ai.test_players import positions


def as_message(view: dict[str, Any], seat: int, with_unseen: bool) -> engine_pb2.GameView:
    """A GameView as the engine.proto contract describes it, filled by hand."""
    msg = engine_pb2.GameView(game="metro", version=7, status=view["status"], seat=seat)
    for name, value in view["rules"].items():
        setattr(msg.rules.metro, name, value)
    for s in view["seats"]:
        out = msg.seats.add(seat=s["seat"], score=s["score"], out=s["out"], kind="human")
        out.metro.hand_count = s["hand_count"]
    if view["turn"] is not None:
        msg.turn = view["turn"]
    m = msg.metro
    m.deck_count = view["deck_count"]
    m.board.extend(view["board"])
    m.board_tiles.extend(view["board_tiles"])
    m.hand.extend(view["hand"])
    if view["drawn"]:
        m.drawn = view["drawn"]
    m.drawing = view["drawing"]
    if with_unseen:
        m.unseen.update(view["unseen"])
    return msg


def same_infoset(a: InfoSet, b: InfoSet) -> bool:
    return (a.seat, a.turn, a.hand, a.drawn, a.other_drawing, a.pool, a.hand_counts,
            a.deck_count, a.base.board, a.base.scores) == (
            b.seat, b.turn, b.hand, b.drawn, b.other_drawing, b.pool, b.hand_counts,
            b.deck_count, b.base.board, b.base.scores)  # fmt: skip


def test_views_from_the_engine_read_back_exactly() -> None:
    rules = {"players": 3, "hand_size": 2, "rotation": True}
    for state in positions(rules, seed=2, every=5):
        for seat in range(3):
            core = state.view(seat)
            expected = InfoSet.from_view(core, seat)
            got = view_dict(as_message(core, seat, with_unseen=True))
            assert got["unseen"] == core["unseen"]
            assert got["board_tiles"] == core["board_tiles"]
            assert same_infoset(InfoSet.from_view(got, seat), expected)
            if core["deck_count"]:
                with pytest.raises(ValueError, match="unseen"):
                    InfoSet.from_view(view_dict(as_message(core, seat, with_unseen=False)), seat)


def test_moves_convert_both_ways() -> None:
    state = MetroState.new(MetroRules(rotation=True, hand_size=3), 1)
    for move in state.legal_moves():
        assert move_int(move_message(move)) == move
    assert move_message(move_int(move_message(state.legal_moves()[0]))).placement[:4] in CODES
