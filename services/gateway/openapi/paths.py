"""The paths of the games' API (create, list, join, view, legal moves, moves, hints, events,
record, meta, rules, health) with their parameters and answers."""

from __future__ import annotations

from services.gateway.openapi.common import (
    ALWAYS,
    GAME_ID,
    JSON,
    MAX_NAME,
    SEAT_ONLY,
    SPECTATOR_OR_SEAT,
    body,
    error_response,
    json_content,
    obj,
    ref,
    responses,
)
from services.gateway.openapi.game_parts import SINCE, VIEW_OR_DELTA

# A create or join sent again with the same key answers what the first one made.
IDEMPOTENCY_KEY: JSON = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "A random string of your own; sending the request again with the same key "
    "(after a lost answer, a 503) answers the same game or seat and token, never a second one.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,128}$"},
}


def game_paths() -> JSON:
    game_path = [GAME_ID]
    return {
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "tags": ["meta"],
                "responses": responses(200, {"type": "object"}, "The OpenAPI document."),
            }
        },
        "/api/meta": {
            "get": {
                "operationId": "meta",
                "summary": "Every game: options, AI levels, seat colours (the lobby's source).",
                "tags": ["meta"],
                "responses": responses(200, ref("Meta"), "The games."),
            }
        },
        "/api/rules": {
            "post": {
                "operationId": "rulesQuery",
                "summary": "One query of the rules files, answered as `metro rules` prints it.",
                "description": "200 even when the query itself is refused: its `error` says why "
                "(also a search past its work budget: 'too costly'). At most 64 KB, a rate per "
                "address (429), and a few queries at once per gateway process (503 `busy` with "
                "Retry-After beyond).",
                "tags": ["meta"],
                "requestBody": {"required": True, "content": json_content(ref("RulesQuery"))},
                "responses": responses(
                    200, {"type": "object"}, "The query's answer.", 400, 413, 429, 503
                ),
            }
        },
        "/api/learn/{kind}": {
            "get": {
                "operationId": "tutorial",
                "summary": "A game's first-game tutorial: a scripted game, step by step.",
                "description": "Each step: the learner's view (as `GET /api/games/{game_id}` "
                "shapes it), `legal` (the one move to make; [] at the end) and `say` (catalogue "
                "keys with their parameters). Computed by the rules core alone.",
                "tags": ["meta"],
                "parameters": [
                    {"name": "kind", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": responses(
                    200,
                    obj(
                        {
                            "game": {"type": "string"},
                            "seat": {"type": "integer", "minimum": 0},
                            "steps": {"type": "array", "items": {"type": "object"}},
                        },
                        ["game", "seat", "steps"],
                    ),
                    "The tutorial.",
                    404,
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
                "responses": responses(200, ref("GameList"), "The games.", 400, 429, 503),
            },
            "post": {
                "operationId": "createGame",
                "summary": "Create a game; the creator takes the first human seat.",
                "tags": ["games"],
                "parameters": [IDEMPOTENCY_KEY],
                "requestBody": {"required": True, "content": json_content(ref("CreateGame"))},
                "responses": responses(201, ref("Created"), "Created.", 400, 413, 429, 503),
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
                "responses": responses(
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
                "parameters": [IDEMPOTENCY_KEY],
                "requestBody": {
                    "required": False,
                    "content": json_content(
                        obj(
                            {"name": {"type": "string", "maxLength": MAX_NAME}},
                            additionalProperties=False,
                        )
                    ),
                },
                "responses": responses(
                    200, ref("Joined"), "The seat and its token.", 400, 404, 409, 413, 429, 503
                ),
            },
        },
        "/api/games/{game_id}/legal": {
            "parameters": game_path,
            "get": {
                "operationId": "legalMoves",
                "summary": "Every move the token's seat may make now.",
                "description": "`moves` is [] when the seat may not move now (another seat's "
                "turn, a table still waiting, a game over): never a 409.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": responses(
                    200,
                    ref("LegalMoves"),
                    "The moves ([]: not this seat's move now).",
                    400,
                    403,
                    404,
                    429,
                    503,
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
                "requestBody": {"required": True, "content": json_content(ref("Move"))},
                "responses": responses(
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
                    "responses": responses(
                        200, ref("View"), "The seat's new view.", 400, 403, 404, 409, 429, 503
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
                (
                    "resign",
                    "resign",
                    "Give up for good: the token's seat retires as the rules retire a leaver "
                    "(score frozen, never a winner, rated as a loss); the others play on, or "
                    "with one seat left the game ends. Again, or once over: the view, unchanged; "
                    "before the game starts: 409 game_not_started.",
                ),
            )
        },
        "/api/games/{game_id}/offers": {
            "parameters": game_path,
            "post": {
                "operationId": "offerToStop",
                "summary": "At a table of people only: offer the others to stop, kind 'abort' "
                "(no result) or 'end' (scored as it stands); both unrated. Every seat in play "
                "must accept; a decline or any move ends the offer (the view's `offer`: n, "
                "kind, by, accepted). 409: people_only, offer_open, game_not_playing.",
                "tags": ["games"],
                "security": SEAT_ONLY,
                "requestBody": body(obj({"kind": {"enum": ["abort", "end"]}}, ["kind"])),
                "responses": responses(
                    200, ref("View"), "The seat's new view.", 400, 403, 404, 409, 429, 503
                ),
            },
        },
        **{
            f"/api/games/{{game_id}}/offers/{{n}}/{answer}": {
                "parameters": [
                    *game_path,
                    {
                        "name": "n",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
                    },
                ],
                "post": {
                    "operationId": f"{answer}Offer",
                    "summary": summary,
                    "tags": ["games"],
                    "security": SEAT_ONLY,
                    "responses": responses(
                        200, ref("View"), "The seat's new view.", 400, 403, 404, 409, 429, 503
                    ),
                },
            }
            for answer, summary in (
                (
                    "accept",
                    "Accept offer n (the last acceptance stops the game: `ended` in the "
                    "view, status over). Again: unchanged. 409 offer_closed when n is not open.",
                ),
                ("decline", "Decline offer n: it ends for everyone."),
            )
        },
        "/api/games/{game_id}/hint": {
            "parameters": game_path,
            "post": {
                "operationId": "hint",
                "summary": "The AI's suggestions for the token's seat, from its view only.",
                "tags": ["games"],
                "security": SEAT_ONLY,
                "requestBody": {"required": False, "content": json_content(ref("HintRequest"))},
                "responses": responses(
                    200,
                    ref("Hint"),
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
                "description": "Each event is `id: <event id>` and one `data:` line of JSON "
                "(a GameEvent: every one has `version`, `status` and `to_move`); a "
                "`: keep-alive` comment follows 15 s of silence. Without `Last-Event-ID` (or "
                "`?last_event_id=` on the first connection) the stream starts with the game's "
                "first event; with it, right after that event. A finished game's stream ends "
                "after its last event; any stream ends after WATCH_MAX_S (30 minutes): resume "
                "with `Last-Event-ID`. A broken stream ends with `event: failure` and an error "
                "object. With a seat's token (Authorization: "
                "Bearer, proven before the stream opens: 403 otherwise) it is that seat's "
                "stream. With `?delta=1` the first message is `event: view` (`{version, view, "
                "legal?}`: the audience's whole view) and each event carries `delta` (and on a "
                "seat's stream `legal`) for that audience (docs/api-deltas.md). Streams are "
                "capped per process (503 busy) and per client address (429), both with "
                "Retry-After; a client that stops reading is disconnected.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "parameters": [
                    {"name": "Last-Event-ID", "in": "header", "schema": ref("EventId")},
                    {"name": "last_event_id", "in": "query", "schema": ref("EventId")},
                    {
                        "name": "delta",
                        "in": "query",
                        "description": "1: the stream opens with `event: view` and each "
                        "event also carries `delta`, a JSON Patch against the audience's view "
                        "(the public one, or the seat's with its token), and a seat's `legal` "
                        "(docs/api-deltas.md)",
                        "schema": {"enum": ["0", "1"]},
                    },
                    {
                        "name": "chat",
                        "in": "query",
                        "description": "1: the stream also carries each new line of the "
                        "reader's chat room as `event: chat` (`{room, line}`): the players' room "
                        "for a seat's token or a party host's token (which opens a stream only "
                        "with chat=1), else the spectators' room; never the other room's lines. "
                        "After the game's `over` event such a stream stays open for the lines "
                        "said after the end, CHAT_AFTER_END_S (600) after the end, then ends; a "
                        "stream without chat=1 ends with the game",
                        "schema": {"enum": ["0", "1"]},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The event stream.",
                        "content": {"text/event-stream": {"schema": ref("ServerSentEvent")}},
                    },
                    **{
                        str(s): error_response(s)
                        for s in sorted({400, 403, 404, 429, 503, *ALWAYS})
                    },
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
                "responses": responses(200, ref("Record"), "The record.", 400, 403, 404, 429, 503),
            },
        },
        "/api/games/{game_id}/positions": {
            "parameters": game_path,
            "get": {
                "operationId": "positions",
                "summary": "A finished game's positions for its replay, from the rules core.",
                "description": "In the game's own form (Game.positions): at least `positions`, "
                "[0] the set-up and [i] the position after the record's i-th move, each with "
                "`scores`. Metro: each position's `routes` (as the view's); Metro X: after i "
                "turns, the `sheets` and `lines` (as the view's). On the Underground: `rails` "
                "(every rail in the order laid, with `gains`) and per position how many of them "
                "are down, the passenger, the "
                "face-up cards and the pile's size. 404 `no_positions` for a game without "
                "them; a game not over is refused as its record is.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": responses(
                    200, {"type": "object"}, "The positions.", 400, 403, 404, 429, 503
                ),
            },
        },
        "/healthz": {
            "get": {
                "operationId": "healthz",
                "summary": "Whether this gateway can serve: it asks the engine and the AI.",
                "tags": ["meta"],
                "responses": {
                    "200": {"description": "All up.", "content": json_content(ref("Health"))},
                    "503": {
                        "description": "Something is down (named).",
                        "content": json_content(ref("Health")),
                    },
                    **{str(s): error_response(s) for s in ALWAYS},
                },
            }
        },
        "/readyz": {
            "get": {
                "operationId": "readyz",
                "summary": "Whether this gateway takes new requests: it asks nothing else. What a "
                "proxy in front checks; 503 `draining` while a stopping gateway drains.",
                "tags": ["meta"],
                "responses": {
                    "200": {
                        "description": "Taking requests.",
                        "content": json_content(ref("Ready")),
                    },
                    "503": {"description": "Draining.", "content": json_content(ref("Ready"))},
                    **{str(s): error_response(s) for s in ALWAYS},
                },
            }
        },
    }
