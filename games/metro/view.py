"""What one seat may see (DESIGN.md "hidden information"): the only projection of a state.

Every byte the engine sends about a game is built here or from a public event. A seat sees its
own hand and its own drawn tile; everyone sees the board, routes, scores and counts; nobody sees
the deck order. `unseen` is the public multiset of tiles the seat has not seen (RULES.md §5).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from games.metro.board import COLOURS, STATIONS_OF
from games.metro.moves import move_text
from games.metro.routes import points, trace
from games.metro.tiles import CODES, SET_COUNTER

if TYPE_CHECKING:
    from games.metro.state import HistoryEntry, MetroState


def unseen(
    state: MetroState, seat: int | None, entries: list[HistoryEntry] | None = None
) -> Counter[str]:
    """Tiles `seat` has not seen: the set minus the board minus its own hand (and drawn tile).
    `entries`: the state's history when the caller already has it."""
    left = Counter(SET_COUNTER)
    for entry in state.history_entries() if entries is None else entries:
        left[CODES[entry[2]]] -= 1
    if seat is not None:
        for t in state.hands[seat]:
            left[CODES[t]] -= 1
        if state.seat == seat and state.drawn >= 0:
            left[CODES[state.drawn]] -= 1
    return +left


def routes(state: MetroState) -> list[dict[str, Any]]:
    out = []
    for station in range(1, 33):
        path, end = trace(state.board, station)
        owner = state.owner[station]
        out.append(
            {
                "station": station,
                "owner": owner if owner >= 0 else None,
                "tiles": len(path),
                "end": end,
                "points": points(path, end),
                "path": [list(step) for step in path],
            }
        )
    return out


def view(state: MetroState, seat: int | None) -> dict[str, Any]:
    n = state.rules.players
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
        raise ValueError(f"seat must be 0-{n - 1} or None, got {seat!r}")
    own_draw = seat is not None and seat == state.seat and state.drawn >= 0
    entries = state.history_entries()  # walked once: board, board_tiles and unseen all need it
    result: dict[str, Any] = {
        "game": "metro",
        "status": "over" if state.is_over else "playing",
        "rules": state.rules.to_dict(),
        "seats": [
            {
                "seat": i,
                "score": state.scores[i],
                "out": state.out[i],
                "hand_count": len(state.hands[i]),
                "color": COLOURS[i],
                "stations": list(STATIONS_OF[n][i]),
            }
            for i in range(n)
        ],
        "turn": state.current_seat,
        "to_move": list(state.to_move()),
        "deck_count": state.deck_count,
        "board": [move_text(entry[1]) for entry in entries],
        # The set tile each placement used (differs from the code only under `rotation`).
        "board_tiles": [CODES[entry[2]] for entry in entries],
        "hand": [CODES[t] for t in state.hands[seat]] if seat is not None else [],
        "drawn": CODES[state.drawn] if own_draw else None,
        "drawing": state.drawn >= 0,
        "routes": routes(state),
        "unseen": dict(sorted(unseen(state, seat, entries).items())),
        "moves": state.placed,
    }
    if state.is_over:
        best = max(state.scores)
        result["winners"] = [i for i, s in enumerate(state.scores) if s == best]
    return result
