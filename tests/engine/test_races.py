"""Eight clients race for every move of one game: exactly one wins each version, the others get
ABORTED, and the event stream replays to the final state."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
from metro.v1 import engine_pb2

from games.metro import GAME, MetroState
from tests.engine.helpers import choose, code, moves_of, record_of
from tests.fixtures.engine import EngineClient, RunningEngine, doc

RACERS = 8


def _race(
    job: tuple[EngineClient, str, str, tuple[str, str], int, threading.Barrier],
) -> engine_pb2.GameView | grpc.RpcError:
    """One racer: wait for the others, then send its move pinned to the version."""
    client, game_id, token, (action, placement), version, barrier = job
    barrier.wait()
    try:
        return client.move(game_id, token, action, placement, expected_version=version)
    except grpc.RpcError as err:
        return err


def test_one_winner_per_version(engine: RunningEngine) -> None:
    control = engine.client()
    game_id, tokens = control.create_full({"players": 2})
    racers = [engine.client() for _ in range(RACERS)]  # one channel each
    rngs = [random.Random(i) for i in range(RACERS)]
    view = control.view(game_id)
    rounds = 0
    with ThreadPoolExecutor(RACERS) as pool:
        while view.status != "over":
            (seat,) = view.to_move
            legal = control.legal(game_id, tokens[seat])
            picks = [choose(moves_of(legal), rng, 0.2) for rng in rngs]
            barrier = threading.Barrier(RACERS)
            jobs = [
                (racers[i], game_id, tokens[seat], picks[i], legal.version, barrier)
                for i in range(RACERS)
            ]
            results = list(pool.map(_race, jobs))
            wins = [r for r in results if isinstance(r, engine_pb2.GameView)]
            losses = [r for r in results if isinstance(r, grpc.RpcError)]
            assert len(wins) == 1, f"version {legal.version}: {len(wins)} winners"
            assert {code(e) for e in losses} == {grpc.StatusCode.ABORTED}
            assert wins[0].version == legal.version + 1 and wins[0].seat == seat
            view = control.view(game_id)
            assert view.version == legal.version + 1
            rounds += 1

    # Exactly one event per version, and replaying the moves they show gives the final state.
    events = list(control.events(game_id))  # the stream ends with the game
    assert [e.version for e in events] == list(range(1, view.version + 1))
    assert len(events) == 2 + rounds  # create, join, one per won race
    docs = [doc(e) for e in events]
    assert [d["version"] for d in docs] == [e.version for e in events]
    moves = [
        {"seat": d["seat"], "action": "draw_place" if d["drawn"] else "place",
         "placement": d["placement"]}
        for d in docs
        if d["action"] == "place"
    ]  # fmt: skip
    record = record_of(control, game_id)
    replayed = GAME.replay({**record, "moves": moves})
    assert isinstance(replayed, MetroState)
    assert replayed.scores == [s["score"] for s in doc(view)["seats"]] == docs[-1]["scores"]
    assert replayed.board_placements() == doc(view)["board"]
