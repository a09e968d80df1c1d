"""The little boards of Metro's "Learn to play" page, with their routes traced by the rules core.

The page once traced each picture's route in JavaScript, a second copy of RULES.md §4. Each
picture is now a window onto a real board: its tiles are placed where the window sits, the
station's route is traced by `routes.trace` and scored by `routes.points`, and the page only
draws the steps it is given. `python -m games.metro.learn_pictures` writes the result to
`games/metro/web/learn_pictures.json`, which the page loads; `tests/rules/test_learn_pictures.py`
checks that the file is what the rules core says today.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from games.metro.board import CENTRE_SQUARES, DEPARTURE, SQUARES, row_col, square
from games.metro.routes import points, trace
from games.metro.tiles import INDEX

JSON_FILE = Path(__file__).parent / "web" / "learn_pictures.json"

# Each picture: the window's size and where it sits on the board, the station whose route is
# drawn (its departure lies in the window), and the tiles, in window coordinates.
PICTURES: dict[str, dict[str, Any]] = {
    # a route from the left edge that leaves through the top edge: 3 tiles, 3 points (the page's
    # own tracing once drew it with a straight last tile, a route still open, worth nothing)
    "route_edge": {
        "rows": 1, "cols": 3, "top": 0, "left": 0, "station": 9,
        "tiles": [("aaaa", 0, 0), ("acba", 0, 1), ("bbbb", 0, 2)],
    },
    # a route into the central station: 4 tiles, doubled
    "route_centre": {
        "rows": 2, "cols": 5, "top": 3, "left": 0, "station": 12,
        "tiles": [("aaaa", 0, 0), ("cccc", 0, 1), ("bbbb", 1, 1), ("aaaa", 1, 2)],
    },
}  # fmt: skip


def picture(spec: dict[str, Any]) -> dict[str, Any]:
    """One picture as the page draws it: its tiles, the station's route (each step
    [row, col, entry, exit] in window coordinates), how the route ends and its points, the
    departure (square and connector) and the central block's part in the window, if any."""
    top, left, rows, cols = spec["top"], spec["left"], spec["rows"], spec["cols"]
    board = [-1] * SQUARES
    for code, r, c in spec["tiles"]:
        board[square(top + r, left + c)] = INDEX[code]
    path, end = trace(board, spec["station"])
    if any(not (0 <= r - top < rows and 0 <= c - left < cols) for r, c, _, _ in path):
        raise ValueError(f"station {spec['station']}'s route leaves the picture's window")
    departure = DEPARTURE[spec["station"]]
    dr, dc = row_col(departure >> 3)
    centre = [row_col(sq) for sq in CENTRE_SQUARES]
    inside = [
        (r - top, c - left) for r, c in centre if 0 <= r - top < rows and 0 <= c - left < cols
    ]
    block = None
    if inside:
        r0, c0 = min(r for r, _ in inside), min(c for _, c in inside)
        r1, c1 = max(r for r, _ in inside), max(c for _, c in inside)
        block = {"r": r0, "c": c0, "w": c1 - c0 + 1, "h": r1 - r0 + 1}
    return {
        "rows": rows,
        "cols": cols,
        "station": spec["station"],
        "tiles": [{"code": code, "r": r, "c": c} for code, r, c in spec["tiles"]],
        "depart": {"r": dr - top, "c": dc - left, "connector": departure & 7},
        "path": [[r - top, c - left, entry, exit_] for r, c, entry, exit_ in path],
        "end": end,
        "points": points(path, end),
        "centre": block,
    }


def pictures() -> dict[str, dict[str, Any]]:
    """Every picture by name (the name is its label's catalogue key, metro.learn.pic.<name>)."""
    return {name: picture(spec) for name, spec in PICTURES.items()}


def as_json() -> str:
    return json.dumps(pictures(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    JSON_FILE.write_text(as_json())
    sys.stdout.write(f"wrote {JSON_FILE}\n")
