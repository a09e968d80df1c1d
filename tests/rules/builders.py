"""Test helpers that build boards with a given route, by searching the tiles that make it."""

from __future__ import annotations

from games.metro.board import CENTRE, DEPARTURE, EDGE, STEP, square
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES, EXIT


def tiles_for_route(
    station: int, squares: list[tuple[int, int]], end: str
) -> dict[int, int] | None:
    """Tiles (square -> tile index) making `station`'s route cross `squares` in order and then
    leave the board ("edge") or enter the central station ("centre"); None when impossible."""
    path = [square(r, c) for r, c in squares]
    if DEPARTURE[station] >> 3 != path[0]:
        raise ValueError("the path must start on the station's departure square")
    goal = EDGE if end == "edge" else CENTRE

    def step(i: int, pos: int, chosen: dict[int, int]) -> dict[int, int] | None:
        sq, entry = pos >> 3, pos & 7
        want_next = path[i + 1] if i + 1 < len(path) else None
        options = [chosen[sq]] if sq in chosen else range(len(CODES))
        for tile in options:
            nxt = STEP[sq * 8 + EXIT[tile * 8 + entry]]
            if want_next is None and nxt != goal:
                continue
            if want_next is not None and (nxt < 0 or nxt >> 3 != want_next):
                continue
            trial = {**chosen, sq: tile}
            if want_next is None:
                return trial
            found = step(i + 1, nxt, trial)
            if found is not None:
                return found
        return None

    return step(0, DEPARTURE[station], {})


def board_with(tiles: dict[int, int], players: int = 2) -> MetroState:
    state = MetroState.empty(MetroRules(players=players), [])
    for sq, tile in tiles.items():
        state.put(tile, sq)
    return state
