"""Routes and scoring: the worked examples of RULES.md §4."""

from __future__ import annotations

from games.metro.board import square
from games.metro.position import OPEN
from games.metro.routes import trace
from tests.rules.builders import board_with, tiles_for_route


def test_two_tiles_crossing_one_twice_scores_3() -> None:
    # Station 7 departs into (0,1); down to (1,1), back up through (0,1) and off the top edge.
    tiles = tiles_for_route(7, [(0, 1), (1, 1), (0, 1)], "edge")
    assert tiles is not None and len(tiles) == 2
    state = board_with(tiles)
    path, end = trace(state.board, 7)
    assert (len(path), end) == (3, "edge")
    assert state.route_points(7) == 3
    assert state.scores[0] >= 3  # station 7 is seat 0's with 2 players


def test_five_tiles_into_the_centre_scores_10() -> None:
    # Station 5 departs into (0,3), straight down four more squares' worth into the centre.
    tiles = tiles_for_route(5, [(0, 3), (1, 3), (1, 2), (2, 2), (2, 3)], "centre")
    assert tiles is not None and len(tiles) == 5
    state = board_with(tiles)
    assert trace(state.board, 5)[1] == "centre"
    assert state.lengths[5] == 5
    assert state.route_points(5) == 10


def test_hungarian_example_six_crossings_into_the_centre_scores_12() -> None:
    # The seed's picture shows only part of the board, so its coordinates are local; this is
    # the same shape on the real board: down, left, up, down, down, one square crossed twice.
    squares = [(0, 4), (1, 4), (1, 3), (0, 3), (1, 3), (2, 3)]
    tiles = tiles_for_route(4, squares, "centre")
    assert tiles is not None and len(tiles) == 5
    state = board_with(tiles)
    path, end = trace(state.board, 4)
    assert [(r, c) for r, c, _, _ in path] == squares
    assert end == "centre"
    assert state.route_points(4) == 12
    # Station 4 is seat 1's with two players; the score holds every complete route it owns.
    expected = sum(state.route_points(s) for s in range(2, 33, 2) if state.ends[s] != OPEN)
    assert state.scores[1] == expected >= 12


def test_open_route_scores_nothing_until_complete() -> None:
    tiles = tiles_for_route(5, [(0, 3), (1, 3), (1, 2), (2, 2), (2, 3)], "centre")
    assert tiles is not None
    last = tiles.pop(square(2, 3))
    state = board_with(tiles)
    assert state.ends[5] == OPEN
    assert state.route_points(5) == 0
    before = state.scores[:]
    state.put(last, square(2, 3))
    assert state.scores[0] - before[0] >= 10  # station 5 is seat 0's
