"""migrations/0002_seats_through_players.sql on an archive written under 0001: the games that
were there before it keep their seats (found now through each game's packed player numbers and
the player index), a guest's seat included (issue 29: <= 400 bytes a 2-player Metro game)."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg

from games.compact import encode_record
from services.archive.ids import pack_players
from services.archive.migrate import MIGRATIONS_DIR, migrate
from services.archive.reads import Archive
from services.common.postgres_server import PostgresServer
from tests.gateway.archive_rows import random_record


def test_games_archived_before_0002_keep_their_seats(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = postgres_server.create_database(f"m0002_{tmp_path.name[-8:].lower()}")
    only_first = tmp_path / "migrations"
    only_first.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_archive.sql", only_first)
    assert migrate(url, only_first) == ["0001_archive.sql"]
    game_id, ada = "G" * 16, "A" * 12
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("INSERT INTO players (id, name) VALUES (metro_id(%s), 'Ada')", (ada,))
        conn.execute("INSERT INTO game_kinds VALUES (1, 'metro')")  # as the archiver numbers it
        conn.execute(
            "INSERT INTO games (created_ms, ended_ms, version, last_event_seq, kind, rated, id,"
            " record) VALUES (1, 2, 70, 0, 1, false, metro_id(%s), %s)",
            (game_id, encode_record(random_record(3))),
        )
        # 0001's shape: a guest's seat has no player (NULL) and a label.
        conn.execute(
            "INSERT INTO seats (game, player, score, kind, seat, result) VALUES"
            " (1, (SELECT no FROM players), 30, 1, 0, 'w'), (1, NULL, 20, 1, 1, 'l')"
        )
        conn.execute("INSERT INTO seat_labels VALUES (1, 1, 'h', 'Guest Bea')")
    shutil.copy(MIGRATIONS_DIR / "0002_seats_through_players.sql", only_first)
    assert migrate(url, only_first) == ["0002_seats_through_players.sql"]
    with psycopg.connect(url, autocommit=True) as conn:
        ada_no = conn.execute("SELECT no FROM players").fetchone()
        assert ada_no is not None
        packed = conn.execute("SELECT players FROM games").fetchone()
        assert packed is not None and bytes(packed[0]) == pack_players([ada_no[0], 0])
        indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes")}
        assert "seats_by_game" not in indexes and "seats_by_player" in indexes
    archive = Archive(url)
    try:
        game = archive.game(game_id)
        assert game is not None
        assert [(s["name"], s["score"], s["result"]) for s in game.seats] == [
            ("Ada", 30, "win"),
            ("Guest Bea", 20, "loss"),
        ]
        assert game.seats[0]["player_id"] == ada and "player_id" not in game.seats[1]
        page = archive.history(ada)
        assert page is not None and [g["game_id"] for g in page[0]] == [game_id]
        assert [s["name"] for s in page[0][0]["seats"]] == ["Ada", "Guest Bea"]
    finally:
        archive.close()
