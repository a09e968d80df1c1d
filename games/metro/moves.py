"""Metro's move values: "place this tile (as oriented) on this square", or "draw".

A move is interned: there is exactly one `MetroMove` object per possible move (24 tiles x 64
squares, plus draw), so the search compares and hashes them as cheaply as ints, and
`legal_moves()` only looks objects up. Inside the game a move is also its integer `code`
(`tile * 64 + square`, or DRAW), the fast door's encoding; it never crosses the package border.
"""

from __future__ import annotations

from typing import Any

from games.errors import IllegalMoveError, InvalidMoveError
from games.metro.board import row_col
from games.metro.tiles import CODES, Placement

DRAW = 24 * 64  # the code of "draw the top tile"; every placement's code is below it


class MetroMove:
    """One move; get it from `MetroMove.of(code)`, `MetroMove.parse(json)` or `legal_moves`."""

    __slots__ = ("code",)
    code: int

    @staticmethod
    def of(code: int) -> MetroMove:
        return MOVES[code]

    @staticmethod
    def parse(data: Any) -> MetroMove:
        """The move of an API body `{"action": "place", "placement": "aacb00"}` or
        `{"action": "draw"}`; InvalidMoveError naming the bad field."""
        if not isinstance(data, dict):
            raise InvalidMoveError("a move must be a JSON object with an 'action'", "move")
        unknown = sorted(set(data) - {"action", "placement"})
        if unknown:
            raise InvalidMoveError(
                f"unknown field {unknown[0]!r} in the move; a move has 'action' and 'placement'",
                unknown[0],
            )
        action = data.get("action")
        if action == "draw":
            return MOVES[DRAW]
        if action != "place":
            raise InvalidMoveError(
                f"unknown action {action!r}; expected 'place' or 'draw'", "action"
            )
        try:
            p = Placement.parse(data.get("placement"))
        except InvalidMoveError as err:
            raise InvalidMoveError(str(err), "placement") from None
        if not p.on_board:
            raise IllegalMoveError(
                f"square ({p.row},{p.col}) is off the board",
                "RULES.md §6(a)",
                refusal="metro.off_board",
                params={"row": p.row + 1, "col": p.col + 1},
            )
        return MOVES[p.tile_index * 64 + p.square]

    @property
    def is_draw(self) -> bool:
        return self.code == DRAW

    @property
    def placement(self) -> str:
        """The RULES.md §8 notation ("aacb00"); "" for draw."""
        return move_text(self.code) if self.code != DRAW else ""

    def to_json(self) -> dict[str, Any]:
        # Every Metro move has both fields (a draw's placement is empty), as the API always
        # answered them: clients may read `placement` without checking the action first.
        if self.code == DRAW:
            return {"action": "draw", "placement": ""}
        return {"action": "place", "placement": move_text(self.code)}

    def __repr__(self) -> str:
        return f"MetroMove.parse({self.to_json()!r})"


def move_schema() -> dict[str, Any]:
    """The JSON Schema of the bodies `MetroMove.parse` reads (RULES.md §8 notation)."""
    return {
        "oneOf": [
            {
                "type": "object",
                "title": "place",
                "properties": {
                    "action": {"const": "place"},
                    "placement": {
                        "type": "string",
                        "pattern": "^[a-d]{4}[0-7]{2}$",
                        "description": "tile code, row and column (RULES.md §8), e.g. 'aacb00'",
                    },
                },
                "required": ["action", "placement"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "title": "draw",
                "properties": {
                    "action": {"const": "draw"},
                    "placement": {"const": "", "description": "a draw places nothing"},
                },
                "required": ["action"],
                "additionalProperties": False,
            },
        ]
    }


def move_text(code: int) -> str:
    """The notation of a move code: a placement (§8) or "draw"."""
    if code == DRAW:
        return "draw"
    t, sq = divmod(code, 64)
    r, c = row_col(sq)
    return f"{CODES[t]}{r}{c}"


def _make(code: int) -> MetroMove:
    move = object.__new__(MetroMove)
    move.code = code
    return move


MOVES: tuple[MetroMove, ...] = tuple(_make(code) for code in range(DRAW + 1))
