"""The OpenAPI 3.1 document of the gateway's HTTP API (API.md), served at `GET /api/openapi.json`.

Everything game-specific comes from the registry, so no game is named here: each game's `rules`
schema is built from its option table (`Game.rules_schema`), its move bodies and its view's own
fields are the game's `move_schema()` / `view_schema()`. The rest (paths, envelopes, errors) is
the gateway's own contract. The document is built once per process: the registry is fixed once
the games are imported.

The document is built in parts: `common` (errors, builders), `game_parts` (from the registry),
`schemas` and `paths` (the games' API), `players` (players, ratings, rematch).
"""

from __future__ import annotations

import functools
import json

from flask import Blueprint, Response

from services.gateway.openapi.analysis import analysis_paths, analysis_schemas
from services.gateway.openapi.archive import archive_paths, archive_schemas
from services.gateway.openapi.bots import bots_paths, bots_schemas
from services.gateway.openapi.chat import chat_paths, chat_schemas
from services.gateway.openapi.common import API_VERSION, JSON, MAX_NAME, OPENAPI_VERSION, obj, ref
from services.gateway.openapi.daily import daily_paths, daily_schemas, with_daily_hints
from services.gateway.openapi.events import event_schema
from services.gateway.openapi.game_parts import view_schema_name
from services.gateway.openapi.party import party_paths, party_schemas, with_party_create
from services.gateway.openapi.paths import game_paths
from services.gateway.openapi.players import players_paths, players_schemas
from services.gateway.openapi.refusals import name_refusals
from services.gateway.openapi.schemas import game_schemas

__all__ = ["MAX_NAME", "bp", "document", "view_schema_name"]

bp = Blueprint("openapi", __name__)


def document() -> JSON:
    """The whole OpenAPI document (a fresh copy: callers may change it)."""
    return json.loads(_document_text())


@functools.cache
def _document_text() -> str:
    schemas = {
        **game_schemas(),
        **players_schemas(),
        **daily_schemas(),
        **party_schemas(),
        **analysis_schemas(),
        **bots_schemas(),
        **archive_schemas(),
        **chat_schemas(),
    }
    schemas["ServerSentEvent"] = obj(
        {
            "id": ref("EventId"),
            "event": {
                "enum": ["message", "view", "chat", "failure"],
                "description": "message: a change of the game (data: a GameEvent; a "
                "move's event names who made it in `by`: 'player', or 'ai' when the AI made it, "
                "for an AI seat or for a person's seat while they are away; with ?delta=1 also "
                "`delta` and, on a seat's stream, `legal`); view: the first message of a "
                "?delta=1 stream (data: {version, view, legal?}, the audience's whole view); "
                "chat: a new line of the reader's chat room, ?chat=1 only (data: {room, line}, "
                "line as GET .../chat answers it; no id: it moves no Last-Event-ID); failure: "
                "the stream broke (data: an error object such as Error's `error`).",
            },
            "data": {"type": "string", "contentMediaType": "application/json"},
            "retry": {"type": "integer", "minimum": 0},
        },
        ["data"],
        description="One event of the stream (OpenAPI 3.1: the schema of each event).",
    )
    schemas["GameEvent"] = event_schema()
    schemas["EventId"] = {
        "type": "string",
        "pattern": "^[0-9]{1,20}-[0-9]{1,20}$",
        "description": "An event id, '<ms>-<seq>', both below 2^64.",
    }
    paths: JSON = {
        **with_daily_hints(with_party_create(game_paths())),
        **players_paths(),
        **daily_paths(),
        **party_paths(),
        **analysis_paths(),
        **bots_paths(),
        **chat_paths(),
    }
    for path, operations in archive_paths().items():  # (it adds DELETE to /api/players/me)
        paths[path] = {**paths.get(path, {}), **operations}
    name_refusals(paths)
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
        "tags": [
            {"name": "games"},
            {"name": "meta"},
            {"name": "players"},
            {"name": "daily"},
            {"name": "party"},
            {"name": "bots"},
        ],
        "paths": paths,
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
