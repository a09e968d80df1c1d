"""The errors every game raises: a small hierarchy under ValueError.

The services map them to transport codes in one place each (gRPC status, HTTP status), so a game
only has to say *what* was wrong, never how to report it.
"""

from __future__ import annotations


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
    """A well-formed move the rules forbid; `rule` names the rule (e.g. "RULES.md §6(b)")."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule


class NotYourTurnError(IllegalMoveError):
    """A move by a seat whose turn it is not, or after the game has ended."""


class RecordError(GameError):
    """A record that is malformed or breaks a rule; `move` indexes the first bad move."""

    def __init__(self, message: str, move: int | None = None) -> None:
        super().__init__(message)
        self.move = move
