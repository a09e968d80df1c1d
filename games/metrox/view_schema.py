"""The JSON Schema of Metro X's own view fields (view.py), for the API's OpenAPI document.

Open objects: API.md lets fields be added to a view, never removed, so a client may rely on
every field named here and must ignore the rest. `map` is the map's own object (§1).
"""

from __future__ import annotations

from typing import Any

INT = {"type": "integer"}
COUNT = {"type": "integer", "minimum": 0}
STRINGS = {"type": "array", "items": {"type": "string"}}


def _object(props: dict[str, Any], *required: str) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required or props)}


RETIRED_SEAT = {"type": "boolean", "description": "out for good (time-out loses): score frozen"}
RETIRED = {
    "type": "array",
    "items": COUNT,
    "description": "the seats out for good, in the order they left (their moves are null)",
}


def view_schema() -> dict[str, Any]:
    seat = _object(
        {
            "score": INT,
            "chosen": {"type": "boolean"},
            "filled": COUNT,
            "empty": COUNT,
            "retired": RETIRED_SEAT,
        }
    )
    bonus = _object(
        {"line": {"type": "string"}, "bonus": INT, "first": {"type": "boolean"}, "turn": COUNT}
    )
    sheet = _object(
        {
            "seat": COUNT,
            "filled": STRINGS,
            "transfers": {"type": "object", "additionalProperties": INT},
            "windows": {"type": "object", "additionalProperties": STRINGS},
            "bonuses": {"type": "array", "items": bonus},
        }
    )
    completed = _object({"seat": COUNT, "turn": COUNT, "first": {"type": "boolean"}})
    line = _object(
        {
            "line": {"type": "string"},
            "first_taken": {"type": "boolean"},
            "completed": {"type": "array", "items": completed},
        }
    )
    final = _object(
        {
            "seat": COUNT,
            "bonuses": INT,
            "transfers": INT,
            "empty": COUNT,
            "penalty": INT,
            "total": INT,
        }
    )
    return _object(
        {
            "seats": {"type": "array", "items": seat},
            "retired": RETIRED,
            "map": {"type": "object", "description": "the map itself (RULES-METROX.md §1)"},
            "turn_index": COUNT,
            "card": {"type": ["string", "null"], "description": "the open turn's card"},
            "revealed": STRINGS,
            "deck_left": COUNT,
            "windows_left": COUNT,
            "sheets": {"type": "array", "items": sheet},
            "lines": {"type": "array", "items": line},
            "choice": {
                "type": ["object", "null"],
                "description": "the viewer's own pending choice, never another seat's",
            },
            "final": {"type": "array", "items": final, "description": "only once over"},
        },
        "seats",
        "retired",
        "map",
        "turn_index",
        "card",
        "revealed",
        "deck_left",
        "windows_left",
        "sheets",
        "lines",
        "choice",
    )
