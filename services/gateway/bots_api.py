"""The bot API over HTTP (issue 24, docs/bots.md): invitations, the ladder and a player's own
event stream. Bot accounts themselves are players (players_api.py, `"bot": true`).

`GET /api/players/me/events` is an ordinary Flask streaming route (as the game streams were
before the fan-out hub): it holds one of this process's threads and one of its stream slots
(GATEWAY_MAX_STREAMS) while open, and works under any server that runs the app. One stream per
player is the contract: a second stream of the same player in this process ends the first (a
bot that reconnects after a half-dead connection is not refused by its own ghost).
"""

from __future__ import annotations

import json
import queue
import re
import threading
from collections.abc import Iterator
from typing import Any

import grpc
from flask import Blueprint, Response, request
from metro.v1 import engine_pb2

from services.gateway.calls import clients, gateway, json_body, only_fields
from services.gateway.errors import bad_request, from_rpc_error
from services.gateway.http_kit import json_answer, player_call, player_key, player_metadata, pump
from services.gateway.limits import guard

bp = Blueprint("bots", __name__, url_prefix="/api")

_EVENT_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_INVITATION = re.compile(r"[A-Za-z0-9]{1,64}")
_U64_MAX = 2**64 - 1
RETRY_MS = 3000
STOP_CHECK_S = 0.5
MAX_GAMES_LISTED = 16

_streams: dict[str, threading.Event] = {}  # player id -> the event that ends its open stream
_streams_lock = threading.Lock()


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


# ---- the player's own event stream -----------------------------------------------------------


def _valid_event_id(text: str) -> bool:
    return bool(_EVENT_ID.fullmatch(text)) and all(int(p) <= _U64_MAX for p in text.split("-"))


@bp.get("/players/me/events")
def player_events() -> Response:
    """Server-Sent Events: `id:` the event id, `data:` the event's JSON (its `type` inside)."""
    key = player_key()
    after = (request.headers.get("Last-Event-ID") or request.args.get("last_event_id", "")).strip()
    if after and not _valid_event_id(after):
        raise bad_request(
            "Last-Event-ID must be an event id such as '1718000000000-0'.", field="Last-Event-ID"
        )
    engine = clients().engine
    # Errors of a stream only show once it is read: who the key is, first (403, 503 here).
    me = player_call(engine.GetPlayer, engine_pb2.GetPlayerRequest(), player_key=key)
    give_back = guard().streams.take()
    try:
        state = gateway()
        call = engine.WatchPlayer(
            engine_pb2.WatchPlayerRequest(after_event_id=after),
            timeout=state.watch_max_s,
            metadata=player_metadata(key),
        )
        stop = threading.Event()
        with _streams_lock:
            older = _streams.get(me.player_id)
            _streams[me.player_id] = stop
        if older is not None:
            older.set()
        reply = Response(
            _sse(call, state.heartbeat_s, stop, me.player_id),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    except BaseException:
        give_back()
        raise
    reply.call_on_close(give_back)
    return reply


def _sse(call: Any, heartbeat_s: float, stop: threading.Event, player_id: str) -> Iterator[str]:
    items: queue.Queue[tuple[str, Any]] = queue.Queue()
    threading.Thread(target=pump, args=(call, items), name="player-sse", daemon=True).start()
    try:
        yield f"retry: {RETRY_MS}\n: stream open\n\n"
        quiet = 0.0
        while not stop.is_set():
            try:  # a short wait, so that a newer stream of the player ends this one soon
                kind, item = items.get(timeout=STOP_CHECK_S)
            except queue.Empty:
                quiet += STOP_CHECK_S
                if quiet >= heartbeat_s:
                    quiet = 0.0
                    yield ": keep-alive\n\n"
                continue
            quiet = 0.0
            if kind == "event":
                yield f"id: {item.event_id}\ndata: {item.json}\n\n"
            elif kind == "error":
                yield _stream_error(item)
                return
            else:
                return
        yield ": another stream of this player opened; this one ends\n\n"
    finally:
        call.cancel()
        with _streams_lock:
            if _streams.get(player_id) is stop:
                del _streams[player_id]


def _stream_error(err: grpc.RpcError) -> str:
    if isinstance(err, grpc.Call) and err.code() in (
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
    ):
        return ": stream closed, reconnect\n\n"
    api = from_rpc_error(err, "engine")
    return f"event: failure\ndata: {json.dumps({'code': api.code, 'message': api.message})}\n\n"
