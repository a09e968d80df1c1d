"""Move values (RULES-METROX.md §3): a line, a station, or a pass.

Moves compare by their ids only, so the value `parse_move` reads from JSON equals the one
`legal_moves` hands out. Each map interns its moves once (`moves_for`), so listing the legal
moves of a turn allocates nothing but the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.base import JSON
from games.errors import InvalidMoveError
from games.metrox.maps import MetroXMap


@dataclass(frozen=True, slots=True)
class LineMove:
    """A number, skip or transfer card played on line `line`."""

    line: str

    def __hash__(self) -> int:  # the id's own hash: a search hashes moves all the time
        return hash(self.line)

    def to_json(self) -> JSON:
        return {"line": self.line}


@dataclass(frozen=True, slots=True)
class StationMove:
    """A free card: the station `station` is filled."""

    station: str

    def __hash__(self) -> int:  # as LineMove's
        return hash(self.station)

    def to_json(self) -> JSON:
        return {"station": self.station}


@dataclass(frozen=True, slots=True)
class PassMove:
    """A free card with no empty station left."""

    def to_json(self) -> JSON:
        return {"pass": True}


PASS = PassMove()
MetroXMove = LineMove | StationMove | PassMove


@dataclass(frozen=True, slots=True)
class MapMoves:
    """The interned moves of one map, indexed like its lines and stations."""

    lines: tuple[LineMove, ...]
    stations: tuple[StationMove, ...]
    passes: tuple[PassMove, ...] = (PASS,)


@cache
def moves_for(m: MetroXMap) -> MapMoves:
    return MapMoves(
        tuple(LineMove(x) for x in m.line_ids), tuple(StationMove(x) for x in m.station_ids)
    )


def parse(data: Any) -> MetroXMove:
    """A move from its JSON; InvalidMoveError naming the bad field. Whether the line or station
    exists on the game's map is checked by `play`, which knows the map."""
    if isinstance(data, LineMove | StationMove | PassMove):
        return data
    if not isinstance(data, Mapping):
        raise InvalidMoveError("a move must be an object: {line}, {station} or {pass}", "move")
    unknown = sorted(k for k in data if k not in ("line", "station", "pass"))
    if unknown:
        raise InvalidMoveError(
            f"unknown field {unknown[0]!r} in the move; a move is {{line}}, {{station}} or "
            "{pass}",
            str(unknown[0]),
        )
    present = [k for k in ("line", "station", "pass") if k in data]
    if len(present) != 1:
        raise InvalidMoveError(
            "a move has exactly one of 'line', 'station' or 'pass'",
            present[1] if present else "move",
        )
    key = present[0]
    value = data[key]
    if key == "pass":
        if value is not True:
            raise InvalidMoveError("'pass' must be true", "pass")
        return PASS
    if not isinstance(value, str) or not value:
        raise InvalidMoveError(f"'{key}' must be a {key} id (a string)", key)
    return LineMove(value) if key == "line" else StationMove(value)


def move_schema() -> JSON:
    """The JSON Schema of the bodies `parse` reads: exactly one of line, station or pass."""

    def one(key: str, value: JSON) -> JSON:
        return {"type": "object", "title": key, "properties": {key: value},
                "required": [key], "additionalProperties": False}  # fmt: skip

    return {
        "oneOf": [
            one("line", {"type": "string", "minLength": 1, "description": "a line id"}),
            one("station", {"type": "string", "minLength": 1, "description": "a station id"}),
            one("pass", {"const": True}),
        ]
    }
