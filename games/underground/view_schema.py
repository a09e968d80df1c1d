"""The JSON Schema of On the Underground's own view fields (view.py), for the OpenAPI document.

Open objects: API.md lets fields be added to a view, never removed, so a client may rely on
every field named here and must ignore the rest.
"""

from __future__ import annotations

from typing import Any

INT = {"type": "integer"}
COUNT = {"type": "integer", "minimum": 0}
STATION = {"type": "string", "description": "a station id of the map"}
STATIONS = {"type": "array", "items": STATION}
OBJECTS = {"type": "array", "items": {"type": "object"}}


def _object(props: dict[str, Any], *required: str) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required or props)}


def view_schema() -> dict[str, Any]:
    seat = _object(
        {
            "score": INT,
            "colours": {"type": "array", "items": {"type": "string"}},
            "branch_tokens": COUNT,
            "retired": {
                "type": "boolean",
                "description": "out for good (time-out loses): score frozen, turns skipped",
            },
            "score_from": _object(
                {k: INT for k in ("start", "rail", "terminus", "symbol", "enclosed", "ride")}
                | {"total": INT},
            ),
        }
    )
    rail = _object({"colour": {"type": "string"}, "a": STATION, "b": STATION})
    turn = _object(
        {
            "seat": COUNT,
            "step": {"enum": ["build", "route"]},
            "rails": {"type": "array", "items": rail},
            "legs": OBJECTS,
            "ways": OBJECTS,
        }
    )
    scored = _object(
        {
            "symbols": {"type": "array", "items": {"enum": ["a", "b", "c", "d"]}},
            "enclosed": STATIONS,
        }
    )
    return _object(
        {
            "seats": {"type": "array", "items": seat},
            "retired": {
                "type": "array",
                "items": COUNT,
                "description": "the seats out for good, in the order they left",
            },
            "turn_number": COUNT,
            "turns": COUNT,
            "map": {"type": "string", "description": "the map's id (the `map` query gives it)"},
            "rails": {"type": "array", "items": rail},
            "rail_gains": {
                "type": "array",
                "items": OBJECTS,
                "description": "what each of `rails` scored when laid (its event's gains)",
            },
            "passenger": {"type": ["string", "null"], "description": "null once it has left"},
            "face_up": STATIONS,
            "discard": STATIONS,
            "pile_count": COUNT,
            "revealed": STATIONS,
            "connections": {
                "type": "object",
                "additionalProperties": {"enum": ["a", "b", "c", "d"]},
            },
            "scored": {"type": "object", "additionalProperties": scored},
            "turn": {"anyOf": [turn, {"type": "null"}]},
            "moves": OBJECTS,
            "steps": OBJECTS,
        }
    )
