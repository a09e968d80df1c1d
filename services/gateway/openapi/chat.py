"""The chat's paths (issue 35 item 2; services/gateway/chat_api.py): the caller's room, chosen
by the token (a seat's: the players' room; none: the spectators'), never the other one; an
archived game's players' room for those who sat at it (issue 35)."""

from __future__ import annotations

from services.gateway.openapi.common import (
    GAME_ID,
    JSON,
    SPECTATOR_OR_SEAT,
    body,
    obj,
    ref,
    responses,
)
from services.gateway.openapi.players import PLAYER_KEY

PRESETS = ["well_played", "good_luck", "one_more", "thanks", "oops", "wow"]


def chat_schemas() -> JSON:
    line = obj(
        {
            "id": {"type": "string", "description": "the line's id (to report it)"},
            "seat": {"type": "integer", "description": "the writer's seat (players' room)"},
            "name": {"type": "string", "description": "the writer's seat name"},
            "by": {"type": "string", "description": "a spectator's mark, to mute by"},
            "text": {"type": "string", "maxLength": 280, "description": "plain text, never HTML"},
            "preset": {"enum": PRESETS, "description": "a party table's preset message"},
            "at_ms": {"type": "integer"},
            "deleted": {
                "type": "boolean",
                "description": "an archived line whose player deleted their account: its text "
                "is gone (the name reads 'deleted player')",
            },
        },
        ["id", "at_ms"],
    )
    return {
        "ChatLine": line,
        "Chat": obj(
            {
                "room": {"enum": ["players", "spectators"]},
                "lines": {"type": "array", "items": ref("ChatLine")},
            },
            ["room", "lines"],
            description="The caller's room and its newest lines (50), oldest first.",
        ),
    }


def chat_paths() -> JSON:
    ok = (ref("Chat"), "The caller's room's newest lines.")
    return {
        "/api/games/{game_id}/chat": {
            "parameters": [GAME_ID],
            "get": {
                "operationId": "getChat",
                "summary": "The caller's room: a seat's token reads the players' room, no token "
                "the spectators' room (neither ever reads the other); a party table's host token "
                "reads the players' room (the host screen's feed of the phones' presets). Once "
                "the game has left Redis (GAME_TTL_FINISHED_S after its end), its archived "
                "players' room (the spectators' is not kept), for a registered player who sat "
                "at it (X-Player-Key) only: 403 permission_denied for anyone else.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "parameters": [PLAYER_KEY],
                "responses": responses(200, *ok, 400, 403, 404, 429, 503),
            },
            "post": {
                "operationId": "sendChat",
                "summary": "Post a line to the caller's room: `text` (at most 280 characters; 400 "
                "names the limit), or at a party table only a `preset` id (409 preset_only for "
                "text). 429 past a writer's 5 lines in 10 s or the address's rate.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "requestBody": body(
                    obj({"text": {"type": "string", "maxLength": 280}, "preset": {"enum": PRESETS}})
                ),
                "responses": responses(200, *ok, 400, 403, 404, 409, 429, 503),
            },
        },
        "/api/games/{game_id}/chat/{line_id}/report": {
            "parameters": [
                GAME_ID,
                {"name": "line_id", "in": "path", "required": True, "schema": {"type": "string"}},
            ],
            "post": {
                "operationId": "reportChat",
                "summary": "Report a line of the caller's room: a copy is kept for moderators "
                "(404 line_not_found for a line of another room).",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": responses(200, *ok, 400, 403, 404, 429, 503),
            },
        },
    }
