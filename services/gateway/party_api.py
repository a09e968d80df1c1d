"""Party tables over HTTP (services/engine/play/party.py holds the rules of them):

  POST /api/games with "party": true   a table people join by code (games_api -> party_create.py)
  POST /api/join/{code}                take a seat by code: {"game_id", "seat", "token"}
  POST /api/games/{id}/start           the host starts the table (Authorization: host token)
  GET  /api/games/{id}/party           the code and where the party stands (public)
  GET  /api/join/{code}/qr.svg         a QR code of the join page `<PUBLIC_URL>/#/join/<code>`
  GET  /api/party/games                the games that offer party tables (the host's form)

The host screen reads the game's public view and events like any spectator: nothing here
carries a seat's choice.
"""

from __future__ import annotations

import io
import re
from typing import Any

import segno
from flask import Blueprint, Response, current_app
from metro.v1 import engine_pb2

import games
from services.common.party_rules import ALPHABET, CODE_LENGTH, normal_code, party_games
from services.gateway.calls import (
    bearer_token,
    clients,
    idempotency_key,
    json_body,
    only_fields,
    rpc,
)
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import join_name, joined, json_answer

bp = Blueprint("party", __name__, url_prefix="/api")

# What may reach the engine as a code (it checks the alphabet itself): letters, digits, spaces
# and dashes, as a person types them. The QR code is drawn only for a well-formed code.
_TYPED_CODE = re.compile(r"[A-Za-z0-9 -]{1,20}")
QR_CACHE_S = 3600


@bp.post("/join/<code>")
def join_by_code(code: str) -> Response:
    name = join_name()
    if not _TYPED_CODE.fullmatch(code):
        raise bad_request("A join code is 6 letters and digits, as the host's screen shows it.",
                          field="code")  # fmt: skip
    message = engine_pb2.JoinPartyRequest(code=code, name=name, idempotency_key=idempotency_key())
    # The key makes a second try answer the first one's seat, never take another.
    return joined(rpc(clients().engine.JoinParty, message, idempotent=True))


def _info_json(info: engine_pb2.PartyInfo) -> dict[str, Any]:
    return {
        "game_id": info.game_id,
        "join_code": info.join_code,
        "status": info.status,
        "seats_taken": info.seats_taken,
        "max_seats": info.max_seats,
        "host_only": info.host_only,
    }


@bp.post("/games/<game_id>/start")
def start_party(game_id: str) -> Response:
    token = bearer_token()
    if token is None:
        raise ApiError(403, "permission_denied", "Only the host starts the table: send the "
                       "host token (Authorization: Bearer <host_token>).")  # fmt: skip
    only_fields(json_body(optional=True), set())
    reply = rpc(
        clients().engine.StartParty,
        engine_pb2.PartyRequest(game_id=game_id),
        token=token,
        idempotent=True,  # starting a started table answers it as it is
    )
    return json_answer(_info_json(reply))


@bp.get("/games/<game_id>/party")
def party_info(game_id: str) -> Response:
    reply = rpc(
        clients().engine.GetParty, engine_pb2.PartyRequest(game_id=game_id), idempotent=True
    )
    return json_answer(_info_json(reply))


@bp.get("/join/<code>/qr.svg")
def join_qr(code: str) -> Response:
    """The join page's address as a QR code (SVG, drawn here by segno): a phone's camera opens
    `<PUBLIC_URL>/#/join/<code>` with the code filled in."""
    code = normal_code(code) or ""
    if not code:
        raise bad_request(f"A join code is {CODE_LENGTH} of {ALPHABET}.", field="code")
    # The configured public address, never the request's Host header: anyone can send a
    # request with `Host: evil.example`, and this answer is cached publicly.
    url = f"{str(current_app.config['PUBLIC_URL']).rstrip('/')}/#/join/{code}"
    out = io.BytesIO()
    # A viewBox with no fixed size: the page scales it to the room's screen.
    segno.make(url, error="m").save(out, kind="svg", border=2, dark="#000", light="#fff",
                                    xmldecl=False, omitsize=True, title=f"Join {code}")  # fmt: skip
    answer = Response(out.getvalue(), mimetype="image/svg+xml")
    answer.headers["Cache-Control"] = f"public, max-age={QR_CACHE_S}"
    return answer


@bp.get("/party/games")
def games_with_parties() -> Response:
    """The games that offer party tables, with the most seats each allows."""
    return json_answer(
        {
            "games": [
                {"game": kind, "max_seats": games.get(kind).players[1]} for kind in party_games()
            ]
        }
    )
