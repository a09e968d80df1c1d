"""The HTTP API of API.md under /api/games: each endpoint reads its input, makes one call to the
engine (or the AI for hints) and answers the reply's JSON. No game rules live here."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request
from metro.v1 import ai_pb2, engine_pb2

from services.gateway.calls import bearer_token, clients, json_body, rpc, to_message
from services.gateway.errors import ApiError, bad_request
from services.gateway.fastjson import message_json

bp = Blueprint("games", __name__, url_prefix="/api/games")

# The game kinds the contracts know: the members of GameRules' `detail` oneof.
GAME_KINDS = tuple(f.name for f in engine_pb2.GameRules.DESCRIPTOR.oneofs_by_name["detail"].fields)
LIST_STATUSES = ("open", "playing", "over")


def _game_kind(body: dict[str, Any]) -> str:
    game = body.get("game", GAME_KINDS[0])
    if not isinstance(game, str) or game not in GAME_KINDS:
        known = ", ".join(GAME_KINDS)
        message = f"Unknown game {game!r}; known games: {known}."
        raise ApiError(400, "wrong_game", message, field="game")
    return game


@bp.post("")
def create_game() -> tuple[Response, int]:
    body = json_body()
    game = _game_kind(body)
    seats = body.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, dict) for s in seats):
        raise bad_request("'seats' must be a non-empty list of seat objects.", field="seats")
    rules = body.get("rules", {})
    if not isinstance(rules, dict):
        raise bad_request("'rules' must be a JSON object.", field="rules")
    message = to_message(
        {"game": game, "rules": rules, "seats": seats}, engine_pb2.CreateGameRequest, game
    )
    reply = rpc(clients().engine.CreateGame, message)
    return jsonify(message_json(reply)), 201


@bp.get("")
def list_games() -> Response:
    status = request.args.get("status", "open")
    if status not in LIST_STATUSES:
        raise bad_request(f"'status' must be one of {', '.join(LIST_STATUSES)}.", field="status")
    limit_text = request.args.get("limit", "0")
    if not limit_text.isdigit():
        raise bad_request("'limit' must be a whole number.", field="limit")
    message = engine_pb2.ListGamesRequest(
        status=status, game=request.args.get("game", ""), limit=min(int(limit_text), 1000)
    )
    reply = rpc(clients().engine.ListGames, message)
    return jsonify(message_json(reply))


def _in_game(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The body with the URL's game id; the body may not name one (or a seat) itself."""
    if "game_id" in body or "seat" in body:
        raise bad_request("The game and seat come from the URL and the token, not the body.")
    return {**body, "game_id": game_id}


@bp.post("/<game_id>/join")
def join_game(game_id: str) -> Response:
    body = json_body(optional=True)
    if not isinstance(body.get("name", ""), str):
        raise bad_request("'name' must be a string.", field="name")
    message = to_message(_in_game(body, game_id), engine_pb2.JoinGameRequest)
    reply = rpc(clients().engine.JoinGame, message)
    return jsonify(message_json(reply))


@bp.get("/<game_id>")
def get_view(game_id: str) -> Response:
    reply = rpc(
        clients().engine.GetView, engine_pb2.GetViewRequest(game_id=game_id), token=bearer_token()
    )
    return jsonify(message_json(reply))


@bp.get("/<game_id>/legal")
def legal_moves(game_id: str) -> Response:
    reply = rpc(
        clients().engine.ListLegalMoves,
        engine_pb2.ListLegalMovesRequest(game_id=game_id),
        token=bearer_token(),
    )
    return jsonify(message_json(reply))


@bp.post("/<game_id>/moves")
def apply_move(game_id: str) -> Response:
    token = bearer_token()
    body = json_body()
    if not isinstance(body.get("action"), str):
        raise bad_request('\'action\' is required: "place" or "draw".', field="action")
    message = to_message(_in_game(body, game_id), engine_pb2.ApplyMoveRequest)
    reply = rpc(clients().engine.ApplyMove, message, token=token)
    return jsonify(message_json(reply))


@bp.post("/<game_id>/hint")
def hint(game_id: str) -> Response:
    token = bearer_token()
    if token is None:
        raise ApiError(403, "permission_denied", "A hint is for a seat: send its token.")
    body = json_body(optional=True)
    message = to_message(_in_game(body, game_id), ai_pb2.SuggestRequest)
    reply = rpc(clients().ai.Suggest, message, backend="ai", token=token)
    return jsonify(message_json(reply))


@bp.get("/<game_id>/record")
def record(game_id: str) -> Response:
    reply = rpc(
        clients().engine.GetRecord,
        engine_pb2.GetRecordRequest(game_id=game_id),
        token=bearer_token(),
    )
    # The record is a JSON document already; pass it on as it is.
    resp = Response(reply.record_json, mimetype="application/json")
    resp.headers["Content-Disposition"] = f'inline; filename="{_safe_name(game_id)}.json"'
    return resp


def _safe_name(game_id: str) -> str:
    return "metro-" + "".join(ch for ch in game_id if ch.isalnum() or ch in "-_")[:64]
