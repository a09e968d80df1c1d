"""The London map (RULES-UNDERGROUND.md §1)."""

from __future__ import annotations

import copy
import json

import pytest

from games.underground.map import CONNECTION_SPOTS, MAPS_DIR, MapError, load_map, parse_map

RAW = json.loads((MAPS_DIR / "london.json").read_text())


def test_london_meets_every_constraint() -> None:
    m = load_map("london")
    assert 90 <= m.size <= 140
    kinds = [s.destination for s in m.stations]
    assert kinds.count("normal") == 33
    assert kinds.count("express") == 22
    assert sum(s.rail for s in m.stations) >= 10
    assert m.sid(m.start) == "euston"
    assert sorted(s.id for s in m.stations if s.connection) == sorted(CONNECTION_SPOTS)
    assert all(1 <= s.spaces <= 3 for s in m.sections)
    assert {s.spaces for s in m.sections} == {1, 2, 3}


def test_worked_example_facts_hold() -> None:
    m = load_map()
    i = m.index
    assert m.section(i["goldhawk_road"], i["shepherds_bush"]) is not None
    assert m.section(i["goldhawk_road"], i["hammersmith"]) is not None
    assert m.section(i["hammersmith"], i["turnham_green"]) is not None
    assert m.stations[i["ealing_broadway"]].terminus
    assert m.stations[i["paddington"]].rail and m.stations[i["marylebone"]].rail
    for sid in ("holborn", "oxford_circus", "leicester_square", "great_portland_street"):
        assert sid in i
    assert m.stations[i["euston"]].destination == "express"


def test_map_json_round_trips() -> None:
    m = load_map()
    again = parse_map(m.to_json())
    assert again.to_json() == m.to_json()


def _broken(change) -> dict:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(RAW)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda d: next(s for s in d["stations"] if s["id"] == "bond_street").update(
                destination=None
            ),
            "32 normal destinations",
        ),
        (lambda d: d.update(start="victoria"), "start"),
        (lambda d: d["sections"][0].update(spaces=4), "spaces must be 1-3"),
        (
            lambda d: d.update(
                sections=[
                    s for s in d["sections"] if {s["a"], s["b"]} != {"goldhawk_road", "hammersmith"}
                ]
            ),
            "'goldhawk_road' must neighbour 'hammersmith'",
        ),
        (
            lambda d: [s.update(terminus=False) for s in d["stations"]],
            "termini on the edge",
        ),
        (lambda d: d["stations"].__delitem__(slice(0, 60)), "stations; a map has 90-140"),
        (
            lambda d: next(s for s in d["stations"] if s["id"] == "piccadilly_circus").update(
                x=50.0, y=40.0
            ),
            "enclose Holborn again and 4 stations more, not 3",
        ),
    ],
)
def test_a_broken_map_is_refused_with_the_reason(change, reason: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MapError, match=reason):
        parse_map(_broken(change))
