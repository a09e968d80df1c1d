"""A client's move_id makes a retry safe: the first answer comes back and nothing is applied
twice, even when the retries race each other."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from metro.v1 import engine_pb2

from tests.fixtures.engine import EngineClient, RunningEngine


def _first_place(client: EngineClient, game_id: str, token: str) -> str:
    legal = client.legal(game_id, token)
    return next(m.metro.placement for m in legal.moves if m.metro.action == "place")


def test_repeated_move_id_is_answered_not_applied(engine_client: EngineClient) -> None:
    c = engine_client
    game_id, tokens = c.create_full({"players": 2})
    before = c.view(game_id)
    placement = _first_place(c, game_id, tokens[0])

    first = c.move(game_id, tokens[0], "place", placement, move_id="m-1", expected_version=2)
    again = c.move(game_id, tokens[0], "place", placement, move_id="m-1", expected_version=2)
    plain = c.move(game_id, tokens[0], "place", placement, move_id="m-1")
    assert first.version == before.version + 1
    assert again == first  # (map order makes byte comparison unreliable)
    assert plain == first
    assert c.view(game_id).version == first.version
    assert [e.version for e in c.events_until(game_id, first.version)] == [1, 2, 3]

    # Move ids belong to a seat: seat 1 may use the same id for its own move.
    placement = _first_place(c, game_id, tokens[1])
    second = c.move(game_id, tokens[1], "place", placement, move_id="m-1")
    assert second.version == first.version + 1 and second.seat == 1


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
    assert all(answer == answers[0] for answer in answers)
    view = control.view(game_id)
    assert view.version == 4 and view.turn == 1  # create, 2 joins, one move
    events = control.events_until(game_id, view.version)
    assert [e.action for e in events] == ["create", "join", "join", "place"]
