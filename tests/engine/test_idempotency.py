"""A client's move_id makes a retry safe: nothing is applied twice, even when the retries race
each other, and a retry is answered with the mover's view as it is now."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from metro.v1 import engine_pb2

from tests.engine.helpers import moves_of
from tests.fixtures.engine import EngineClient, RunningEngine, doc


def _first_place(client: EngineClient, game_id: str, token: str) -> str:
    legal = client.legal(game_id, token)
    return next(m["placement"] for m in moves_of(legal) if m["action"] == "place")


def test_repeated_move_id_is_answered_not_applied(engine_client: EngineClient) -> None:
    c = engine_client
    game_id, tokens = c.create_full({"players": 2})
    before = c.view(game_id)
    placement = _first_place(c, game_id, tokens[0])

    first = c.move(game_id, tokens[0], "place", placement, move_id="m-1", expected_version=2)
    again = c.move(game_id, tokens[0], "place", placement, move_id="m-1", expected_version=2)
    plain = c.move(game_id, tokens[0], "place", placement, move_id="m-1")
    assert first.version == before.version + 1
    assert first.seat == 0 and doc(first)["board"] == [placement]
    # Nothing changed in between: the retries get the mover's current view, i.e. the first's.
    current = c.view(game_id, tokens[0])
    assert current.version == first.version
    assert again == current and plain == current  # (whole messages: JSON text included)
    assert [doc(e)["version"] for e in c.events_until(game_id, first.version)] == [1, 2, 3]

    # Move ids belong to a seat: seat 1 may use the same id for its own move.
    placement = _first_place(c, game_id, tokens[1])
    second = c.move(game_id, tokens[1], "place", placement, move_id="m-1")
    assert second.version == first.version + 1 and second.seat == 1

    # A retry after the game moved on changes nothing and answers the mover's view as it is
    # now (not a stored copy of the first answer).
    late = c.move(game_id, tokens[0], "place", doc(first)["board"][0], move_id="m-1")
    assert late.seat == 0 and late.version == second.version >= first.version
    assert late == c.view(game_id, tokens[0])
    assert len(doc(late)["board"]) == 2
    assert c.view(game_id).version == second.version
    events = c.events_until(game_id, second.version)
    assert [e.version for e in events] == [1, 2, 3, 4]
    assert [doc(e)["action"] for e in events] == ["create", "join", "place", "place"]


def test_racing_retries_apply_once(engine: RunningEngine) -> None:
    control = engine.client()
    game_id, tokens = control.create_full({"players": 3})
    placement = _first_place(control, game_id, tokens[0])
    clients = [engine.client() for _ in range(6)]
    barrier = threading.Barrier(len(clients))

    def send(client: EngineClient) -> engine_pb2.GameView:
        barrier.wait()
        return client.move(game_id, tokens[0], "place", placement, move_id="same")

    with ThreadPoolExecutor(len(clients)) as pool:
        answers = list(pool.map(send, clients))
    # Nothing else moved: every answer is the mover's view after the one move.
    assert answers[0].version == 4 and answers[0].seat == 0
    assert all(answer == answers[0] for answer in answers)
    assert answers[0] == control.view(game_id, tokens[0])
    view = control.view(game_id)
    assert view.version == 4 and list(view.to_move) == [1]  # create, 2 joins, one move
    assert doc(view)["turn"] == 1 and doc(view)["board"] == [placement]
    events = control.events_until(game_id, view.version)
    assert [doc(e)["action"] for e in events] == ["create", "join", "join", "place"]


def test_a_different_move_under_a_used_move_id_is_refused(engine_client: EngineClient) -> None:
    """Issue 30 item 5: a used move_id names one move; another move under it is not silently
    answered as a repeat (200 with nothing applied) but refused: idempotency_mismatch (422)."""
    c = engine_client
    game_id, tokens = c.create_full({"players": 3})
    legal = moves_of(c.legal(game_id, tokens[0]))
    places = [m["placement"] for m in legal if m["action"] == "place"]
    first = c.move(game_id, tokens[0], "place", places[0], move_id="once")
    assert c.move(game_id, tokens[0], "place", places[0], move_id="once") == c.view(
        game_id, tokens[0]
    )  # the same move again: answered, not applied
    with pytest.raises(grpc.RpcError) as refused:
        c.move(game_id, tokens[0], "place", places[1], move_id="once")
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert dict(refused.value.trailing_metadata())["metro-error-reason"] == "idempotency_mismatch"
    assert c.view(game_id).version == first.version  # nothing applied
