"""kill -9 of the archiver, the engine, Redis and PostgreSQL: no finished game is lost and none
is written twice (issue 29 item 2). Every process is real; rows are counted in PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from metro.v1 import engine_pb2

from services.common.postgres_server import PostgresServer
from services.engine.core.archive_outbox import ARCHIVE_STREAMS
from services.engine.players.ratings import done_key
from tests.archive.helpers import archived_count, finish, new_player, start_rated_game, wait_for
from tests.fixtures.engine import EngineClient
from tests.fixtures.postgres import TEMPLATE, fresh_database

FINISHED_TTL_S = 300
FAST_CLAIM = {"ARCHIVE_CLAIM_IDLE_MS": "500", "GAME_TTL_FINISHED_S": str(FINISHED_TTL_S)}


def outbox(store: Any) -> int:
    return sum(int(store.xlen(stream)) for stream in ARCHIVE_STREAMS)


def waiting(store: Any) -> list[str]:
    """The games the outbox still names (an entry goes once its game is archived)."""
    return [fields["game_id"] for stream in ARCHIVE_STREAMS for _, fields in store.xrange(stream)]


def held(store: Any, game_id: str) -> bool:
    """The game's keys wait for the archive (far longer than the finished TTL)."""
    return int(store.ttl(f"game:{{{game_id}}}")) > FINISHED_TTL_S


def released(store: Any, game_id: str) -> bool:
    return 0 < int(store.ttl(f"game:{{{game_id}}}")) <= FINISHED_TTL_S


def play_game(client: EngineClient, players: list[Any], seed: int) -> str:
    game_id, tokens = start_rated_game(client, players)
    finish(client, game_id, tokens, seed)
    return game_id


@pytest.fixture
def own_postgres(tmp_path: Path) -> Iterator[PostgresServer]:
    """A server of this test's own, which it may kill (the session's stays up for the rest)."""
    from services.archive.migrate import migrate

    server = PostgresServer(tmp_path / "pg", fast=True)
    server.start()
    migrate(server.create_database(TEMPLATE))
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("crash_at", ["before_write", "after_commit", "after_release"])
def test_an_archiver_killed_mid_entry_leaves_its_game_to_the_next_written_once(
    crash_at: str,
    redis_server_factory: Any,
    engine_factory: Any,
    archiver_factory: Any,
    postgres_server: PostgresServer,
) -> None:
    server = redis_server_factory()
    db = fresh_database(postgres_server)
    client = engine_factory(server.url, {"DATABASE_URL": db, **FAST_CLAIM}).client()
    store: Any = redis.Redis.from_url(server.url, decode_responses=True)
    game_id = play_game(client, [new_player(client, "Ada"), new_player(client, "Bob")], 11)

    doomed = archiver_factory(server.url, db, {**FAST_CLAIM, "ARCHIVER_CRASH_AT": crash_at})
    wait_for("the archiver to die at its fault point", lambda: not doomed.alive)
    written = archived_count(db, game_id)
    assert written == ((0, 0) if crash_at == "before_write" else (1, 2))
    assert outbox(store) == 1  # not acknowledged: the entry stays for another archiver
    assert held(store, game_id) == (crash_at != "after_release")

    archiver_factory(server.url, db, FAST_CLAIM)
    wait_for("the entry taken over and done", lambda: outbox(store) == 0)
    assert archived_count(db, game_id) == (1, 2)
    assert released(store, game_id)


def engine_answers(client: EngineClient) -> bool:
    """Whether the engine answers a call that reads Redis (UNAVAILABLE while it cannot)."""
    try:
        client.stub.GetLeaderboard(engine_pb2.GetLeaderboardRequest(game="metro"), timeout=10)
    except grpc.RpcError as err:
        if err.code() == grpc.StatusCode.UNAVAILABLE:
            return False
        raise
    return True


def test_kill_9_of_postgres_redis_and_the_engine_loses_no_game_and_writes_none_twice(
    redis_server_factory: Any,
    engine_factory: Any,
    archiver_factory: Any,
    own_postgres: PostgresServer,
) -> None:
    server = redis_server_factory()
    store: Any = redis.Redis.from_url(server.url, decode_responses=True)
    store.config_set("appendfsync", "always")  # an acknowledged move survives a kill -9
    db = fresh_database(own_postgres)
    running = engine_factory(server.url, {"DATABASE_URL": db, **FAST_CLAIM})
    client = running.client()
    players = [new_player(client, "Ada"), new_player(client, "Bob")]
    archiver = archiver_factory(server.url, db, FAST_CLAIM)
    games: list[str] = []

    # 1. A game archived as it ends.
    games.append(play_game(client, players, 1))
    wait_for("game 1 archived", lambda: archived_count(db, games[0]) == (1, 2))
    wait_for("its entry done", lambda: outbox(store) == 0)

    # 2. PostgreSQL killed: live play goes on; the finished game waits, held, in the outbox.
    own_postgres.kill()
    games.append(play_game(client, players, 2))
    wait_for("game 2 rated", lambda: store.zscore(done_key("metro"), games[1]) is not None)
    assert held(store, games[1]) and waiting(store) == [games[1]]
    own_postgres.start()
    wait_for("game 2 archived", lambda: archived_count(db, games[1]) == (1, 2), timeout=90)
    wait_for("its entry done", lambda: outbox(store) == 0)

    # 3. Redis killed while a finished game waits for an archiver (also killed).
    archiver.kill()
    games.append(play_game(client, players, 3))
    wait_for("game 3 rated", lambda: store.zscore(done_key("metro"), games[2]) is not None)
    server.kill()
    server.start()
    store = redis.Redis.from_url(server.url, decode_responses=True)
    assert waiting(store) == [games[2]] and held(store, games[2])
    archiver = archiver_factory(server.url, db, FAST_CLAIM)
    wait_for("game 3 archived", lambda: archived_count(db, games[2]) == (1, 2), timeout=90)

    # 4. The engine killed right after the move that ends a rated game (perhaps before it rated
    # it: then the restarted engine's sweep does, and the archiver waits for that rating).
    # First the engine must reach the restarted Redis (it says "not answering" until it does).
    wait_for("the engine reaches the restarted Redis", lambda: engine_answers(client), timeout=90)
    games.append(play_game(client, players, 4))
    running.process.kill()
    running.process.start()
    wait_for("game 4 archived", lambda: archived_count(db, games[3]) == (1, 2), timeout=90)

    wait_for("every entry done", lambda: outbox(store) == 0)
    assert [archived_count(db, g) for g in games] == [(1, 2)] * 4
    from tests.archive.helpers import rows

    assert rows(db, "SELECT count(*), count(DISTINCT id) FROM games") == [(4, 4)]
    assert rows(db, "SELECT count(*) FROM seats WHERE rating_after IS NULL") == [(0,)]
    for game_id in games:
        assert released(store, game_id)
