"""Board geometry, stations, ownership and the tile set (RULES.md §1-§3)."""

from __future__ import annotations

from collections import Counter

import pytest

from games.errors import InvalidMoveError
from games.metro.board import (
    CENTRE,
    CENTRE_SQUARES,
    DEPARTURE,
    EDGE,
    OWNER,
    STATIONS_OF,
    STEP,
    departure,
    square,
)
from games.metro.tiles import (
    CODES,
    ROTATIONS,
    SET_COUNTS,
    TILE_SET,
    Placement,
    pairs_of,
    parse_sequence,
    rotate,
)

# RULES.md §3, the table of departures: station -> (row, col, entry), arrival connector.
EXPECTED_DEPARTURES = {
    **{s: ((0, 8 - s, 0), 1) for s in range(1, 9)},
    **{s: ((s - 9, 0, 6), 7) for s in range(9, 17)},
    **{s: ((7, s - 17, 4), 5) for s in range(17, 25)},
    **{s: ((32 - s, 7, 2), 3) for s in range(25, 33)},
}


@pytest.mark.parametrize("station", range(1, 33))
def test_every_station_departure_square_and_connector(station: int) -> None:
    (row, col, entry), arrival = EXPECTED_DEPARTURES[station]
    assert departure(station) == (row, col, entry)
    # The arrival track of the same side leaves the board.
    assert STEP[square(row, col) * 8 + arrival] == EDGE
    assert STEP[square(row, col) * 8 + entry] == EDGE


def test_station_numbering_runs_anticlockwise_from_top_right() -> None:
    assert departure(1)[:2] == (0, 7)
    assert departure(8)[:2] == (0, 0)
    assert departure(9)[:2] == (0, 0)
    assert departure(16)[:2] == (7, 0)
    assert departure(17)[:2] == (7, 0)
    assert departure(24)[:2] == (7, 7)
    assert departure(25)[:2] == (7, 7)
    assert departure(32)[:2] == (0, 7)


def test_neighbour_connectors_face_each_other() -> None:
    # Leaving through a connector and leaving the neighbour back through the entry returns.
    for sq in range(64):
        if sq in CENTRE_SQUARES:
            continue
        for x in range(8):
            nxt = STEP[sq * 8 + x]
            if nxt >= 0:
                assert STEP[nxt] == sq * 8 + x
    assert STEP[square(2, 3) * 8 + 4] == CENTRE  # bottom of (2,3) is the central station
    assert STEP[square(3, 2) * 8 + 2] == CENTRE


def test_departures_table_is_packed_square_and_entry() -> None:
    for station in range(1, 33):
        row, col, entry = departure(station)
        assert DEPARTURE[station] == square(row, col) * 8 + entry


@pytest.mark.parametrize(
    ("players", "per_seat", "unowned"),
    [(2, 16, set()), (3, 10, {16, 17}), (4, 8, set()), (5, 6, {16, 17}), (6, 5, {16, 17})],
)
def test_ownership_tables_partition_the_stations(
    players: int, per_seat: int, unowned: set[int]
) -> None:
    seats = STATIONS_OF[players]
    assert len(seats) == players
    assert all(len(s) == per_seat for s in seats)
    owned = [s for seat in seats for s in seat]
    assert len(owned) == len(set(owned))
    assert set(range(1, 33)) - set(owned) == unowned
    for seat, stations in enumerate(seats):
        assert all(OWNER[players][s] == seat for s in stations)
    assert all(OWNER[players][s] == -1 for s in unowned)


def test_ownership_spot_checks_from_rules() -> None:
    assert STATIONS_OF[2][0] == tuple(range(1, 32, 2))
    assert STATIONS_OF[3][0] == (1, 4, 6, 11, 15, 20, 23, 25, 28, 31)
    assert STATIONS_OF[4][3] == (2, 5, 9, 14, 17, 22, 26, 29)
    assert STATIONS_OF[5][4] == (4, 8, 11, 20, 24, 31)
    assert STATIONS_OF[6][5] == (7, 12, 22, 28, 32)


def test_there_are_24_tiles_and_each_joins_even_to_odd() -> None:
    assert len(CODES) == len(set(CODES)) == 24
    for code in CODES:
        pairs = pairs_of(code)
        assert sorted(a for a, _ in pairs) == [0, 2, 4, 6]
        assert sorted(b for _, b in pairs) == [1, 3, 5, 7]


def test_tile_code_letters() -> None:
    assert pairs_of("aaaa") == ((0, 5), (2, 7), (4, 1), (6, 3))
    assert pairs_of("bbbb") == ((0, 3), (2, 5), (4, 7), (6, 1))
    assert pairs_of("cccc") == ((0, 7), (2, 1), (4, 3), (6, 5))
    assert pairs_of("dddd") == ((0, 1), (2, 3), (4, 5), (6, 7))


def test_the_set_has_60_tiles_with_the_listed_copies() -> None:
    assert len(TILE_SET) == 60
    assert set(SET_COUNTS) == set(CODES)
    counts = Counter(TILE_SET)
    assert {c for c, n in counts.items() if n == 4} == {"aaaa", "aacb", "acba", "baac", "cbaa"}
    assert {c for c, n in counts.items() if n == 3} == {"bcbc", "cbcb"}
    assert sum(1 for n in counts.values() if n == 2) == 17


def test_rotation_maps_connector_k_to_k_plus_2() -> None:
    for code in CODES:
        turned = rotate(code)
        assert turned in CODES
        expected = {tuple(sorted(((a + 2) % 8, (b + 2) % 8))) for a, b in pairs_of(code)}
        assert {tuple(sorted(p)) for p in pairs_of(turned)} == expected
        assert rotate(rotate(rotate(rotate(code)))) == code
    assert rotate("aaaa") == "aaaa"
    assert rotate("dddd") == "dddd"
    assert ROTATIONS[CODES.index("aaaa")] == (CODES.index("aaaa"),)


@pytest.mark.parametrize("text", ["aacb00", "cccc32", "dddd77"])
def test_placement_round_trip(text: str) -> None:
    p = Placement.parse(text)
    assert str(p) == text
    assert eval(repr(p)) == p  # repr is runnable code, as in python-chess


@pytest.mark.parametrize("text", ["aacb0", "zzzz00", "aacb0x", "", None, 5, "aacb000", "abcd00"])
def test_malformed_placements_are_named(text: object) -> None:
    with pytest.raises(InvalidMoveError, match=r"placement|tile code|digits"):
        Placement.parse(text)


def test_sequence_parsing() -> None:
    assert [str(p) for p in parse_sequence("aacb01cccc32")] == ["aacb01", "cccc32"]
    assert parse_sequence("") == []
    with pytest.raises(InvalidMoveError, match="6 characters"):
        parse_sequence("aacb01ccc")
