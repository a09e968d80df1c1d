"""Position queries of `metro rules` for this game (RULES-UNDERGROUND.md §5).

- `{"op": "map", "game": "underground"}` -> the map as §1 writes it;
- `{"op": "replay", "record": {...}}` -> `{"scores": [...]}` or `{"error": "...", "move": i}`;
- `{"op": "routes", "game": "underground", "board": {"rails": [...], "connections": {...}},
  "from": id, "to": [id, ...]}` -> `{"best": [{"to", "walks", "lines"}, ...]}`, every tied best
  way, sorted by `to`, then by the lines in §2 colour order. The board's rails are taken as they
  are (no building rules): a colour in several pieces rides each piece, counting as one line.
  The search has a work budget (ROUTES_BUDGET, ~0.1 s): a board past it (a colour in hundreds
  of pieces) is refused with an `error`, so that anyone's query costs a bounded time. The
  hardest position of a real game takes well under a tenth of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.errors import GameError, InvalidMoveError, RecordError
from games.underground.map import load_map
from games.underground.passenger import best_ways, mask_colours
from games.underground.record import replay
from games.underground.rules import COLOUR_INDEX, COLOURS

# States compared by one `routes` search (~40 ns each): ~80 ms. A 38 KB board of 600 rails, each
# its own piece, needed 38,600,000 (1.6 s); the last positions of 20 random games, 77,000 at most.
ROUTES_BUDGET = 2_000_000


def query(q: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(q, Mapping):
        raise InvalidMoveError("a query is a JSON object with 'op'", "op")
    op = q.get("op")
    if op == "map":
        return load_map(str(q.get("map", "london"))).to_json()
    if op == "replay":
        try:
            state = replay(q.get("record", {}))
        except RecordError as err:
            return {"error": str(err), "move": err.move}
        return {"scores": state.scores[:]}
    if op == "routes":
        return routes(q)
    raise InvalidMoveError(f"unknown op {op!r}; expected 'map', 'replay' or 'routes'", "op")


def _station(board: Any, x: Any, field: str) -> int:
    if not isinstance(x, str) or x not in board.index:
        raise InvalidMoveError(f"unknown station {x!r}", field)
    return int(board.index[x])


def routes(q: Mapping[str, Any]) -> dict[str, Any]:
    board = load_map(str(q.get("map", "london")))
    raw = q.get("board", {})
    if not isinstance(raw, Mapping):
        raise InvalidMoveError("'board' must be an object with 'rails'", "board")
    rails = raw.get("rails", [])
    if not isinstance(rails, list):
        raise InvalidMoveError("'rails' must be a list", "rails")
    # Union-find per colour: each piece of a colour is a network to ride.
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: tuple[int, int]) -> tuple[int, int]:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in rails:
        if not isinstance(r, Mapping) or r.get("colour") not in COLOUR_INDEX:
            raise InvalidMoveError(f"bad rail {r!r}", "rails")
        c = COLOUR_INDEX[r["colour"]]
        a, b = _station(board, r.get("a"), "rails"), _station(board, r.get("b"), "rails")
        if board.section(a, b) is None:
            raise GameError(f"{r['a']} and {r['b']} are not neighbours")
        parent[find((c, a))] = find((c, b))
    pieces: dict[tuple[int, int], int] = {}
    for node in list(parent):
        root = find(node)
        pieces[root] = pieces.get(root, 0) | 1 << node[1]
    lines = [(1 << root[0], m) for root, m in sorted(pieces.items())]
    source = _station(board, q.get("from"), "from")
    to = q.get("to")
    if not isinstance(to, list) or not to:
        raise InvalidMoveError("'to' must be a non-empty list of stations", "to")
    targets = 0
    for t in to:
        targets |= 1 << _station(board, t, "to")
    walks, ways = best_ways(board, lines, source, targets, ROUTES_BUDGET)
    return {
        "best": [
            {"to": board.sid(t), "walks": walks, "lines": [COLOURS[c] for c in mask_colours(m)]}
            for t, m in ways
        ]
    }
