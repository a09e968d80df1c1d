"""A Metro search's rollout in the classic rules, written out (issue 34 item 4).

A rollout (services/ai/players/ismcts.py `_rollout`) is most of a search's work: uniformly random
moves until the evaluation cuts in. Here `random_code` and `apply_code` of position.py are one
loop for the rules searches play most, so that each move costs no calls between; the moves, the
random draws and the state they leave are exactly theirs (tests/ai/test_rollout_fast_paths.py).
"""

from __future__ import annotations

from typing import Any

from games.metro.placement import OK_MASK, nth_square
from games.metro.tiles import TILE_SET

TILE_COUNT = len(TILE_SET)


def random_turns_classic(s: Any, turns: int, rand: Any) -> None:  # s: a MetroPosition
    """`MetroPosition.random_turns` in the classic rules (a hand of one, no rotation, no online
    variant, nobody retired), where the deck is never reshuffled."""
    deck, hands, out, players = s.deck, s.hands, s.out, s.rules.players
    size = len(deck)
    for _ in range(turns):
        seat = s.seat
        if seat < 0:
            return
        drawn = s.drawn
        if drawn < 0 and len(hands[seat]) != 1:  # no tile to place (the deck is empty)
            s.apply_code(s.random_code(rand))
            continue
        tile = drawn if drawn >= 0 else hands[seat][0]
        mask = s.frontier & OK_MASK[tile] or s.frontier
        total = mask.bit_count()
        pick = int(rand() * (total + (drawn < 0 and s.deck_pos < size)))
        if pick >= total:  # draw: the seat places the drawn tile next turn
            s.drawn = deck[s.deck_pos]
            s.deck_pos += 1
            s.draws += 1
            continue
        sq = nth_square(mask, pick)
        if drawn >= 0:
            s.drawn = -1
        elif s.deck_pos < size:  # `_take_from_hand`: the hand refills from the deck
            hands[seat] = (deck[s.deck_pos],)
            s.deck_pos += 1
        else:
            hands[seat] = ()
        s._place(tile, sq)
        s.history = (s.history, (seat, tile * 64 + sq, tile, drawn >= 0, None))
        # `_pass_turn` with nobody retired and not online: the next seat that can move
        s.seat = -1
        if s.placed < TILE_COUNT:
            can_draw = s.deck_pos < size
            for _ in range(players):
                seat = (seat + 1) % players
                if not out[seat] and (hands[seat] or can_draw):
                    s.seat = seat
                    break
