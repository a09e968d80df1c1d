"""The record header every game shares: `FORMAT` and the check of a record's opening fields.

Why one place: every game writes `metro-record/1` (RULES.md §9; the other games' rules files say
"§9's format with `"game": <kind>`"), so the name of the format and the check that a record is
one, and of the game replaying it, were three copies that could drift. Each game's `record.py`
opens its export with `header` and its replay with `check_header`; the rest of a record is the
game's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.errors import RecordError

FORMAT = "metro-record/1"  # the format and its version, in one string (RULES.md §9)


def header(kind: str, *, names_game: bool = True) -> dict[str, Any]:
    """The opening fields of a record of game `kind`. `names_game=False` only for the default
    game, Metro: RULES.md §9's record names no game, and a record that names none is the
    default game's (`games.compact`, `games.queries`)."""
    return {"format": FORMAT, "game": kind} if names_game else {"format": FORMAT}


def check_header(record: Any, kind: str) -> Mapping[str, Any]:
    """`record` as a mapping, once it is a JSON object of this format (a missing `format` is
    taken as this one) that is a record of `kind` (a missing `game` is taken as `kind`: the
    caller chose the game); RecordError naming what is wrong otherwise."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    found = record.get("format", FORMAT)
    if found != FORMAT:
        raise RecordError(f"unknown record format {found!r}; expected {FORMAT!r}")
    game = record.get("game", kind)
    if game != kind:
        raise RecordError(f"this is a record of {game!r}, not of {kind!r}")
    return record
