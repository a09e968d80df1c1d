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

from services.gateway.calls import bearer_token, clients, rpc

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


@bp.post("/games/<game_id>/analysis")
def request_analysis(game_id: str) -> Response:
    """Queue the analysis (202); asking again for one queued, running or done changes nothing
    and answers where it stands."""
    state = rpc(
        clients().engine.RequestAnalysis,
        engine_pb2.AnalysisRequest(game_id=game_id),
        token=bearer_token(),  # a private game's (a daily attempt's) analysis is its seat's
        idempotent=True,
    )
    return _answer(state, game_id, 202)


@bp.get("/games/<game_id>/analysis")
def get_analysis(game_id: str) -> Response:
    """Where the analysis stands: `none` (never asked), `queued`, `running` with its progress,
    `failed` with the error, or `done` with every move's value, best move, loss and label."""
    state = rpc(
        clients().engine.GetAnalysis,
        engine_pb2.AnalysisRequest(game_id=game_id),
        token=bearer_token(),  # a private game's (a daily attempt's) analysis is its seat's
        idempotent=True,
    )
    return _answer(state, game_id, 200)
