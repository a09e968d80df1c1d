"""The seed's four city sheets (RULES-METROX.md §1, issue 33) against the facts kept in
city_facts.py: real lines with their official colours, stations in their real order, every real
interchange of the sheet's stations shared, and §1's validator passing each one."""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
import math
import random
from typing import Any

import pytest

from games.metrox import maps, thumbnail
from games.metrox.evaluate import evaluate
from games.metrox.maps import MapError, check_set, validate
from games.metrox.queries import answer
from games.metrox.state import MetroXState
from tests.rules.metrox.city_facts import CITY_FACTS, KEY_INTERCHANGES

CITIES = ["amsterdam", "berlin", "paris", "madrid"]


def raw(city: str) -> dict[str, Any]:
    return json.loads((maps.MAP_DIR / f"{city}.json").read_text(encoding="utf-8"))


def stops(city: str, line: str) -> list[str]:
    return CITY_FACTS[city]["lines"][line][1].split("|")


def in_order(sub: list[str], full: list[str]) -> bool:
    it = iter(full)
    return all(any(s == f for f in it) for s in sub)


@pytest.mark.parametrize("city", CITIES)
def test_city_passes_the_validator_and_is_shipped(city: str) -> None:
    data = raw(city)
    m = validate(data)
    assert maps.get(city).data == data
    assert m.beginner is CITY_FACTS[city]["beginner"]
    assert city in {e["id"] for e in answer({"op": "maps", "game": "metrox"})["maps"]}


@pytest.mark.parametrize("city", CITIES)
def test_lines_colours_and_order_are_real(city: str) -> None:
    data = raw(city)
    names = {s["id"]: s["name"] for s in data["stations"]}
    facts = CITY_FACTS[city]["lines"]
    assert {ln["id"] for ln in data["lines"]} <= set(facts)
    for ln in data["lines"]:
        colour, _ = facts[ln["id"]]
        assert ln["colour"].lower() == colour, ln["id"]
        seq = [names[s] for s in ln["stations"]]
        full = stops(city, ln["id"])
        if ln["id"] in CITY_FACTS[city]["rings"]:
            start = full.index(seq[0])  # a ring is cut once: any start, real direction
            full = full[start:] + full[:start]
        assert in_order(seq, full), (ln["id"], [s for s in seq if s not in full])
        # both ends are the real termini (a ring is cut at one place instead)
        if ln["id"] not in CITY_FACTS[city]["rings"]:
            assert (seq[0], seq[-1]) == (full[0], full[-1]), ln["id"]


@pytest.mark.parametrize("city", CITIES)
def test_every_real_interchange_is_one_shared_station(city: str) -> None:
    """A sheet's station is on every sheet line that really serves it, and on no other."""
    data = raw(city)
    sheet_lines = {ln["id"] for ln in data["lines"]}
    through: dict[str, set[str]] = {}
    for ln in data["lines"]:
        for s in ln["stations"]:
            through.setdefault(s, set()).add(ln["id"])
    names = [s["name"] for s in data["stations"]]
    assert len(set(names)) == len(names)  # a station is one box, whatever its lines
    for st in data["stations"]:
        real = {lid for lid in sheet_lines if st["name"] in stops(city, lid)}
        assert through[st["id"]] == real, st["name"]
    by_name = {s["name"]: through[s["id"]] for s in data["stations"]}
    for name, lines in KEY_INTERCHANGES[city].items():
        assert by_name[name] == lines, name


def test_beginner_cities_are_easier() -> None:
    """Paris and Madrid share more stations and leave fewer windows per station than the
    beginners' Amsterdam and Berlin."""

    def shape(city: str) -> tuple[float, float]:
        m = maps.get(city)
        return sum(d >= 2 for d in m.degree) / m.station_count, m.total_windows / m.station_count

    for easy in ("amsterdam", "berlin"):
        for hard in ("paris", "madrid"):
            assert shape(easy)[1] > shape(hard)[1]
            assert sum(d >= 2 for d in maps.get(easy).degree) < sum(
                d >= 2 for d in maps.get(hard).degree
            )


@pytest.mark.parametrize("city", CITIES)
def test_schematic_is_readable(city: str) -> None:
    """No station sits on a line that does not serve it (closer than 0.6 of the grid)."""
    data = raw(city)
    at = {s["id"]: (s["x"], s["y"]) for s in data["stations"]}
    assert len(set(at.values())) == len(at)
    for ln in data["lines"]:
        for a, b in zip(ln["stations"], ln["stations"][1:], strict=False):
            (ax, ay), (bx, by) = at[a], at[b]
            for sid, (px, py) in at.items():
                if sid in (a, b):
                    continue
                dx, dy = bx - ax, by - ay
                t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
                assert math.hypot(px - ax - t * dx, py - ay - t * dy) >= 0.6, (ln["id"], sid)


def test_a_city_that_loses_its_facts_is_refused() -> None:
    """The set check names a city that is missing or marked for the wrong players."""
    shipped = list(maps.shipped().values())
    with pytest.raises(MapError, match="'paris' is missing"):
        check_set([m for m in shipped if m.id != "paris"])
    berlin = copy.deepcopy(maps.get("berlin").data)
    berlin["beginner"] = False
    others = [m for m in shipped if m.id != "berlin"]
    with pytest.raises(MapError, match="map 'berlin': 'beginner' must be true"):
        check_set([*others, validate(berlin)])


def test_lobby_pictures_are_drawn_from_the_maps() -> None:
    """games/metrox/web/maps/<id>.svg is what games/metrox/thumbnail.py draws of each shipped map
    (rerun `python -m games.metrox.thumbnail` after changing a map)."""
    for m in maps.shipped().values():
        path = thumbnail.OUT_DIR / f"{m.id}.svg"
        assert path.read_text(encoding="utf-8") == thumbnail.draw(m), m.id
        assert m.data["lines"][0]["colour"] in path.read_text(encoding="utf-8")


def test_the_daily_puzzle_rotates_through_every_map() -> None:
    """The day's map is the shipped maps in turn, one a day: any run of six days deals each
    city and each map of our own once, whatever the digest (which still makes the deck)."""
    from games.metrox import GAME

    start = dt.date(2026, 12, 2).toordinal()
    for offset in (0, 3, 400):
        week = [
            GAME.daily_rules(hashlib.sha256(f"d{i}".encode()).digest(), start + offset + i)["map"]
            for i in range(len(maps.shipped()))
        ]
        assert sorted(week) == sorted(maps.shipped())
    same_day = {GAME.daily_rules(bytes([i]) * 32, start)["map"] for i in range(8)}
    assert len(same_day) == 1


@pytest.mark.parametrize("city", CITIES)
def test_the_ai_evaluation_reads_any_sheet(city: str) -> None:
    """A solo game on the city played out by random moves: the evaluation (the AI's and the
    analysis') gives a finite value at every turn, from the map's own tables."""
    state = MetroXState.new({"players": 1, "map": city}, 5)
    rng = random.Random(5)
    while not state.over:
        value = evaluate(state)
        assert len(value) == 1 and math.isfinite(value[0])
        state.apply(0, state.random_move(0, rng.random))
    assert math.isfinite(evaluate(state)[0])
