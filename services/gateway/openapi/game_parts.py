"""The games' own parts of the OpenAPI document, from the registry (no game is named here): each
game's create body, move body (with the gateway's envelope fields) and view component."""

from __future__ import annotations

import copy

import games
from services.gateway.openapi.common import JSON, obj, ref


def with_envelope(schema: JSON, envelope: JSON) -> JSON:
    """`schema` (a game's move) with the gateway's own fields allowed beside the move's: added to
    every object alternative, so that a game's `additionalProperties: false` still holds."""
    out = copy.deepcopy(schema)
    for key in ("oneOf", "anyOf"):
        if key in out:
            out[key] = [with_envelope(alt, envelope) for alt in out[key]]
    if out.get("type") == "object":
        out["properties"] = {**out.get("properties", {}), **envelope}
    return out


MOVE_ENVELOPE: JSON = {
    "expected_version": {
        "type": "integer",
        "minimum": -(2**31),
        "maximum": 2**31 - 1,
        "description": "The view's `version` the move was chosen on; a stale one is a 409.",
    },
    "move_id": {
        "type": "string",
        "maxLength": 128,
        "description": "The client's id of this move: a repeat changes nothing (safe retries).",
    },
}


def view_schema_name(kind: str) -> str:
    """The component holding one game kind's view (`View`'s discriminator maps `game` to it)."""
    return f"View_{kind}"


SINCE: JSON = {
    "name": "since",
    "in": "query",
    "description": "Opt-in delta (docs/api-deltas.md): the view version the client holds; the "
    "answer is then a JSON Patch from it when this gateway still knows it (header Metro-View: "
    "delta), else the whole view (Metro-View: full).",
    "schema": {"type": "integer", "minimum": 0},
}
VIEW_DELTA: JSON = {
    "type": "object",
    "description": "What changed since the view of version `since` (RFC 6902 JSON Patch).",
    "properties": {
        "game_id": {"type": "string"},
        "since": {"type": "integer", "minimum": 0},
        "version": {"type": "integer", "minimum": 0},
        "patch": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["game_id", "since", "version", "patch"],
}
VIEW_OR_DELTA: JSON = {"oneOf": [{"$ref": "#/components/schemas/View"}, VIEW_DELTA]}

CLOCK_RULES: JSON = {
    "type": "object",
    "description": "The table's clock (docs/gateway.md, Clocks); absent or mode none: no clock.",
    "properties": {
        "mode": {"enum": ["none", "realtime", "correspondence"]},
        "move_s": {
            "type": "integer",
            "description": "seconds per move: 5-3600 real time, 600-1209600 correspondence",
        },
        "bank_s": {
            "type": "integer",
            "minimum": 0,
            "maximum": 7200,
            "description": "real time: a reserve the overruns come out of",
        },
        "on_timeout": {"enum": ["ai", "lose"]},
        "ai_level": {"type": "string", "description": "the AI level that plays absent seats"},
    },
    "additionalProperties": False,
}


def game_parts() -> tuple[list[JSON], list[JSON], dict[str, JSON]]:
    """Per game: the create body and the move body, each an alternative of a oneOf, and the
    view, a component of its own that `View` picks by the view's `game`."""
    creates: list[JSON] = []
    moves: list[JSON] = []
    views: dict[str, JSON] = {}
    for game in games.all_games():
        kind = {"const": game.kind}
        creates.append(
            obj(
                {
                    "game": kind,
                    "rules": game.rules_schema(),
                    "seats": ref("SeatSpecs"),
                    "clock": ref("ClockRules"),
                },
                ["game", "seats"],
                title=game.name,
                additionalProperties=False,
            )
        )
        move = with_envelope(game.move_schema(), MOVE_ENVELOPE)
        moves.append({"title": game.name, **move})
        views[view_schema_name(game.kind)] = {
            "title": f"{game.name} view",
            "allOf": [ref("CommonView"), obj({"game": kind}, ["game"]), game.view_schema()],
        }
    return creates, moves, views
