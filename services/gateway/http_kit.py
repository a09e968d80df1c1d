"""What the API's blueprints share, under public names: the JSON answer, the caller's device
key, an engine call that carries it, and the shapes of a game summary and of a join. (The live
streams are the ASGI app's: services/gateway/live/.)

Why one module: each blueprint (games_api, players_api, bots_api, ...) is a leaf that only
app.py registers; none imports another, so a blueprint can be changed or removed without
reading the others (tests/gateway/test_blueprints.py checks it).

A player's device key comes only in the `X-Player-Key` header and goes on as gRPC metadata
`x-player-key`; it is never read from a URL, never logged. The client's address goes along as
`x-client-id`, which the engine counts recovery attempts by.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, request
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from metro.v1 import engine_pb2

from services.gateway.calls import json_body, only_fields, rpc
from services.gateway.errors import ApiError, bad_request
from services.gateway.limits import client_ip

R = TypeVar("R")

KEY_HEADER = "X-Player-Key"
KEY_SHAPE = re.compile(r"[A-Za-z0-9_.-]{1,128}")


# ---- answers -----------------------------------------------------------------------------------


def json_answer(data: Any, status: int = 200) -> Response:
    """`data` as compact JSON (non-ASCII kept as it is)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Response(text, status=status, mimetype="application/json")


def json_text(text: str, status: int = 200) -> Response:
    """An answer that is JSON text already (a view, a record, the engine's document): as it is."""
    return Response(text, status=status, mimetype="application/json")


def summary_json(summary: engine_pb2.GameSummary) -> dict[str, Any]:
    """A game in a list (the lobby's, a player's "my games")."""
    return {
        "game_id": summary.game_id,
        "game": summary.game,
        "rules": json.loads(summary.rules_json or "{}"),
        "seats": [seat_json(s) for s in summary.seats],
        "status": summary.status,
        "created_at": MessageToDict(summary.created_at) if summary.HasField("created_at") else None,
    }


def table_settings(body: dict[str, Any]) -> tuple[str, str]:
    """A new table's `rules` (a JSON object, {} when absent) and `clock` (an object, or absent:
    "") as the engine's JSON fields; 400 naming the field that is not an object."""
    rules = body.get("rules", {})
    if not isinstance(rules, dict):
        raise bad_request("'rules' must be a JSON object.", field="rules")
    clock = body.get("clock")
    if clock is not None and not isinstance(clock, dict):
        raise bad_request("'clock' must be a JSON object (see docs/gateway.md, Clocks).", "clock")
    return json.dumps(rules), json.dumps(clock) if clock else ""


def seat_json(seat: engine_pb2.Seat) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat.seat, "name": seat.name, "kind": seat.kind}
    if seat.level:
        out["level"] = seat.level
    if seat.bot:
        out["bot"] = True  # a bot account holds or is invited to it (issue 24)
    return out


# ---- joins (by game id in games_api, by code in party_api) ----------------------------------


def join_name() -> str:
    """The body of a join (by game id or by code): only an optional `name`, a string."""
    body = json_body(optional=True)
    only_fields(body, {"name"})
    name = body.get("name", "")
    if not isinstance(name, str):
        raise bad_request("'name' must be a string.", field="name")
    return name


def joined(reply: engine_pb2.JoinGameResponse) -> Response:
    """The answer to a join: the game, the seat taken and its token."""
    return json_answer({"game_id": reply.game_id, "seat": reply.seat, "token": reply.token})


# ---- the caller's player ---------------------------------------------------------------------


def player_key() -> str:
    """The caller's device key from its header; 403 when missing or malformed."""
    key = player_key_if_any()
    if key is None:
        raise ApiError(
            403, "bad_player_key", f"This needs a player: send the device key in {KEY_HEADER}."
        )
    return key


def player_key_if_any() -> str | None:
    """The caller's device key, None without one (reads that a player only personalises); 403
    when one is sent malformed."""
    key = request.headers.get(KEY_HEADER)
    if key is None or not key.strip():
        return None
    key = key.strip()
    if not KEY_SHAPE.fullmatch(key):
        raise ApiError(
            403, "bad_player_key", f"The {KEY_HEADER} header is not a device key of this server."
        )
    return key


def player_metadata(key: str | None) -> list[tuple[str, str]]:
    """The client's address (the engine counts a client's attempts by it) and the device key."""
    metadata = [("x-client-id", client_ip())]
    if key:
        metadata.append(("x-player-key", key))
    return metadata


def player_call(
    method: Callable[..., R],
    message: Message,
    *,
    token: str | None = None,
    player_key: str | None = None,
    idempotent: bool = False,
) -> R:
    """One engine call with the seat token, the device key and the client's address."""
    return rpc(method, message, token=token, metadata=player_metadata(player_key),
               idempotent=idempotent)  # fmt: skip
