"""Post-game analysis's part of the OpenAPI document (services/gateway/analysis_api.py,
docs/ai.md "Analysis")."""

from __future__ import annotations

from services.gateway.openapi.common import GAME_ID, JSON, SPECTATOR_OR_SEAT, obj, ref, responses

LABEL = {"enum": ["best", "good", "inaccuracy", "mistake", "blunder"]}
STATUS = {
    "enum": ["none", "queued", "running", "done", "failed"],
    "description": "none: never asked for; failed: `error` says why (a new POST asks again).",
}
MOVE_JSON = {"type": "object", "description": "a move as the game's moves endpoint takes it"}


def analysis_schemas() -> JSON:
    number, integer = {"type": "number"}, {"type": "integer"}
    progress = obj({"done": integer, "total": integer}, ["done", "total"])
    move = obj(
        {
            "index": {**integer, "description": "0.. over every decision of the game"},
            "entry": {**integer, "description": "the record's entry (move or turn) it is in"},
            "seat": integer,
            "move": MOVE_JSON,
            "value": {**number, "description": "expected final margin after the move played"},
            "best": MOVE_JSON,
            "best_value": {**number, "description": "expected final margin after `best`"},
            "loss": {**number, "minimum": 0, "description": "best_value - value, in points"},
            "label": LABEL,
            "choices": {**integer, "description": "legal moves the seat had"},
        },
        ["index", "seat", "move", "value", "best", "best_value", "loss", "label"],
    )
    seat = obj(
        {
            "seat": integer,
            "moves": integer,
            "mean_loss": number,
            "labels": obj({name: integer for name in LABEL["enum"]}, LABEL["enum"]),
        },
        ["seat", "mean_loss", "labels"],
    )
    return {
        "Analysis": obj(
            {
                "status": STATUS,
                "game_id": {"type": "string"},
                "progress": progress,
                "error": {"type": "string"},
                "game": {"type": "string"},
                "moves": {"type": "array", "items": move, "description": "once done"},
                "seats": {"type": "array", "items": seat, "description": "once done"},
                "params": {
                    "type": "object",
                    "description": "once done: the fixed budget (`iterations`), the stake "
                    "and the label `thresholds` in points (docs/ai.md)",
                },
            },
            ["status", "progress"],
        ),
    }


def analysis_paths() -> JSON:
    return {
        "/api/games/{game_id}/analysis": {
            "parameters": [GAME_ID],
            "post": {
                "operationId": "requestAnalysis",
                "summary": "Queue the post-game analysis of a finished game (anyone).",
                "description": "The AI workers analyse every move in the background, each from "
                "what its seat could see, with a fixed budget. Asking again for an analysis "
                "queued, running or done changes nothing. 403 `game_running` before the end.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": responses(
                    202, ref("Analysis"), "Where it stands.", 400, 403, 404, 429, 503
                ),
            },
            "get": {
                "operationId": "analysis",
                "summary": "A game's analysis: its progress, and every move's once done.",
                "tags": ["games"],
                "security": SPECTATOR_OR_SEAT,
                "responses": responses(
                    200, ref("Analysis"), "The analysis.", 400, 403, 404, 429, 503
                ),
            },
        },
    }
