"""Move values (RULES-METROX.md §3): a line, a station, or a pass.

Moves compare by their ids only, so the value `parse_move` reads from JSON equals the one
`legal_moves` hands out: a line or station move is interned when it is made (one value per id
while any is alive), so equal moves are the same object and compare and hash by identity, in C
(a search hashes moves at every node: a `__hash__` written in Python cost 8% of a Metro X
search). Each map's moves are made once (`moves_for`), so listing the legal moves of a turn
allocates nothing but the list.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from games.base import JSON
from games.errors import InvalidMoveError
from games.metrox.maps import MetroXMap

_Move = TypeVar("_Move", "LineMove", "StationMove")
# (class, id) -> the one live move: weak, so ids read from bad requests are not kept
_interned: weakref.WeakValueDictionary[tuple[type, str], Any] = weakref.WeakValueDictionary()
_intern_lock = threading.Lock()  # two threads making the same new move get the same value


def _intern(cls: type[_Move], field: str, value: str) -> _Move:
    """The live `cls` move of id `value`, or a new one (its field set before anyone sees it)."""
    with _intern_lock:
        move = _interned.get((cls, value))
        if move is None:
            move = object.__new__(cls)
            object.__setattr__(move, field, value)
            _interned[cls, value] = move
        return move  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class LineMove:
    """A number, skip or transfer card played on line `line`. Interned: equal is identical."""

    line: str

    def __new__(cls, line: str) -> LineMove:
        return _intern(cls, "line", line)

    def __reduce__(self) -> tuple[Any, ...]:  # a copy or an unpickled move is the live one
        return LineMove, (self.line,)

    def to_json(self) -> JSON:
        return {"line": self.line}


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class StationMove:
    """A free card: the station `station` is filled. Interned as LineMove."""

    station: str

    def __new__(cls, station: str) -> StationMove:
        return _intern(cls, "station", station)

    def __reduce__(self) -> tuple[Any, ...]:
        return StationMove, (self.station,)

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
