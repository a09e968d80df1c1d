"""What one seat may see (DESIGN.md "hidden information"): the only projection of a state.

Every byte the engine sends about a game is built here or from a public event. A seat sees its
own hand and its own drawn tile; everyone sees the board, routes, scores and counts; nobody sees
the deck order. `unseen` is the public multiset of tiles the seat has not seen (RULES.md §5).
"""

from __future__ import annotations

import functools
from typing import Any

from games.metro.board import COLOURS, STATIONS_OF
from games.metro.moves import move_text
from games.metro.routes import points, trace
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES

# The routes of recent boards, by (owners, board), oldest first, with each route's head there
# (`MetroState.heads`: where an open route waits, -1 once complete): the seats of one game ask
# for the same board's routes, and the next board's differ only where a head moved.
_ROUTES: dict[
    tuple[tuple[int, ...], tuple[int, ...]], tuple[list[dict[str, Any]], tuple[int, ...]]
] = {}
ROUTES_CACHED = 1024


@functools.lru_cache(maxsize=64)
def _rules(rules: MetroRules) -> dict[str, Any]:
    """A game's rules as a dict, made once (they never change)."""
    return rules.to_dict()


def clear_caches() -> None:
    """Forget every remembered board: the next view is built from scratch (tests compare)."""
    _ROUTES.clear()
    _rules.cache_clear()


def _route(state: MetroState, station: int) -> dict[str, Any]:
    path, end = trace(state.board, station)
    owner = state.owner[station]
    return {
        "station": station,
        "owner": owner if owner >= 0 else None,
        "tiles": len(path),
        "end": end,
        "points": points(path, end),
        "path": [list(step) for step in path],
    }


def routes(state: MetroState) -> list[dict[str, Any]]:
    """Every station's route, as `trace` walks it. Built incrementally: a route's path only
    changes when it runs on over a new tile, which moves its head, so only the routes whose head
    moved since the board before the last tile are walked again. The dicts are shared between
    views: read them, never change them."""
    board = tuple(state.board)
    key = (state.owner, board)
    known = _ROUTES.get(key)
    if known is not None:
        return known[0]
    heads = tuple(state.heads)
    before = None
    if state.history is not None:
        square = state.history[1][1] % 64  # the last placement's square
        previous = list(board)
        previous[square] = -1
        before = _ROUTES.get((state.owner, tuple(previous)))
    if before is None:
        out = [_route(state, station) for station in range(1, 33)]
    else:
        old, old_heads = before
        out = [
            r if old_heads[r["station"]] == heads[r["station"]] else _route(state, r["station"])
            for r in old
        ]
    _ROUTES[key] = (out, heads)
    if len(_ROUTES) > ROUTES_CACHED:
        _ROUTES.pop(next(iter(_ROUTES)), None)  # (a thread may have dropped it already)
    return out


def view(state: MetroState, seat: int | None) -> dict[str, Any]:
    n = state.rules.players
    if seat is not None and not (type(seat) is int and 0 <= seat < n):
        raise ValueError(f"seat must be 0-{n - 1} or None, got {seat!r}")
    own_draw = seat is not None and seat == state.seat and state.drawn >= 0
    entries = state.history_entries()  # walked once: board, board_tiles and unseen all need it
    result: dict[str, Any] = {
        "game": "metro",
        "status": "over" if state.is_over else "playing",
        "rules": dict(_rules(state.rules)),
        "seats": [
            {
                "seat": i,
                "score": state.scores[i],
                "out": state.out[i] and not state.retired_mask >> i & 1,
                "retired": bool(state.retired_mask >> i & 1),
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
        "unseen": dict(sorted(state.unseen(seat, entries).items())),
        "moves": state.placed,
        # Seats out for good (time-out loses), in the order they left: scores frozen.
        "retired": list(state.retired),
    }
    outcome = state.outcome()
    if outcome is not None:
        result["winners"] = list(outcome.winners)
    return result
