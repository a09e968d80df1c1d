"""The example bots (examples/bots/) against a live stack: Redis, the engine, AI workers and the
real gateway process (`python -m services.gateway`, tests/fixtures/gateway.py's
`gateway_process`), each bot run as its own program, as a person would run it.

`CutProxy` sits between a bot and the gateway on a real socket, so a test can cut every open
connection mid-game (the bot's event stream included) and see the bot come back.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BOT = ROOT / "examples" / "bots" / "python" / "bot.py"
JS_BOT = ROOT / "examples" / "bots" / "js" / "bot.mjs"
# The fastest AI level: a bot's game against it takes seconds, not minutes.
FAST_LEVEL = "random"
GAME_TIMEOUT_S = 600  # a whole game on a loaded CI machine; a hang still fails
PLAYING = re.compile(r"playing (\w+) ([\w-]+) against the AI")


def node_or_skip() -> str:
    """The `node` program, or a skip saying why (deploy/test-prereqs.sh installs Debian's
    nodejs with apt where it is missing; under CI its absence is a failure)."""
    node = shutil.which("node")
    if node is None:
        message = "node is not on PATH (deploy/test-prereqs.sh installs nodejs with apt)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return node


def bot_command(language: str, *args: str) -> list[str]:
    """The command line that runs one example bot (the same arguments for both)."""
    if language == "node":
        return [node_or_skip(), str(JS_BOT), *args]
    return [sys.executable, str(PYTHON_BOT), *args]


@dataclass
class BotRun:
    returncode: int
    stdout: str
    stderr: str

    @property
    def last_line(self) -> str:
        lines = self.stdout.strip().splitlines()
        return lines[-1] if lines else ""

    @property
    def game_id(self) -> str:
        found = PLAYING.search(self.stderr)
        assert found, self.stderr
        return found.group(2)


def run_bot(language: str, *args: str, timeout: float = GAME_TIMEOUT_S) -> BotRun:
    done = subprocess.run(
        bot_command(language, *args),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )
    return BotRun(done.returncode, done.stdout, done.stderr)


class CutProxy:
    """A TCP proxy to the gateway that can cut every connection it carries at once.

    It also keeps each request's head (method, path, headers) as the bot sent it, with when it
    came (`times`, monotonic seconds), so a test can see a stream resumed with Last-Event-ID;
    and it can answer the next game event streams itself (`answer_streams`), so a test can
    refuse a stream or break one the way the server does."""

    def __init__(self, target_url: str) -> None:
        target = urllib.parse.urlsplit(target_url)
        self.target = (target.hostname or "127.0.0.1", target.port or 80)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.heads: list[str] = []
        self.times: list[float] = []
        self.canned: list[tuple[bytes, bool]] = []  # (raw answer, keep the socket open)
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self.lock:
                self.open += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, requests: bool) -> None:
        try:
            while data := src.recv(65536):
                canned = None
                if requests and re.match(rb"(GET|POST|PUT|DELETE) ", data):
                    with self.lock:
                        self.heads.append(data.split(b"\r\n\r\n")[0].decode("latin-1"))
                        self.times.append(time.monotonic())
                        if self.canned and re.match(rb"GET /api/games/[\w-]+/events", data):
                            canned = self.canned.pop(0)
                if canned is not None:
                    src.sendall(canned[0])  # the proxy answers; the gateway never sees it
                    if canned[1]:
                        continue  # a stream that says no more and stays open
                    return
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def answer_streams(self, *answers: tuple[bytes, bool]) -> None:
        """Answer the next game event streams with these raw HTTP answers, in order; each with
        whether the socket then stays open (a stream that went quiet) or is closed."""
        with self.lock:
            self.canned.extend(answers)

    def cut(self) -> int:
        """Close every connection open now (the bot sees its sockets reset); how many."""
        with self.lock:
            victims, self.open = self.open, []
        for s in victims:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        return len(victims) // 2

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        self.cut()


@pytest.fixture
def cut_proxy(gateway_process: str) -> Iterator[CutProxy]:
    proxy = CutProxy(gateway_process)
    yield proxy
    proxy.close()


@pytest.fixture(params=["python", "node"])
def language(request: pytest.FixtureRequest) -> str:
    """Each test runs once per example bot; the Node one only where node is on PATH."""
    if request.param == "node":
        node_or_skip()
    return str(request.param)
