"""Playing any game of the registry through the engine, and looking at where its keys live."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import grpc
from metro.v1 import engine_pb2

import games
from services.engine.core.shards import TAGS, shard_of, slot_of
from services.engine.core.store import events_key, game_key, index_key
from tests.engine.helpers import code, moves_of
from tests.fixtures.engine import EngineClient, doc
from tests.fixtures.redis_cluster import Node, RedisClusterProcesses

Acked = tuple[int, int, dict[str, Any]]  # (version answered, seat, move)


def human_players(kind: str) -> int:
    return max(2, games.get(kind).players[0])


def move_until_acked(
    client: EngineClient, game_id: str, token: str, move: dict[str, Any], *,
    expected_version: int, move_id: str, patience_s: float = 0.0,
) -> engine_pb2.GameView:  # fmt: skip
    """Send a move; while the store is unavailable (a failover, a primary without the replica
    it must confirm each change on), send the very same request again (same move_id) for up to
    `patience_s`, as a client retrying would."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            return client.move(game_id, token, move, expected_version=expected_version,
                               move_id=move_id)  # fmt: skip
        except grpc.RpcError as err:
            # (The channel itself retries UNAVAILABLE until the call's deadline; UNKNOWN is a
            # change the engine could not confirm on a replica: the same move_id tells.)
            retryable = code(err) in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.UNKNOWN,
                grpc.StatusCode.DEADLINE_EXCEEDED,
            )
            if not retryable or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def play_out_any(
    client: EngineClient,
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    *,
    before_move: Callable[[int], None] | None = None,
    patience_s: float = 0.0,
) -> tuple[engine_pb2.GameView, list[Acked]]:
    """Random legal moves for every seat due (each of a simultaneous turn in seat order) until
    the game is over; the final view and every acknowledged move."""
    acked: list[Acked] = []
    view = client.view(game_id)
    while view.status != "over":
        for seat in list(view.to_move):
            legal = client.legal(game_id, tokens[seat])
            moves = moves_of(legal)
            assert moves, f"seat {seat} has no legal move at version {legal.version}"
            move = rng.choice(moves)
            if before_move is not None:
                before_move(len(acked))
            answer = move_until_acked(client, game_id, tokens[seat], move,
                                      expected_version=legal.version, move_id=f"m{len(acked)}",
                                      patience_s=patience_s)  # fmt: skip
            assert answer.version == legal.version + 1 and answer.seat == seat
            acked.append((answer.version, seat, move))
            if answer.status == "over":
                break
        view = client.view(game_id)
    return view, acked


def check_finished(
    client: EngineClient, kind: str, game_id: str, final: engine_pb2.GameView
) -> None:
    """The record replays, by the rules core, to the final view's scores; one event per
    version, none missing."""
    reply = client.record(game_id)
    record = json.loads(reply.record_json)
    replayed = games.get(kind).replay(record)
    assert replayed.is_over
    seats = doc(final)["seats"]
    assert replayed.scores == record["scores"] == [s["score"] for s in seats]
    events = client.events_until(game_id, final.version)
    assert [e.version for e in events] == list(range(1, final.version + 1))


def node_of(cluster: RedisClusterProcesses, game_id: str) -> Node:
    """The primary serving the game's slot now."""
    return cluster.primary_of_slot(slot_of(game_id))


def check_in_one_slot(cluster: RedisClusterProcesses, game_id: str, status: str) -> None:
    """The game's keys and its shard's status index sit on the same primary, read there
    directly (no cluster client), and the index lists the game."""
    shard = shard_of(game_id)
    assert shard is not None
    node = node_of(cluster, game_id)
    with node.client() as direct:
        assert direct.execute_command("CLUSTER", "KEYSLOT", game_key(game_id)) == slot_of(
            TAGS[shard]
        )
        assert direct.exists(game_key(game_id), events_key(game_id)) == 2
        assert direct.zscore(index_key(status, shard), game_id) is not None
