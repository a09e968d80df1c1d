"""The engine's side of post-game analysis (services/engine/play/analysis.py) on a real engine and
Redis, the test standing in for an AI worker: who may ask, the queue, the lease held by one
worker, progress, a bad result refused, the result kept and never queued twice.

Each test has an engine on a Redis of its own: the session's AI process (started by whichever
earlier test asked for `ai`) polls the session engine's queue every second, and once claimed this
file's games (seen 'done' where 'queued' was asserted) and drained its fillers.
"""

from __future__ import annotations

import json
import random
from typing import Any

import grpc
import pytest
import redis
from metro.v1 import engine_pb2

from services.common.grpc_util import bearer, error_details
from services.engine.play.analysis import MAX_QUEUED, QUEUE_KEY
from tests.fixtures.engine import EngineClient, RunningEngine


def finished_metro(client: EngineClient) -> str:
    game, tokens = client.create_full({"players": 2})
    rng = random.Random(2)
    view = client.view(game)
    while view.status == "playing":
        token = tokens[view.to_move[0]]
        move = rng.choice(list(client.legal(game, token).moves))
        view = client.move(game, token, json.loads(move))
    return game


@pytest.fixture
def quiet_engine(redis_server_factory: Any, engine_factory: Any) -> RunningEngine:
    """An engine on a Redis of its own: no AI worker claims its analyses (this test does)."""
    return engine_factory(redis_server_factory(appendonly=False).url)  # type: ignore[no-any-return]


@pytest.fixture
def engine_client(quiet_engine: RunningEngine) -> EngineClient:
    return quiet_engine.client()


def test_a_worker_claims_reports_and_the_result_is_kept(engine_client: EngineClient) -> None:
    stub, ai = engine_client.stub, bearer(engine_client.ai_token)
    running, _ = engine_client.create_full({"players": 2})
    with pytest.raises(grpc.RpcError) as err:
        stub.RequestAnalysis(engine_pb2.AnalysisRequest(game_id=running))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as err:
        stub.GetAnalysis(engine_pb2.AnalysisRequest(game_id="nosuchgame42"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND

    game = finished_metro(engine_client)
    request = engine_pb2.AnalysisRequest(game_id=game)
    assert stub.GetAnalysis(request).status == "none"
    assert stub.RequestAnalysis(request).status == "queued"
    assert stub.RequestAnalysis(request).status == "queued"  # once in the queue, not twice

    # Only the AI credential claims; the job goes to one worker.
    claim = engine_pb2.ClaimAnalysisRequest(worker_id="w-1")
    with pytest.raises(grpc.RpcError) as err:
        stub.ClaimAnalysis(claim)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    claimed = stub.ClaimAnalysis(claim, metadata=ai)  # this Redis's queue holds only this game
    assert claimed.game_id == game and claimed.attempt == 1
    assert stub.GetAnalysis(request).status == "running"

    def report(worker: str, done: int, total: int, result: str = "") -> engine_pb2.AnalysisState:
        return stub.ReportAnalysis(
            engine_pb2.ReportAnalysisRequest(
                game_id=game, worker_id=worker, done=done, total=total, result_json=result
            ),
            metadata=ai,
        )

    with pytest.raises(grpc.RpcError) as err:
        report("w-2", 1, 10)  # not the worker holding it
    assert err.value.code() == grpc.StatusCode.ABORTED
    state = report("w-1", 4, 10)
    assert (state.status, state.done, state.total) == ("running", 4, 10)
    for bad in ("not json", json.dumps({"game_id": "other", "moves": []})):
        with pytest.raises(grpc.RpcError) as err:
            report("w-1", 10, 10, bad)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    result = json.dumps({"game_id": game, "moves": [{"index": 0}], "seats": []})
    state = report("w-1", 1, 1, result)
    assert (state.status, state.done, state.total) == ("done", 1, 1)
    assert json.loads(stub.GetAnalysis(request).result_json)["game_id"] == game
    assert stub.RequestAnalysis(request).status == "done"  # done: nothing queued again
    assert stub.ClaimAnalysis(claim, metadata=ai).game_id != game


def test_a_full_analysis_queue_refuses_new_analyses(
    quiet_engine: RunningEngine, engine_client: EngineClient
) -> None:
    """With MAX_QUEUED analyses waiting (other games' stand-ins here), a new one is refused with
    RESOURCE_EXHAUSTED rate_limited (the gateway's 429); one already asked for is still
    answered. Before, the queue had no bound: one address queued 196 in 1.5 s."""
    stub = engine_client.stub
    asked, fresh = finished_metro(engine_client), finished_metro(engine_client)
    assert stub.RequestAnalysis(engine_pb2.AnalysisRequest(game_id=asked)).status == "queued"
    r = redis.Redis.from_url(quiet_engine.redis_url)
    fillers = {f"filler-{i}": 0 for i in range(MAX_QUEUED)}
    try:
        r.zadd(QUEUE_KEY, fillers)
        with pytest.raises(grpc.RpcError) as err:
            stub.RequestAnalysis(engine_pb2.AnalysisRequest(game_id=fresh))
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_details(err.value)["reason"] == "rate_limited"
        assert "waiting for a worker" in (err.value.details() or "")
        again = stub.RequestAnalysis(engine_pb2.AnalysisRequest(game_id=asked))
        assert again.status == "queued"
    finally:
        r.zrem(QUEUE_KEY, *fillers)
        r.close()
