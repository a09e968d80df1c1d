"""Players, "my games", ratings and rematch over HTTP (docs/api-players.md): each endpoint makes
one call to the engine (players_rpc.py there) and answers.

A player's device key comes only in the `X-Player-Key` header and goes on as gRPC metadata
`x-player-key`; it is never read from a URL, never logged. The client's address goes along as
`x-client-id`, which the engine counts recovery attempts by.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, Response, request
from google.protobuf.message import Message
from metro.v1 import engine_pb2

from services.gateway.archive_view import archived_mine, archived_table, gone
from services.gateway.calls import bearer_token, clients, json_body, only_fields, rpc
from services.gateway.errors import ApiError, bad_request
from services.gateway.games_api import _summary_json
from services.gateway.limits import RECOVER_WAIT_S, client_ip, guard

R = TypeVar("R")

bp = Blueprint("players", __name__, url_prefix="/api")

KEY_HEADER = "X-Player-Key"
_KEY = re.compile(r"[A-Za-z0-9_.-]{1,128}")
GAMES_LIMIT_DEFAULT, GAMES_LIMIT_MAX = 20, 100
BOARD_LIMIT_MAX = 200
MAX_OFFSET = 10_000
# A recovery code's shape (services/engine/players.py checks its alphabet): spaces and dashes
# anywhere, then this many letters and digits.
CODE_LENGTH = 10
_CODE_SEPARATORS = re.compile(r"[\s-]")
_CODE_SHAPE = re.compile(rf"[0-9A-Za-z]{{{CODE_LENGTH}}}")


def _json(data: Any, status: int = 200) -> Response:
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Response(text, status=status, mimetype="application/json")


def _player_key(required: bool = True) -> str | None:
    """The caller's device key from its header; 403 when required and missing or malformed."""
    key = request.headers.get(KEY_HEADER)
    if key is None or not key.strip():
        if required:
            raise ApiError(
                403, "bad_player_key", f"This needs a player: send the device key in {KEY_HEADER}."
            )
        return None
    key = key.strip()
    if not _KEY.fullmatch(key):
        raise ApiError(
            403, "bad_player_key", f"The {KEY_HEADER} header is not a device key of this server."
        )
    return key


def _call(
    method: Callable[..., R],
    message: Message,
    *,
    token: str | None = None,
    player_key: str | None = None,
) -> R:
    """One engine call with the seat token, the device key and the client's address (the
    engine counts a client's attempts by it)."""
    metadata = [("x-client-id", client_ip())]
    if player_key:
        metadata.append(("x-player-key", player_key))
    return rpc(method, message, token=token, metadata=metadata)


def _string(body: dict[str, Any], name: str) -> str:
    value = body.get(name, "")
    if not isinstance(value, str):
        raise bad_request(f"'{name}' must be a string.", field=name)
    return value


def _number_arg(name: str, most: int) -> int:
    text = request.args.get(name, "0")
    if not text.isdigit() or int(text) > most:
        raise bad_request(f"'{name}' must be a whole number 0-{most}.", field=name)
    return int(text)


def _credentials(reply: engine_pb2.PlayerCredentials) -> dict[str, Any]:
    out = {"player_id": reply.player_id, "name": reply.name, "device_key": reply.device_key}
    if reply.recovery_code:
        out["recovery_code"] = reply.recovery_code
    return out


# ---- players ---------------------------------------------------------------------------------


@bp.post("/players")
def create_player() -> tuple[Response, int] | Response:
    body = json_body()
    only_fields(body, {"name", "bot"})
    name = _string(body, "name").strip()
    if not name:
        raise bad_request("'name' is required (1-40 characters).", field="name")
    bot = body.get("bot", False)
    if not isinstance(bot, bool):
        raise bad_request("'bot' must be true (a bot account) or false.", field="bot")
    reply = _call(
        clients().engine.CreatePlayer, engine_pb2.CreatePlayerRequest(name=name, bot=bot)
    )
    return _json(_credentials(reply), 201)


@bp.post("/players/recover")
def recover_player() -> Response:
    """Each check costs the engine a slow hash: a code that cannot be one is refused here, and
    the rest wait for one of the few slots shared by every gateway (limits.RecoverySlots)."""
    body = json_body()
    only_fields(body, {"recovery_code"})
    code = _string(body, "recovery_code")
    if not code.strip():
        raise bad_request("'recovery_code' is required.", field="recovery_code")
    if not _CODE_SHAPE.fullmatch(_CODE_SEPARATORS.sub("", code[:64])):
        raise ApiError(
            400,
            "invalid_argument",
            f"a recovery code is {CODE_LENGTH} letters and digits, such as ABCDE-12345",
            field="recovery_code",
        )
    # This address's turn in this process (addresses in turn: a flood from one waits behind
    # everyone else's codes), then the slot shared by every gateway.
    limits = guard()
    with limits.recovery_turns.turn(client_ip()), limits.recoveries.hold_one(RECOVER_WAIT_S):
        reply = _call(
            clients().engine.RecoverPlayer, engine_pb2.RecoverPlayerRequest(recovery_code=code)
        )
    return _json(_credentials(reply))


@bp.get("/players/me")
def who_am_i() -> Response:
    reply = _call(
        clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=_player_key()
    )
    return _json({"player_id": reply.player_id, "name": reply.name, "bot": reply.bot})


@bp.get("/players/me/games")
def my_games() -> Response:
    message = engine_pb2.ListPlayerGamesRequest(
        limit=_number_arg("limit", GAMES_LIMIT_MAX), offset=_number_arg("offset", MAX_OFFSET)
    )
    key = _player_key()
    reply = _call(clients().engine.ListPlayerGames, message, player_key=key)
    listed = [
        {
            **_summary_json(g.game),
            "seat": g.seat,
            "to_move": list(g.to_move),
            "your_turn": g.seat in g.to_move,
            "rated": g.rated,
        }
        for g in reply.games
    ]
    if message.offset == 0:  # the first page adds the finished games the archive keeps
        me = _call(clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=key)
        known = {g["game_id"] for g in listed}
        listed += archived_mine(me.player_id, known, message.limit or GAMES_LIMIT_DEFAULT)
    return _json({"games": listed, "next_offset": reply.next_offset or None})


# ---- who sits where --------------------------------------------------------------------------


@bp.post("/games/<game_id>/player")
def sit_player(game_id: str) -> Response:
    """The device key's player takes the seat of the token (and may make the table rated)."""
    token = bearer_token()
    if token is None:
        raise ApiError(403, "permission_denied", "Send the seat's token (Authorization).")
    body = json_body(optional=True)
    only_fields(body, {"rated"})
    rated = body.get("rated", False)
    if not isinstance(rated, bool):
        raise bad_request("'rated' must be true or false.", field="rated")
    reply = _call(
        clients().engine.SitPlayer,
        engine_pb2.SitPlayerRequest(game_id=game_id, rated=rated),
        token=token,
        player_key=_player_key(),
    )
    return _json(
        {
            "game_id": reply.game_id,
            "seat": reply.seat,
            "player_id": reply.player_id,
            "rated": reply.rated,
        }
    )


@bp.post("/games/<game_id>/claim")
def claim_seat(game_id: str) -> Response:
    """A seat token for this device of a player who sits at the game (from another device):
    `{"game_id", "seat", "token"}`; the seat's other tokens stay valid."""
    only_fields(json_body(optional=True), set())
    reply = _call(
        clients().engine.ClaimSeat,
        engine_pb2.ClaimSeatRequest(game_id=game_id),
        player_key=_player_key(),
    )
    return _json({"game_id": reply.game_id, "seat": reply.seat, "token": reply.token})


@bp.get("/games/<game_id>/table")
def table(game_id: str) -> Response:
    # A private game's (a daily attempt's) table is its seat's: the token is sent when given.
    try:
        reply = _call(
            clients().engine.GetTable,
            engine_pb2.GetTableRequest(game_id=game_id),
            token=bearer_token(),
        )
    except ApiError as err:
        if not gone(err):
            raise
        return _json(archived_table(game_id, err))  # a finished game whose live copy expired
    return _json(
        {
            "game_id": reply.game_id,
            "rated": reply.rated,
            "seats": [
                {"seat": s.seat, "player_id": s.player_id or None, "name": s.name}
                for s in reply.seats
            ],
        }
    )


# ---- ratings ---------------------------------------------------------------------------------


@bp.get("/leaderboard/<game>")
def leaderboard(game: str) -> Response:
    """`?bots=0` leaves bot accounts out (default: everyone, bots marked `"bot": true`)."""
    bots = request.args.get("bots", "1")
    if bots not in ("0", "1"):
        raise bad_request("'bots' must be 1 (bots shown, marked) or 0 (hidden).", field="bots")
    message = engine_pb2.GetLeaderboardRequest(
        game=game, limit=_number_arg("limit", BOARD_LIMIT_MAX), hide_bots=bots == "0"
    )
    reply = _call(clients().engine.GetLeaderboard, message)
    return _json(
        {
            "game": reply.game,
            "players": [
                {
                    "rank": i + 1,
                    "player_id": p.player_id,
                    "name": p.name,
                    "ai": p.ai,
                    "bot": p.bot,
                    "rating": round(p.rating, 3),
                    "mu": round(p.mu, 3),
                    "sigma": round(p.sigma, 3),
                    "games": p.games,
                }
                for i, p in enumerate(reply.players)
            ],
        }
    )


# ---- rematch ---------------------------------------------------------------------------------


def _rematch_json(reply: engine_pb2.RematchAnswer) -> dict[str, Any]:
    if not reply.rematch_json:
        return {"rematch": None, "game_id": None, "seat": None}
    out: dict[str, Any] = {"rematch": json.loads(reply.rematch_json), "game_id": reply.game_id}
    out["seat"] = reply.seat if reply.HasField("seat") else None
    if reply.token:
        out["token"] = reply.token
    return out


@bp.post("/games/<game_id>/rematch")
def rematch(game_id: str) -> Response:
    """{"answer": "accept"} offers the rematch (or accepts the one offered); "decline" ends it."""
    token = bearer_token()
    if token is None:
        raise ApiError(403, "permission_denied", "A rematch is for a seat: send its token.")
    body = json_body()
    only_fields(body, {"answer"})
    answer = body.get("answer")
    if answer not in ("accept", "decline"):
        raise bad_request('\'answer\' must be "accept" or "decline".', field="answer")
    engine = clients().engine
    method = engine.OfferRematch if answer == "accept" else engine.DeclineRematch
    reply = _call(method, engine_pb2.RematchRequest(game_id=game_id), token=token)
    return _json(_rematch_json(reply))


@bp.get("/games/<game_id>/rematch")
def rematch_state(game_id: str) -> Response:
    reply = _call(
        clients().engine.GetRematch,
        engine_pb2.RematchRequest(game_id=game_id),
        token=bearer_token(),
    )
    return _json(_rematch_json(reply))


# ---- follows (issue 35 item 3) ---------------------------------------------------------------


def _follows_json(reply: engine_pb2.Follows) -> dict[str, Any]:
    return {
        "follows": [
            {
                "player_id": p.player_id,
                "name": p.name,
                "playing": [_summary_json(g) for g in p.playing],
            }
            for p in reply.players
        ]
    }


@bp.get("/players/me/follows")
def my_follows() -> Response:
    """Whom the key's player follows, most recent first, each with the public games they are
    playing now (`playing`: game summaries; never a private game such as a daily attempt)."""
    reply = _call(
        clients().engine.GetFollows, engine_pb2.FollowRequest(), player_key=_player_key()
    )
    return _json(_follows_json(reply))


@bp.put("/players/me/follows/<player_id>")
def follow(player_id: str) -> Response:
    """Follow a player (at most 500; again: no change). Answers the whole list."""
    only_fields(json_body(optional=True), set())
    reply = _call(
        clients().engine.SetFollow,
        engine_pb2.FollowRequest(player_id=player_id, follow=True),
        player_key=_player_key(),
    )
    return _json(_follows_json(reply))


@bp.delete("/players/me/follows/<player_id>")
def unfollow(player_id: str) -> Response:
    """Stop following a player (one not followed: no change). Answers the whole list."""
    reply = _call(
        clients().engine.SetFollow,
        engine_pb2.FollowRequest(player_id=player_id, follow=False),
        player_key=_player_key(),
    )
    return _json(_follows_json(reply))
