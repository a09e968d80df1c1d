"""Post-game analysis over HTTP: `POST /api/games/{id}/analysis` queues it, `GET` answers where
it stands and, once done, the whole analysis (API.md; the engine keeps it, the AI workers
compute it). Like the record, it is open to anyone once the game is over: 403 `game_running`
before (the analysis reads the record, which holds the deck order), 404 for an unknown game.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response
from metro.v1 import engine_pb2

from services.gateway.archive_view import archived_analysis, gone, record
from services.gateway.calls import bearer_token, clients, rpc
from services.gateway.errors import ApiError

bp = Blueprint("analysis", __name__, url_prefix="/api")


def _answer(state: engine_pb2.AnalysisState, game_id: str, status: int) -> Response:
    """Progress while queued or running; the result itself once done (its text as stored,
    with the progress added)."""
    progress = {"done": state.done, "total": state.total}
    if state.status == "done" and state.result_json:
        body: dict[str, Any] = json.loads(state.result_json)
        body.update(status="done", progress=progress)
    else:
        body = {"status": state.status or "none", "game_id": game_id, "progress": progress}
        if state.error:
            body["error"] = state.error
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return Response(text, status=status, mimetype="application/json")


def _call(method: Any, message: engine_pb2.AnalysisRequest) -> engine_pb2.AnalysisState:
    state: engine_pb2.AnalysisState = rpc(
        method,
        message,
        token=bearer_token(),  # a private game's (a daily attempt's) analysis is its seat's
        idempotent=True,
    )
    return state


def _archived(game_id: str, err: ApiError, *, queue: bool) -> engine_pb2.AnalysisState:
    """An archived game's analysis: the archive's when it has one; else the engine's from the
    record (queued from it when `queue`: the engine holds it while the AI computes it)."""
    game, done = archived_analysis(game_id, err)
    if done is not None:
        total = len(done.get("moves") or ())
        return engine_pb2.AnalysisState(
            status="done", done=total, total=total, result_json=json.dumps(done)
        )
    message = engine_pb2.AnalysisRequest(
        game_id=game_id, record_json=json.dumps(record(game), separators=(",", ":"))
    )
    engine = clients().engine
    return _call(engine.RequestAnalysis if queue else engine.GetAnalysis, message)


@bp.post("/games/<game_id>/analysis")
def request_analysis(game_id: str) -> Response:
    """Queue the analysis (202); asking again for one queued, running or done changes nothing
    and answers where it stands."""
    try:
        state = _call(clients().engine.RequestAnalysis, engine_pb2.AnalysisRequest(game_id=game_id))
    except ApiError as err:
        if not gone(err):
            raise
        state = _archived(game_id, err, queue=True)
    return _answer(state, game_id, 202)


@bp.get("/games/<game_id>/analysis")
def get_analysis(game_id: str) -> Response:
    """Where the analysis stands: `none` (never asked), `queued`, `running` with its progress,
    `failed` with the error, or `done` with every move's value, best move, loss and label."""
    try:
        state = _call(clients().engine.GetAnalysis, engine_pb2.AnalysisRequest(game_id=game_id))
    except ApiError as err:
        if not gone(err):
            raise
        state = _archived(game_id, err, queue=False)
    return _answer(state, game_id, 200)
