"""The JSON Schema of Metro's own view fields (view.py), for the API's OpenAPI document.

Open objects: API.md lets fields be added to a view, never removed, so a client may rely on
every field named here and must ignore the rest.
"""

from __future__ import annotations

from typing import Any

INT = {"type": "integer"}
COUNT = {"type": "integer", "minimum": 0}
TILE = {"type": "string", "pattern": "^[a-d]{4}$", "description": "a tile's code (RULES.md §2)"}


def view_schema() -> dict[str, Any]:
    seat = {
        "type": "object",
        "properties": {
            "score": INT,
            "out": {"type": "boolean", "description": "every station of this seat is closed"},
            "retired": {
                "type": "boolean",
                "description": "out for good (time-out loses): score frozen, turns skipped",
            },
            "hand_count": COUNT,
            "color": {"type": "string"},
            "stations": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        },
        "required": ["score", "out", "retired", "hand_count", "color", "stations"],
    }
    route = {
        "type": "object",
        "properties": {
            "station": {"type": "integer", "minimum": 1, "maximum": 32},
            "owner": {"type": ["integer", "null"], "minimum": 0},
            "tiles": COUNT,
            "end": {"type": "string", "description": "open, or where the route ends"},
            "points": COUNT,
            "path": {"type": "array", "items": {"type": "array", "items": INT}},
        },
        "required": ["station", "owner", "tiles", "end", "points"],
    }
    return {
        "type": "object",
        "properties": {
            "seats": {"type": "array", "items": seat},
            "turn": {"type": ["integer", "null"], "description": "the seat to move; null: none"},
            "deck_count": COUNT,
            "board": {
                "type": "array",
                "items": {"type": "string"},
                "description": "every placement so far, in order (the move's notation)",
            },
            "board_tiles": {"type": "array", "items": TILE},
            "hand": {"type": "array", "items": TILE, "description": "the viewer's own tiles"},
            "drawn": {
                "anyOf": [TILE, {"type": "null"}],
                "description": "the viewer's own drawn tile",
            },
            "drawing": {"type": "boolean", "description": "the seat to move has drawn a tile"},
            "routes": {"type": "array", "items": route},
            "unseen": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 1},
                "description": "tiles the viewer has not seen, by code",
            },
            "moves": COUNT,
            "retired": {
                "type": "array",
                "items": COUNT,
                "description": "the seats out for good, in the order they left",
            },
        },
        "required": [
            "seats",
            "turn",
            "deck_count",
            "board",
            "board_tiles",
            "hand",
            "drawn",
            "drawing",
            "routes",
            "unseen",
            "retired",
        ],
    }
