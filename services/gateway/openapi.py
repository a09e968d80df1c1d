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


def _game_parts() -> tuple[list[JSON], list[JSON], list[JSON]]:
    """Per game: the create body, the move body and the view, each an alternative of a oneOf."""
    creates, moves, views = [], [], []
    for game in games.all_games():
        kind = {"const": game.kind}
        creates.append(
            _object(
                {"game": kind, "rules": game.rules_schema(), "seats": _ref("SeatSpecs")},
                ["game", "seats"],
                title=game.name,
                additionalProperties=False,
            )
        )
        move = _with_envelope(game.move_schema(), MOVE_ENVELOPE)
        moves.append({"title": game.name, **move})
        views.append(
            {
                "title": game.name,
                "allOf": [_ref("CommonView"), _object({"game": kind}), game.view_schema()],
            }
        )
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
        "View": {"oneOf": views},
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
                "responses": _responses(200, _ref("View"), "The view.", 400, 403, 404, 429, 503),
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
                "summary": "Make a move as the token's seat.",
                "description": "The move's own fields are the game's (its rules file); "
                "`expected_version` and `move_id` are the gateway's.",
                "tags": ["games"],
                "security": SEAT_ONLY,
                "requestBody": {"required": True, "content": _json_content(_ref("Move"))},
                "responses": _responses(
                    200,
                    _ref("View"),
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
    schemas = _schemas()
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
        "tags": [{"name": "games"}, {"name": "meta"}],
        "paths": _paths(),
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
