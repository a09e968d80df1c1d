"""What every game of the platform provides, so the engine and the AI never assume Metro's board.

A *game* (one module per kind, registered in `games.registry`) creates and restores *states*.
A state is plain data: copied cheaply, serialised to a JSON-safe dict that only the engine stores,
and projected per seat by `view`, the single place where hidden information is filtered.

Two doors, as in python-chess: `play(seat, move_dict)` is the checked door for untrusted input
(raises the errors of `games.errors`); the fast unchecked door for search is game-specific.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

JSON = dict[str, Any]


class GameState(Protocol):
    """One game in progress or finished."""

    @property
    def current_seat(self) -> int | None:
        """The seat to move, or None when the game is over."""

    @property
    def is_over(self) -> bool: ...

    @property
    def scores(self) -> list[int]: ...

    @property
    def seat_count(self) -> int: ...

    def legal_moves_json(self, seat: int) -> list[JSON]:
        """The moves `seat` may make now, as API dicts (empty when it is not that seat's turn)."""

    def play(self, seat: int, move: Mapping[str, Any]) -> JSON:
        """Check and apply `move` for `seat`; return the public event describing it.

        The event holds nothing that any seat may not see (never a drawn or dealt tile).
        Raises InvalidMoveError, NotYourTurnError or IllegalMoveError and leaves the state
        unchanged when the move is refused.
        """

    def view(self, seat: int | None) -> JSON:
        """What `seat` may see (None: a spectator); the only projection of hidden information."""

    def record(self) -> JSON:
        """The complete replayable record (includes the deck order: only for finished games)."""

    def to_dict(self) -> JSON:
        """Everything, secrets included, JSON-safe: what the engine stores."""

    def copy(self) -> GameState: ...


class Game(Protocol):
    """A game kind: how to create, restore and replay its states."""

    kind: str

    def new_state(self, rules: Mapping[str, Any], seed: int) -> GameState:
        """A fresh, dealt game; raises RulesError for an unknown or out-of-range option."""

    def normalise_rules(self, rules: Mapping[str, Any]) -> JSON:
        """The full options dict with defaults filled in; raises RulesError."""

    def state_from_dict(self, data: Mapping[str, Any]) -> GameState:
        """Inverse of GameState.to_dict."""

    def replay(self, record: Mapping[str, Any]) -> GameState:
        """Re-play a record from its deck; raises RecordError naming the first bad move."""
