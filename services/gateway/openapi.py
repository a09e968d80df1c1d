"""The OpenAPI 3.1 document of the gateway's HTTP API (API.md), served at `GET /api/openapi.json`.

Everything game-specific comes from the registry, so no game is named here: each game's `rules`
schema is built from its option table (`Game.rules_schema`), its move bodies and its view's own
fields are the game's `move_schema()` / `view_schema()`. The rest (paths, envelopes, errors) is
the gateway's own contract. The document is built once per process: the registry is fixed once
the games are imported.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from flask import Blueprint, Response

import games
from services.common.levels import MAX_ITERATIONS, NAMED_LEVELS

bp = Blueprint("openapi", __name__)

JSON = dict[str, Any]
OPENAPI_VERSION = "3.1.0"
MAX_NAME = 40  # the engine's limit on a seat's name (services/engine/validation.py)
API_VERSION = "1"

# What each error status means in this API (README "The HTTP API", API.md's error list).
ERRORS: dict[int, str] = {
    400: "Malformed request: not JSON, a wrong type, an unknown field (named in `field`).",
    403: "A missing or wrong seat token, or the record of a game still running.",
    404: "No such game.",
    409: "Not this seat's turn, a stale `expected_version`, or no open seat.",
    413: "The request body is over 64 KiB.",
    414: "The request line (URL) is too long.",
    422: "A move the rules forbid; `rule` names the rule.",
    429: "Too many requests from this client; wait `Retry-After` seconds.",
    431: "A header, or all headers together, too large (or too many).",
    503: "The engine or the AI is not answering; try again soon.",
}
# Refusals any request can meet before an endpoint runs (the server's limits).
ALWAYS = (414, 431)

GAME_ID = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "description": "The game's id, as `POST /api/games` answered it.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
}
SPECTATOR_OR_SEAT: list[JSON] = [{}, {"bearer": []}]
SEAT_ONLY: list[JSON] = [{"bearer": []}]


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_content(schema: JSON) -> JSON:
    return {"application/json": {"schema": schema}}


def _error(status: int) -> JSON:
    out: JSON = {"description": ERRORS[status], "content": _json_content(_ref("Error"))}
    if status == 429:
        out["headers"] = {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 0},
            }
        }
    return out


def _responses(ok: int, ok_schema: JSON, description: str, *errors: int) -> JSON:
    out: JSON = {str(ok): {"description": description, "content": _json_content(ok_schema)}}
    for status in sorted({*errors, *ALWAYS}):
        out[str(status)] = _error(status)
    return out


def _object(props: JSON, required: list[str] | tuple[str, ...] = (), **extra: Any) -> JSON:
    out: JSON = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    out.update(extra)
    return out


# ---- the games' own parts, from the registry ---------------------------------------------------


def _with_envelope(schema: JSON, envelope: JSON) -> JSON:
    """`schema` (a game's move) with the gateway's own fields allowed beside the move's: added to
    every object alternative, so that a game's `additionalProperties: false` still holds."""
    out = copy.deepcopy(schema)
    for key in ("oneOf", "anyOf"):
        if key in out:
            out[key] = [_with_envelope(alt, envelope) for alt in out[key]]
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
    "description": "The table's clock (README, Clocks); absent or mode none: no clock.",
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


def _game_parts() -> tuple[list[JSON], list[JSON], dict[str, JSON]]:
    """Per game: the create body and the move body, each an alternative of a oneOf, and the
    view, a component of its own that `View` picks by the view's `game`."""
    creates: list[JSON] = []
    moves: list[JSON] = []
    views: dict[str, JSON] = {}
    for game in games.all_games():
        kind = {"const": game.kind}
        creates.append(
            _object(
                {
                    "game": kind,
                    "rules": game.rules_schema(),
                    "seats": _ref("SeatSpecs"),
                    "clock": _ref("ClockRules"),
                },
                ["game", "seats"],
                title=game.name,
                additionalProperties=False,
            )
        )
        move = _with_envelope(game.move_schema(), MOVE_ENVELOPE)
        moves.append({"title": game.name, **move})
        views[view_schema_name(game.kind)] = {
            "title": f"{game.name} view",
            "allOf": [_ref("CommonView"), _object({"game": kind}, ["game"]), game.view_schema()],
        }
    return creates, moves, views


# ---- the schemas ---------------------------------------------------------------------------------


def _schemas() -> JSON:
    creates, moves, views = _game_parts()
    level = {
        "anyOf": [
            {"enum": list(NAMED_LEVELS)},
            {"type": "string", "pattern": "^mcts-[1-9][0-9]{0,5}$"},
        ],
        "description": "An AI level: "
        + ", ".join(NAMED_LEVELS)
        + f", or mcts-N (N 1-{MAX_ITERATIONS} search iterations).",
    }
    seat_spec = _object(
        {
            "kind": {"type": "string", "enum": ["human", "open", "ai"]},
            "name": {"type": "string", "maxLength": MAX_NAME},
            "level": level,
        },
        additionalProperties=False,
    )
    seat = _object(
        {
            "seat": {"type": "integer", "minimum": 0},
            "name": {"type": "string"},
            "kind": {"type": "string"},
            "level": {"type": "string"},
        },
        ["seat", "name", "kind"],
    )
    error = _object(
        {
            "error": _object(
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
                    "params": {
                        "type": "object",
                        "additionalProperties": {"type": ["string", "integer"]},
                        "description": "the values the refusal's sentence names (rows and "
                        "columns counted from 1, names as the board shows them)",
                    },
                },
                ["code", "message"],
            )
        },
        ["error"],
    )
    common_view = _object(
        {
            "game_id": {"type": "string"},
            "game": {"type": "string"},
            "version": {"type": "integer", "minimum": 0},
            "status": {"enum": ["waiting", "playing", "over"]},
            "rules": {"type": "object"},
            "seats": {"type": "array", "items": _object({"seat": {"type": "integer"}})},
            "to_move": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "seat": {"type": ["integer", "null"], "description": "the viewer's seat"},
            "winners": {"type": "array", "items": {"type": "integer"}},
            "last_event_id": {"type": "string"},
        },
        ["game_id", "game", "version", "status", "rules", "seats", "to_move"],
        description="Every game's view has these fields; the rest is the game's own.",
    )
    summary = _object(
        {
            "game_id": {"type": "string"},
            "game": {"type": "string"},
            "rules": {"type": "object"},
            "seats": {"type": "array", "items": _ref("Seat")},
            "status": {"type": "string"},
            "created_at": {"type": ["string", "null"], "description": "RFC 3339"},
        },
        ["game_id", "game", "rules", "seats", "status"],
    )
    game_meta = _object(
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
                "items": _object(
                    {"name": {"type": "string"}, "description": {"type": "string"}},
                    ["name", "description"],
                ),
            },
            "colours": {"type": "array", "items": {"type": "string"}},
        },
        ["game", "name", "players", "options", "levels", "colours"],
    )
    suggestion = _object(
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
        "SeatSpecs": {"type": "array", "items": _ref("SeatSpec"), "minItems": 1},
        "Seat": seat,
        "CreateGame": {"oneOf": creates},
        "ClockRules": CLOCK_RULES,
        "Created": _object(
            {
                "game_id": {"type": "string"},
                "seat": {"type": ["integer", "null"], "description": "null: no human seat"},
                "token": {"type": "string", "description": "the seat's secret: keep it"},
            },
            ["game_id", "seat", "token"],
        ),
        "Joined": _object(
            {
                "game_id": {"type": "string"},
                "seat": {"type": "integer"},
                "token": {"type": "string"},
            },
            ["game_id", "seat", "token"],
        ),
        "GameList": _object({"games": {"type": "array", "items": summary}}, ["games"]),
        "CommonView": common_view,
        "View": {
            "oneOf": [_ref(name) for name in views],
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
        "LegalMoves": _object(
            {
                "moves": {"type": "array", "items": {"type": "object"}},
                "seat": {"type": "integer"},
                "version": {"type": "integer"},
            },
            ["moves", "seat", "version"],
        ),
        "HintRequest": _object(
            {
                "level": level,
                "budget_ms": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                "max_suggestions": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            },
            additionalProperties=False,
        ),
        "Hint": _object(
            {
                "suggestions": {"type": "array", "items": suggestion},
                "level": {"type": "string"},
                "elapsed_ms": {"type": "number"},
                "iterations": {"type": "integer"},
                "seat": {"type": "integer"},
            },
            ["suggestions", "level", "elapsed_ms"],
        ),
        "Record": _object(
            {"format": {"type": "string"}},
            description="The replayable record of a finished game (e.g. `metro-record/1`).",
        ),
        "Meta": _object({"games": {"type": "array", "items": game_meta}}, ["games"]),
        "RulesQuery": _object(
            {
                "op": {"type": "string", "description": "the query, e.g. map or replay"},
                "game": {"type": "string"},
            },
            ["op"],
            description="One `metro rules` query; the other fields are the query's own.",
        ),
        "Health": _object(
            {
                "ok": {"type": "boolean"},
                "engine": {"type": "string", "description": "ok, or down (why)"},
                "ai": {"type": "string", "description": "ok, or down (why)"},
                "error": _ref("Error/properties/error"),
            },
            ["ok", "engine", "ai"],
        ),
    }


# ---- the paths -----------------------------------------------------------------------------------


def _paths() -> JSON:
    game_path = [GAME_ID]
    return {
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "tags": ["meta"],
                "responses": _responses(200, {"type": "object"}, "The OpenAPI document."),
            }
        },
        "/api/meta": {
            "get": {
                "operationId": "meta",
                "summary": "Every game: options, AI levels, seat colours (the lobby's source).",
                "tags": ["meta"],
                "responses": _responses(200, _ref("Meta"), "The games."),
            }
        },
        "/api/rules": {
            "post": {
                "operationId": "rulesQuery",
                "summary": "One query of the rules files, answered as `metro rules` prints it.",
                "description": "200 even when the query itself is refused: its `error` says why.",
                "tags": ["meta"],
                "requestBody": {"required": True, "content": _json_content(_ref("RulesQuery"))},
                "responses": _responses(
                    200, {"type": "object"}, "The query's answer.", 400, 413, 429
                ),
            }
        },
        "/api/games": {
            "get": {
                "operationId": "listGames",
                "summary": "Games by status, newest first.",
                "tags": ["games"],
                "parameters": [
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"enum": ["open", "playing", "over"], "default": "open"},
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "description": "How many at most; 0 is the default (50).",
                        "schema": {"type": "integer", "minimum": 0, "maximum": 200, "default": 0},
                    },
                    {
                        "name": "game",
                        "in": "query",
                        "description": "Only this game kind.",
                        "schema": {"type": "string"},
                    },
                ],
                "responses": _responses(200, _ref("GameList"), "The games.", 400, 429, 503),
            },
            "post": {
                "operationId": "createGame",
                "summary": "Create a game; the creator takes the first human seat.",
                "tags": ["games"],
                "requestBody": {"required": True, "content": _json_content(_ref("CreateGame"))},
                "responses": _responses(201, _ref("Created"), "Created.", 400, 413, 429, 503),
            },
        },
        "/api/games/{game_id}": {
            "parameters": game_path,
            "get": {
                "operationId": "getView",
                "summary": "The game as the token's seat (or a spectator) may see it.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "parameters": [SINCE],
                "responses": _responses(
                    200,
                    VIEW_OR_DELTA,
                    "The view (or, asked with `since`, a delta).",
                    400,
                    403,
                    404,
                    429,
                    503,
                ),
            },
        },
        "/api/games/{game_id}/join": {
            "parameters": game_path,
            "post": {
                "operationId": "joinGame",
                "summary": "Take the first open seat.",
                "tags": ["games"],
                "requestBody": {
                    "required": False,
                    "content": _json_content(
                        _object(
                            {"name": {"type": "string", "maxLength": MAX_NAME}},
                            additionalProperties=False,
                        )
                    ),
                },
                "responses": _responses(
                    200, _ref("Joined"), "The seat and its token.", 400, 404, 409, 413, 429, 503
                ),
            },
        },
        "/api/games/{game_id}/legal": {
            "parameters": game_path,
            "get": {
                "operationId": "legalMoves",
                "summary": "Every move the token's seat may make now.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": _responses(
                    200, _ref("LegalMoves"), "The moves.", 400, 403, 404, 409, 429, 503
                ),
            },
        },
        "/api/games/{game_id}/moves": {
            "parameters": game_path,
            "post": {
                "operationId": "applyMove",
                "parameters": [SINCE],
                "summary": "Make a move as the token's seat.",
                "description": "The move's own fields are the game's (its rules file); "
                "`expected_version` and `move_id` are the gateway's.",
                "tags": ["games"],
                "security": SEAT_ONLY,
                "requestBody": {"required": True, "content": _json_content(_ref("Move"))},
                "responses": _responses(
                    200,
                    VIEW_OR_DELTA,
                    "The mover's new view.",
                    400,
                    403,
                    404,
                    409,
                    413,
                    422,
                    429,
                    503,
                ),
            },
        },
        **{
            f"/api/games/{{game_id}}/{name}": {
                "parameters": game_path,
                "post": {
                    "operationId": operation,
                    "summary": summary,
                    "tags": ["games"],
                    "security": SEAT_ONLY,
                    "responses": _responses(
                        200, _ref("View"), "The seat's new view.", 400, 403, 404, 409, 429, 503
                    ),
                },
            }
            for name, operation, summary in (
                (
                    "leave",
                    "leaveSeat",
                    "Hand the token's seat to the AI (at a table whose "
                    "time-out loses: leave the game for good, score frozen).",
                ),
                ("return", "returnToSeat", "Take back the token's seat from the AI."),
            )
        },
        "/api/games/{game_id}/hint": {
            "parameters": game_path,
            "post": {
                "operationId": "hint",
                "summary": "The AI's suggestions for the token's seat, from its view only.",
                "tags": ["games"],
                "security": SEAT_ONLY,
                "requestBody": {"required": False, "content": _json_content(_ref("HintRequest"))},
                "responses": _responses(
                    200,
                    _ref("Hint"),
                    "Suggestions, best first.",
                    400,
                    403,
                    404,
                    409,
                    413,
                    429,
                    503,
                ),
            },
        },
        "/api/games/{game_id}/events": {
            "parameters": game_path,
            "get": {
                "operationId": "events",
                "summary": "Live updates as Server-Sent Events.",
                "description": "Each event is `id: <event id>` and one `data:` line of JSON; "
                "a `: keep-alive` comment follows 15 s of silence. Resume with `Last-Event-ID` "
                "(or `?last_event_id=` on the first connection). A broken stream ends with "
                "`event: failure` and an error object.",
                "tags": ["games"],
                "parameters": [
                    {"name": "Last-Event-ID", "in": "header", "schema": _ref("EventId")},
                    {"name": "last_event_id", "in": "query", "schema": _ref("EventId")},
                    {
                        "name": "delta",
                        "in": "query",
                        "description": "1: each event also carries `delta`, a JSON Patch "
                        "against the public view (docs/api-deltas.md)",
                        "schema": {"enum": ["0", "1"]},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The event stream.",
                        "content": {"text/event-stream": {"schema": _ref("ServerSentEvent")}},
                    },
                    **{str(s): _error(s) for s in sorted({400, 404, 429, 503, *ALWAYS})},
                },
            },
        },
        "/api/games/{game_id}/record": {
            "parameters": game_path,
            "get": {
                "operationId": "record",
                "summary": "The replayable record of a finished game.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": _responses(
                    200, _ref("Record"), "The record.", 400, 403, 404, 429, 503
                ),
            },
        },
        "/healthz": {
            "get": {
                "operationId": "healthz",
                "summary": "Whether this gateway can serve: it asks the engine and the AI.",
                "tags": ["meta"],
                "responses": {
                    "200": {"description": "All up.", "content": _json_content(_ref("Health"))},
                    "503": {
                        "description": "Something is down (named).",
                        "content": _json_content(_ref("Health")),
                    },
                    **{str(s): _error(s) for s in ALWAYS},
                },
            }
        },
    }


def document() -> JSON:
    """The whole OpenAPI document (a fresh copy: callers may change it)."""
    return json.loads(_document_text())


@functools.cache
def _document_text() -> str:
    schemas = {**_schemas(), **players_schemas()}
    schemas["ServerSentEvent"] = _object(
        {
            "id": _ref("EventId"),
            "event": {
                "enum": ["message", "failure"],
                "description": "message: a change of the game (data: the public event); "
                "failure: the stream broke (data: an error object such as Error's `error`).",
            },
            "data": {"type": "string", "contentMediaType": "application/json"},
            "retry": {"type": "integer", "minimum": 0},
        },
        ["data"],
        description="One event of the stream (OpenAPI 3.1: the schema of each event).",
    )
    schemas["EventId"] = {
        "type": "string",
        "pattern": "^[0-9]{1,20}-[0-9]{1,20}$",
        "description": "An event id, '<ms>-<seq>', both below 2^64.",
    }
    doc: JSON = {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Metro platform HTTP API",
            "version": API_VERSION,
            "description": "The gateway's public API (API.md): JSON in and out. A seat's token "
            "goes in `Authorization: Bearer <token>`; without one you are a spectator. Every "
            "game uses the same paths; its rules, moves and view fields are its own.",
        },
        "servers": [{"url": "/"}],
        "tags": [{"name": "games"}, {"name": "meta"}, {"name": "players"}],
        "paths": {**_paths(), **players_paths()},
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A seat's token, as create or join answered it.",
                }
            },
        },
    }
    return json.dumps(doc, ensure_ascii=False)


@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    return Response(_document_text(), mimetype="application/json")


# ---- players, ratings and rematch (services/gateway/players_api.py, docs/api-players.md) -------

PLAYER_KEY: JSON = {
    "name": "X-Player-Key",
    "in": "header",
    "required": False,
    "description": "The player's device key, as `POST /api/players` (or `/recover`) gave it.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,128}$"},
}


def _player_op(
    op_id: str, summary: str, ok: int, ok_schema: JSON, errors: tuple[int, ...], **extra: Any
) -> JSON:
    out: JSON = {
        "operationId": op_id,
        "summary": summary,
        "tags": ["players"],
        "responses": _responses(ok, ok_schema, summary, *errors, 429, 503),
    }
    out.update(extra)
    return out


def _body(schema: JSON) -> JSON:
    return {"required": True, "content": _json_content(schema)}


def players_schemas() -> JSON:
    """The players' part of the document's schemas."""
    string, integer, boolean = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
    seats = {"type": "array", "items": {"type": "integer", "minimum": 0}}
    return {
        "PlayerCredentials": _object(
            {
                "player_id": string,
                "name": string,
                "device_key": {**string, "description": "secret: send it as X-Player-Key"},
                "recovery_code": {**string, "description": "secret; only when created"},
            },
            ["player_id", "name", "device_key"],
        ),
        "Player": _object({"player_id": string, "name": string}, ["player_id", "name"]),
        "PlayerGames": _object(
            {
                "games": {
                    "type": "array",
                    "items": _object(
                        {
                            "game_id": string,
                            "game": string,
                            "rules": {"type": "object"},
                            "seats": {"type": "array", "items": _ref("Seat")},
                            "status": {"enum": ["waiting", "playing", "over"]},
                            "created_at": {"type": ["string", "null"]},
                            "seat": integer,
                            "to_move": seats,
                            "your_turn": boolean,
                            "rated": boolean,
                        },
                        ["game_id", "game", "status", "seat", "to_move", "your_turn", "rated"],
                    ),
                },
                "next_offset": {"type": ["integer", "null"]},
            },
            ["games", "next_offset"],
        ),
        "Seated": _object(
            {"game_id": string, "seat": integer, "player_id": string, "rated": boolean},
            ["game_id", "seat", "player_id", "rated"],
        ),
        "Table": _object(
            {
                "game_id": string,
                "rated": boolean,
                "seats": {
                    "type": "array",
                    "items": _object(
                        {
                            "seat": integer,
                            "player_id": {"type": ["string", "null"]},
                            "name": string,
                        },
                        ["seat", "player_id", "name"],
                    ),
                },
            },
            ["game_id", "rated", "seats"],
        ),
        "Leaderboard": _object(
            {
                "game": string,
                "players": {
                    "type": "array",
                    "items": _object(
                        {
                            "rank": integer,
                            "player_id": string,
                            "name": string,
                            "ai": boolean,
                            "rating": {"type": "number"},
                            "mu": {"type": "number"},
                            "sigma": {"type": "number"},
                            "games": integer,
                        },
                        ["rank", "player_id", "name", "ai", "rating", "mu", "sigma", "games"],
                    ),
                },
            },
            ["game", "players"],
        ),
        "Rematch": _object(
            {
                "rematch": {
                    "oneOf": [
                        {"type": "null", "description": "no rematch offered (yet)"},
                        _object(
                            {
                                "game_id": string,
                                "accepted": seats,
                                "declined": seats,
                                "started": boolean,
                            },
                            ["game_id", "accepted", "declined", "started"],
                        ),
                    ]
                },
                "game_id": {"type": ["string", "null"], "description": "the new game's id"},
                "seat": {"type": ["integer", "null"], "description": "the caller's new seat"},
                "token": {**string, "description": "the new seat's secret, once"},
            },
            ["rematch", "game_id", "seat"],
        ),
    }


def players_paths() -> JSON:
    """The players' part of the document's paths."""
    game_path = [GAME_ID]
    name = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
    return {
        "/api/players": {
            "post": _player_op(
                "createPlayer", "A new player: its device key and recovery code, once.",
                201, _ref("PlayerCredentials"), (400, 413),
                requestBody=_body(_object({"name": name}, ["name"], additionalProperties=False)),
            )
        },
        "/api/players/recover": {
            "post": _player_op(
                "recoverPlayer", "A new device key for the player of a recovery code.",
                200, _ref("PlayerCredentials"), (400, 403, 413),
                requestBody=_body(
                    _object({"recovery_code": {"type": "string"}}, ["recovery_code"],
                            additionalProperties=False)
                ),
            )
        },
        "/api/players/me": {
            "get": _player_op(
                "me", "Who the device key is.", 200, _ref("Player"), (403,),
                parameters=[PLAYER_KEY],
            )
        },
        "/api/players/me/games": {
            "get": _player_op(
                "myGames", "The key's player's games, newest first, with whose turn it is.",
                200, _ref("PlayerGames"), (400, 403),
                parameters=[
                    PLAYER_KEY,
                    {"name": "limit", "in": "query",
                     "schema": {"type": "integer", "minimum": 0, "maximum": 100}},
                    {"name": "offset", "in": "query",
                     "schema": {"type": "integer", "minimum": 0, "maximum": 10_000}},
                ],
            )
        },
        "/api/games/{game_id}/player": {
            "parameters": game_path,
            "post": _player_op(
                "sitPlayer", "The key's player takes the token's seat; `rated` rates the table.",
                200, _ref("Seated"), (400, 403, 404, 409, 413),
                parameters=[PLAYER_KEY], security=SEAT_ONLY,
                requestBody={"required": False, "content": _json_content(
                    _object({"rated": {"type": "boolean"}}, additionalProperties=False))},
            ),
        },
        "/api/games/{game_id}/claim": {
            "parameters": game_path,
            "post": _player_op(
                "claimSeat", "A seat token for this device of a player who sits at the game.",
                200, _object({"game_id": {"type": "string"}, "seat": {"type": "integer"},
                              "token": {"type": "string"}}, ["game_id", "seat", "token"]),
                (400, 403, 404, 413, 429), parameters=[PLAYER_KEY],
            ),
        },
        "/api/games/{game_id}/table": {
            "parameters": game_path,
            "get": _player_op(
                "table", "The players on a game's seats and whether it is rated.",
                200, _ref("Table"), (400, 404),
            ),
        },
        "/api/leaderboard/{game}": {
            "parameters": [{"name": "game", "in": "path", "required": True,
                            "schema": {"enum": list(games.kinds())}}],
            "get": _player_op(
                "leaderboard", "The ratings of one game kind, best first (AI levels too).",
                200, _ref("Leaderboard"), (400,),
                parameters=[{"name": "limit", "in": "query",
                             "schema": {"type": "integer", "minimum": 0, "maximum": 200}}],
            ),
        },
        "/api/games/{game_id}/rematch": {
            "parameters": game_path,
            "post": _player_op(
                "rematch", "Accept (offering it when none is) or decline a rematch.",
                200, _ref("Rematch"), (400, 403, 404, 409, 413), security=SEAT_ONLY,
                requestBody=_body(_object({"answer": {"enum": ["accept", "decline"]}},
                                          ["answer"], additionalProperties=False)),
            ),
            "get": _player_op(
                "rematchState", "Where the rematch offer after this game stands.",
                200, _ref("Rematch"), (400, 403, 404), security=SPECTATOR_OR_SEAT,
            ),
        },
    }  # fmt: skip
