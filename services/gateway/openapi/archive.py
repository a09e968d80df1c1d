"""The archive's part of the OpenAPI document (issue 29; services/gateway/archive_api.py): a
player's profile, history and export, and the caller's own erasure and export. The finished
games' view, record and analysis keep their paths (they answer from the archive once the live
copy has expired)."""

from __future__ import annotations

import games
from services.gateway.openapi.common import JSON, obj, ref
from services.gateway.openapi.players import PLAYER_KEY, player_op

PLAYER_ID: JSON = {
    "name": "player_id",
    "in": "path",
    "required": True,
    "description": "A player's id (as `POST /api/players` answered it).",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
}
OWN_KEY: JSON = {**PLAYER_KEY, "required": True}


def archive_schemas() -> JSON:
    """The archive's schemas: a profile and a page of history."""
    string, integer, number = {"type": "string"}, {"type": "integer"}, {"type": "number"}
    kind_stats = obj(
        {
            "games": integer,
            "wins": integer,
            "mean_score": number,
            "rating": {"type": ["number", "null"], "description": "after the last rated game"},
            "rating_history": {
                "type": "array",
                "description": "[ms since the epoch, rating after that game], oldest first",
                "items": {"type": "array", "prefixItems": [integer, number], "minItems": 2,
                          "maxItems": 2},
            },
        },
        ["games", "wins", "mean_score", "rating", "rating_history"],
    )  # fmt: skip
    seat = obj(
        {
            "seat": integer,
            "name": {**string, "description": '"deleted player" once its player erased it'},
            "kind": {"enum": ["human", "ai"]},
            "level": string,
            "bot": {"type": "boolean"},
            "player_id": {**string, "description": "its player's (the profile's link)"},
        },
        ["seat", "name", "kind"],
    )
    return {
        "PlayerProfile": obj(
            {
                "player_id": string,
                "name": string,
                "bot": {"type": "boolean"},
                "games": {
                    "type": "object",
                    "propertyNames": {"enum": list(games.kinds())},
                    "additionalProperties": kind_stats,
                },
            },
            ["player_id", "name", "bot", "games"],
        ),
        "PlayerHistory": obj(
            {
                "games": {
                    "type": "array",
                    "items": obj(
                        {
                            "game_id": string,
                            "game": string,
                            "ended_at": {**integer, "description": "ms since the epoch"},
                            "seats": {"type": "array", "items": seat},
                            "scores": {"type": "array", "items": integer},
                            "result": {"enum": ["win", "loss", "draw"]},
                            "seat": {**integer, "description": "the player's own seat"},
                        },
                        ["game_id", "game", "ended_at", "seats", "scores", "result"],
                    ),
                },
                "next": {
                    "type": ["string", "null"],
                    "description": "the next page's `before` (null: this is the last page)",
                },
            },
            ["games", "next"],
        ),
        "PlayerExport": obj(
            {
                "player_id": string,
                "name": string,
                "bot": {"type": "boolean"},
                "archive": {
                    "type": "object",
                    "description": "the archive's rows about you: "
                    "`player`, your `games` (seat, score, result, ratings) and `chat`, "
                    "your own archived chat lines ({game_id, id, seat, at_ms, text | "
                    "preset | deleted})",
                },
            },
            ["player_id", "name", "bot", "archive"],
        ),
    }


def archive_paths() -> JSON:
    """The archive's paths."""
    query = [
        {"name": "game", "in": "query", "schema": {"enum": list(games.kinds())}},
        {"name": "result", "in": "query", "schema": {"enum": ["win", "loss", "draw"]}},
        {"name": "vs", "in": "query", "description": "only games against this player",
         "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{12}$"}},
        {"name": "before", "in": "query", "description": "the `next` of the page before",
         "schema": {"type": "string", "maxLength": 200}},
        {"name": "limit", "in": "query",
         "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
    ]  # fmt: skip
    ndjson = {
        "description": "One record (as GET /api/games/{id}/record answers it) a line.",
        "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
    }
    export = player_op("exportPlayerGames", "Every public game of the player, streamed as "
                       "NDJSON.", 200, {"type": "string"}, (404,))  # fmt: skip
    export["responses"]["200"] = ndjson
    erase = player_op("deleteMe", "Erase the caller: name and keys; games stay as 'deleted "
                      "player'.", 204, {}, (403,), parameters=[OWN_KEY])  # fmt: skip
    erase["responses"]["204"] = {"description": "Erased."}
    return {
        "/api/players/{player_id}": {
            "parameters": [PLAYER_ID],
            "get": player_op("playerProfile", "A player's public profile: per game kind its "
                             "games, wins, mean score, rating and rating history.", 200,
                             ref("PlayerProfile"), (404,)),
        },
        "/api/players/{player_id}/games": {
            "parameters": [PLAYER_ID],
            "get": player_op("playerHistory", "The player's finished games, newest first, a "
                             "page at a time (a cursor: stable while new games arrive).", 200,
                             ref("PlayerHistory"), (400, 404), parameters=query),
        },
        "/api/players/{player_id}/games/export": {
            "parameters": [PLAYER_ID],
            "get": export,
        },
        "/api/players/me": {"delete": erase},
        "/api/players/me/export": {
            "get": player_op("exportMe", "Everything stored about the caller, as JSON.", 200,
                             ref("PlayerExport"), (403,), parameters=[OWN_KEY]),
        },
    }  # fmt: skip
