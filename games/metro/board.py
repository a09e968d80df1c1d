"""The Metro board (RULES.md §1, §3): squares, connectors, neighbours, stations and owners.

Squares are numbered `row * 8 + col`. Everything here is a constant table computed once at
import, so the hot paths only index lists.
"""

from __future__ import annotations

SIZE = 8
SQUARES = SIZE * SIZE


def square(row: int, col: int) -> int:
    return row * SIZE + col


def row_col(sq: int) -> tuple[int, int]:
    return divmod(sq, SIZE)


CENTRE_SQUARES: frozenset[int] = frozenset({square(3, 3), square(3, 4), square(4, 3), square(4, 4)})
PLAYABLE: tuple[int, ...] = tuple(s for s in range(SQUARES) if s not in CENTRE_SQUARES)
PLAYABLE_MASK = sum(1 << s for s in PLAYABLE)
BORDER_MASK = sum(
    1 << s for s in PLAYABLE if row_col(s)[0] in (0, SIZE - 1) or row_col(s)[1] in (0, SIZE - 1)
)

# Where leaving a square through connector x leads: the packed `square * 8 + entry` of the
# neighbour, or one of these markers.
EDGE = -1
CENTRE = -2


def _leave(sq: int, x: int) -> int:
    r, c = row_col(sq)
    if x in (0, 1):
        r, entry = r - 1, 5 - x
    elif x in (2, 3):
        c, entry = c + 1, 9 - x
    elif x in (4, 5):
        r, entry = r + 1, 5 - x
    else:
        c, entry = c - 1, (9 - x) % 8
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        return EDGE
    nsq = square(r, c)
    return CENTRE if nsq in CENTRE_SQUARES else nsq * 8 + entry


# STEP[sq * 8 + x]: the result of leaving `sq` through connector `x`.
STEP: tuple[int, ...] = tuple(_leave(s, x) for s in range(SQUARES) for x in range(8))


def _neighbours(sq: int) -> int:
    r, c = row_col(sq)
    mask = 0
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < SIZE and 0 <= nc < SIZE:
            mask |= 1 << square(nr, nc)
    return mask & PLAYABLE_MASK


# NEIGHBOURS[sq]: bitmask of the playable squares sharing a side with sq.
NEIGHBOURS: tuple[int, ...] = tuple(_neighbours(s) for s in range(SQUARES))


def edge_connectors(sq: int) -> frozenset[int]:
    """The connectors of `sq` that face the board edge (two per border side)."""
    r, c = row_col(sq)
    out: set[int] = set()
    if r == 0:
        out |= {0, 1}
    if c == SIZE - 1:
        out |= {2, 3}
    if r == SIZE - 1:
        out |= {4, 5}
    if c == 0:
        out |= {6, 7}
    return frozenset(out)


# ---- stations (§3) ------------------------------------------------------------------------

STATIONS = range(1, 33)


def _departure(station: int) -> tuple[int, int]:
    """(square, entry connector) where the station's departure track enters the board."""
    s = station
    if 1 <= s <= 8:
        return square(0, 8 - s), 0
    if 9 <= s <= 16:
        return square(s - 9, 0), 6
    if 17 <= s <= 24:
        return square(7, s - 17), 4
    if 25 <= s <= 32:
        return square(32 - s, 7), 2
    raise ValueError(f"no station {station}")


# DEPARTURE[station] = square * 8 + entry (index 0 unused).
DEPARTURE: tuple[int, ...] = (-1, *(sq * 8 + e for sq, e in map(_departure, STATIONS)))


def departure(station: int) -> tuple[int, int, int]:
    """(row, col, entry connector) of the station's departure track."""
    sq, entry = _departure(station)
    return (*row_col(sq), entry)


_OWNERSHIP_TEXT = {
    2: [
        "1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31",
        "2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32",
    ],
    3: ["1 4 6 11 15 20 23 25 28 31", "2 7 9 12 14 19 22 27 29 32", "3 5 8 10 13 18 21 24 26 30"],
    4: [
        "4 7 11 16 20 23 27 32",
        "3 8 12 15 19 24 28 31",
        "1 6 10 13 18 21 25 30",
        "2 5 9 14 17 22 26 29",
    ],
    5: [
        "1 5 10 14 22 28",
        "6 12 18 23 27 32",
        "3 7 15 19 25 29",
        "2 9 13 21 26 30",
        "4 8 11 20 24 31",
    ],
    6: [
        "1 5 10 19 27",
        "2 11 18 25 29",
        "4 8 14 21 26",
        "6 15 20 24 31",
        "3 9 13 23 30",
        "7 12 22 28 32",
    ],
}

# STATIONS_OF[players][seat]: the stations that seat owns.
STATIONS_OF: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(int(s) for s in row.split()) for row in rows)
    for n, rows in _OWNERSHIP_TEXT.items()
}


def _owners(players: int) -> tuple[int, ...]:
    owner = [-1] * 33
    for seat, stations in enumerate(STATIONS_OF[players]):
        for s in stations:
            owner[s] = seat
    return tuple(owner)


# OWNER[players][station]: the owning seat, or -1 (stations 16 and 17 with 3, 5 or 6 players).
OWNER: dict[int, tuple[int, ...]] = {n: _owners(n) for n in STATIONS_OF}

COLOURS = ("yellow", "blue", "orange", "green", "purple", "black")
