"""The players' part of the OpenAPI document: players, ratings and rematch
(services/gateway/players_api.py, docs/api-players.md)."""

from __future__ import annotations

from typing import Any

import games
from services.gateway.openapi.common import (
    GAME_ID,
    JSON,
    MAX_NAME,
    SEAT_ONLY,
    SPECTATOR_OR_SEAT,
    body,
    json_content,
    obj,
    ref,
    responses,
)

PLAYER_KEY: JSON = {
    "name": "X-Player-Key",
    "in": "header",
    "required": False,
    "description": "The player's device key, as `POST /api/players` (or `/recover`) gave it: "
    "the player id (12 characters), a dot, the secret (16-64). A key of another form is "
    "refused as malformed, one of this form that the server does not know as not valid "
    "(both 403 bad_player_key).",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{12}[.][A-Za-z0-9_-]{16,64}$"},
}


def player_op(
    op_id: str, summary: str, ok: int, ok_schema: JSON, errors: tuple[int, ...], **extra: Any
) -> JSON:
    out: JSON = {
        "operationId": op_id,
        "summary": summary,
        "tags": ["players"],
        "responses": responses(ok, ok_schema, summary, *errors, 429, 503),
    }
    out.update(extra)
    return out


def players_schemas() -> JSON:
    """The players' part of the document's schemas."""
    string, integer, boolean = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
    seats = {"type": "array", "items": {"type": "integer", "minimum": 0}}
    return {
        "PlayerCredentials": obj(
            {
                "player_id": string,
                "name": string,
                "device_key": {**string, "description": "secret: send it as X-Player-Key"},
                "recovery_code": {**string, "description": "secret; only when created"},
            },
            ["player_id", "name", "device_key"],
        ),
        "Player": obj(
            {"player_id": string, "name": string, "bot": boolean}, ["player_id", "name", "bot"]
        ),
        "PlayerGames": obj(
            {
                "games": {
                    "type": "array",
                    "items": obj(
                        {
                            "game_id": string,
                            "game": string,
                            "rules": {"type": "object"},
                            "seats": {"type": "array", "items": ref("Seat")},
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
        "Seated": obj(
            {"game_id": string, "seat": integer, "player_id": string, "rated": boolean},
            ["game_id", "seat", "player_id", "rated"],
        ),
        "Table": obj(
            {
                "game_id": string,
                "rated": boolean,
                "seats": {
                    "type": "array",
                    "items": obj(
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
        "Leaderboard": obj(
            {
                "game": string,
                "players": {
                    "type": "array",
                    "items": obj(
                        {
                            "rank": integer,
                            "player_id": string,
                            "name": string,
                            "ai": boolean,
                            "bot": boolean,
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
        "Follows": obj(
            {
                "follows": {
                    "type": "array",
                    "description": "most recently followed first (at most 500)",
                    "items": obj(
                        {
                            "player_id": string,
                            "name": string,
                            "playing": {
                                "type": "array",
                                "description": "their public games in play now, newest "
                                "first; never a private game (a daily attempt)",
                                "items": obj(
                                    {
                                        "game_id": string,
                                        "game": string,
                                        "rules": {"type": "object"},
                                        "seats": {"type": "array", "items": ref("Seat")},
                                        "status": {"enum": ["playing"]},
                                        "created_at": {"type": ["string", "null"]},
                                    },
                                    ["game_id", "game", "seats", "status"],
                                ),
                            },
                        },
                        ["player_id", "name", "playing"],
                    ),
                }
            },
            ["follows"],
        ),
        "Rematch": obj(
            {
                "rematch": {
                    "oneOf": [
                        {"type": "null", "description": "no rematch offered (yet)"},
                        obj(
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
            "post": player_op(
                "createPlayer", "A new player: its device key and recovery code, once.",
                201, ref("PlayerCredentials"), (400, 413),
                requestBody=body(obj({"name": name, "bot": {"type": "boolean"}}, ["name"],
                                     additionalProperties=False)),
            )
        },
        "/api/players/recover": {
            "post": player_op(
                "recoverPlayer", "A new device key for the player of a recovery code.",
                200, ref("PlayerCredentials"), (400, 403, 413),
                requestBody=body(
                    obj({"recovery_code": {"type": "string"}}, ["recovery_code"],
                            additionalProperties=False)
                ),
            )
        },
        "/api/players/me": {
            "get": player_op(
                "me", "Who the device key is.", 200, ref("Player"), (403,),
                parameters=[PLAYER_KEY],
            )
        },
        "/api/players/me/games": {
            "get": player_op(
                "myGames", "The key's player's games, newest first, with whose turn it is.",
                200, ref("PlayerGames"), (400, 403),
                parameters=[
                    PLAYER_KEY,
                    {"name": "limit", "in": "query",
                     "schema": {"type": "integer", "minimum": 0, "maximum": 100}},
                    {"name": "offset", "in": "query",
                     "schema": {"type": "integer", "minimum": 0, "maximum": 10_000}},
                ],
            )
        },
        "/api/players/me/follows": {
            "get": player_op(
                "myFollows", "Whom the key's player follows, with the games they play now.",
                200, ref("Follows"), (403,), parameters=[PLAYER_KEY],
            )
        },
        "/api/players/me/follows/{player_id}": {
            "parameters": [{"name": "player_id", "in": "path", "required": True,
                            "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}}],
            "put": player_op(
                "follow", "Follow a player (at most 500: 409 too_many_follows; oneself: 400; "
                "an unknown player: 404 player_not_found). Answers the whole list.",
                200, ref("Follows"), (400, 403, 404, 409), parameters=[PLAYER_KEY],
            ),
            "delete": player_op(
                "unfollow", "Stop following a player. Answers the whole list.",
                200, ref("Follows"), (400, 403), parameters=[PLAYER_KEY],
            ),
        },
        "/api/games/{game_id}/player": {
            "parameters": game_path,
            "post": player_op(
                "sitPlayer", "The key's player takes the token's seat; `rated` rates the table.",
                200, ref("Seated"), (400, 403, 404, 409, 413),
                parameters=[PLAYER_KEY], security=SEAT_ONLY,
                requestBody={"required": False, "content": json_content(
                    obj({"rated": {"type": "boolean"}}, additionalProperties=False))},
            ),
        },
        "/api/games/{game_id}/claim": {
            "parameters": game_path,
            "post": player_op(
                "claimSeat", "A seat token for this device of a player who sits at the game.",
                200, obj({"game_id": {"type": "string"}, "seat": {"type": "integer"},
                              "token": {"type": "string"}}, ["game_id", "seat", "token"]),
                (400, 403, 404, 413, 429), parameters=[PLAYER_KEY],
            ),
        },
        "/api/games/{game_id}/table": {
            "parameters": game_path,
            "get": player_op(
                "table", "The players on a game's seats and whether it is rated. A private "
                "game's (a daily attempt's) only with its seat's token (403 otherwise).",
                200, ref("Table"), (400, 403, 404),
            ),
        },
        "/api/leaderboard/{game}": {
            "parameters": [{"name": "game", "in": "path", "required": True,
                            "schema": {"enum": list(games.kinds())}}],
            "get": player_op(
                "leaderboard", "The ratings of one game kind, best first (AI levels too).",
                200, ref("Leaderboard"), (400,),
                parameters=[{"name": "limit", "in": "query",
                             "schema": {"type": "integer", "minimum": 0, "maximum": 200}},
                            {"name": "bots", "in": "query", "schema": {"enum": ["0", "1"]},
                             "description": "0: bot accounts left out (default 1: marked)"}],
            ),
        },
        "/api/games/{game_id}/rematch": {
            "parameters": game_path,
            "post": player_op(
                "rematch", "Accept (offering it when none is) or decline a rematch.",
                200, ref("Rematch"), (400, 403, 404, 409, 413), security=SEAT_ONLY,
                requestBody=body(obj({"answer": {"enum": ["accept", "decline"]}},
                                          ["answer"], additionalProperties=False)),
            ),
            "get": player_op(
                "rematchState", "Where the rematch offer after this game stands.",
                200, ref("Rematch"), (400, 403, 404), security=SPECTATOR_OR_SEAT,
            ),
        },
    }  # fmt: skip
