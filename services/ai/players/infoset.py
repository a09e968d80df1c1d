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
    sampler: WorldSampler  # worlds consistent with `view`

    @classmethod
    def from_view(cls, view: Mapping[str, Any], seat: int) -> InfoSet:
        """Read a seat's view; RulesError for an unknown game, and the sampler's ValueError
        (GameError) when the view does not add up."""
        game = games.get(view["game"])
        return cls(game=game, seat=seat, view=view, sampler=game.world_sampler(view, seat))

    @classmethod
    def from_state(cls, state: GameState, seat: int) -> InfoSet:
        """The information set of `seat` in a full state: through its view, never around it."""
        return cls.from_view(state.view(seat), seat)

    @property
    def to_move(self) -> bool:
        """Whether the seat must move now (it is among the seats the game waits for)."""
        return self.view.get("status") == "playing" and self.seat in self.view.get("to_move", ())

    def sample(self, rng: random.Random) -> GameState:
        """One full world consistent with this seat's knowledge, hidden things dealt by `rng`."""
        return self.sampler.sample(rng)

    def legal_moves(self) -> list[Any]:
        """The seat's own legal moves now: the same in every sampled world, so one tells."""
        if not self.to_move:
            return []
        return list(self.sample(random.Random(0)).legal_moves(self.seat))
