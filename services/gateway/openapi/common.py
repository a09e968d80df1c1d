"""The OpenAPI document's shared parts: what each error status means, the path parameter of a
game, the security choices, and the small builders every part uses ($ref, JSON body, object)."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]
OPENAPI_VERSION = "3.1.0"
MAX_NAME = 40  # the engine's limit on a seat's name (services/engine/core/validation.py)
API_VERSION = "1"

# What each error status means in this API (docs/gateway.md "The HTTP API", API.md's error list).
ERRORS: dict[int, str] = {
    400: "Malformed request: not JSON, a wrong type, an unknown field (named in `field`).",
    403: "A missing or wrong seat token, or the record of a game still running.",
    404: "No such game.",
    409: "Not this seat's turn, a stale `expected_version`, no open seat, or a game over "
    "(`game_over`, with `refusal`: game_over).",
    413: "The request body is over 64 KiB.",
    414: "The request line (URL) is too long.",
    422: "A move the rules forbid; `rule` names the rule, `refusal` (with `params`) is its "
    "stable code.",
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


def ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def json_content(schema: JSON) -> JSON:
    return {"application/json": {"schema": schema}}


def error_response(status: int) -> JSON:
    out: JSON = {"description": ERRORS[status], "content": json_content(ref("Error"))}
    if status == 429:
        out["headers"] = {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 0},
            }
        }
    return out


def responses(ok: int, ok_schema: JSON, description: str, *errors: int) -> JSON:
    out: JSON = {str(ok): {"description": description, "content": json_content(ok_schema)}}
    for status in sorted({*errors, *ALWAYS}):
        out[str(status)] = error_response(status)
    return out


def obj(props: JSON, required: list[str] | tuple[str, ...] = (), **extra: Any) -> JSON:
    out: JSON = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    out.update(extra)
    return out


def body(schema: JSON) -> JSON:
    return {"required": True, "content": json_content(schema)}
