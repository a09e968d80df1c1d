"""A party table's creation: `POST /api/games` with `"party": true` (games_api hands such a body
here; party_api serves the rest of a party's life). Its own module so that neither blueprint
imports the other.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from metro.v1 import engine_pb2

import games
from services.common.party_rules import party_games
from services.gateway.calls import clients, idempotency_key, only_fields, rpc
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import json_answer, table_settings

PARTY_FIELDS = {"game", "party", "host_only", "name", "rules", "clock"}


def create_party(body: dict[str, Any]) -> Response:
    """`POST /api/games` with `"party": true`: no seat list (people join by code); `name` is
    the host's seat name, `host_only` leaves the host without a seat."""
    only_fields(body, PARTY_FIELDS)
    if body.get("party") is not True:
        raise bad_request("'party' must be true (or left out for an ordinary table).", "party")
    game = body.get("game", games.default().kind)
    if not isinstance(game, str) or game not in games.kinds():
        known = ", ".join(games.kinds())
        raise ApiError(400, "wrong_game", f"Unknown game {game!r}; known games: {known}.",
                       field="game")  # fmt: skip
    if game not in party_games():
        raise bad_request(f"{game} has no party tables: its seats do not move at once; party "
                          f"games: {', '.join(party_games())}.", "party")  # fmt: skip
    host_only = body.get("host_only", False)
    if not isinstance(host_only, bool):
        raise bad_request("'host_only' must be true or false.", "host_only")
    name = body.get("name", "")
    if not isinstance(name, str):
        raise bad_request("'name' must be a string.", "name")
    if host_only and name:
        raise bad_request("A host-only host has no seat, so no seat name.", "name")
    rules_json, clock_json = table_settings(body)
    message = engine_pb2.CreatePartyRequest(
        game=game,
        rules_json=rules_json,
        clock_json=clock_json,
        host_only=host_only,
        host_name=name,
        idempotency_key=idempotency_key(),
    )
    reply = rpc(clients().engine.CreateParty, message, idempotent=True)
    return json_answer(
        {
            "game_id": reply.game_id,
            "seat": reply.seat if reply.HasField("seat") else None,
            "token": reply.token,
            "join_code": reply.join_code,
            "host_token": reply.host_token,
        },
        201,
    )
