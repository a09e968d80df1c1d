"""What every player answers: moves ranked best first, with the effort behind them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from services.ai.players.infoset import InfoSet


@dataclass(frozen=True, slots=True)
class RankedMove:
    """One candidate: `move` is the game's own typed move value (hashable; compare with ==);
    `value` is the expected score margin for the mover (points ahead of the best other seat at
    the end, as the player estimates it; its own expected score in a solo game); `visits` is the
    search effort."""

    move: Any
    value: float
    visits: int


@dataclass(frozen=True, slots=True)
class SearchResult:
    moves: list[RankedMove]  # best first; every legal move of the seat appears once
    iterations: int
    elapsed_s: float

    @property
    def best(self) -> Any:
        return self.moves[0].move


class Player(Protocol):
    """Chooses for the seat whose information set it is given; never sees what the seat may not."""

    name: str

    def search(self, info: InfoSet, seed: int, budget_s: float | None = None) -> SearchResult:
        """Rank the seat's legal moves; `budget_s` caps the thinking time when the player
        searches (None: the player's own default)."""
        ...


def derive_seed(*parts: object) -> int:
    """A 32-bit seed from any parts; stable across processes and Python runs (unlike hash())."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")
