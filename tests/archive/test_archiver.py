"""The archiver against real processes: an engine with an archive configured, Redis, PostgreSQL
and `python -m services.archive` (issue 29 item 2)."""

from __future__ import annotations

from typing import Any

import redis

from games.compact import decode_record
from services.archive.ids import pack_id
from services.common.postgres_server import PostgresServer
from services.engine.core.archive_outbox import ARCHIVE_STREAMS
from services.engine.players.ratings import ratings_key
from tests.archive.helpers import (
    archived_count,
    finish,
    new_player,
    rows,
    start_rated_game,
    wait_for,
)
from tests.engine.helpers import record_of
from tests.fixtures.postgres import fresh_database

FINISHED_TTL_S = 120
HOLD_S = 30 * 24 * 3600


def outbox_length(store: Any) -> int:
    return sum(int(store.xlen(stream)) for stream in ARCHIVE_STREAMS)


def test_a_finished_game_is_archived_once_with_seats_players_and_ratings_then_released(
    redis_server_factory: Any,
    engine_factory: Any,
    archiver_factory: Any,
    postgres_server: PostgresServer,
) -> None:
    server = redis_server_factory()
    db = fresh_database(postgres_server)
    env = {"DATABASE_URL": db, "GAME_TTL_FINISHED_S": str(FINISHED_TTL_S)}
    client = engine_factory(server.url, env).client()
    store: Any = redis.Redis.from_url(server.url, decode_responses=True)
    ada, bob = new_player(client, "Ada"), new_player(client, "Bob")
    game_id, tokens = start_rated_game(client, [ada, bob])
    final = finish(client, game_id, tokens, seed=3)
    engine_record = record_of(client, game_id)

    # No archiver yet: the game's keys are held, and the outbox names the game once.
    assert store.ttl(f"game:{{{game_id}}}") > FINISHED_TTL_S
    assert outbox_length(store) == 1
    assert archived_count(db, game_id) == (0, 0)
    wait_for("the game's rating", lambda: store.hget(ratings_key("metro"), ada.player_id))

    archiver_factory(server.url, db, {"GAME_TTL_FINISHED_S": str(FINISHED_TTL_S)})
    wait_for("the game in the archive", lambda: archived_count(db, game_id) == (1, 2))
    wait_for("the outbox emptied", lambda: outbox_length(store) == 0)
    assert 0 < store.ttl(f"game:{{{game_id}}}") <= FINISHED_TTL_S  # released after the write
    assert 0 < store.ttl(f"game:{{{game_id}}}:events") <= FINISHED_TTL_S

    (game,) = rows(
        db,
        "SELECT g.created_ms, g.ended_ms, g.version, g.rated, g.private_seat, k.name, g.record"
        " FROM games g JOIN game_kinds k ON k.id = g.kind WHERE g.id = %s",
        (pack_id(game_id),),
    )
    created_ms, ended_ms, version, rated, private_seat, kind, record = game
    assert kind == "metro" and rated is True and private_seat == -1
    assert version == final["version"] and ended_ms >= created_ms > 0
    seats = rows(
        db,
        "SELECT s.seat, metro_id_text(p.id), p.name, s.score, s.result, s.rating_before,"
        " s.rating_after FROM seats s JOIN games g ON g.no = s.game"
        " JOIN players p ON p.no = s.player WHERE g.id = %s ORDER BY s.seat",
        (pack_id(game_id),),
    )
    scores = [s["score"] for s in final["seats"]]
    winners = final["winners"]
    assert [s[:4] for s in seats] == [
        (0, ada.player_id, "Ada", scores[0]),
        (1, bob.player_id, "Bob", scores[1]),
    ]
    for seat, row in enumerate(seats):
        expected = "l" if seat not in winners else ("w" if len(winners) == 1 else "d")
        assert row[4] == expected
        rating = json_rating(store.hget(ratings_key("metro"), row[1]))
        assert row[5] == 0  # a new player's rating (mu - 3 sigma) is 0
        assert abs(row[6] / 100 - rating) <= 0.01
    # The compact record gives the engine's record back, seats from the archive's rows.
    decoded = decode_record(bytes(record), engine_record["seats"])
    assert decoded == engine_record


def json_rating(text: str) -> float:
    import json

    data = json.loads(text)
    return float(data["mu"]) - 3 * float(data["sigma"])


def test_migrations_twice_and_at_once_are_safe(postgres_server: PostgresServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from services.archive.migrate import migrate, migrations

    url = postgres_server.create_database(f"twice_{id(object())}")
    with ThreadPoolExecutor(4) as pool:
        applied = list(pool.map(lambda _: migrate(url), range(4)))
    names = [path.name for _, path in migrations()]
    assert sorted(applied, key=len, reverse=True)[0] == names
    assert sum(len(a) for a in applied) == len(names)  # each file once over all starters
    assert migrate(url) == []
    assert rows(url, "SELECT count(*) FROM schema_migrations") == [(len(names),)]


def test_the_archive_stack_fixture_archives_a_game(archive_stack: Any) -> None:
    """What a test that asks for the archive gets: a finished game reaches PostgreSQL."""
    client = archive_stack.engine.client()
    ada, bob = new_player(client, "Ada"), new_player(client, "Bob")
    game_id, tokens = start_rated_game(client, [ada, bob], rated=False)
    finish(client, game_id, tokens, seed=5)
    db = archive_stack.database_url
    wait_for("the game archived", lambda: archived_count(db, game_id) == (1, 2))
    ratings = rows(
        db,
        "SELECT rating_before, rating_after FROM seats s JOIN games g ON g.no = s.game"
        " WHERE g.id = %s AND NOT g.rated",
        (pack_id(game_id),),
    )
    assert ratings == [(None, None), (None, None)]  # an unrated table: no ratings, no wait
