"""What one seat knows (its information set), and the worlds consistent with it.

Built from the seat's view only (`GameState.view(seat)`, the game's single projection of hidden
information), so nothing a player computes can depend on anything the seat has not seen. The
game's own sampler (`Game.world_sampler`), built once here, deals every hidden thing anew per
`sample(rng)`: one determinization per search iteration. Nothing here knows which game it is.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import games
from games.base import Game, GameState, WorldSampler


@dataclass(frozen=True, slots=True)
class InfoSet:
    game: Game  # the game kind, from the view's "game"
    seat: int
    view: Mapping[str, Any]  # the seat's view, as the game wrote it
    sampler: WorldSampler  # worlds consistent with `view`, where the seat is to decide
    may_move: bool = False  # the seat has a move to make now (or, having chosen, may re-choose)

    @classmethod
    def from_view(cls, view: Mapping[str, Any], seat: int) -> InfoSet:
        """Read a seat's view; RulesError for an unknown game, and the sampler's ValueError
        (GameError) when the view does not add up."""
        game = games.get(view["game"])
        sampler = game.world_sampler(view, seat)
        may_move = view.get("status") == "playing" and bool(
            sampler.sample(random.Random(0)).legal_moves(seat)
        )
        return cls(game=game, seat=seat, view=view, sampler=sampler, may_move=may_move)

    @classmethod
    def from_state(cls, state: GameState, seat: int) -> InfoSet:
        """The information set of `seat` in a full state: through its view, never around it."""
        return cls.from_view(state.view(seat), seat)

    @property
    def to_move(self) -> bool:
        """Whether the seat has a move to make now: it is among the seats the game waits for,
        or it has chosen in a simultaneous turn and may choose again."""
        return self.may_move

    def sample(self, rng: random.Random) -> GameState:
        """One full world consistent with this seat's knowledge, hidden things dealt by `rng`."""
        return self.sampler.sample(rng)

    def legal_moves(self) -> list[Any]:
        """The seat's own legal moves now: the same in every sampled world, so one tells."""
        if not self.to_move:
            return []
        return list(self.sample(random.Random(0)).legal_moves(self.seat))
