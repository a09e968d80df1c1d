"""Why a field of a request was refused, as a stable code the page words in its own language.

API.md's error body `{"code", "message"}` stays as it is; a 400 that names its `field` also gets
`reason` (one of REASONS) and `params` (numbers and names the sentence needs), so the page never
has to show the server's English. The check that refused the request (the gateway's own, the
engine's, a game's option table) stays the judge: this module only says why, by reading the
value the request sent against what that field accepts. A refusal it cannot explain more exactly
is `invalid`, which the page still words ("The value of <field> was not accepted").
"""

from __future__ import annotations

import re
from typing import Any

import games
from games.base import Game, Option

# Every reason the page has a sentence for (web/i18n/<lang>/errors.json: "error.reason.<reason>").
REASONS = (
    "invalid",
    "required",
    "not_text",
    "not_whole_number",
    "not_true_false",
    "not_object",
    "not_list",
    "out_of_range",
    "too_long",
    "bad_characters",
    "bad_format",
    "not_a_choice",
    "unknown_field",
    "unknown_option",
    "wrong_seat_count",
)

MAX_NAME = 40  # the engine's limit on a seat's name (services/engine/core/validation.py)
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_MISSING = object()
_OBJECTS = {"rules", "clock", "body"}
_CHOICES = {"game", "kind", "level", "status", "answer"}
_NAMES = {"name"}

Params = dict[str, str | int]


def value_at(body: Any, field: str) -> Any:
    """The value at `field` ("rules.daily", "seats[1].name") of a request body, or _MISSING."""
    value = body
    for key, index in _PATH_PART.findall(field):
        if key and isinstance(value, dict) and key in value:
            value = value[key]
        elif index and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            return _MISSING
    return value


def explain(field: str, body: Any, known_fields: bool = True) -> tuple[str, Params]:
    """(reason, params) for a refused `field` of `body` (the JSON body, or the query's args).

    `known_fields`: False when the refusal said the field is not one the request may hold."""
    if not known_fields:
        return "unknown_field", {"field": field}
    value = value_at(body, field)
    last = field.rsplit(".", 1)[-1]
    if field.startswith("rules.") and isinstance(body, dict):
        return _option(body, field.removeprefix("rules."), value)
    if field == "seats" and isinstance(value, list) and value and isinstance(body, dict):
        return _seat_count(body, len(value))
    if last in _NAMES or last.endswith("_name"):
        return _name(value)
    if value is _MISSING or value is None:
        return "required", {"field": field}
    is_object = last in _OBJECTS or re.fullmatch(r"seats\[\d+\]", field)
    if is_object and not isinstance(value, dict):
        return "not_object", {"field": field}
    if field == "seats" and not isinstance(value, list):
        return "not_list", {"field": field}
    if last in _CHOICES:
        return ("not_text" if not isinstance(value, str) else "not_a_choice"), {"field": field}
    return "invalid", {"field": field}


def _name(value: Any) -> tuple[str, Params]:
    if value is _MISSING or value is None:
        return "required", {"field": "name", "max": MAX_NAME}
    if not isinstance(value, str):
        return "not_text", {"field": "name"}
    if not value.strip():
        return "required", {"field": "name", "max": MAX_NAME}
    if len(value.strip()) > MAX_NAME:
        return "too_long", {"field": "name", "max": MAX_NAME}
    if any(not ch.isprintable() for ch in value):
        return "bad_characters", {"field": "name"}
    return "invalid", {"field": "name"}


def _game_of(body: dict[str, Any]) -> Game | None:
    kind = body.get("game", games.default().kind)
    return games.get(kind) if isinstance(kind, str) and kind in games.kinds() else None


def _option(body: dict[str, Any], name: str, value: Any) -> tuple[str, Params]:
    """A game option's refusal, from the game's own option table (GET /api/meta)."""
    game = _game_of(body)
    options = game.options if game else ()
    option: Option | None = next((o for o in options if o.name == name), None)
    if game is None or option is None:
        return "unknown_option", {"field": f"rules.{name}", "option": name}
    params: Params = {"field": f"rules.{name}", "game": game.kind, "option": name}
    if option.minimum is not None:
        params["min"] = option.minimum
    if option.maximum is not None:
        params["max"] = option.maximum
    if option.kind == "int":
        if type(value) is not int:
            return "not_whole_number", params
        return "out_of_range", params
    if option.kind == "bool":
        return "not_true_false", params
    if option.kind == "choice":
        return "not_a_choice", params
    if option.kind == "text":
        return ("not_text" if not isinstance(value, str) else "bad_format"), params
    return "invalid", params


def _seat_count(body: dict[str, Any], given: int) -> tuple[str, Params]:
    """Seats that do not match the players option (or the game's range of players)."""
    game = _game_of(body)
    params: Params = {"field": "seats", "given": given}
    if game is not None:
        params["game"] = game.kind
        params["min"], params["max"] = game.players
        rules = body.get("rules")
        players = rules.get("players") if isinstance(rules, dict) else None
        if type(players) is int:
            params["players"] = players
    return "wrong_seat_count", params
