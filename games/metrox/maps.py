"""Metro X maps (RULES-METROX.md §1): loading, validation and the precomputed tables.

A map is data; the rules core reads the shipped JSON files once, on first use. Everything the hot
path needs is precomputed here as tuples of ints and bitmasks (station `i` is bit `i`), so a
state never touches a dict or a string while a game is played out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from games.errors import GameError

# The package's own directory, asked of the import system: compiled (games/native.py), this
# module's `__file__` would be the relative path it was compiled from.
MAP_DIR = Path(str(files("games.metrox"))) / "maps"
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")

# §1's limits for the maps the project ships.
LINES = (7, 12)
STATIONS = (45, 90)
MIN_DEG2 = 12
MIN_DEG3 = 3
WINDOWS_TOTAL = (20, 30)
LINE_STATIONS = (4, 14)
LINE_WINDOWS = (2, 5)
# The default map, and the seed's four city sheets with whether each is for beginners (§1).
DEFAULT = "lakeside"
CITIES = {"amsterdam": True, "berlin": True, "paris": False, "madrid": False}


class MapError(GameError):
    """A map that breaks §1; the message says which rule and where."""


@dataclass(frozen=True, slots=True)
class MetroXMap:
    """One validated map with the tables the state uses."""

    id: str
    name: str
    description: str
    beginner: bool
    data: dict[str, Any] = field(repr=False, compare=False)  # the JSON object, exactly as §1
    station_ids: tuple[str, ...]
    line_ids: tuple[str, ...]
    station_index: dict[str, int] = field(repr=False, compare=False)
    line_index: dict[str, int] = field(repr=False, compare=False)
    line_stations: tuple[tuple[int, ...], ...]  # station indices from each line's start
    line_bits: tuple[tuple[int, ...], ...]  # the same, as single-bit masks
    line_mask: tuple[int, ...]  # every station of the line
    windows: tuple[int, ...]
    first_bonus: tuple[int, ...]
    later_bonus: tuple[int, ...]
    degree: tuple[int, ...]
    station_lines: tuple[int, ...]  # per station: a bitmask of the lines through it
    line_slines: tuple[tuple[int, ...], ...]  # per line, per station: station_lines of it
    total_windows: int

    @property
    def station_count(self) -> int:
        return len(self.station_ids)

    @property
    def line_count(self) -> int:
        return len(self.line_ids)

    def summary(self) -> dict[str, Any]:
        """The entry of the `maps` query (§8)."""
        return {
            "id": self.id,
            "name": self.name,
            "beginner": self.beginner,
            "lines": self.line_count,
            "stations": self.station_count,
            "windows": self.total_windows,
        }


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise MapError(message)


def _int(value: Any) -> bool:
    return type(value) is int


def _check_shape(data: Any) -> None:
    """Types and fields; the counting rules come after."""
    _need(isinstance(data, Mapping), "a map must be a JSON object")
    for key in ("id", "name"):
        _need(isinstance(data.get(key), str) and data[key] != "", f"map '{key}' must be a string")
    _need(isinstance(data.get("description", ""), str), "map 'description' must be a string")
    _need(type(data.get("beginner", False)) is bool, "map 'beginner' must be true or false")
    stations, lines = data.get("stations"), data.get("lines")
    _need(isinstance(stations, list), "map 'stations' must be a list")
    _need(isinstance(lines, list), "map 'lines' must be a list")
    for st in stations:
        _need(isinstance(st, Mapping), "every station must be an object")
        _need(isinstance(st.get("id"), str) and st["id"] != "", "a station's 'id' must be a string")
        _need(isinstance(st.get("name"), str), f"station {st['id']}: 'name' must be a string")
        for axis in ("x", "y"):
            v = st.get(axis)
            _need(
                isinstance(v, int | float) and not isinstance(v, bool),
                f"station {st['id']}: '{axis}' must be a number",
            )
    for ln in lines:
        _need(isinstance(ln, Mapping), "every line must be an object")
        _need(isinstance(ln.get("id"), str) and ln["id"] != "", "a line's 'id' must be a string")
        lid = ln["id"]
        _need(isinstance(ln.get("name"), str), f"line {lid}: 'name' must be a string")
        _need(
            isinstance(ln.get("colour"), str) and bool(COLOUR.match(ln["colour"])),
            f"line {lid}: 'colour' must be '#rrggbb'",
        )
        _need(
            isinstance(ln.get("stations"), list)
            and all(isinstance(s, str) for s in ln["stations"]),
            f"line {lid}: 'stations' must be a list of station ids",
        )
        _need(_int(ln.get("windows")), f"line {lid}: 'windows' must be an integer")
        bonus = ln.get("bonus")
        _need(
            isinstance(bonus, list) and len(bonus) == 2 and all(_int(b) for b in bonus),
            f"line {lid}: 'bonus' must be [first, later], two integers",
        )


def validate(data: Any) -> MetroXMap:
    """The map `data` (a §1 JSON object) checked against every rule of §1; MapError naming the
    first broken rule otherwise."""
    _check_shape(data)
    stations, lines = data["stations"], data["lines"]
    sids = [s["id"] for s in stations]
    _need(len(set(sids)) == len(sids), "station ids must be unique")
    lids = [ln["id"] for ln in lines]
    _need(len(set(lids)) == len(lids), "line ids must be unique")
    index = {sid: i for i, sid in enumerate(sids)}
    _need(
        LINES[0] <= len(lines) <= LINES[1],
        f"a map has {LINES[0]}..{LINES[1]} lines, not {len(lines)}",
    )
    _need(
        STATIONS[0] <= len(stations) <= STATIONS[1],
        f"a map has {STATIONS[0]}..{STATIONS[1]} stations, not {len(stations)}",
    )
    degree = [0] * len(sids)
    station_lines = [0] * len(sids)
    for li, ln in enumerate(lines):
        lid, seq = ln["id"], ln["stations"]
        for s in seq:
            _need(s in index, f"line {lid}: unknown station {s!r}")
        _need(len(set(seq)) == len(seq), f"line {lid} passes a station more than once")
        _need(
            LINE_STATIONS[0] <= len(seq) <= LINE_STATIONS[1],
            f"line {lid}: a line has {LINE_STATIONS[0]}..{LINE_STATIONS[1]} stations, "
            f"not {len(seq)}",
        )
        _need(
            LINE_WINDOWS[0] <= ln["windows"] <= LINE_WINDOWS[1],
            f"line {lid}: a line has {LINE_WINDOWS[0]}..{LINE_WINDOWS[1]} windows, "
            f"not {ln['windows']}",
        )
        first, later = ln["bonus"]
        _need(
            first > later >= 0, f"line {lid}: bonus must be [first, later] with first > later >= 0"
        )
        for s in seq:
            degree[index[s]] += 1
            station_lines[index[s]] |= 1 << li
    for sid, d in zip(sids, degree, strict=True):
        _need(d > 0, f"station {sid} lies on no line")
    deg2 = sum(1 for d in degree if d >= 2)
    deg3 = sum(1 for d in degree if d >= 3)
    _need(deg2 >= MIN_DEG2, f"a map needs at least {MIN_DEG2} stations of degree >= 2, not {deg2}")
    _need(deg3 >= MIN_DEG3, f"a map needs at least {MIN_DEG3} stations of degree >= 3, not {deg3}")
    total = sum(ln["windows"] for ln in lines)
    _need(
        WINDOWS_TOTAL[0] <= total <= WINDOWS_TOTAL[1],
        f"a map has {WINDOWS_TOTAL[0]}..{WINDOWS_TOTAL[1]} windows in all, not {total}",
    )
    line_stations = tuple(tuple(index[s] for s in ln["stations"]) for ln in lines)
    return MetroXMap(
        id=data["id"],
        name=data["name"],
        description=data.get("description", ""),
        beginner=data.get("beginner", False),
        data=json.loads(json.dumps(data)),
        station_ids=tuple(sids),
        line_ids=tuple(lids),
        station_index=index,
        line_index={lid: i for i, lid in enumerate(lids)},
        line_stations=line_stations,
        line_bits=tuple(tuple(1 << s for s in seq) for seq in line_stations),
        line_mask=tuple(sum(1 << s for s in seq) for seq in line_stations),
        windows=tuple(ln["windows"] for ln in lines),
        first_bonus=tuple(ln["bonus"][0] for ln in lines),
        later_bonus=tuple(ln["bonus"][1] for ln in lines),
        degree=tuple(degree),
        station_lines=tuple(station_lines),
        line_slines=tuple(tuple(station_lines[s] for s in seq) for seq in line_stations),
        total_windows=total,
    )


def check_set(maps: list[MetroXMap]) -> None:
    """§1 on the shipped set: ids unique, the default map shipped and a beginners' map, the seed's
    four cities among them (Amsterdam and Berlin for beginners, Paris and Madrid not)."""
    ids = [m.id for m in maps]
    _need(len(set(ids)) == len(ids), "map ids must be unique")
    by_id = {m.id: m for m in maps}
    _need(DEFAULT in by_id, f"the default map {DEFAULT!r} is missing")
    _need(by_id[DEFAULT].beginner, f"the default map {DEFAULT!r} must be a beginners' map")
    for city, beginner_city in CITIES.items():
        _need(city in by_id, f"the city map {city!r} is missing")
        _need(
            by_id[city].beginner is beginner_city,
            f"map {city!r}: 'beginner' must be {str(beginner_city).lower()}",
        )


@cache
def shipped() -> dict[str, MetroXMap]:
    """The project's maps by id, beginner first, read once."""
    maps = []
    for path in sorted(MAP_DIR.glob("*.json")):
        try:
            maps.append(validate(json.loads(path.read_text(encoding="utf-8"))))
        except MapError as err:
            raise MapError(f"{path.name}: {err}") from None
    check_set(maps)
    maps.sort(key=lambda m: (m.id != DEFAULT, not m.beginner, m.id not in CITIES, m.id))
    return {m.id: m for m in maps}


def beginner() -> MetroXMap:
    """The default map (a beginners' one), first of `shipped()`."""
    return next(iter(shipped().values()))


def get(map_id: str) -> MetroXMap:
    """The shipped map `map_id`; MapError naming the known ones otherwise."""
    try:
        return shipped()[map_id]
    except (KeyError, TypeError):
        raise MapError(f"unknown map {map_id!r}; known maps: {', '.join(shipped())}") from None
