"""Players, "my games", ratings and rematch over HTTP (docs/api-players.md): each endpoint makes
one call to the engine (players_rpc.py there) and answers.

A player's device key comes only in the `X-Player-Key` header and goes on as gRPC metadata with
the client's address (http_kit.player_call); it is never read from a URL, never logged.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, request
from metro.v1 import engine_pb2

from services.gateway.archive_view import archived_mine, archived_table, gone
from services.gateway.calls import bearer_token, clients, json_body, only_fields
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import json_answer, player_call, player_key, summary_json
from services.gateway.limits import RECOVER_WAIT_S, client_ip, guard

bp = Blueprint("players", __name__, url_prefix="/api")

GAMES_LIMIT_DEFAULT, GAMES_LIMIT_MAX = 20, 100
BOARD_LIMIT_MAX = 200
MAX_OFFSET = 10_000
# A recovery code's shape (services/engine/players/players.py checks its alphabet): spaces and
# dashes anywhere, then this many letters and digits.
CODE_LENGTH = 10
_CODE_SEPARATORS = re.compile(r"[\s-]")
_CODE_SHAPE = re.compile(rf"[0-9A-Za-z]{{{CODE_LENGTH}}}")


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
    reply = player_call(
        clients().engine.CreatePlayer, engine_pb2.CreatePlayerRequest(name=name, bot=bot)
    )
    return json_answer(_credentials(reply), 201)


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
        reply = player_call(
            clients().engine.RecoverPlayer, engine_pb2.RecoverPlayerRequest(recovery_code=code)
        )
    return json_answer(_credentials(reply))


@bp.get("/players/me")
def who_am_i() -> Response:
    reply = player_call(
        clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=player_key()
    )
    return json_answer({"player_id": reply.player_id, "name": reply.name, "bot": reply.bot})


@bp.get("/players/me/games")
def my_games() -> Response:
    message = engine_pb2.ListPlayerGamesRequest(
        limit=_number_arg("limit", GAMES_LIMIT_MAX), offset=_number_arg("offset", MAX_OFFSET)
    )
    key = player_key()
    reply = player_call(clients().engine.ListPlayerGames, message, player_key=key)
    listed = [
        {
            **summary_json(g.game),
            "seat": g.seat,
            "to_move": list(g.to_move),
            "your_turn": g.seat in g.to_move,
            "rated": g.rated,
        }
        for g in reply.games
    ]
    if message.offset == 0:  # the first page adds the finished games the archive keeps
        me = player_call(clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=key)
        known = {g["game_id"] for g in listed}
        listed += archived_mine(me.player_id, known, message.limit or GAMES_LIMIT_DEFAULT)
    return json_answer({"games": listed, "next_offset": reply.next_offset or None})


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
    reply = player_call(
        clients().engine.SitPlayer,
        engine_pb2.SitPlayerRequest(game_id=game_id, rated=rated),
        token=token,
        player_key=player_key(),
    )
    return json_answer(
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
    reply = player_call(
        clients().engine.ClaimSeat,
        engine_pb2.ClaimSeatRequest(game_id=game_id),
        player_key=player_key(),
    )
    return json_answer({"game_id": reply.game_id, "seat": reply.seat, "token": reply.token})


@bp.get("/games/<game_id>/table")
def table(game_id: str) -> Response:
    # A private game's (a daily attempt's) table is its seat's: the token is sent when given.
    try:
        reply = player_call(
            clients().engine.GetTable,
            engine_pb2.GetTableRequest(game_id=game_id),
            token=bearer_token(),
        )
    except ApiError as err:
        if not gone(err):
            raise
        return json_answer(archived_table(game_id, err))  # a finished game whose live copy expired
    return json_answer(
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
    reply = player_call(clients().engine.GetLeaderboard, message)
    return json_answer(
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
    reply = player_call(method, engine_pb2.RematchRequest(game_id=game_id), token=token)
    return json_answer(_rematch_json(reply))


@bp.get("/games/<game_id>/rematch")
def rematch_state(game_id: str) -> Response:
    reply = player_call(
        clients().engine.GetRematch,
        engine_pb2.RematchRequest(game_id=game_id),
        token=bearer_token(),
    )
    return json_answer(_rematch_json(reply))


# ---- follows (issue 35 item 3) ---------------------------------------------------------------


def _follows_json(reply: engine_pb2.Follows) -> dict[str, Any]:
    return {
        "follows": [
            {
                "player_id": p.player_id,
                "name": p.name,
                "playing": [summary_json(g) for g in p.playing],
            }
            for p in reply.players
        ]
    }


@bp.get("/players/me/follows")
def my_follows() -> Response:
    """Whom the key's player follows, most recent first, each with the public games they are
    playing now (`playing`: game summaries; never a private game such as a daily attempt)."""
    reply = player_call(
        clients().engine.GetFollows, engine_pb2.FollowRequest(), player_key=player_key()
    )
    return json_answer(_follows_json(reply))


@bp.put("/players/me/follows/<player_id>")
def follow(player_id: str) -> Response:
    """Follow a player (at most 500; again: no change). Answers the whole list."""
    only_fields(json_body(optional=True), set())
    reply = player_call(
        clients().engine.SetFollow,
        engine_pb2.FollowRequest(player_id=player_id, follow=True),
        player_key=player_key(),
    )
    return json_answer(_follows_json(reply))


@bp.delete("/players/me/follows/<player_id>")
def unfollow(player_id: str) -> Response:
    """Stop following a player (one not followed: no change). Answers the whole list."""
    reply = player_call(
        clients().engine.SetFollow,
        engine_pb2.FollowRequest(player_id=player_id, follow=False),
        player_key=player_key(),
    )
    return json_answer(_follows_json(reply))
