"""Bot turns: a job per AI turn, claimed by one worker, retaken from a dead worker after the
idle time, acknowledged by the move, and never handed out once stale."""

from __future__ import annotations

import random
import threading
import time

import grpc
import pytest
from metro.v1 import engine_pb2

import games
from services.common.grpc_util import bearer, error_details
from services.common.levels import job_lease_ms
from tests.engine.helpers import choose, moves_of, record_of
from tests.fixtures.engine import EngineClient, RunningEngine, doc, metro_seats


@pytest.fixture
def bot_engine(redis_server_factory, engine_factory) -> RunningEngine:
    """An engine on a Redis of its own, so that no other test's AI seats enqueue jobs."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def _claim(c: EngineClient, worker: str, wait_ms: int, token: str | None = None):
    request = engine_pb2.ClaimBotTurnRequest(worker_id=worker, wait_ms=wait_ms)
    reply = c.stub.ClaimBotTurn(request, metadata=bearer(token or c.ai_token), timeout=40)
    return reply.turn if reply.HasField("turn") else None


def _bot_move(c: EngineClient, job, rng: random.Random) -> engine_pb2.GameView:
    legal = c.legal(job.game_id, c.ai_token, seat=job.seat)
    assert legal.version == job.version and legal.moves
    action, placement = choose(moves_of(legal), rng, 0.3)
    return c.move(job.game_id, c.ai_token, action, placement, seat=job.seat,
                  expected_version=job.version)  # fmt: skip


def test_dead_workers_job_is_retaken(bot_engine: RunningEngine) -> None:
    c = bot_engine.client()
    created = c.create({"players": 2}, metro_seats("ai", "human"))
    game_id, token = created.game_id, created.token
    assert created.seat == 1

    # Only the AI credential may claim.
    with pytest.raises(grpc.RpcError) as denied:
        _claim(c, "w", 0, token=token)
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED

    first = _claim(c, "worker-a", 2000)  # seat 0 is an AI: the game starts with its turn
    assert first is not None and (first.game_id, first.seat, first.version) == (game_id, 0, 1)
    assert first.attempt == 1 and first.level == "easy" and first.game == "metro"
    # worker-a "dies" holding it: nothing new for worker-b until the job has idled ~3 s.
    started = time.monotonic()
    retaken = _claim(c, "worker-b", 8000)
    waited = time.monotonic() - started
    assert retaken is not None and retaken.job_id == first.job_id and retaken.attempt == 2
    assert 2.5 <= waited <= 7.0
    # A still-current job cannot be dropped; the AI credential acts for AI seats only.
    with pytest.raises(grpc.RpcError) as current:
        c.stub.AckBotTurn(engine_pb2.AckBotTurnRequest(job_id=retaken.job_id),
                          metadata=bearer(c.ai_token))  # fmt: skip
    assert error_details(current.value)["reason"] == "job_current"
    with pytest.raises(grpc.RpcError) as human_seat:
        c.legal(game_id, c.ai_token, seat=1)
    assert human_seat.value.code() == grpc.StatusCode.PERMISSION_DENIED

    answer = _bot_move(c, retaken, random.Random(1))
    assert answer.version == first.version + 1 and answer.seat == 0
    # worker-a wakes up and tries the same job: the version check refuses the second move.
    with pytest.raises(grpc.RpcError) as late:
        c.move(game_id, c.ai_token, "draw", seat=0, expected_version=first.version)
    assert late.value.code() == grpc.StatusCode.ABORTED
    assert doc(answer)["turn"] == answer.to_move[0]
    if list(answer.to_move) == [1]:  # a placement: the human's turn now, no job for anyone
        assert _claim(c, "worker-a", 300) is None
    else:  # a draw: a new job for the same seat's placement
        job = _claim(c, "worker-a", 2000)
        assert list(answer.to_move) == [0] and doc(answer)["drawn"] is not None
        assert job is not None and job.version == answer.version and job.seat == 0
        assert job.job_id != first.job_id and job.attempt == 1


def test_slow_expert_search_is_not_handed_to_a_second_worker(bot_engine: RunningEngine) -> None:
    """An expert turn stays with its worker past the 3 s a fast level's job idles before it is
    retaken: the lease outlives expert's 3 s budget (doubled, plus a base), so a search that
    runs 4-6 s is not duplicated by a second worker; a dead worker's job is still retaken."""
    c = bot_engine.client()
    seats = metro_seats("ai", "human")
    seats[0].level = "expert"
    created = c.create({"players": 2}, seats)
    first = _claim(c, "worker-a", 2000)
    assert first is not None and first.level == "expert" and first.game_id == created.game_id
    lease_s = job_lease_ms("expert") / 1000
    assert lease_s >= 2 * 3.0  # well past the budget
    started = time.monotonic()
    assert _claim(c, "worker-b", 6000) is None  # worker-a is still "searching" at 6 s
    retaken = _claim(c, "worker-b", 8000)
    waited = time.monotonic() - started
    assert retaken is not None and retaken.job_id == first.job_id and retaken.attempt == 2
    assert lease_s - 0.5 <= waited <= lease_s + 5.0


def test_ai_game_plays_itself_exactly_once(bot_engine: RunningEngine) -> None:
    """Three workers play an all-AI game to the end; every version is one move."""
    c = bot_engine.client()
    created = c.create({"players": 3}, metro_seats("ai", "ai", "ai"))
    assert not created.HasField("seat") and created.token == ""
    game_id = created.game_id
    errors: list[BaseException] = []
    done = threading.Event()

    def work(name: str) -> None:
        client, rng = bot_engine.client(), random.Random(name)
        try:
            while not done.is_set():
                job = _claim(client, name, 500)
                if job is None:
                    continue
                try:
                    view = _bot_move(client, job, rng)
                except grpc.RpcError as err:
                    if err.code() != grpc.StatusCode.ABORTED:
                        raise
                    continue
                if view.status == "over":
                    done.set()
        except BaseException as err:  # reported by the test below
            errors.append(err)
            done.set()

    workers = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(3)]
    for w in workers:
        w.start()
    done.wait(90)
    done.set()
    for w in workers:
        w.join(10)
    assert not errors, errors
    final = c.view(game_id)
    assert final.status == "over"
    events = list(c.events(game_id))
    assert [e.version for e in events] == list(range(1, final.version + 1))
    replayed = games.get("metro").replay(record_of(c, game_id))
    assert replayed.scores == [s["score"] for s in doc(final)["seats"]]
    assert _claim(c, "w0", 0) is None  # nothing left over
