"""Metro X's part of the compact record format (games/compact.py, docs/archive.md).

What it writes after the rules: whether any seat retired (1 symbol); each revealed card as its
pick among the cards the current deck still holds (RULES-METROX.md §2: log2(left / copies)
bits); each seat's choice of a turn, in seat order, as its index among that seat's legal moves,
with one extra "escape" symbol when the game has retirements: a seat retires next (its seat).
As the record's replay does, a turn's retirements come before its choices.

Decoding plays the same choices and cards and exports the record from the final state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.base import JSON
from games.compact import Reader, Writer, put_escape, put_move, take_move
from games.errors import GameError, RecordError
from games.metrox.record import check_cards, check_retired
from games.metrox.state import MetroXState


def _left(state: MetroXState) -> Counter[str]:
    return Counter(state.deck[state.pos :])


def _put_card(out: Writer, state: MetroXState, card: str) -> None:
    left = _left(state)
    if card not in left:
        raise RecordError(f"card {card!r} is not left in the deck")
    out.put_pick(card, left)
    state.reveal_as(card)


class MetroXCodec:
    """The hook (`Game.record_codec()`)."""

    tag = 2
    # Append only (games/compact.py RecordCodec.rules_layout): a new map's id goes at the end
    # of the maps (until then its games store the id as text, a few bytes more).
    rules_layout = (
        ("players", ()),
        ("map", ("lakeside", "kessel", "amsterdam", "berlin", "madrid", "paris")),
        ("daily", ()),
    )

    def encode(self, record: Mapping[str, Any], rules: JSON, out: Writer) -> MetroXState:
        state = MetroXState.new(rules, 0)
        n = state.n
        cards = check_cards(record["cards"])
        turns = record["turns"]
        if not isinstance(turns, list):
            raise RecordError("the record's 'turns' must be a list")
        retired = check_retired(record.get("retired"), n, len(turns))
        escape = bool(retired)
        out.put(escape, 2)
        _put_card(out, state, cards[0])
        for i in range(len(turns) + 1):
            for seat, at in retired:
                if at == i:
                    if state.over:
                        raise RecordError(f"turn {i}: seat {seat} retires after the game ended")
                    put_escape(out, state, state.to_move()[0])
                    out.put(seat, n)
                    state.retire(seat)
            if i == len(turns):
                break
            turn = turns[i]
            if state.over or not isinstance(turn, list) or len(turn) != n:
                raise RecordError(f"turn {i}: not a turn of {n} moves of a game still on")
            try:
                for seat, move in enumerate(turn):
                    if state.retired_mask >> seat & 1:
                        if move is not None:
                            raise RecordError(f"seat {seat} has retired; its move must be null")
                        continue
                    put_move(out, state, seat, state.check(seat, move), escape)
            except GameError as err:
                raise RecordError(f"turn {i}: {err}", move=i) from None
            if not state.over and i + 1 < len(cards):
                _put_card(out, state, cards[i + 1])
        return state

    def decode(self, rules: JSON, inp: Reader) -> MetroXState:
        state = MetroXState.new(rules, 0)
        n = state.n
        escape = bool(inp.take(2))
        state.reveal_as(inp.take_pick(_left(state)))
        while not state.over:
            turn = state.turn
            if take_move(inp, state, state.to_move()[0], escape) is None:
                seat = inp.take(n)
                if state.retired_mask >> seat & 1:
                    raise RecordError(f"compact record: seat {seat} retires twice")
                state.retire(seat)
            if not state.over and state.turn != turn:
                state.reveal_as(inp.take_pick(_left(state)))
        return state


CODEC = MetroXCodec()
