"""The daily puzzle's part of the OpenAPI document (services/gateway/daily_api.py,
docs/api-players.md "The daily puzzle")."""

from __future__ import annotations

from services.gateway.openapi.common import JSON, obj, ref, responses
from services.gateway.openapi.players import PLAYER_KEY

DAILY_KINDS = {
    "name": "game",
    "in": "path",
    "required": True,
    "description": "The game kind (one with a daily puzzle: `GET /api/meta` lists the games).",
    "schema": {"type": "string", "pattern": "^[a-z0-9_-]{1,32}$"},
}
DATE: JSON = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
DATE_ARG = {
    "name": "date",
    "in": "query",
    "required": False,
    "description": "A day, YYYY-MM-DD (UTC), today or up to 366 days before; default today. "
    "A future day is refused (400): its deck exists nowhere before that day begins.",
    "schema": DATE,
}
REQUIRED_KEY = {**PLAYER_KEY, "required": True}


def daily_schemas() -> JSON:
    integer, boolean = {"type": "integer"}, {"type": "boolean"}
    maybe_int = {"type": ["integer", "null"]}
    return {
        "Daily": obj(
            {
                "date": DATE,
                "game": {"type": "string"},
                "rules": {"type": "object", "description": "the day's rules (no seed in them)"},
                "played": {**boolean, "description": "the key's player started today's attempt"},
                "game_id": {"type": ["string", "null"], "description": "that attempt"},
                "finished": {**boolean, "description": "that attempt has ended"},
                "score": maybe_int,
                "counted": {
                    **boolean,
                    "description": "only once finished: false when the AI made a move for the "
                    "player (they left), so the attempt is not a result",
                },
                "streak": {**integer, "description": "days in a row with a finished attempt"},
            },
            ["date", "game", "rules", "played", "game_id"],
        ),
        "DailyGame": obj(
            {
                "game_id": {"type": "string"},
                "seat": integer,
                "token": {"type": "string", "description": "the seat's secret, once"},
                "date": DATE,
                "scored": {**boolean, "description": "false: practice on an earlier day"},
            },
            ["game_id", "seat", "token", "date", "scored"],
        ),
        "DailyResults": obj(
            {
                "date": DATE,
                "players": {**integer, "description": "finished scored attempts"},
                "histogram": {
                    "type": "array",
                    "items": obj({"score": integer, "count": integer}, ["score", "count"]),
                },
                "best": maybe_int,
                "mean": {"type": ["number", "null"]},
                "you": {
                    "oneOf": [
                        {"type": "null", "description": "no key, or no finished attempt"},
                        obj(
                            {
                                "score": integer,
                                "rank": {**integer, "description": "1 + players who scored more"},
                                "percentile": {
                                    **integer,
                                    "description": "% of players who scored as much or less",
                                },
                                "top": {**integer, "description": "in the top this % (share)"},
                                "streak": {
                                    **integer,
                                    "description": "days in a row with a finished attempt",
                                },
                            },
                            ["score", "rank", "percentile"],
                        ),
                    ]
                },
                "uncounted": obj(
                    {"score": integer, "reason": {"enum": ["ai_moved"]}},
                    ["score", "reason"],
                    description="the key's player's finished attempt that is not a result: the "
                    "AI made a move for them (they left); absent otherwise",
                ),
            },
            ["date", "players", "histogram", "best", "mean", "you"],
        ),
    }


def _op(op_id: str, summary: str, ok: int, schema: JSON, errors: tuple[int, ...]) -> JSON:
    return {
        "operationId": op_id,
        "summary": summary,
        "tags": ["daily"],
        "responses": responses(ok, schema, summary, *errors, 429, 503),
    }


def with_daily_hints(paths: JSON) -> JSON:
    """The hint path's 403 also means `hints_off`: a scored daily attempt takes no hints."""
    hint = paths["/api/games/{game_id}/hint"]["post"]
    forbidden = hint["responses"]["403"]
    forbidden["description"] += (
        ' `hints_off`: the game is a scored daily attempt (its view says `"hints": false`) '
        "and takes no hints while it runs; practice games allow them."
    )
    return paths


def daily_paths() -> JSON:
    today = _op(
        "daily", "Today's puzzle and whether the key's player played it.", 200, ref("Daily"),
        (400, 403, 404),
    )  # fmt: skip
    today["parameters"] = [PLAYER_KEY]
    start = _op(
        "startDaily",
        "Start the key's player's scored attempt of today (one a day: a second is 409 "
        "`already_played` with the first's `game_id`), or with `date` an unscored practice game "
        "on an earlier day's deck.",
        201, ref("DailyGame"), (400, 403, 404, 409),
    )  # fmt: skip
    start["parameters"] = [REQUIRED_KEY, DATE_ARG]
    results = _op(
        "dailyResults",
        "A day's finished scored attempts: histogram, best, mean, and the key's player's rank.",
        200, ref("DailyResults"), (400, 403, 404),
    )  # fmt: skip
    results["parameters"] = [PLAYER_KEY, DATE_ARG]
    return {
        "/api/daily/{game}": {"parameters": [DAILY_KINDS], "get": today},
        "/api/daily/{game}/games": {"parameters": [DAILY_KINDS], "post": start},
        "/api/daily/{game}/results": {"parameters": [DAILY_KINDS], "get": results},
    }
