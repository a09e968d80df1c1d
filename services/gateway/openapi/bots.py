"""The bot API's part of the OpenAPI document (issue 24, services/gateway/bots_api.py,
docs/bots.md): invitations, the ladder and a player's own event stream."""

from __future__ import annotations

import games
from services.gateway.openapi.common import (
    JSON,
    body,
    error_response,
    json_content,
    obj,
    ref,
    responses,
)
from services.gateway.openapi.players import PLAYER_KEY

KEY_REQUIRED: JSON = {**PLAYER_KEY, "required": True}
INVITATION_ID: JSON = {
    "name": "invitation_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9]{1,64}$"},
}


# What an error status means on the bot API's paths (the game paths' words, "a wrong seat
# token", "no such game", would send a bot looking in the wrong place).
BOT_ERRORS: dict[int, str] = {
    403: "A missing or unknown X-Player-Key (`bad_player_key`), or an invitation that is "
    "another bot's (`permission_denied`).",
    404: "No such invitation, or it has expired (`invitation_not_found`).",
    409: "Not a bot account (`not_a_bot`), an invitation answered already or whose table is "
    "gone (`invitation_gone`, `invitation_declined`), or `bot_max_games`.",
}


def bot_responses(ok_schema: JSON, summary: str, *errors: int) -> JSON:
    """`responses`, with the bot API's own words for 403, 404 and 409."""
    out = responses(200, ok_schema, summary, *errors)
    for status, text in BOT_ERRORS.items():
        if str(status) in out:
            out[str(status)] = {**error_response(status), "description": text}
    return out


def _op(op_id: str, summary: str, ok_schema: JSON, errors: tuple[int, ...], **extra: JSON) -> JSON:
    out: JSON = {
        "operationId": op_id,
        "summary": summary,
        "tags": ["bots"],
        "parameters": [KEY_REQUIRED],
        "responses": bot_responses(ok_schema, summary, *errors, 429, 503),
    }
    out.update(extra)
    return out


UNTIL: JSON = {
    "type": "integer",
    "minimum": 0,
    "description": "when the pause ends: server time in ms since 1970 (as clock.deadline_ms)",
}


def bots_schemas() -> JSON:
    string, integer = {"type": "string"}, {"type": "integer"}
    return {
        "Ladder": obj(
            {
                "games": {"type": "array", "items": {"enum": list(games.kinds())}},
                "paused": {
                    "oneOf": [
                        {"type": "null", "description": "not paused"},
                        obj({"reason": string, "until": UNTIL}, ["reason", "until"]),
                    ]
                },
            },
            ["games", "paused"],
        ),
        "PlayerEvent": obj(
            {
                "type": {"enum": ["invitation", "your_turn", "game_over", "paused", "resumed"]},
                "invitation_id": string,
                "game_id": string,
                "game": string,
                "rules": {"type": "object"},
                "seat": integer,
                "from": string,
                "ladder": {"type": "boolean"},
                "version": integer,
                "scores": {"type": "array", "items": integer},
                "reason": string,
                "until": UNTIL,
            },
            ["type"],
            description="The data of one message of GET /api/players/me/events.",
        ),
    }


def bots_paths() -> JSON:
    seat = obj(
        {"game_id": {"type": "string"}, "seat": {"type": "integer"}, "token": {"type": "string"}},
        ["game_id", "seat", "token"],
    )
    no_body = {"required": False, "content": json_content(obj({}, additionalProperties=False))}
    return {
        "/api/invitations/{invitation_id}/accept": {
            "parameters": [INVITATION_ID],
            "post": _op(
                "acceptInvitation",
                "The invited bot takes its seat (409 bot_max_games beyond BOT_MAX_GAMES).",
                seat, (400, 403, 404, 409, 413), requestBody=no_body,
            ),
        },
        "/api/invitations/{invitation_id}/decline": {
            "parameters": [INVITATION_ID],
            "post": _op(
                "declineInvitation", "The invited bot declines: the seat becomes open.",
                obj({"declined": {"const": True}}, ["declined"]), (400, 403, 404, 409, 413),
                requestBody=no_body,
            ),
        },
        "/api/players/me/ladder": {
            "get": _op("getLadder", "The bot's ladder entry.", ref("Ladder"), (403, 409)),
            "put": _op(
                "setLadder", "Opt the bot in to these games' ladder ([]: out).",
                ref("Ladder"), (400, 403, 409, 413),
                requestBody=body(
                    obj({"games": {"type": "array", "maxItems": 16,
                                   "items": {"enum": list(games.kinds())}}},
                        ["games"], additionalProperties=False)
                ),
            ),
        },
        "/api/players/me/events": {
            "get": {
                "operationId": "playerEvents",
                "summary": "The player's own events, every game (Server-Sent Events; "
                "Last-Event-ID resumes; one stream per player).",
                "description": "Without Last-Event-ID (or `?last_event_id=`) the stream starts "
                "at the oldest event the player's feed still keeps (its last 1000, for 30 days): "
                "a bot that keeps the id of the last event it handled resumes right after it. "
                "A keep-alive comment comes after 15 s of silence. The stream ends after "
                "WATCH_MAX_S (30 minutes), when a newer stream of the same player opens, or, "
                "broken, with `event: failure` and an error object: reconnect with "
                "Last-Event-ID.",
                "tags": ["bots"],
                "parameters": [
                    KEY_REQUIRED,
                    {"name": "Last-Event-ID", "in": "header", "schema": ref("EventId")},
                    {"name": "last_event_id", "in": "query", "schema": ref("EventId"),
                     "description": "the same as Last-Event-ID (which wins), for a first "
                     "connection that cannot set headers"},
                ],
                "responses": {
                    **bot_responses(ref("PlayerEvent"), "events", 400, 403, 429, 503),
                    "200": {
                        "description": "an event stream; each message's data is a PlayerEvent",
                        "content": {"text/event-stream": {"schema": ref("ServerSentEvent")}},
                    },
                },
            }
        },
    }  # fmt: skip
