"""What one seat knows (its information set), and the worlds consistent with it.

Built from the seat's view only (games/metro/view.py shape), so nothing a player computes can
depend on a tile the seat has not seen. `sample` re-deals the unseen tiles into the opponents'
hands and the deck: one determinization per search iteration. The board is replayed once here,
not per sample, because replaying 60 placements would cost more than the search step itself.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.metro import INDEX, MetroState
from games.metro.chance import world_from_view


@dataclass(frozen=True, slots=True)
class InfoSet:
    seat: int
    turn: int | None  # the seat to move; None once the game is over
    base: MetroState  # board, routes and scores; its hidden parts are overwritten per sample
    hand: tuple[int, ...]
    drawn: int  # the tile this seat drew and must place now, else -1
    other_drawing: bool  # another seat holds a drawn tile (hidden from us)
    pool: tuple[int, ...]  # the unseen tiles, sorted: deck plus the other hands
    hand_counts: tuple[int, ...]
    deck_count: int

    @classmethod
    def from_view(cls, view: Mapping[str, Any], seat: int) -> InfoSet:
        """Read a seat's view; ValueError when its counts do not add up (a broken view)."""
        turn = view.get("turn")
        turn = None if turn is None else int(turn)
        base = world_from_view(view, seat, random.Random(0))
        pool = tuple(sorted(INDEX[code] for code, n in view["unseen"].items() for _ in range(n)))
        seats = sorted(view["seats"], key=lambda s: int(s["seat"]))
        hand_counts = tuple(0 if s["seat"] == seat else int(s["hand_count"]) for s in seats)
        drawn = INDEX[view["drawn"]] if view.get("drawn") else -1
        other_drawing = bool(view.get("drawing")) and drawn < 0 and turn is not None
        deck_count = int(view["deck_count"])
        needed = sum(hand_counts) + deck_count + other_drawing
        if len(pool) != needed:
            raise ValueError(
                f"the view's unseen tiles ({len(pool)}) do not match the hidden ones "
                f"({needed}: other hands, deck and a drawn tile)"
            )
        return cls(
            seat=seat,
            turn=turn,
            base=base,
            hand=tuple(INDEX[c] for c in view["hand"]),
            drawn=drawn,
            other_drawing=other_drawing,
            pool=pool,
            hand_counts=hand_counts,
            deck_count=deck_count,
        )

    @classmethod
    def from_state(cls, state: MetroState, seat: int) -> InfoSet:
        """The information set of `seat` in a full state: through its view, never around it."""
        return cls.from_view(state.view(seat), seat)

    @property
    def to_move(self) -> bool:
        return self.turn == self.seat

    def sample(self, rng: random.Random) -> MetroState:
        """One full world consistent with this seat's knowledge, hidden tiles dealt by `rng`."""
        state = self.base.copy()
        rand = rng.random
        pool = sorted(self.pool, key=lambda _: rand())  # a uniform shuffle, faster than shuffle()
        hands: list[tuple[int, ...]] = []
        for i, count in enumerate(self.hand_counts):
            if i == self.seat:
                hands.append(self.hand)
            else:
                hands.append(tuple(pool[len(pool) - count :]) if count else ())
                del pool[len(pool) - count :]
        state.hands = hands
        state.drawn = self.drawn if self.drawn >= 0 else (pool.pop() if self.other_drawing else -1)
        state.deck = pool
        state.deck_pos = 0
        state.seed = rng.getrandbits(32)
        return state

    def legal_moves(self) -> list[int]:
        """The seat's own legal moves now (the same in every sampled world)."""
        if not self.to_move:
            return []
        return self.sample(random.Random(0)).legal_moves()
