"""The errors every game raises: a small hierarchy under ValueError.

The services map them to transport codes in one place each (gRPC status, HTTP status), so a game
only has to say *what* was wrong, never how to report it.
"""

from __future__ import annotations

from collections.abc import Mapping


class GameError(ValueError):
    """Base of every rules-core error; the message is a sentence meant for the user."""


class RulesError(GameError):
    """Game options that are unknown or out of range; `field` names the option."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class InvalidMoveError(GameError):
    """A move that cannot even be read: unknown action, malformed placement, wrong types;
    `field` names the part of the move that was wrong ("action", "placement")."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class IllegalMoveError(GameError):
    """A well-formed move the rules forbid; `rule` names the rule (e.g. "RULES.md §6(b)").

    `refusal` is the refusal's stable code and `params` the values its sentence needs (numbers
    and names as a player reads them: rows and columns from 1, station names), so that the page
    words it in the player's language from its catalogue: "<kind>.<code>" for a game's own
    refusal (games/<kind>/web/i18n: "<kind>.refusal.<code>"), a bare code for one every game
    shares ("game_over"). The message stays the English sentence (the API's default)."""

    def __init__(
        self,
        message: str,
        rule: str = "",
        *,
        refusal: str = "",
        params: Mapping[str, str | int] | None = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.refusal = refusal
        self.params: dict[str, str | int] = dict(params or {})


class NotYourTurnError(IllegalMoveError):
    """A move by a seat whose turn it is not, or after the game has ended."""


class RecordError(GameError):
    """A record that is malformed or breaks a rule; `move` indexes the first bad move."""

    def __init__(self, message: str, move: int | None = None) -> None:
        super().__init__(message)
        self.move = move
