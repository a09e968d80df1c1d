"""The archive over HTTP (issue 29): finished games answer for good, players have a profile, a
history and an export, and a player may erase themself (docs/api-players.md, API.md).

Reads go to PostgreSQL through services/archive/reads.py; live play never comes here. A game's
view, record and analysis are asked of the engine first and only a `game_not_found` falls back
to the archive (games_api.py, analysis_api.py call `archived_*` below), so a live game never
waits on PostgreSQL. When PostgreSQL is down these answers are 503 `archive_unavailable`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request
from metro.v1 import engine_pb2

import games
from services.archive.reads import RESULTS, Archive, ArchiveUnavailable, decode_cursor
from services.gateway.archive_view import EXTENSION, archive
from services.gateway.calls import clients
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import json_answer, player_call, player_key

bp = Blueprint("archive", __name__, url_prefix="/api")

HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX = 20, 100
RETRY_AFTER_S = 5
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{12}")  # services/engine/players/players.py makes them


def install(app: Flask, url: str | None) -> None:
    """The app's archive (its pool is made by the first request of each process)."""
    app.extensions[EXTENSION] = Archive(url)
    app.register_blueprint(bp)

    @app.errorhandler(ArchiveUnavailable)
    def _down(err: ArchiveUnavailable) -> Response:
        current_app.logger.warning("archive unavailable: %s", err)
        error = ApiError(
            503, "archive_unavailable", "The archive of finished games is unavailable; try again."
        )
        answer = error.response()
        answer.status_code = 503
        answer.headers["Retry-After"] = str(RETRY_AFTER_S)
        return answer


# ---- players ---------------------------------------------------------------------------------


def _player_id(player_id: str) -> str:
    if not PLAYER_ID.fullmatch(player_id):
        raise ApiError(404, "player_not_found", f"No player {player_id[:40]!r} on this server.")
    return player_id


@bp.get("/players/<player_id>")
def profile(player_id: str) -> Response:
    """The public profile: name, bot mark, and per game kind its games, wins, mean score,
    rating now and the rating's history."""
    found = archive().profile(_player_id(player_id))
    if found is None:
        raise ApiError(404, "player_not_found", f"No finished game of player {player_id!r}.")
    return json_answer(found)


def _history_filters() -> dict[str, Any]:
    args = request.args
    kind = args.get("game") or None
    if kind is not None and kind not in games.kinds():
        raise bad_request(f"'game' must be one of {', '.join(games.kinds())}.", field="game")
    result = args.get("result") or None
    if result is not None and result not in RESULTS:
        raise bad_request(f"'result' must be one of {', '.join(RESULTS)}.", field="result")
    vs = args.get("vs") or None
    if vs is not None and not PLAYER_ID.fullmatch(vs):
        raise bad_request("'vs' must be a player id.", field="vs")
    before = None
    if args.get("before"):
        try:
            before = decode_cursor(args["before"][:200])
        except ValueError:
            raise bad_request("'before' must be a 'next' cursor this server gave.",
                              field="before") from None  # fmt: skip
    limit_text = args.get("limit", str(HISTORY_LIMIT_DEFAULT))
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= HISTORY_LIMIT_MAX:
        raise bad_request(f"'limit' must be a whole number 1-{HISTORY_LIMIT_MAX}.", field="limit")
    return {"kind": kind, "result": result, "vs": vs, "before": before,
            "limit": int(limit_text)}  # fmt: skip


@bp.get("/players/<player_id>/games")
def history(player_id: str) -> Response:
    """The player's finished public games, newest first, a page at a time (`next`: the cursor
    of the next page, null on the last)."""
    found = archive().history(_player_id(player_id), **_history_filters())
    if found is None:
        raise ApiError(404, "player_not_found", f"No finished game of player {player_id!r}.")
    rows, cursor = found
    return json_answer({"games": rows, "next": cursor})


@bp.get("/players/<player_id>/games/export")
def export(player_id: str) -> Response:
    """Every public game of the player as NDJSON, one record a line, streamed as it is read."""
    lines = archive().export(_player_id(player_id))
    first = next(lines, None)  # PostgreSQL down: the 503 comes before any line is sent

    def stream() -> Iterator[bytes]:
        if first is not None:
            yield first
            yield from lines

    answer = Response(stream(), mimetype="application/x-ndjson")
    answer.headers["Content-Disposition"] = f'attachment; filename="metro-{player_id}.ndjson"'
    return answer


@bp.delete("/players/me")
def delete_me() -> Response:
    """Erase the caller: name and keys in the engine, the name in the archive. The games stay,
    shown to the opponents as "deleted player"."""
    key = player_key()
    me = player_call(clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=key)
    if archive().configured:
        archive().erase(me.player_id)  # first: a failure here leaves the key working to retry
    player_call(clients().engine.DeletePlayer, engine_pb2.GetPlayerRequest(), player_key=key)
    return Response(status=204)


@bp.get("/players/me/export")
def export_me() -> Response:
    """Everything stored about the caller: who they are and every game they sat at, private
    ones included, with their seat, score, result and ratings."""
    key = player_key()
    me = player_call(clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=key)
    about = archive().about(me.player_id) if archive().configured else {}
    return json_answer({"player_id": me.player_id, "name": me.name, "bot": me.bot,
                  "archive": about})  # fmt: skip
