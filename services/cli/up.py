"""`metro up`: run the whole stack on one machine and stop all of it on Ctrl-C.

Starts Redis (REDIS_URL when set, else a local server with AOF in .run/redis, capped at
REDIS_MAXMEMORY with the noeviction policy), PostgreSQL for the archive (DATABASE_URL when set,
else its own in .run/postgres: archive_db.py), the engine, AI workers, an archiver and the
gateway (gunicorn with deploy/gunicorn.conf.py, as in production), one after the other, each only
once the one before it is healthy; then prints the URL and watches them. Every child runs in its
own session, so Ctrl-C reaches only this supervisor, which stops the children in reverse order; on
Linux each child is also tied to the supervisor's life, so a killed supervisor leaves nothing.

A part that dies while the stack runs is started again after a short back-off (Redis first; a
part waits for what it needs to be healthy again), and the others stay up: the engine and the AI
workers reconnect to a restarted Redis or engine by themselves. Each restart is said on this
output, and the part's log in .run/logs/ is appended to, so the crash stays on record. A part that
dies RESTART_LIMIT times within RESTART_WINDOW_S stops the whole stack with its log's tail.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit, urlunsplit

from services.cli.archive_db import ArchiveDb, ArchiveStartFailed, archiver_health
from services.cli.proxy import GUNICORN_CONF, Front, gateway_argv  # noqa: F401 (re-exported)
from services.common.healthcheck import check_grpc, check_http
from services.common.redis_server import RedisServer, RedisServerError, RedisServerNotFound
from services.common.server_child import log_tail

# Runs before each child's real program: ask Linux to SIGTERM the child when the supervisor dies
# (PR_SET_PDEATHSIG = 1), give up if it already has, then become the program (same pid).
_ORPHAN_GUARD = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit(1)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)

GRACE_S = 10.0
WATCH_S = 0.25  # how often the supervisor looks at its children
RESTART_LIMIT = 5  # deaths of one part within RESTART_WINDOW_S that stop the stack
RESTART_WINDOW_S = 60.0
BACKOFF_FIRST_S = 0.25  # the wait before a restart doubles with each recent death
BACKOFF_MAX_S = 8.0
REDIS_MAXMEMORY_DEFAULT = "1gb"


class StartFailed(Exception):
    """A part did not come up; the message names it and carries its log's tail."""


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived while the stack was starting."""


def launcher() -> list[str]:
    """argv prefix that ties a child's life to ours, where the OS can do it."""
    if sys.platform.startswith("linux"):
        return [sys.executable, "-c", _ORPHAN_GUARD, str(os.getpid())]
    return []


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_free(host: str, port: int) -> str | None:
    """None when a server could listen on host:port now, else why not (strerror).

    Binds with SO_REUSEADDR, as every server of the stack does: connections of a stopped server
    lingering in TIME_WAIT (up to 60 s on Linux) do not make the port busy, only a listener does.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


class Deaths:
    """When a part died lately: decides the back-off before its restart, and when to give up."""

    def __init__(self) -> None:
        self.times: deque[float] = deque()

    def record(self, now: float) -> int:
        """Note a death at `now`; the number of deaths within the window, this one included."""
        self.times.append(now)
        while self.times and now - self.times[0] > RESTART_WINDOW_S:
            self.times.popleft()
        return len(self.times)

    @staticmethod
    def backoff(count: int) -> float:
        return float(min(BACKOFF_FIRST_S * 2 ** (count - 1), BACKOFF_MAX_S))


def redis_maxmemory() -> str:
    """REDIS_MAXMEMORY for our own Redis: "1gb" by default, "0" for no cap. The policy is always
    noeviction: game state is never evicted, writes fail loudly when the cap is reached."""
    raw = os.environ.get("REDIS_MAXMEMORY", "").strip().lower() or REDIS_MAXMEMORY_DEFAULT
    if not re.fullmatch(r"[0-9]+(b|k|kb|m|mb|g|gb)?", raw):
        raise StartFailed(f"REDIS_MAXMEMORY must be a size such as 1gb or 512mb, got {raw!r}")
    return raw


def redact(url: str) -> str:
    """A Redis URL fit for printing: the password, if any, is replaced (and a Sentinel
    password given as ?sentinel_password=)."""
    parts = urlsplit(url)
    if "sentinel_password=" in parts.query:
        query = re.sub(r"(sentinel_password=)[^&]*", r"\1***", parts.query)
        parts = parts._replace(query=query)
        url = urlunsplit(parts)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


class Part:
    """One service process of the stack: its command, environment, log and health check."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        env: dict[str, str],
        log_path: Path,
        health: Callable[[], str | None],
    ) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.log_path = log_path
        self.health = health
        self.proc: subprocess.Popen[bytes] | None = None
        self.needs: list[Part] = []  # parts that must be healthy before this one (re)starts
        self.log_offset = 0  # where the latest start's output begins in the log
        self.deaths = Deaths()
        self.state = "new"  # "starting", "up", or "down" (dead, restart due at restart_at)
        self.restart_at = 0.0
        self.started_at = 0.0
        self.died_at = 0.0

    def start(self) -> None:
        """Start the process; its output is appended to the log (earlier runs stay on record)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.log_offset = log.tell()
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            log.write(f"---- metro up: starting {self.name} at {stamp}\n".encode())
            log.flush()
            self.started_at = time.monotonic()
            self.state = "starting"
            self.proc = subprocess.Popen(
                [*launcher(), *self.argv],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def exit_status(self) -> int | None:
        """None while running (or never started), else the exit status."""
        return None if self.proc is None else self.proc.poll()

    def log_tail(self, lines: int = 25) -> str:
        return log_tail(self.log_path, lines, self.log_offset)

    def stop(self, grace: float = GRACE_S, group: bool = True) -> None:
        """SIGTERM its process group (or, `group=False`, its leader alone: a gunicorn arbiter
        that drains, services/gateway/drain.py, and stops its workers itself), SIGKILL after
        `grace` seconds; the group is emptied."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            if group:
                _killpg(proc.pid, signal.SIGTERM)
            else:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                _killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        _killpg(proc.pid, signal.SIGKILL)  # anything it forked and left behind


def _killpg(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


class Stack:
    """The parts in start order; `down()` stops whatever was started, last first."""

    failure = StartFailed  # (for services/cli/proxy.py)

    def __init__(self, args: argparse.Namespace, stop: threading.Event) -> None:
        self.args = args
        self.stop_requested = stop
        self.roll_requested = threading.Event()  # SIGHUP: the gateways' rolling upgrade
        self.front = Front(args.gateways, args.tls) if args.proxy else None
        self.run_dir = Path(args.run_dir).resolve()
        self.log_dir = self.run_dir / "logs"
        self.redis: RedisServer | None = None
        self.parts: list[Part] = []
        self.redis_deaths = Deaths()
        self.redis_restart_at: float | None = None  # set while our Redis is down
        self.redis_died_at = 0.0
        self.archive_db = ArchiveDb(self.run_dir, self.log_dir, self.say, launcher(),
                                    os.environ.get("DATABASE_URL", "").strip())  # fmt: skip

    def say(self, message: str) -> None:
        print(f"metro up: {message}", flush=True)

    # ---- start -------------------------------------------------------------------------------

    def start_redis(self) -> str:
        url = os.environ.get("REDIS_URL", "")
        if url:
            # Imported here: `metro up --help` needs none of this.
            import redis
            from redis.exceptions import RedisClusterException

            from services.common.redis_url import sync_client

            try:  # one server, a cluster or Sentinel's primary (services/common/redis_url.py)
                client = sync_client(url, socket_connect_timeout=3, socket_timeout=3)
                client.ping()
                client.close()
            except (redis.RedisError, RedisClusterException, ValueError, OSError) as exc:
                raise StartFailed(f"REDIS_URL={redact(url)} does not answer PING: {exc}") from exc
            self.say(f"redis: using REDIS_URL {redact(url)}")
            return url
        self.redis = RedisServer(
            self.run_dir / "redis",
            appendonly=True,
            log_file=self.log_dir / "redis.log",
            launcher=launcher(),
            maxmemory=redis_maxmemory(),
            new_session=True,  # Ctrl-C reaches only us; we stop Redis last
        )
        try:
            self.redis.start()
        except (RedisServerNotFound, RedisServerError) as exc:
            raise StartFailed(f"redis did not start: {exc}") from exc
        self.say(f"redis: {self.redis.binary} at {self.redis.url}, data in {self.redis.data_dir}, "
                 f"maxmemory {self.redis.maxmemory or 'unlimited'} (noeviction)")  # fmt: skip
        return self.redis.url

    def add(
        self, name: str, argv: list[str], env: dict[str, str], health: Callable[[], str | None]
    ) -> Part:
        part = Part(name, argv, env, self.log_dir / f"{name}.log", health)
        self.parts.append(part)
        part.start()
        return part

    def wait_healthy(self, parts: list[Part]) -> None:
        """Block until every part passes its health check; raise naming the first that fails."""
        deadline = time.monotonic() + self.args.timeout
        waiting = list(parts)
        last: dict[str, str] = {}
        while waiting:
            for part in list(waiting):
                status = part.exit_status()
                if status is not None:
                    raise StartFailed(
                        f"{part.name} exited with status {status} while starting; "
                        f"{part.log_path} ends:\n{part.log_tail()}"
                    )
                problem = part.health()
                if problem is None:
                    waiting.remove(part)
                    part.state = "up"
                    self.say(f"{part.name} is healthy")
                else:
                    last[part.name] = problem
            if not waiting:
                return
            if self.stop_requested.is_set():
                raise Interrupted
            if time.monotonic() > deadline:
                part = waiting[0]
                raise StartFailed(
                    f"{part.name} was not healthy within {self.args.timeout:.0f}s "
                    f"(last check: {last.get(part.name)}); {part.log_path} ends:\n"
                    f"{part.log_tail()}"
                )
            self.stop_requested.wait(0.25)

    def up(self) -> str:
        """Start everything; return the gateway's URL."""
        args = self.args
        gateway_port = args.port
        busy = port_free(args.host, gateway_port)
        if busy is not None:
            raise StartFailed(
                f"the gateway cannot listen on {args.host}:{gateway_port} ({busy}); "
                "choose another with --port"
            )
        self.log_dir.mkdir(parents=True, exist_ok=True)
        redis_url = self.start_redis()
        try:
            database_url = self.archive_db.start()
        except ArchiveStartFailed as exc:
            raise StartFailed(str(exc)) from exc
        token = os.environ.get("AI_SERVICE_TOKEN") or secrets.token_urlsafe(32)
        engine_port = free_port()
        ai_ports = [free_port() for _ in range(args.ai_workers)]
        base = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "REDIS_URL": redis_url,
            "DATABASE_URL": database_url,
            "AI_SERVICE_TOKEN": token,
            "ENGINE_HOST": "127.0.0.1",
            "AI_HOST": "127.0.0.1",  # the AI's own default is every interface, for containers
            "ENGINE_PORT": str(engine_port),
            "ENGINE_TARGET": f"127.0.0.1:{engine_port}",
            # The gateway balances hints over every worker (gRPC round_robin over the list).
            "AI_TARGET": "ipv4:" + ",".join(f"127.0.0.1:{p}" for p in ai_ports),
            "GATEWAY_HOST": args.host,
            "GATEWAY_PORT": str(gateway_port),
        }
        python = sys.executable

        def grpc_health(port: int) -> Callable[[], str | None]:
            return lambda: check_grpc(f"127.0.0.1:{port}", timeout=1.0)

        engine = self.add(
            "engine", [python, "-m", "services.engine"], base, grpc_health(engine_port)
        )
        self.wait_healthy([engine])
        workers = [
            self.add(
                f"ai-{i + 1}",
                [python, "-m", "services.ai"],
                {**base, "AI_PORT": str(port)},
                grpc_health(port),
            )
            for i, port in enumerate(ai_ports)
        ]
        for worker in workers:
            worker.needs = [engine]
        self.wait_healthy(workers)
        archiver = self.add("archiver", [python, "-m", "services.archive"], base, lambda: None)
        archiver.health = archiver_health(archiver.log_path, lambda: archiver.log_offset)
        archiver.needs = [engine]
        self.wait_healthy([archiver])
        if self.front is not None:  # Caddy in front of --gateways N (services/cli/proxy.py)
            return self.front.start(self, base, gateway_argv(python), engine)
        probe_host = "127.0.0.1" if args.host in ("0.0.0.0", "", "::") else args.host
        healthz = f"http://{probe_host}:{gateway_port}/healthz"
        gateway = self.add(
            "gateway", gateway_argv(python), base, lambda: check_http(healthz, timeout=2.0)
        )
        gateway.needs = [engine]
        self.wait_healthy([gateway])
        return f"http://{probe_host}:{gateway_port}/"

    # ---- run and stop ------------------------------------------------------------------------

    def watch(self) -> int:
        """Until asked to stop: 0 then. A part that dies is restarted after a back-off while the
        others stay up; 1 when one keeps dying (named, with its log)."""
        while not self.stop_requested.wait(WATCH_S):
            if not self.watch_redis() or not self.archive_db.watch():
                return 1
            if self.redis_restart_at is not None:
                continue  # everything else needs Redis: it comes back first
            if self.roll_requested.is_set() and self.front is not None:
                self.roll_requested.clear()
                self.front.roll(self)
            for part in self.parts:
                if not self.watch_part(part):
                    return 1
        return 0

    def watch_redis(self) -> bool:
        """Restart our Redis when it died; False when it keeps dying. (A REDIS_URL server is
        not ours to restart: the engine reports it as unavailable until it is back.)"""
        server = self.redis
        if server is None:
            return True
        now = time.monotonic()
        if self.redis_restart_at is None:
            status = None if server.proc is None else server.proc.poll()
            if server.proc is not None and status is None:
                return True
            if server.proc is not None and server.proc.stderr:
                server.proc.stderr.close()
            server.proc = None
            return self.redis_died(f"exited with status {status}", now)
        if now < self.redis_restart_at:
            return True
        self.say("restarting redis")
        try:
            server.start()
        except (RedisServerNotFound, RedisServerError) as exc:
            return self.redis_died(f"did not start again: {exc}", time.monotonic())
        self.redis_restart_at = None
        self.say(
            f"redis is back on {server.url} after {time.monotonic() - self.redis_died_at:.1f}s"
        )
        return True

    def redis_died(self, what: str, now: float) -> bool:
        assert self.redis is not None
        count = self.redis_deaths.record(now)
        if count >= RESTART_LIMIT:
            self.say(
                f"redis {what}, {count} times within {RESTART_WINDOW_S:.0f}s; stopping the rest. "
                f"{self.redis.log_path} ends:\n{self.redis.log_tail()}"
            )
            return False
        if self.redis_restart_at is None:
            self.redis_died_at = now
        delay = Deaths.backoff(count)
        self.redis_restart_at = now + delay
        self.say(f"redis {what}; restarting it in {delay:.2f}s (death {count} within "
                 f"{RESTART_WINDOW_S:.0f}s; log: {self.redis.log_path})")  # fmt: skip
        return True

    def watch_part(self, part: Part) -> bool:
        """One look at a part: note a death, restart it when due, see it healthy again. False
        when it keeps dying."""
        now = time.monotonic()
        if part.state == "down":
            if now >= part.restart_at and all(p.state == "up" for p in part.needs):
                self.say(f"restarting {part.name}")
                part.start()
            return True
        status = part.exit_status()
        if status is not None:
            return self.part_died(part, f"exited with status {status}", now)
        if part.state == "starting":
            if part.health() is None:
                part.state = "up"
                self.say(f"{part.name} is back (healthy) {time.monotonic() - part.died_at:.1f}s "
                         "after it died")  # fmt: skip
            elif now - part.started_at > self.args.timeout:
                part.stop()
                return self.part_died(part, f"was not healthy within {self.args.timeout:.0f}s", now)
        return True

    def part_died(self, part: Part, what: str, now: float) -> bool:
        assert part.proc is not None
        _killpg(part.proc.pid, signal.SIGKILL)  # anything it forked and left behind
        count = part.deaths.record(now)
        if count >= RESTART_LIMIT:
            self.say(
                f"{part.name} {what}, {count} times within {RESTART_WINDOW_S:.0f}s; stopping "
                f"the rest. {part.log_path} ends:\n{part.log_tail()}"
            )
            return False
        if part.state != "starting":
            part.died_at = now
        delay = Deaths.backoff(count)
        part.state = "down"
        part.restart_at = now + delay
        self.say(
            f"{part.name} {what}; restarting it in {delay:.2f}s (death {count} within "
            f"{RESTART_WINDOW_S:.0f}s). {part.log_path} ends:\n{part.log_tail(5)}"
        )
        return True

    def down(self) -> None:
        for part in reversed(self.parts):
            if part.proc is not None:
                self.say(f"stopping {part.name}")
            part.stop()
        self.archive_db.stop()
        if self.redis is not None:
            self.say("stopping redis")
            self.redis.stop()


@contextlib.contextmanager
def single_instance(run_dir: Path) -> Iterator[None]:
    """One `metro up` per run directory: two would share (and corrupt) one Redis data dir."""
    run_dir.mkdir(parents=True, exist_ok=True)
    lock_path = run_dir / "up.lock"
    with lock_path.open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise StartFailed(
                f"{run_dir} is in use by another `metro up` (pid {holder}); stop it first "
                "or pass --run-dir"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        try:
            yield
        finally:
            lock.truncate(0)


def parse_args(argv: list[str]) -> argparse.Namespace:
    default_port = os.environ.get("GATEWAY_PORT") or "8000"
    parser = argparse.ArgumentParser(
        prog="metro up",
        description="Run Redis, PostgreSQL, the engine, AI workers, an archiver and the gateway; "
        "Ctrl-C stops them all.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="gateway address (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=int,
        default=int(default_port) if default_port.isdigit() else -1,
        help="gateway port (default $GATEWAY_PORT or 8000)",
    )
    parser.add_argument("--ai-workers", type=int, default=2, help="AI worker processes (default 2)")
    parser.add_argument("--gateways", type=int, default=1, help="gateway processes (default 1)")
    parser.add_argument("--proxy", action="store_true", help="Caddy in front of the gateways")
    parser.add_argument("--tls", action="store_true", help="the proxy serves https://localhost")
    parser.add_argument(
        "--run-dir", default=".run", help="Redis data and logs go here (default ./.run)"
    )
    parser.add_argument(
        "--timeout", type=float, default=90.0, help="seconds each part may take to become healthy"
    )
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"the gateway port must be 1-65535 (GATEWAY_PORT={default_port!r}, --port)")
    if args.ai_workers < 1 or args.gateways < 1:
        parser.error("--ai-workers and --gateways must be at least 1")
    args.proxy = args.proxy or args.tls or args.gateways > 1  # more than one need the proxy
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    stack = Stack(args, stop)
    previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, lambda *_: stack.roll_requested.set())
    try:
        with single_instance(stack.run_dir):
            try:
                url = stack.up()
                stack.say(f"logs in {stack.log_dir}")
                print(f"Metro is up: {url}  (Ctrl-C stops it)", flush=True)
                return stack.watch()
            except Interrupted:
                return 0
            finally:
                stack.down()
    except StartFailed as exc:
        print(f"metro up: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
