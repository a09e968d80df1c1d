"""The daily puzzle over HTTP (docs/api-players.md, "The daily puzzle"; issue 23): today's
puzzle, an attempt (scored today, practice on an earlier day), a day's results. Each endpoint
makes one engine call (services/engine/daily/daily_calls.py) and answers its document.

The caller's player is its `X-Player-Key` (optional when reading, required to play). Which games
offer a daily puzzle is theirs to say (`Game.daily_rules`), so nothing here names one.
"""

from __future__ import annotations

import json
import re

from flask import Blueprint, Response, request
from metro.v1 import engine_pb2

import games
from services.gateway.calls import clients
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import json_text, player_call, player_key, player_key_if_any

bp = Blueprint("daily", __name__, url_prefix="/api/daily")

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_KIND = re.compile(r"[a-z0-9_-]{1,32}")


def _request(kind: str) -> engine_pb2.DailyRequest:
    """The engine's request for `kind` and `?date=`; 404 for a game without a daily puzzle,
    400 naming `date` for a malformed one (the engine refuses future and too old days)."""
    if not _KIND.fullmatch(kind) or kind not in games.kinds():
        raise ApiError(404, "no_daily_puzzle", f"There is no game called {kind[:32]!r}.")
    if games.get(kind).daily_rules(bytes(32)) is None:
        raise ApiError(404, "no_daily_puzzle", f"{games.get(kind).name} has no daily puzzle.")
    date = request.args.get("date", "")
    if date and not DATE.fullmatch(date):
        raise bad_request("'date' must be a day written YYYY-MM-DD.", field="date")
    return engine_pb2.DailyRequest(game=kind, date=date)


@bp.get("/<kind>")
def daily_today(kind: str) -> Response:
    """Today's puzzle: its date and rules, and whether the key's player has played it."""
    message = _request(kind)
    if message.date:
        raise bad_request("Today's puzzle takes no 'date'; see /results?date=.", field="date")
    reply = player_call(
        clients().engine.GetDaily, message, player_key=player_key_if_any(), idempotent=True
    )
    return json_text(reply.json)


@bp.post("/<kind>/games")
def start_daily(kind: str) -> Response:
    """The key's player's scored attempt of today (once), or with `?date=` of an earlier day an
    unscored practice game on that day's deck."""
    message = _request(kind)
    reply = player_call(clients().engine.StartDaily, message, player_key=player_key())
    if reply.already_played:
        raise ApiError(
            409,
            "already_played",
            f"You have already played the daily puzzle of {reply.date}: one scored attempt a "
            "day. Practise on an earlier day's deck with ?date=YYYY-MM-DD.",
            game_id=reply.game_id,
            date=reply.date,
        )
    body = {
        "game_id": reply.game_id,
        "seat": reply.seat,
        "token": reply.token,
        "date": reply.date,
        "scored": reply.scored,
    }
    return json_text(json.dumps(body, separators=(",", ":")), 201)


@bp.get("/<kind>/results")
def daily_results(kind: str) -> Response:
    """A day's finished scored attempts (default today), and the key's player's standing."""
    reply = player_call(
        clients().engine.GetDailyResults,
        _request(kind),
        player_key=player_key_if_any(),
        idempotent=True,
    )
    return json_text(reply.json)
