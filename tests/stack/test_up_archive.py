"""`metro up` runs the archive (issue 29): its own PostgreSQL (data under the run dir, migrated)
and an archiver; a finished game reaches PostgreSQL, and PostgreSQL and the archiver killed with
SIGKILL come back on their own, the next finished game archived too. With finished games kept
in Redis for 5 s only, both still answer their view and record after the whole stack stopped and
started again. Real processes throughout.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
import redis

from services.archive.ids import pack_id
from services.engine.core.store_keys import game_key
from tests.fixtures import waits
from tests.fixtures.processes import free_port
from tests.stack.test_faults import Game, start_up, until_ok
from tests.stack.test_stack import children_of

FINISHED_TTL_S = 5  # how long a finished game stays in Redis once archived


def finish(game: Game) -> None:
    while game.our_turn()["status"] != "over":
        game.move()


def archived(url: str, game_id: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=2) as conn:
            row = conn.execute("SELECT 1 FROM games WHERE id = %s", (pack_id(game_id),))
            return row.fetchone() is not None
    except psycopg.OperationalError:
        return False


def child(up_pid: int, mark: str) -> int:
    for pid in children_of(up_pid):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if mark in cmdline:
            return pid
    raise AssertionError(f"no child of metro up runs {mark!r}")


def wait_for(what: str, check: Callable[[], bool], timeout: float = 90.0) -> None:
    waits.wait_until(check, what, timeout, every=0.2)


@pytest.mark.timeout(600)
def test_metro_up_archives_finished_games_through_kills_of_postgres_and_the_archiver(
    tmp_path: Path,
) -> None:
    port = free_port()
    keep = {"GAME_TTL_FINISHED_S": str(FINISHED_TTL_S)}
    up, said = start_up(tmp_path, "--port", str(port), "--ai-workers", "1", env=keep)
    try:
        found = re.search(r"postgres: \S+ at (postgresql://\S+), data in (\S+)", said())
        assert found, said()
        url, data_dir = found.group(1), found.group(2)
        assert Path(data_dir) == (tmp_path / "run" / "postgres").resolve()
        assert "applied migrations 0001_archive.sql" in said()
        base = f"http://127.0.0.1:{port}"

        first = Game(base)
        finish(first)
        wait_for("the first game archived", lambda: archived(url, first.id))

        os.kill(child(up.pid, "postgres -D"), signal.SIGKILL)
        wait_for("postgres back", lambda: "postgres is back" in said())
        assert re.search(r"postgres exited with status -9; restarting it in", said())
        os.kill(child(up.pid, "services.archive"), signal.SIGKILL)
        wait_for("the archiver back", lambda: "archiver is back (healthy)" in said())

        second = Game(base)
        finish(second)
        wait_for("the second game archived", lambda: archived(url, second.id))
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM games").fetchone() == (2,)
        assert "stopping the rest" not in said()

        up.send_signal(signal.SIGINT)
        assert up.wait(60) == 0, said()
        assert "stopping postgres" in said()

        # The whole stack again, on the same run dir: the finished games' Redis keys are gone
        # (released to a 5 s life once archived), and every link still answers, from the archive.
        up, said = start_up(tmp_path, "--port", str(port), "--ai-workers", "1", env=keep)
        found = re.search(r"redis: \S+ at (redis://\S+),", said())
        assert found, said()
        store = redis.Redis.from_url(found.group(1))
        try:
            wait_for(
                "the finished games' Redis keys gone",
                lambda: not store.exists(*(game_key(g.id) for g in (first, second))),
                timeout=FINISHED_TTL_S + 60,
            )
        finally:
            store.close()
        for game in (first, second):
            view = game.view()
            assert view["status"] == "over" and view["game_id"] == game.id, view
            record = until_ok(base, "GET", f"/api/games/{game.id}/record")
            assert record["moves"] and record["scores"] == [s["score"] for s in view["seats"]]
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()
