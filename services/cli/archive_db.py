"""`metro up`'s archive database: DATABASE_URL when set, else a PostgreSQL of its own.

Our own server keeps its data in <run dir>/postgres (as Redis keeps its in <run dir>/redis),
with fsync on, its log in <run dir>/logs/postgres.log, and the archive in its `metro` database;
the schema's migrations are applied before anything uses it. When it dies while the stack runs
it is started again after a back-off (the archiver waits for it meanwhile; live games never
need it). Kept apart from up.py, which supervises the rest.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from services.common.postgres_server import (
    PostgresNotFound,
    PostgresServer,
    PostgresServerError,
)

# The platform's database (the product and its `metro` command), not a game's: every game's
# archive lives in it. Existing run dirs hold their archive under this name, so it stays.
DATABASE = "metro"
RESTART_LIMIT = 5
RESTART_WINDOW_S = 60.0


class ArchiveStartFailed(RuntimeError):
    """The archive's database could not be reached or started (the message says why)."""


def redact(url: str) -> str:
    """A database URL fit for printing: its password, if any, replaced."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class ArchiveDb:
    """Find or start the archive's PostgreSQL, migrate it, watch it, stop it."""

    def __init__(
        self,
        run_dir: Path,
        log_dir: Path,
        say: Callable[[str], None],
        launcher: Sequence[str] = (),
        url: str = "",
    ) -> None:
        self.run_dir = run_dir
        self.log_dir = log_dir
        self.say = say
        self.launcher = pg_launcher(launcher)
        self.url = url  # DATABASE_URL when given
        self.server: PostgresServer | None = None
        self.deaths: list[float] = []
        self.restart_at: float | None = None

    def start(self) -> str:
        """The archive's URL, once its schema is migrated."""
        from services.archive.migrate import migrate  # imported here: `metro up --help`

        if self.url:
            try:
                applied = migrate(self.url)
            except Exception as exc:
                raise ArchiveStartFailed(
                    f"DATABASE_URL={redact(self.url)} could not be migrated: {exc}"
                ) from exc
            self.say(f"postgres: using DATABASE_URL {redact(self.url)}" + _applied(applied))
            return self.url
        self.server = PostgresServer(
            self.run_dir / "postgres",
            log_file=self.log_dir / "postgres.log",
            launcher=self.launcher,
            new_session=True,  # Ctrl-C reaches only `metro up`, which stops PostgreSQL last
        )
        try:
            self.server.start()
            url = self.server.create_database(DATABASE)
            applied = migrate(url)
        except (PostgresNotFound, PostgresServerError) as exc:
            raise ArchiveStartFailed(f"postgres did not start: {exc}") from exc
        self.say(
            f"postgres: {self.server.bin_dir}/postgres at {url}, data in "
            f"{self.server.data_dir} (started in {self.server.start_seconds:.1f}s)"
            + _applied(applied)
        )
        return url

    def watch(self) -> bool:
        """Restart our server when it died; False when it keeps dying."""
        server = self.server
        if server is None:
            return True
        now = time.monotonic()
        if self.restart_at is None:
            if server.proc is not None and server.proc.poll() is None:
                return True
            status = None if server.proc is None else server.proc.returncode
            server.proc = None
            self.deaths = [t for t in self.deaths if now - t <= RESTART_WINDOW_S] + [now]
            if len(self.deaths) >= RESTART_LIMIT:
                self.say(f"postgres keeps dying (status {status}); its log ends:\n"
                         f"{server.log_tail()}")  # fmt: skip
                return False
            delay = min(0.25 * 2 ** (len(self.deaths) - 1), 8.0)
            self.restart_at = now + delay
            self.say(f"postgres exited with status {status}; restarting it in {delay:.2f}s")
            return True
        if now < self.restart_at:
            return True
        try:
            server.start()
        except PostgresServerError as exc:
            self.restart_at = None
            self.say(f"postgres did not start again: {exc}")
            return len(self.deaths) < RESTART_LIMIT
        self.restart_at = None
        self.say(f"postgres is back on {server.url}")
        return True

    def stop(self) -> None:
        if self.server is not None:
            self.say("stopping postgres")
            self.server.stop()


def pg_launcher(launcher: Sequence[str]) -> list[str]:
    """What ties our PostgreSQL's life to `metro up`'s. As root the server runs as an
    unprivileged user (postgres_server.py), who may not reach this Python (a venv under /root):
    then util-linux's setpriv asks Linux for SIGINT (a fast shutdown) when `metro up` dies."""
    if os.geteuid() != 0:
        return list(launcher)
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "INT", "--"] if setpriv else []


def _applied(names: list[str]) -> str:
    return f"; applied migrations {', '.join(names)}" if names else ""


def archiver_health(log_path: Path, offset: Callable[[], int]) -> Callable[[], str | None]:
    """An archiver is healthy once it says it reads the outboxes (it has no port)."""

    def check() -> str | None:
        try:
            with log_path.open("rb") as f:
                f.seek(offset())
                text = f.read().decode(errors="replace")
        except OSError:
            return "no log yet"
        return None if "reading" in text else "not reading the outboxes yet"

    return check
