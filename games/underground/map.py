"""The board of On the Underground as data (RULES-UNDERGROUND.md §1): load, validate, index.

A map is JSON (`maps/<id>.json`). `parse_map` checks every constraint of §1 and refuses a map
that breaks one with a `MapError` naming the reason; `load_map(id)` reads a shipped map once.

Indexes: stations are numbered 0..n-1 in the file's order, sections 0..m-1; a set of stations is
an int bitmask (bit i: station i), which is what the passenger's search works on.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from games.errors import GameError
from games.underground.scoring import enclosed_mask, new_cycles

MAPS_DIR = Path(str(files("games.underground"))) / "maps"  # compiled, `__file__` is relative
MAP_IDS = ("london",)

CONNECTION_SPOTS = (
    "aldgate",
    "baker_street",
    "charing_cross",
    "elephant_and_castle",
    "hammersmith",
    "kings_cross_st_pancras",
    "notting_hill_gate",
    "victoria",
)
MIN_STATIONS, MAX_STATIONS = 90, 140
NORMAL_COUNT, EXPRESS_COUNT = 33, 22
MIN_EDGE_TERMINI, MIN_RAIL = 8, 10
EDGE_MARGIN = 0.12  # a terminus is on the edge when within 12% of the stations' extent of it

# The seed's worked examples (§6) must hold on the project's map.
REQUIRED_NEIGHBOURS = (
    ("goldhawk_road", "shepherds_bush"),
    ("goldhawk_road", "hammersmith"),
    ("hammersmith", "turnham_green"),
)
REQUIRED_TERMINI = ("ealing_broadway",)
REQUIRED_RAIL = ("paddington", "marylebone")
REQUIRED_STATIONS = ("holborn", "oxford_circus", "leicester_square", "great_portland_street")
# The third example: a green loop through Charing Cross around Holborn, the line on from Warren
# Street down to Green Park; green extends down to Victoria and on to Charing Cross, closing a
# loop that encloses Holborn again and exactly 4 stations the first loop did not.
EXAMPLE_LOOP = (
    "kings_cross_st_pancras", "euston", "warren_street", "goodge_street", "tottenham_court_road",
    "leicester_square", "charing_cross", "temple", "blackfriars", "farringdon",
)  # fmt: skip
EXAMPLE_LINE = (
    "warren_street", "oxford_circus", "green_park", "victoria", "st_jamess_park", "westminster",
    "charing_cross",
)  # fmt: skip
EXAMPLE_NEW_ENCLOSED = 4


class MapError(GameError):
    """A map that breaks §1; the message says which constraint."""


@dataclass(frozen=True, slots=True)
class Station:
    id: str
    name: str
    x: float
    y: float
    terminus: bool
    rail: bool
    destination: str | None  # "normal", "express" or None
    connection: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "x": self.x, "y": self.y,
                "terminus": self.terminus, "rail": self.rail,
                "destination": self.destination, "connection": self.connection}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Section:
    a: int
    b: int
    spaces: int


@dataclass(frozen=True, eq=False)
class Map:
    """A validated map with its indexes (stations by id, neighbours, sections by pair)."""

    id: str
    name: str
    stations: tuple[Station, ...]
    sections: tuple[Section, ...]
    start: int
    index: Mapping[str, int]
    # neighbours[i]: ((neighbour station, section index), ...) sorted by neighbour id
    neighbours: tuple[tuple[tuple[int, int], ...], ...]
    neighbour_mask: tuple[int, ...]  # bitmask of the neighbours of each station
    section_of: Mapping[tuple[int, int], int]  # (a, b) with a < b -> section index
    terminus_mask: int
    rail_mask: int
    connections: tuple[int, ...]  # the connection spots, in CONNECTION_SPOTS order
    destinations: tuple[int, ...]  # every destination station, by id
    express_mask: int
    normal_mask: int

    @property
    def size(self) -> int:
        return len(self.stations)

    def sid(self, i: int) -> str:
        return self.stations[i].id

    def section(self, a: int, b: int) -> int | None:
        return self.section_of.get((a, b) if a < b else (b, a))

    def to_json(self) -> dict[str, Any]:
        """The map as §1 writes it."""
        st = self.stations
        return {
            "id": self.id,
            "name": self.name,
            "stations": [s.to_json() for s in st],
            "sections": [
                {"a": st[s.a].id, "b": st[s.b].id, "spaces": s.spaces} for s in self.sections
            ],
            "start": st[self.start].id,
        }


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise MapError(f"map refused: {message} (RULES-UNDERGROUND.md §1)")


def parse_map(data: Any) -> Map:
    """Validate a map document (§1) and build its indexes; MapError names what is wrong."""
    _need(isinstance(data, Mapping), "a map must be a JSON object")
    raw_stations = data.get("stations")
    raw_sections = data.get("sections")
    _need(isinstance(raw_stations, list), "'stations' must be a list")
    _need(isinstance(raw_sections, list), "'sections' must be a list")
    stations: list[Station] = []
    for s in raw_stations:
        _need(isinstance(s, Mapping), "every station must be an object")
        try:
            st = Station(
                id=str(s["id"]),
                name=str(s["name"]),
                x=float(s["x"]),
                y=float(s["y"]),
                terminus=bool(s["terminus"]),
                rail=bool(s["rail"]),
                destination=s["destination"],
                connection=bool(s["connection"]),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise MapError(f"map refused: station {s.get('id')!r} is malformed ({err})") from None
        _need(
            st.destination in (None, "normal", "express"),
            f"station {st.id!r}: destination must be 'normal', 'express' or null",
        )
        stations.append(st)
    n = len(stations)
    _need(MIN_STATIONS <= n <= MAX_STATIONS, f"{n} stations; a map has 90-140")
    index = {s.id: i for i, s in enumerate(stations)}
    _need(len(index) == n, "station ids must be unique")

    sections: list[Section] = []
    section_of: dict[tuple[int, int], int] = {}
    for raw in raw_sections:
        _need(isinstance(raw, Mapping), "every section must be an object")
        a, b, spaces = raw.get("a"), raw.get("b"), raw.get("spaces")
        _need(a in index and b in index, f"section {a!r}-{b!r} names an unknown station")
        _need(a != b, f"section {a!r}-{b!r} joins a station to itself")
        _need(type(spaces) is int and 1 <= spaces <= 3, f"section {a}-{b}: spaces must be 1-3")
        ia, ib = sorted((index[a], index[b]))
        _need((ia, ib) not in section_of, f"section {a}-{b} is listed twice")
        section_of[(ia, ib)] = len(sections)
        sections.append(Section(ia, ib, spaces))

    start = data.get("start")
    _need(start == "euston", "the start must be 'euston'")
    normal = [i for i, s in enumerate(stations) if s.destination == "normal"]
    express = [i for i, s in enumerate(stations) if s.destination == "express"]
    _need(len(normal) == NORMAL_COUNT, f"{len(normal)} normal destinations; a map has 33")
    _need(len(express) == EXPRESS_COUNT, f"{len(express)} express destinations; a map has 22")
    rails = [i for i, s in enumerate(stations) if s.rail]
    _need(len(rails) >= MIN_RAIL, f"{len(rails)} national rail stations; a map has at least 10")
    spots = sorted(s.id for s in stations if s.connection)
    _need(
        spots == sorted(CONNECTION_SPOTS),
        "the connection spots must be exactly " + ", ".join(CONNECTION_SPOTS),
    )
    xs = [s.x for s in stations]
    ys = [s.y for s in stations]
    mx = (max(xs) - min(xs)) * EDGE_MARGIN
    my = (max(ys) - min(ys)) * EDGE_MARGIN
    edge = [
        s.id
        for s in stations
        if s.terminus
        and (
            s.x <= min(xs) + mx or s.x >= max(xs) - mx or s.y <= min(ys) + my or s.y >= max(ys) - my
        )
    ]
    _need(len(edge) >= MIN_EDGE_TERMINI, f"{len(edge)} termini on the edge; a map has at least 8")

    for sid in (*REQUIRED_TERMINI, *REQUIRED_RAIL, *REQUIRED_STATIONS):
        _need(sid in index, f"the worked examples need station {sid!r}")
    for sid in REQUIRED_TERMINI:
        _need(stations[index[sid]].terminus, f"{sid!r} must be a terminus")
    for sid in REQUIRED_RAIL:
        _need(stations[index[sid]].rail, f"{sid!r} must be a national rail station")
    for a, b in REQUIRED_NEIGHBOURS:
        _need(a in index and b in index, f"the worked examples need {a!r} and {b!r}")
        ia, ib = sorted((index[a], index[b]))
        _need((ia, ib) in section_of, f"{a!r} must neighbour {b!r}")

    _check_loop_example(stations, index, section_of)

    nbrs: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for k, sec in enumerate(sections):
        nbrs[sec.a].append((sec.b, k))
        nbrs[sec.b].append((sec.a, k))
    for lst in nbrs:
        lst.sort(key=lambda p: stations[p[0]].id)
    # Connected: the passenger can always walk to any destination.
    seen = 1 << index["euston"]
    todo = [index["euston"]]
    while todo:
        i = todo.pop()
        for j, _ in nbrs[i]:
            if not seen >> j & 1:
                seen |= 1 << j
                todo.append(j)
    _need(seen == (1 << n) - 1, "every station must be reachable from every other")

    def mask(ids: list[int]) -> int:
        m = 0
        for i in ids:
            m |= 1 << i
        return m

    return Map(
        id=str(data.get("id", "")),
        name=str(data.get("name", "")),
        stations=tuple(stations),
        sections=tuple(sections),
        start=index["euston"],
        index=index,
        neighbours=tuple(tuple(lst) for lst in nbrs),
        neighbour_mask=tuple(mask([j for j, _ in lst]) for lst in nbrs),
        section_of=section_of,
        terminus_mask=mask([i for i, s in enumerate(stations) if s.terminus]),
        rail_mask=mask(rails),
        connections=tuple(index[c] for c in CONNECTION_SPOTS),
        destinations=tuple(sorted(normal + express, key=lambda i: stations[i].id)),
        express_mask=mask(express),
        normal_mask=mask(normal),
    )


def _check_loop_example(
    stations: list[Station], index: Mapping[str, int], section_of: Mapping[tuple[int, int], int]
) -> None:
    """§6's third example holds: the loop closed at Charing Cross scores exactly 4."""
    for sid in (*EXAMPLE_LOOP, *EXAMPLE_LINE):
        _need(sid in index, f"the worked examples need station {sid!r}")
    loop = [index[sid] for sid in EXAMPLE_LOOP]
    line = [index[sid] for sid in EXAMPLE_LINE]
    rails = [*itertools.pairwise([*loop, loop[0]]), *itertools.pairwise(line)]
    for a, b in rails:
        _need(
            (min(a, b), max(a, b)) in section_of,
            f"{stations[a].id!r} must neighbour {stations[b].id!r} (the worked examples)",
        )
    xs = [s.x for s in stations]
    ys = [s.y for s in stations]
    everything = (1 << len(stations)) - 1
    before = enclosed_mask(loop, xs, ys, everything)
    holborn = 1 << index["holborn"]
    _need(bool(before & holborn), "the green loop of the worked examples must enclose Holborn")
    adj: dict[int, list[int]] = {}
    for a, b in rails[:-1]:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    a, b = rails[-1]
    after = 0
    for cycle in new_cycles(a, b, lambda v: iter(adj.get(v, ()))):
        after |= enclosed_mask(cycle, xs, ys, everything)
    got = (after & ~before).bit_count()
    _need(
        bool(after & holborn) and got == EXAMPLE_NEW_ENCLOSED,
        f"green's loop closed at Charing Cross must enclose Holborn again and "
        f"{EXAMPLE_NEW_ENCLOSED} stations more, not {got} (the worked examples)",
    )


@cache
def load_map(map_id: str = "london") -> Map:
    """A shipped map by id (validated once, then cached)."""
    if map_id not in MAP_IDS:
        raise MapError(f"unknown map {map_id!r}; known maps: {', '.join(MAP_IDS)}")
    with open(MAPS_DIR / f"{map_id}.json", encoding="utf-8") as f:
        return parse_map(json.load(f))
