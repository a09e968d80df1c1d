"""The HTTP API of API.md under /api: each endpoint reads its input, makes one call to the engine
(or the AI for hints) and answers. No game rules live here, and no game is named: a game's own
JSON (options, views, moves, events) passes through as the engine wrote it.

What the browser receives is built here: views and events are the engine's JSON text as it is;
the few small replies are made by the `_*_json` helpers below and http_kit's (a game summary, a
join's answer), which the other blueprints share.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from flask import Blueprint, Response, request
from metro.v1 import ai_pb2, engine_pb2

import games
from games.queries import answer as answer_query
from services.common.levels import level_table
from services.gateway.archive_view import archived_record, archived_view, gone
from services.gateway.calls import (
    bearer_token,
    clients,
    gateway,
    idempotency_key,
    json_body,
    only_fields,
    rpc,
)
from services.gateway.delta import delta_json
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import (
    join_name,
    joined,
    json_answer,
    json_text,
    summary_json,
    table_settings,
)
from services.gateway.limits import client_ip, guard
from services.gateway.party_create import create_party

bp = Blueprint("games", __name__, url_prefix="/api")

LIST_STATUSES = ("open", "playing", "over")
LIST_LIMIT_MAX = 200  # the engine's own limit: one number for both
SEAT_FIELDS = {"kind", "name", "level"}
CREATE_FIELDS = {"game", "rules", "seats", "clock"}
HINT_FIELDS = {"level", "budget_ms", "seed", "max_suggestions"}


def _int_field(body: dict[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if type(value) is not int:
        raise bad_request(f"'{name}' must be a whole number.", field=name)
    if not -(2**31) <= value < 2**31:
        raise bad_request(f"'{name}' is out of range.", field=name)
    return value


# ---- the catalogue ---------------------------------------------------------------------------


@bp.get("/meta")
def meta() -> Response:
    """Every game, its options, AI levels and seat colours: the lobby is built from this.
    `daily`: whether the game offers a daily puzzle (the lobby asked each game's /api/daily/
    to find out, and each game without one answered 404 on every load)."""
    return json_answer(
        {
            "games": [
                {
                    **g.meta(),
                    "levels": level_table(g.kind),
                    "daily": g.daily_rules(bytes(32)) is not None,
                }
                for g in games.all_games()
            ]
        }
    )


# ---- games -----------------------------------------------------------------------------------


@bp.post("/games")
def create_game() -> tuple[Response, int] | Response:
    body = json_body()
    if "party" in body:  # a table people join by code (party_api.py)
        return create_party(body)
    only_fields(body, CREATE_FIELDS)
    game = body.get("game", games.default().kind)
    if not isinstance(game, str) or game not in games.kinds():
        known = ", ".join(games.kinds())
        raise ApiError(400, "wrong_game", f"Unknown game {game!r}; known games: {known}.",
                       field="game")  # fmt: skip
    rules_json, clock_json = table_settings(body)
    seats = body.get("seats")
    if not isinstance(seats, list) or not seats:
        raise bad_request("'seats' must be a non-empty list of seat objects.", field="seats")
    specs = []
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise bad_request(f"'seats[{i}]' must be an object.", field=f"seats[{i}]")
        only_fields(seat, SEAT_FIELDS, f"seats[{i}]")
        for key in SEAT_FIELDS:
            if not isinstance(seat.get(key, ""), str):
                raise bad_request(f"'seats[{i}].{key}' must be a string.", f"seats[{i}].{key}")
        specs.append(engine_pb2.SeatSpec(**seat))
    message = engine_pb2.CreateGameRequest(
        game=game,
        rules_json=rules_json,
        seats=specs,
        clock_json=clock_json,
        idempotency_key=idempotency_key(),
    )
    reply = rpc(clients().engine.CreateGame, message, idempotent=True)
    out: dict[str, Any] = {"game_id": reply.game_id, "seat": None, "token": reply.token}
    if reply.HasField("seat"):
        out["seat"] = reply.seat
    return json_answer(out, 201)


@bp.get("/games")
def list_games() -> Response:
    status = request.args.get("status", "open")
    if status not in LIST_STATUSES:
        raise bad_request(f"'status' must be one of {', '.join(LIST_STATUSES)}.", field="status")
    limit_text = request.args.get("limit", "0")
    if not limit_text.isdigit() or int(limit_text) > LIST_LIMIT_MAX:
        raise bad_request(f"'limit' must be a whole number 0-{LIST_LIMIT_MAX}.", field="limit")
    game = request.args.get("game", "")
    message = engine_pb2.ListGamesRequest(status=status, game=game, limit=int(limit_text))
    reply = rpc(clients().engine.ListGames, message)
    return json_answer({"games": [summary_json(g) for g in reply.games]})


def _in_game(body: dict[str, Any]) -> None:
    """The game and seat come from the URL and the token; the body may not name them."""
    for key in ("game_id", "seat"):
        if key in body:
            raise bad_request(
                "The game and seat come from the URL and the token, not the body.", field=key
            )


@bp.post("/games/<game_id>/join")
def join_game(game_id: str) -> Response:
    message = engine_pb2.JoinGameRequest(
        game_id=game_id, name=join_name(), idempotency_key=idempotency_key()
    )
    return joined(rpc(clients().engine.JoinGame, message, idempotent=True))


def _since() -> int | None:
    """The `since` query parameter: the view version the client holds (docs/api-deltas.md)."""
    text = request.args.get("since")
    if text is None:
        return None
    if not text.isdigit() or len(text) > 18:
        raise bad_request("'since' must be the version of the view you hold: a whole number "
                          "0 or more (0 when you hold none).", field="since")  # fmt: skip
    return int(text)


def _view_answer(game_id: str, reply: engine_pb2.GameView, since: int | None) -> Response:
    """The view, or with `since` (a delta-aware client) the patch from the view of that version
    when this process sent it to this seat last; else the full view (docs/api-deltas.md)."""
    if since is None:
        return json_text(reply.json)
    seat = reply.seat if reply.HasField("seat") else None
    memory = gateway().views
    held = memory.get(game_id, seat, since)
    memory.put(game_id, seat, reply.version, reply.json)
    if held is None:
        answer = json_text(reply.json)
        answer.headers["Metro-View"] = "full"
        return answer
    answer = Response(
        delta_json(game_id, since, reply.version, held, reply.json), mimetype="application/json"
    )
    answer.headers["Metro-View"] = "delta"
    return answer


@bp.get("/games/<game_id>")
def get_view(game_id: str) -> Response:
    since = _since()
    try:
        reply = rpc(
            clients().engine.GetView,
            engine_pb2.GetViewRequest(game_id=game_id),
            token=bearer_token(),
            idempotent=True,
        )
    except ApiError as err:
        if not gone(err):
            raise
        reply = archived_view(game_id, err)  # a finished game whose live copy expired
    return _view_answer(game_id, reply, since)


@bp.get("/games/<game_id>/legal")
def legal_moves(game_id: str) -> Response:
    reply = rpc(
        clients().engine.ListLegalMoves,
        engine_pb2.ListLegalMovesRequest(game_id=game_id),
        token=bearer_token(),
        idempotent=True,
    )
    # The moves are JSON objects already: joined, not decoded and encoded again.
    return json_text(
        f'{{"moves":[{",".join(reply.moves)}],"seat":{reply.seat},"version":{reply.version}}}'
    )


@bp.post("/games/<game_id>/moves")
def apply_move(game_id: str) -> Response:
    token = bearer_token()
    since = _since()
    body = json_body()
    _in_game(body)
    move = dict(body)
    expected = _int_field(move, "expected_version")
    move.pop("expected_version", None)
    move_id = move.pop("move_id", "")
    if not isinstance(move_id, str):
        raise bad_request("'move_id' must be a string.", field="move_id")
    if not move:
        raise bad_request("The body must hold the move itself, besides any "
                          "expected_version and move_id.", field="move")  # fmt: skip
    message = engine_pb2.ApplyMoveRequest(
        game_id=game_id, move_id=move_id, move_json=orjson.dumps(move).decode()
    )
    if expected is not None:
        message.expected_version = expected
    # With a move_id the engine applies the move once, however often it is sent.
    reply = rpc(clients().engine.ApplyMove, message, token=token, idempotent=bool(move_id))
    return _view_answer(game_id, reply, since)


@bp.post("/games/<game_id>/leave")
def leave_seat(game_id: str) -> Response:
    """The player hands the seat to the AI (or, at a table where time-outs lose, retires)."""
    return _set_away(game_id, away=True)


@bp.post("/games/<game_id>/return")
def return_to_seat(game_id: str) -> Response:
    """The player takes back the seat the AI was playing."""
    return _set_away(game_id, away=False)


@bp.post("/games/<game_id>/resign")
def resign(game_id: str) -> Response:
    """The player gives up for good: the seat retires (a loss), the others play on."""
    return _set_away(game_id, away=False, resign=True)


@bp.post("/games/<game_id>/offers")
def make_offer(game_id: str) -> Response:
    """Offer the table to stop: {"kind": "abort"} (no result) or {"kind": "end"} (as it
    stands); both unrated, and every seat in play must accept."""
    token = bearer_token()
    body = json_body()
    only_fields(body, {"kind"})
    kind = body.get("kind")
    if kind not in ("abort", "end"):
        raise bad_request('\'kind\' must be "abort" or "end".', field="kind")
    request = engine_pb2.OfferRequest(game_id=game_id, kind=kind)
    return json_text(rpc(clients().engine.Offer, request, token=token).json)


@bp.post("/games/<game_id>/offers/<int:n>/<answer>")
def answer_offer(game_id: str, n: int, answer: str) -> Response:
    """Accept or decline offer `n` (an answer given before changes nothing)."""
    token = bearer_token()
    only_fields(json_body(optional=True), set())
    if answer not in ("accept", "decline"):
        raise ApiError(404, "not_found", "Answer an offer with /accept or /decline.")
    if not 1 <= n <= 2**31 - 1:
        raise bad_request("'n' must be an offer's number (1 or more, as the view's offer.n).",
                          field="n")  # fmt: skip
    request = engine_pb2.OfferRequest(game_id=game_id, n=n, answer=answer)
    return json_text(rpc(clients().engine.Offer, request, token=token, idempotent=True).json)


def _set_away(game_id: str, *, away: bool, resign: bool = False) -> Response:
    token = bearer_token()
    only_fields(json_body(optional=True), set())
    reply = rpc(
        clients().engine.SetAway,
        engine_pb2.SetAwayRequest(game_id=game_id, away=away, resign=resign),
        token=token,
        idempotent=True,  # setting the same state twice changes nothing
    )
    return json_text(reply.json)


@bp.post("/games/<game_id>/hint")
def hint(game_id: str) -> Response:
    token = bearer_token()
    if token is None:
        raise ApiError(403, "permission_denied", "A hint is for a seat: send its token.")
    body = json_body(optional=True)
    _in_game(body)
    only_fields(body, HINT_FIELDS)
    level = body.get("level", "")
    if not isinstance(level, str):
        raise bad_request("'level' must be a string.", field="level")
    message = ai_pb2.SuggestRequest(game_id=game_id, level=level)
    for name in ("budget_ms", "max_suggestions"):
        value = _int_field(body, name)
        if value is not None:
            setattr(message, name, value)
    seed = _int_field(body, "seed")
    if seed is not None:
        if seed < 0:
            raise bad_request("'seed' must be 0 or more.", field="seed")
        message.seed = seed
    # A hint holds a thread here and a search in the AI for seconds: a few at once per game
    # and per client (limits.py), the next is refused with 429.
    with guard().hints.hold(game_id, client_ip()):
        # A hint only reads: safe to ask again when a worker stops while answering it.
        reply = rpc(clients().ai.Suggest, message, backend="ai", token=token, idempotent=True)
    return json_answer(
        {
            "suggestions": [_suggestion_json(s) for s in reply.suggestions],
            "level": reply.level,
            "elapsed_ms": reply.elapsed_ms,
            "iterations": reply.iterations,
            "seat": reply.seat,
        }
    )


def _suggestion_json(s: ai_pb2.Suggestion) -> dict[str, Any]:
    """A suggestion is its move's own fields (so it can be sent back as it is), the move again
    under "move", and what the search thinks of it."""
    move = json.loads(s.move_json)
    return {**move, "move": move, "value": s.value, "visits": s.visits}


def _record_text(game_id: str) -> str:
    """The game's record as JSON text: the engine's, else the archive's once the live copy is
    gone (the engine refuses an unfinished game's: a record holds the deck)."""
    try:
        return rpc(
            clients().engine.GetRecord,
            engine_pb2.GetRecordRequest(game_id=game_id),
            token=bearer_token(),
            idempotent=True,
        ).record_json
    except ApiError as err:
        if not gone(err):
            raise
        return archived_record(game_id, err)


@bp.get("/games/<game_id>/record")
def record(game_id: str) -> Response:
    resp = json_text(_record_text(game_id))
    resp.headers["Content-Disposition"] = f'inline; filename="{_safe_name(game_id)}.json"'
    return resp


@bp.get("/games/<game_id>/positions")
def positions(game_id: str) -> Response:
    """A finished game's positions for its replay, worked out by the rules core from the record
    (Game.positions, in the game's own form): a page draws each and replays no rule itself."""
    data = orjson.loads(_record_text(game_id))
    kind = data.get("game") if isinstance(data, dict) else None
    game = games.get(kind) if isinstance(kind, str) else games.default()
    with guard().rules.hold():
        answer = game.positions(data)
    if answer is None:
        raise ApiError(404, "no_positions", f"The game {game.kind!r} has no replay positions.")
    return json_answer(answer)


def _safe_name(game_id: str) -> str:
    return "game-" + "".join(ch for ch in game_id if ch.isalnum() or ch in "-_")[:64]


# ---- the rules files' queries, over HTTP -----------------------------------------------------


@bp.post("/rules")
def rules_query() -> Response:
    """One `metro rules` query (a game's map, a replay's scores, ...): pure, no game state. The
    answer is the query's own, as the command line gives it (a refused query says why in its
    `error`), so that scripts get the same answers from both doors.

    Anyone may ask, so the work is bounded three ways (issue 30): a body of at most 64 KB (the
    app's cap), a work budget inside the query (an Underground `routes` search past it answers
    an `error`), and a turn of this process's WorkGate (`RULES_AT_ONCE` at once, a few waiting,
    the rest `503 busy`), besides the per-address rate."""
    body = json_body()
    with guard().rules.hold():
        return json_answer(answer_query(body))
