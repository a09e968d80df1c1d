"""The engine on a real 3-primary Redis Cluster (one replica each, every change WAITed for):
whole games of every kind in the registry, races, retries, listings that gather every shard,
and AI seats played by a real AI worker through the per-shard bot-turn streams."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from metro.v1 import engine_pb2

import games
from tests.cluster.conftest import ENGINE_ENV
from tests.cluster.helpers import (
    check_finished,
    check_in_one_slot,
    human_players,
    node_of,
    play_out_any,
)
from tests.engine.helpers import code, moves_of
from tests.fixtures.engine import EngineClient, RunningEngine, doc, metro_seats
from tests.fixtures.redis_cluster import RedisClusterProcesses
from tests.fixtures.waits import wait_until


@pytest.mark.parametrize("kind", games.kinds())
def test_a_whole_game_of_every_kind(
    kind: str, cluster_engine: RunningEngine, redis_cluster: RedisClusterProcesses
) -> None:
    client = cluster_engine.client()
    game_id, tokens = client.create_full({"players": human_players(kind)}, game=kind)
    check_in_one_slot(redis_cluster, game_id, "playing")
    final, acked = play_out_any(client, game_id, tokens, random.Random(kind))
    assert final.status == "over" and len(acked) > 5
    check_finished(client, kind, game_id, final)
    check_in_one_slot(redis_cluster, game_id, "over")


def _race(job: tuple[EngineClient, str, str, dict[str, Any], int, str, threading.Barrier]) -> Any:
    client, game_id, token, move, version, move_id, barrier = job
    barrier.wait()
    try:
        return client.move(game_id, token, move, expected_version=version, move_id=move_id)
    except grpc.RpcError as err:
        return err


def test_racing_moves_through_two_engines_are_resolved_once(
    cluster_engine: RunningEngine, redis_cluster: RedisClusterProcesses, engine_factory: Any
) -> None:
    other = engine_factory(redis_cluster.url, ENGINE_ENV)
    racers = [(cluster_engine if i % 2 else other).client() for i in range(6)]
    control = cluster_engine.client()
    rng = random.Random(5)
    with ThreadPoolExecutor(len(racers)) as pool:
        # Turns of one seat: six clients send six moves pinned to one version; one wins.
        game_id, tokens = control.create_full({"players": 2}, game="metro")
        for round_ in range(8):
            view = control.view(game_id)
            (seat,) = view.to_move
            moves = moves_of(control.legal(game_id, tokens[seat]))
            barrier = threading.Barrier(len(racers))
            jobs = [(r, game_id, tokens[seat], rng.choice(moves), view.version,
                     f"r{round_}-{i}", barrier) for i, r in enumerate(racers)]  # fmt: skip
            results = list(pool.map(_race, jobs))
            wins = [r for r in results if isinstance(r, engine_pb2.GameView)]
            assert len(wins) == 1, f"version {view.version}: {len(wins)} winners"
            assert {code(e) for e in results if isinstance(e, grpc.RpcError)} == {
                grpc.StatusCode.ABORTED
            }
            assert control.view(game_id).version == view.version + 1 == wins[0].version

        # A simultaneous turn: every seat chooses at the same instant; the turn resolves once.
        seats = 4
        game_id, tokens = control.create_full({"players": seats}, game="metrox")
        for _turn in range(3):
            start = control.view(game_id)
            assert list(start.to_move) == list(range(seats))
            barrier = threading.Barrier(seats)
            jobs = [(racers[s], game_id, tokens[s],
                     rng.choice(moves_of(control.legal(game_id, tokens[s]))), start.version,
                     f"t{_turn}-{s}", barrier) for s in range(seats)]  # fmt: skip
            results = list(pool.map(_race, jobs))
            assert all(isinstance(r, engine_pb2.GameView) for r in results), results
            after = control.view(game_id)
            assert doc(after)["turn_index"] == doc(start)["turn_index"] + 1
            events = [doc(e) for e in control.events_until(game_id, after.version)]
            new = [e for e in events if e["version"] > start.version]
            resolves = [e for e in new if e["action"] == "resolve"]
            # (The last choice may be committed with the resolution, in one event.)
            assert len(resolves) == 1, new
            # The choices as recorded: each listed move without the preview it was listed with.
            chosen = [{k: v for k, v in job[3].items() if k != "preview"} for job in jobs]
            assert resolves[0]["choices"] == chosen
            assert [e["version"] for e in new] == list(range(start.version + 1, after.version + 1))


def test_a_retried_move_is_applied_once_whichever_engine_gets_it(
    cluster_engine: RunningEngine, redis_cluster: RedisClusterProcesses, engine_factory: Any
) -> None:
    first = cluster_engine.client()
    second = engine_factory(redis_cluster.url, ENGINE_ENV).client()
    for kind in games.kinds():
        game_id, tokens = first.create_full({"players": human_players(kind)}, game=kind)
        view = first.view(game_id)
        seat = view.to_move[0]
        move = random.Random(kind).choice(moves_of(first.legal(game_id, tokens[seat])))
        answer = first.move(game_id, tokens[seat], move, expected_version=view.version,
                            move_id="once")  # fmt: skip
        again = second.move(game_id, tokens[seat], move, expected_version=view.version,
                            move_id="once")  # fmt: skip
        assert again.version == answer.version == view.version + 1, kind
        assert second.view(game_id).version == answer.version
        events = first.events_until(game_id, answer.version)
        assert [e.version for e in events] == list(range(1, answer.version + 1))


def test_open_games_are_listed_from_every_shard(
    cluster_engine: RunningEngine, redis_cluster: RedisClusterProcesses
) -> None:
    client = cluster_engine.client()
    made = []
    for i in range(30):
        kind = games.kinds()[i % len(games.kinds())]
        created = client.create({"players": 2}, metro_seats("human", "open"), game=kind)
        made.append((created.game_id, kind))
    ids = [g for g, _ in made]
    # 30 games over 64 shards: on every primary (all on two of three: odds ~1 in 60,000).
    assert len({node_of(redis_cluster, g).port for g in ids}) == 3
    listed = client.stub.ListGames(engine_pb2.ListGamesRequest(status="open", limit=200))
    listed_ids = [g.game_id for g in listed.games]
    assert set(ids) <= set(listed_ids)
    stamps = [g.created_at.ToMilliseconds() for g in listed.games]
    assert stamps == sorted(stamps, reverse=True)  # newest first, merged over the shards
    kind = games.kinds()[0]
    only = client.stub.ListGames(engine_pb2.ListGamesRequest(status="open", game=kind, limit=200))
    assert {g.game for g in only.games} == {kind}
    assert {g for g, k in made if k == kind} <= {g.game_id for g in only.games}
    # A joined game leaves the open list for the playing one (its shard's indexes, one script).
    joined = ids[0]
    client.join(joined, "Bo")
    check_in_one_slot(redis_cluster, joined, "playing")
    open_now = client.stub.ListGames(engine_pb2.ListGamesRequest(status="open", limit=200))
    playing = client.stub.ListGames(engine_pb2.ListGamesRequest(status="playing", limit=200))
    assert joined not in {g.game_id for g in open_now.games}
    assert joined in {g.game_id for g in playing.games}


def test_ai_seats_are_played_by_a_worker_through_every_shards_stream(
    cluster_engine: RunningEngine, redis_cluster: RedisClusterProcesses, ai_factory: Any
) -> None:
    ai_factory(cluster_engine, env={"AI_BOT_WORKERS": "3"})
    client = cluster_engine.client()
    made = []
    for kind in games.kinds():
        for _ in range(2):
            seats = [engine_pb2.SeatSpec(kind="ai", level="random", name=f"bot-{i}")
                     for i in range(human_players(kind))]  # fmt: skip
            made.append((client.create({"players": len(seats)}, seats, game=kind).game_id, kind))
    pending = dict(made)

    def all_over() -> bool:
        for game_id in list(pending):
            if client.view(game_id).status == "over":
                check_finished(client, pending.pop(game_id), game_id, client.view(game_id))
        return not pending

    wait_until(all_over, f"all {len(made)} AI games over", timeout=90, every=0.2)
