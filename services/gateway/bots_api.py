"""The bot API over HTTP (issue 24, docs/bots.md): invitations and the ladder. Bot accounts
themselves are players (players_api.py, `"bot": true`).

A player's own event stream, `GET /api/players/me/events`, is served by the ASGI app's hub with
the game streams (services/gateway/live/players.py), not by a Flask route: a stream there holds
no thread (issue 31 item 1).
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response
from metro.v1 import engine_pb2

from services.gateway.calls import clients, json_body, only_fields
from services.gateway.errors import bad_request
from services.gateway.http_kit import json_answer, player_call, player_key

bp = Blueprint("bots", __name__, url_prefix="/api")

_INVITATION = re.compile(r"[A-Za-z0-9]{1,64}")
MAX_GAMES_LISTED = 16


def _invitation_id(value: str) -> str:
    if not _INVITATION.fullmatch(value):
        raise bad_request("Not an invitation id of this server.", field="invitation_id")
    return value


@bp.post("/invitations/<invitation_id>/accept")
def accept_invitation(invitation_id: str) -> Response:
    """The invited bot takes its seat: `{"game_id", "seat", "token"}`."""
    only_fields(json_body(optional=True), set())
    reply = player_call(
        clients().engine.AcceptInvitation,
        engine_pb2.InvitationRequest(invitation_id=_invitation_id(invitation_id)),
        player_key=player_key(),
    )
    return json_answer({"game_id": reply.game_id, "seat": reply.seat, "token": reply.token})


@bp.post("/invitations/<invitation_id>/decline")
def decline_invitation(invitation_id: str) -> Response:
    """The seat becomes an ordinary open seat: `{"declined": true}`."""
    only_fields(json_body(optional=True), set())
    reply = player_call(
        clients().engine.DeclineInvitation,
        engine_pb2.InvitationRequest(invitation_id=_invitation_id(invitation_id)),
        player_key=player_key(),
    )
    return json_answer({"declined": reply.declined})


def _ladder_json(reply: engine_pb2.Ladder) -> dict[str, Any]:
    paused = None
    if reply.paused_reason:
        paused = {"reason": reply.paused_reason, "until": reply.paused_until_ms}
    return {"games": list(reply.games), "paused": paused}


@bp.get("/players/me/ladder")
def get_ladder() -> Response:
    reply = player_call(
        clients().engine.GetLadder, engine_pb2.LadderRequest(), player_key=player_key()
    )
    return json_answer(_ladder_json(reply))


@bp.put("/players/me/ladder")
def set_ladder() -> Response:
    """`{"games": [kinds]}` opts the bot in to those games' ladder (`[]`: out)."""
    body = json_body()
    only_fields(body, {"games"})
    kinds = body.get("games")
    if (
        not isinstance(kinds, list)
        or len(kinds) > MAX_GAMES_LISTED
        or not all(isinstance(k, str) for k in kinds)
    ):
        raise bad_request("'games' must be a list of game kinds (GET /api/meta).", field="games")
    reply = player_call(
        clients().engine.SetLadder, engine_pb2.LadderRequest(games=kinds), player_key=player_key()
    )
    return json_answer(_ladder_json(reply))
