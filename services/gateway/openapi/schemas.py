"""The component schemas of the games' API: seats, levels, errors, views, moves, events, health."""

from __future__ import annotations

import games
from services.common.levels import MAX_ITERATIONS, NAMED_LEVELS
from services.gateway.openapi.common import JSON, MAX_NAME, obj, ref
from services.gateway.openapi.game_parts import CLOCK_RULES, game_parts, view_schema_name


def game_schemas() -> JSON:
    creates, moves, views = game_parts()
    level = {
        "anyOf": [
            {"enum": list(NAMED_LEVELS)},
            {"type": "string", "pattern": "^mcts-[1-9][0-9]{0,5}$"},
        ],
        "description": "An AI level: "
        + ", ".join(NAMED_LEVELS)
        + f", or mcts-N (N 1-{MAX_ITERATIONS} search iterations). A game may leave a named "
        "level out where it measured no stronger: `GET /api/meta` lists each game's `levels`.",
    }
    seat_spec = obj(
        {
            "kind": {
                "type": "string",
                "enum": ["human", "open", "ai", "bot"],
                "description": "bot: `name` is a bot account's, which is invited to the seat",
            },
            "name": {"type": "string", "maxLength": MAX_NAME},
            "level": level,
        },
        additionalProperties=False,
    )
    seat = obj(
        {
            "seat": {"type": "integer", "minimum": 0},
            "name": {"type": "string"},
            "kind": {"type": "string"},
            "level": {"type": "string"},
            "bot": {"const": True, "description": "a bot account holds or is invited to it"},
        },
        ["seat", "name", "kind"],
    )
    error = obj(
        {
            "error": obj(
                {
                    "code": {"type": "string", "description": "machine-readable, e.g. bad_request"},
                    "message": {"type": "string", "description": "for people"},
                    "field": {"type": "string", "description": "the request's field at fault"},
                    "rule": {"type": "string", "description": "the rule a refused move breaks"},
                    "refusal": {
                        "type": "string",
                        "description": 'a rule refusal\'s stable code ("<game>.<code>", or one '
                        "every game shares, e.g. game_over): the page words it in the player's "
                        "language from its catalogue",
                    },
                    "reason": {
                        "type": "string",
                        "description": "why the `field` was refused, a stable code the page "
                        "words in the player's language (services/gateway/field_errors.py), "
                        "e.g. out_of_range, bad_format, too_long, not_a_choice",
                    },
                    "params": {
                        "type": "object",
                        "additionalProperties": {"type": ["string", "integer"]},
                        "description": "the values the refusal's or the field reason's sentence "
                        "names (rows and columns counted from 1, names as the board shows them; "
                        "min and max of a range)",
                    },
                },
                ["code", "message"],
            )
        },
        ["error"],
    )
    common_view = obj(
        {
            "game_id": {"type": "string"},
            "game": {"type": "string"},
            "version": {"type": "integer", "minimum": 0},
            "status": {"enum": ["waiting", "playing", "over"]},
            "rules": {"type": "object"},
            "seats": {"type": "array", "items": obj({"seat": {"type": "integer"}})},
            "to_move": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "seat": {"type": ["integer", "null"], "description": "the viewer's seat"},
            "winners": {"type": "array", "items": {"type": "integer"}},
            "last_event_id": {"type": "string"},
            "hints": {
                "const": False,
                "description": "only in a scored daily attempt: it takes no hints (403 hints_off)",
            },
            "offer": obj(
                {
                    "n": {"type": "integer", "minimum": 1},
                    "kind": {"enum": ["abort", "end"]},
                    "by": {"type": "integer", "minimum": 0},
                    "accepted": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                },
                ["n", "kind", "by", "accepted"],
                description="an open offer to stop (POST /api/games/{id}/offers), while playing",
            ),
            "ended": {
                "enum": ["abort", "end"],
                "description": "the table agreed to stop (unrated): abort, no winners; end, "
                "scored as it stood",
            },
        },
        ["game_id", "game", "version", "status", "rules", "seats", "to_move"],
        description="Every game's view has these fields; the rest is the game's own.",
    )
    summary = obj(
        {
            "game_id": {"type": "string"},
            "game": {"type": "string"},
            "rules": {"type": "object"},
            "seats": {"type": "array", "items": ref("Seat")},
            "status": {"type": "string"},
            "created_at": {"type": ["string", "null"], "description": "RFC 3339"},
        },
        ["game_id", "game", "rules", "seats", "status"],
    )
    game_meta = obj(
        {
            "game": {"type": "string"},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "players": {
                "type": "array",
                "items": {"type": "integer"},
                "minItems": 2,
                "maxItems": 2,
            },
            "options": {"type": "array", "items": {"type": "object"}},
            "levels": {
                "type": "array",
                "items": obj(
                    {"name": {"type": "string"}, "description": {"type": "string"}},
                    ["name", "description"],
                ),
            },
            "colours": {"type": "array", "items": {"type": "string"}},
            "constants": {
                "type": "object",
                "description": "the game's fixed tables the page draws from (its line colours, "
                "each seat's lines...), from its rules core; {} when it has none",
            },
            "daily": {
                "type": "boolean",
                "description": "whether the game offers a daily puzzle (/api/daily/{game})",
            },
        },
        ["game", "name", "players", "options", "levels", "colours", "daily"],
    )
    suggestion = obj(
        {
            "move": {"type": "object", "description": "the move, as `POST /moves` takes it"},
            "value": {"type": "number", "description": "expected final margin, in points"},
            "visits": {"type": "integer"},
        },
        ["move", "value", "visits"],
        description="The move's own fields, then `move`, `value` and `visits`.",
    )
    return {
        "Error": error,
        "SeatSpec": seat_spec,
        "SeatSpecs": {"type": "array", "items": ref("SeatSpec"), "minItems": 1},
        "Seat": seat,
        "CreateGame": {"oneOf": creates},
        "ClockRules": CLOCK_RULES,
        "Created": obj(
            {
                "game_id": {"type": "string"},
                "seat": {"type": ["integer", "null"], "description": "null: no human seat"},
                "token": {"type": "string", "description": "the seat's secret: keep it"},
            },
            ["game_id", "seat", "token"],
        ),
        "Joined": obj(
            {
                "game_id": {"type": "string"},
                "seat": {"type": "integer"},
                "token": {"type": "string"},
            },
            ["game_id", "seat", "token"],
        ),
        "GameList": obj({"games": {"type": "array", "items": summary}}, ["games"]),
        "CommonView": common_view,
        "View": {
            "oneOf": [ref(name) for name in views],
            "discriminator": {
                "propertyName": "game",
                "mapping": {
                    game.kind: f"#/components/schemas/{view_schema_name(game.kind)}"
                    for game in games.all_games()
                },
            },
            "description": "A game as one seat (or a spectator) sees it: the fields every "
            "game has (CommonView) and the game's own, picked by `game`.",
        },
        **views,
        "Move": {"oneOf": moves},
        "LegalMoves": obj(
            {
                "moves": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "description": "a move as `POST /moves` takes it, plus, in games that "
                        "give one, `preview`: what the move would score and change for the "
                        "asking seat, in the game's own form, never telling what chance will "
                        "bring (docs/web.md, 'Previews'); a move sent back with it is the move",
                    },
                },
                "seat": {"type": "integer"},
                "version": {"type": "integer"},
            },
            ["moves", "seat", "version"],
        ),
        "HintRequest": obj(
            {
                "level": level,
                "budget_ms": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                "max_suggestions": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            },
            additionalProperties=False,
        ),
        "Hint": obj(
            {
                "suggestions": {"type": "array", "items": suggestion},
                "level": {"type": "string"},
                "elapsed_ms": {"type": "number"},
                "iterations": {"type": "integer"},
                "seat": {"type": "integer"},
            },
            ["suggestions", "level", "elapsed_ms"],
        ),
        "Record": obj(
            {"format": {"type": "string"}},
            description="The replayable record of a finished game (e.g. `metro-record/1`).",
        ),
        "Meta": obj({"games": {"type": "array", "items": game_meta}}, ["games"]),
        "RulesQuery": obj(
            {
                "op": {"type": "string", "description": "the query, e.g. map or replay"},
                "game": {"type": "string"},
            },
            ["op"],
            description="One `metro rules` query; the other fields are the query's own.",
        ),
        "Health": obj(
            {
                "ok": {"type": "boolean"},
                "engine": {"type": "string", "description": "ok, or down (why)"},
                "ai": {"type": "string", "description": "ok, or down (why)"},
                "error": ref("Error/properties/error"),
            },
            ["ok", "engine", "ai"],
        ),
        "Ready": obj(
            {
                "ready": {"type": "boolean"},
                "error": ref("Error/properties/error"),
            },
            ["ready"],
            description="Whether this gateway takes new requests (false while it drains).",
        ),
    }
