"""Chat at every table over HTTP (issue 35 item 2; the rooms and their rules: services/engine/
chat.py). The room comes from the token: a seat's token writes and reads the players' room, no
token (or one of no seat here) the spectators' room; neither ever reads the other.

  POST /api/games/{id}/chat                  {"text": "..."} (at most 280 characters) or, at a
                                             party table only, {"preset": "well_played"}
  GET  /api/games/{id}/chat                  the caller's room's newest lines (50); an archived
                                             game's players' room to its seated players only
  POST /api/games/{id}/chat/{line_id}/report keep a copy of a line for moderators

Every answer is {"room", "lines": [{id, seat?, name?, by?, text | preset, at_ms}]}. Writes are
counted per address here (GatewayLimits.chat, 429 with Retry-After) and per writer by the
engine. Lines are plain text: the page sets them with textContent, never as HTML.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, jsonify
from metro.v1 import engine_pb2

from services.gateway.archive_view import archived_chat, gone
from services.gateway.calls import bearer_token, clients, json_body, only_fields, rpc
from services.gateway.errors import ApiError, bad_request
from services.gateway.limits import client_ip

bp = Blueprint("chat", __name__, url_prefix="/api")

MAX_CHARS = 280  # the engine's own bound (chat.MAX_CHARS), said here before any call


def _answer(reply: engine_pb2.ChatLines) -> Response:
    return jsonify({"room": reply.room, "lines": json.loads(reply.json)})


@bp.post("/games/<game_id>/chat")
def send_chat(game_id: str) -> Response:
    """Post a line to the caller's room (a party table takes only a preset id)."""
    token = bearer_token()
    body = json_body()
    only_fields(body, {"text", "preset"})
    text, preset = body.get("text", ""), body.get("preset", "")
    if not isinstance(text, str):
        raise bad_request("'text' must be a string.", field="text")
    if not isinstance(preset, str) or len(preset) > 40:
        raise bad_request("'preset' must be a preset message's id.", field="preset")
    if not text.strip() and not preset:
        raise bad_request("Send {\"text\": ...} (or a party table's {\"preset\": ...}).",
                          field="text")  # fmt: skip
    if len(text.strip()) > MAX_CHARS:
        raise bad_request(
            f"A chat line is at most {MAX_CHARS} characters; this one has {len(text.strip())}.",
            field="text",
        )
    request = engine_pb2.ChatRequest(game_id=game_id, text=text, preset=preset, writer=client_ip())
    return _answer(rpc(clients().engine.SendChat, request, token=token))


@bp.get("/games/<game_id>/chat")
def get_chat(game_id: str) -> Response:
    """The caller's room's newest lines; once the game has left Redis, its archived players'
    room for those who sat at it (archive_view.archived_chat)."""
    request = engine_pb2.ChatRequest(game_id=game_id)
    try:
        reply = rpc(clients().engine.GetChat, request, token=bearer_token(), idempotent=True)
    except ApiError as err:
        if not gone(err):
            raise
        return jsonify(archived_chat(game_id, err))
    return _answer(reply)


@bp.post("/games/<game_id>/chat/<line_id>/report")
def report_chat(game_id: str, line_id: str) -> Response:
    """Keep a copy of a line of the caller's room for moderators (the line stays shown)."""
    only_fields(json_body(optional=True), set())
    request = engine_pb2.ChatRequest(game_id=game_id, line_id=line_id)
    reply = rpc(clients().engine.ReportChat, request, token=bearer_token(), idempotent=True)
    return _answer(reply)
