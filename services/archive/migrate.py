"""Apply the archive's schema migrations: services/archive/migrations/NNNN_name.sql, in order.

A small runner of our own, not Alembic: the schema is hand-written SQL whose every column is
sized on purpose (see 0001), there are no ORM models to generate migrations from, and forward-
only numbered files need ~50 lines and no new dependency; Alembic would bring SQLAlchemy and a
second description of the same tables.

Each file runs once, in one transaction with its row in `schema_migrations`, while this
connection holds an advisory lock: starters racing on one database (several archivers, `metro
up`, test fixtures) wait for each other, and each file is applied exactly once. Running it again
applies nothing. A committed file is never edited: a change is a new file.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import psycopg

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
LOCK_KEY = 0x6D6574726F  # the platform's name in ASCII: one advisory lock for the whole schema
_NAME = re.compile(r"(\d{4})_[a-z0-9_]+\.sql")


def migrations(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, Path]]:
    """The migration files by number; two files with one number is an error."""
    found: dict[int, Path] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _NAME.fullmatch(path.name)
        if not match:
            raise ValueError(f"{path.name}: a migration is named NNNN_words.sql")
        number = int(match.group(1))
        if number in found:
            raise ValueError(f"{path.name} and {found[number].name} share the number {number}")
        found[number] = path
    return sorted(found.items())


def migrate(url: str, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the migrations the database lacks; the names of those applied now."""
    applied: list[str] = []
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version int PRIMARY KEY, name text NOT NULL, applied_ms int8 NOT NULL)"
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for number, path in migrations(directory):
                if number in done:
                    continue
                with conn.transaction():
                    conn.execute(path.read_text())  # type: ignore[arg-type]  # our own files
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name, applied_ms)"
                        " VALUES (%s, %s, %s)",
                        (number, path.name, int(time.time() * 1000)),
                    )
                applied.append(path.name)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
    return applied
