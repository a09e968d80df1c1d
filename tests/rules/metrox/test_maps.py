"""Map validation (RULES-METROX.md §1): the shipped maps pass, and each broken rule is named."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from typing import Any

import pytest

from games.metrox import maps
from games.metrox.maps import MapError, check_set, validate


def lakeside() -> dict[str, Any]:
    return copy.deepcopy(maps.get("lakeside").data)


def degrees(data: dict[str, Any]) -> Counter[str]:
    return Counter(s for ln in data["lines"] for s in ln["stations"])


def test_shipped_maps() -> None:
    shipped = maps.shipped()
    assert list(shipped) == ["lakeside", "amsterdam", "berlin", "madrid", "paris", "kessel"]
    assert [m.beginner for m in shipped.values()] == [True, True, True, False, False, False]
    for m in shipped.values():
        path = maps.MAP_DIR / f"{m.id}.json"
        assert json.loads(path.read_text()) == m.data
        deg = degrees(m.data)
        assert 7 <= m.line_count <= 12 and 45 <= m.station_count <= 90
        assert sum(d >= 2 for d in deg.values()) >= 12 and sum(d >= 3 for d in deg.values()) >= 3
        assert 20 <= m.total_windows <= 30
        xy = [(st["x"], st["y"]) for st in m.data["stations"]]
        assert len(set(xy)) == len(xy)  # no two stations drawn on the same spot


def _unshare(data: dict[str, Any], degree: int, keep: int) -> None:
    """Give lines their own copy of shared stations until `keep` stations of >= `degree` stay."""
    n = 0
    while sum(d >= degree for d in degrees(data).values()) > keep:
        deg = degrees(data)
        sid = next(s for s, d in deg.items() if d >= degree)
        line = next(ln for ln in data["lines"] if sid in ln["stations"])
        n += 1
        new = {"id": f"x{n}", "name": f"X{n}", "x": 100 + n, "y": 100}
        data["stations"].append(new)
        line["stations"][line["stations"].index(sid)] = new["id"]


def _case(name: str) -> dict[str, Any]:
    d = lakeside()
    lines, stations = d["lines"], d["stations"]
    if name == "too many lines":
        for i in range(4):
            lines.append({**lines[0], "id": f"Z{i}"})
    elif name == "too few lines":
        d["lines"] = lines[:6]
    elif name == "too few stations":
        d["stations"] = stations[:44]
    elif name == "too many stations":
        stations.extend({"id": f"y{i}", "name": "Y", "x": i, "y": 50} for i in range(44))
    elif name == "duplicate station":
        stations[1]["id"] = stations[0]["id"]
    elif name == "unknown station":
        lines[0]["stations"][0] = "nowhere"
    elif name == "passes twice":
        lines[0]["stations"].append(lines[0]["stations"][2])
    elif name == "short line":
        lines[0]["stations"] = lines[0]["stations"][:3]
    elif name == "long line":
        lines[0]["stations"] += [s["id"] for s in stations if s["id"] not in lines[0]["stations"]][
            :5
        ]
    elif name == "windows 6":
        lines[0]["windows"] = 6
    elif name == "windows 1":
        lines[0]["windows"] = 1
    elif name == "bonus equal":
        lines[0]["bonus"] = [3, 3]
    elif name == "bonus negative":
        lines[0]["bonus"] = [3, -1]
    elif name == "lonely station":
        stations.append({"id": "x0", "name": "X", "x": 0, "y": 0})
    elif name == "few degree 2":
        _unshare(d, 2, 11)
    elif name == "few degree 3":
        _unshare(d, 3, 2)
    elif name == "few windows":
        for ln in lines:
            ln["windows"] = 2
    elif name == "many windows":
        for ln in lines:
            ln["windows"] = 4
    elif name == "bad colour":
        lines[0]["colour"] = "red"
    elif name == "bad x":
        stations[0]["x"] = "3"
    return d


CASES = {
    "too many lines": "7..12 lines, not 13",
    "too few lines": "7..12 lines, not 6",
    "too few stations": "45..90 stations, not 44",
    "too many stations": "45..90 stations, not 91",
    "duplicate station": "station ids must be unique",
    "unknown station": "line A: unknown station 'nowhere'",
    "passes twice": "line A passes a station more than once",
    "short line": "line A: a line has 4..14 stations, not 3",
    "long line": "line A: a line has 4..14 stations, not 15",
    "windows 6": "line A: a line has 2..5 windows, not 6",
    "windows 1": "line A: a line has 2..5 windows, not 1",
    "bonus equal": "line A: bonus must be [first, later] with first > later >= 0",
    "bonus negative": "line A: bonus must be [first, later] with first > later >= 0",
    "lonely station": "station x0 lies on no line",
    "few degree 2": "at least 12 stations of degree >= 2, not 11",
    "few degree 3": "at least 3 stations of degree >= 3, not 2",
    "few windows": "20..30 windows in all, not 18",
    "many windows": "20..30 windows in all, not 36",
    "bad colour": "line A: 'colour' must be '#rrggbb'",
    "bad x": "station s01: 'x' must be a number",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_map_is_refused_with_the_reason(name: str) -> None:
    with pytest.raises(MapError) as err:
        validate(_case(name))
    assert CASES[name] in str(err.value)


def test_the_unbroken_copy_passes() -> None:
    assert validate(lakeside()).id == "lakeside"


def test_the_default_map_is_a_beginners_map() -> None:
    shipped = list(maps.shipped().values())
    a = validate(lakeside())
    with pytest.raises(MapError, match="map ids must be unique"):
        check_set([*shipped, a])
    with pytest.raises(MapError, match="default map 'lakeside' is missing"):
        check_set(shipped[1:])
    hard = dataclasses.replace(a, beginner=False)
    with pytest.raises(MapError, match="must be a beginners' map"):
        check_set([hard, *shipped[1:]])
    with pytest.raises(MapError, match="unknown map"):
        maps.get("atlantis")
