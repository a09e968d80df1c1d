"""Shared set-ups for the On the Underground tests: a known deal, and rails laid directly."""

from __future__ import annotations

import itertools

from games.underground.building import lay
from games.underground.map import load_map
from games.underground.rules import COLOURS, UndergroundRules
from games.underground.state import UndergroundState

BOARD = load_map()
CONNECTIONS = {
    "victoria": "a",
    "charing_cross": "a",
    "aldgate": "b",
    "baker_street": "b",
    "elephant_and_castle": "c",
    "hammersmith": "c",
    "kings_cross_st_pancras": "d",
    "notting_hill_gate": "d",
}
CARDS = sorted(BOARD.sid(i) for i in BOARD.destinations)


def fresh(players: int = 2) -> UndergroundState:
    """A game with the connections above and the cards in id order (face up: the first 4)."""
    return UndergroundState.deal_new(UndergroundRules(players), CONNECTIONS, CARDS)


def put(state: UndergroundState, colour: str, path: list[str]) -> list[dict]:
    """Lay rails along `path` for the colour's owner, outside any turn's rail count and token
    budget (earlier turns, as a set-up); returns the gains."""
    c = COLOURS.index(colour)
    seat = state.owner[c]
    gains: list[dict] = []
    for a, b in itertools.pairwise(path):
        sec = BOARD.section(BOARD.index[a], BOARD.index[b])
        assert sec is not None, (a, b)
        gains += lay(state, seat, c, sec)
    state.laid = []
    state.net = 0
    state.low = 0
    state.t0 = state.tokens[state.seat]
    return gains


def place_passenger(state: UndergroundState, at: str, face_up: list[str]) -> None:
    state.passenger = BOARD.index[at]
    ids = [BOARD.index[s] for s in face_up]
    rest = [i for i in state.deal if i not in ids]
    state.deal = ids + rest
    state.face_up = ids[:]
    state.drawn = len(ids)
