"""An archived game answered in the live game's shapes: the view is rebuilt by replaying the
stored record through the rules core and composing it exactly as the engine does
(`services.engine.core.messages.game_view`), so a link to a finished game answers the same JSON
after its live copy in Redis has expired.

Who may read what is today's rule (services/engine/core/access.py): a finished game's view,
record and
analysis are public, except a private game's (a daily attempt's), which are its seat's alone. The
archive keeps no seat tokens, so here the seat's player proves it with its device key
(`X-Player-Key`, looked up by the engine) or with the seat's token when the archive kept its hash.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from flask import current_app, request
from metro.v1 import engine_pb2

import games
from services.archive.reads import Archive, ArchivedGame, ArchiveUnavailable, public_seat
from services.common.auth import token_hash
from services.engine.core import messages
from services.engine.core.meta import GameMeta, SeatInfo
from services.gateway.calls import bearer_token, clients, rpc
from services.gateway.errors import ApiError
from services.gateway.http_kit import KEY_HEADER, KEY_SHAPE

EXTENSION = "metro_archive"


def meta_of(game: ArchivedGame) -> GameMeta:
    """The engine's facts about the game, as far as a finished game still needs them."""
    seats = tuple(
        SeatInfo(
            kind=str(s.get("kind", "human")),
            name=str(s.get("name", "")),
            level=str(s.get("level", "")),
            bot=bool(s.get("bot", False)),
        )
        for s in game.seats
    )
    return GameMeta(
        kind=game.kind,
        rules=dict(game.record.get("rules") or {}),
        seats=seats,
        created_at_ms=game.created_at_ms,
        private=game.private_seat is not None,
    )


def seat_of_token(game: ArchivedGame, token: str | None) -> int | None:
    """The seat whose token this is, when the archive kept the seats' token hashes."""
    if not token or not game.token_hashes:
        return None
    presented = token_hash(game.game_id, token)
    for index, stored in enumerate(game.token_hashes):
        if stored and hmac.compare_digest(stored, presented):
            return index
    return None


def check_private(game: ArchivedGame, token: str | None, player_id: str | None) -> int | None:
    """The caller's seat: a private game's must be proven (403 otherwise); a public game's
    when the seat's token is known, else None (the public view)."""
    seat = seat_of_token(game, token)
    if game.private_seat is None or seat == game.private_seat:
        return seat
    if player_id and player_id == game.private_owner:
        return game.private_seat
    raise ApiError(
        403,
        "permission_denied",
        f"game {game.game_id} is private: its record and analysis are its seat's alone "
        "(send its token, or its player's device key in X-Player-Key)",
    )


def view(game: ArchivedGame, seat: int | None) -> engine_pb2.GameView:
    """The view `seat` (None: a spectator) had of the finished game: replayed, then composed
    by the engine's own code."""
    state = games.get(game.kind).replay(game.record)
    return messages.game_view(
        game_id=game.game_id,
        meta=meta_of(game),
        version=game.version,
        status="over",
        last_event_id=game.last_event_id,
        view=state.view(seat),
        seat=seat,
    )


def record(game: ArchivedGame) -> dict[str, Any]:
    """The record as the engine answered it: the rules core's record and the public seats."""
    out = dict(game.record)
    out["seats"] = [public_seat(s) for s in game.seats]
    return out


# ---- the fallbacks of games_api.py and analysis_api.py ---------------------------------------


def gone(err: ApiError) -> bool:
    """The engine knows no such game: it may be a finished one, kept in the archive."""
    return err.status == 404 and err.code == "game_not_found"


def archive() -> Archive:
    """The app's archive (archive_api.install)."""
    found: Archive = current_app.extensions[EXTENSION]
    return found


def _caller_player() -> str | None:
    """The player of the caller's device key, if a valid one was sent (a private game's
    owner proves it so: the archive keeps no seat tokens of its own)."""
    key = (request.headers.get(KEY_HEADER) or "").strip()
    if not KEY_SHAPE.fullmatch(key):
        return None
    try:
        reply = rpc(clients().engine.GetPlayer, engine_pb2.GetPlayerRequest(),
                    metadata=[("x-player-key", key)])  # fmt: skip
    except ApiError as err:
        if err.status == 403:
            return None
        raise
    return str(reply.player_id)


def _archived(game_id: str, missing: ApiError) -> tuple[ArchivedGame, int | None]:
    """The archived game and the caller's seat in it (a private game's is required); the
    engine's own 404 when the archive has none either."""
    if not archive().configured:
        raise missing
    game = archive().game(game_id)
    if game is None:
        raise missing
    token = bearer_token()
    player = _caller_player() if game.private_owner else None
    seat = check_private(game, token, player)
    return game, seat


def archived_view(game_id: str, missing: ApiError) -> engine_pb2.GameView:
    """The view of an archived game: the seat's own when its token proves it, else the public
    one; a private game's (a daily attempt's: it shows the day's cards) is its seat's alone, as
    it is live (services/engine/core/access.py check_private)."""
    game, seat = _archived(game_id, missing)
    return view(game, seat)


def archived_record(game_id: str, missing: ApiError) -> str:
    game, _ = _archived(game_id, missing)
    return json.dumps(record(game), separators=(",", ":"))


def archived_analysis(
    game_id: str, missing: ApiError
) -> tuple[ArchivedGame, dict[str, Any] | None]:
    """The archived game and its analysis (None when it was never analysed)."""
    game, _ = _archived(game_id, missing)
    return game, archive().analysis(game_id)


def archived_mine(player_id: str, known: set[str], limit: int) -> list[dict[str, Any]]:
    """The player's archived games not in `known` (the live list), newest first, in "My games"
    shape. My games never fails for the archive: when it is down, the live list stands alone."""
    if not archive().configured:
        return []
    try:
        found = archive().history(player_id, limit=limit)
    except ArchiveUnavailable as err:
        current_app.logger.warning("my games without the archive: %s", err)
        return []
    out = []
    for game in found[0] if found else []:
        if game["game_id"] in known:
            continue
        out.append({
            "game_id": game["game_id"], "game": game["game"], "rules": {},
            "seats": game["seats"],
            "status": "over", "created_at": None, "seat": game["seat"], "to_move": [],
            "your_turn": False, "rated": bool(game["rated"]), "ended_at": game["ended_at"],
        })  # fmt: skip
    return out


def archived_chat(game_id: str, missing: ApiError) -> dict[str, Any]:
    """GET /api/games/{id}/chat of an archived game (issue 35): its players' room, for those
    who sat at the table only: a registered player of one of its seats (X-Player-Key), or a
    seat's token where the archive kept its hash (a daily attempt). The spectators' room is not
    archived. Anyone else: 403, as a private game's record (the engine's own 404 when the
    archive has no such game either)."""
    if not archive().configured:
        raise missing
    game = archive().game(game_id)
    if game is None:
        raise missing
    player = _caller_player()
    seated = seat_of_token(game, bearer_token()) is not None or any(
        player and seat.get("player_id") == player for seat in game.seats
    )
    if not seated:
        raise ApiError(
            403,
            "permission_denied",
            f"game {game_id} is over and archived: its chat is kept for the players who sat at "
            "its table only (send your device key in X-Player-Key); the spectators' room is "
            "not kept",
        )
    return {"room": "players", "lines": archive().chat(game)}


def archived_table(game_id: str, missing: ApiError) -> dict[str, Any]:
    """GET /api/games/{id}/table of an archived game: who sat where (players' ids, "ai:<level>"
    for the AI as live, null for a guest or an erased player)."""
    game, _ = _archived(game_id, missing)
    seats = []
    for index, seat in enumerate(game.seats):
        player = seat.get("player_id")
        if seat.get("kind") == "ai":
            player = f"ai:{seat.get('level', '')}"
        seats.append({"seat": index, "player_id": player, "name": seat.get("name", "")})
    return {"game_id": game.game_id, "rated": game.rated, "seats": seats}
