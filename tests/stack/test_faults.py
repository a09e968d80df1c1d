"""`metro up` heals: each part of the stack killed with SIGKILL in the middle of a game comes back
on its own, the others stay up, and the game finishes with the scores a replay of its record gives.

Real processes throughout: the supervisor, Redis, the engine, two AI workers and the gateway.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import time
import urllib.error
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import games
from tests.fixtures.processes import free_port
from tests.fixtures.waits import wait_until
from tests.stack.test_stack import call, children_of, proc_stat
from tests.stack.test_up import up_argv, up_env, wait_none_marked, wait_up

RECOVER_S = 20.0  # a part may take this long to be back (the test's bound, not the usual)


def request(
    base: str, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """One JSON request: (status, body); (0, reason) when nothing answered (connection refused)."""
    try:
        return call(base, method, path, body, token, timeout=30)
    except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
        return 0, str(err)


FAILED: list[int] = []  # statuses of the requests that were refused, 0 for no answer


def until_ok(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """Retry a request that is safe to repeat while a part is down (503 or nothing answering);
    each failed try is noted in FAILED."""

    def answered() -> tuple[Any, ...]:
        status, answer = request(base, method, path, body, token)
        if 200 <= status < 300:
            return (answer,)  # truthy even for an empty answer
        assert status in (0, 503), (method, path, status, answer)
        FAILED.append(status)
        return ()

    return wait_until(answered, f"{method} {path} answered", RECOVER_S, every=0.1)[0]


def part_pids(up_pid: int) -> dict[str, list[int]]:
    """The supervisor's children by part: redis, engine, ai, gateway."""
    found: dict[str, list[int]] = {}
    for pid in children_of(up_pid):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        for part, mark in (
            ("engine", "services.engine"),
            ("ai", "services.ai"),
            ("gateway", "services.gateway"),
            ("redis", "-server"),
        ):
            if mark in cmdline:
                found.setdefault(part, []).append(pid)
    return found


def replaced(up_pid: int, part: str, victim: int, count: int) -> bool:
    """The killed `victim` is gone and `part` has its `count` processes again."""
    return proc_stat(victim) is None and len(part_pids(up_pid).get(part, [])) >= count


class Game:
    """A game of seat 0 (here) against an AI seat, played over HTTP through faults."""

    def __init__(self, base: str) -> None:
        self.base = base
        created = until_ok(
            base,
            "POST",
            "/api/games",
            {
                "game": "metro",
                "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}],
            },
        )
        self.id, self.token = created["game_id"], created["token"]
        self.moves = 0

    def view(self) -> dict[str, Any]:
        view = until_ok(self.base, "GET", f"/api/games/{self.id}", token=self.token)
        return view

    def our_turn(self) -> dict[str, Any]:
        """The view once seat 0 is to move or the game is over (the AI seat moves meanwhile)."""

        def ours() -> dict[str, Any]:
            view = self.view()
            return view if view["status"] == "over" or view["turn"] == 0 else {}

        return wait_until(ours, f"the AI seat to move in {self.id}", timeout=60)

    def move(self) -> dict[str, Any]:
        """Seat 0's first legal move, sent (again, same move_id) until it is answered."""
        view = self.our_turn()
        assert view["status"] != "over"
        path = f"/api/games/{self.id}"
        legal = until_ok(self.base, "GET", f"{path}/legal", token=self.token)
        move = {**legal["moves"][0], "expected_version": view["version"],
                "move_id": uuid.uuid4().hex}  # fmt: skip
        answer: dict[str, Any] = until_ok(self.base, "POST", f"{path}/moves", move, self.token)
        self.moves += 1
        return answer


def start_up(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], Callable[[], str]]:
    """`metro up` with `args` (and `env` beside the test's own), once it says it is up; and a
    reader of everything it has said. The caller stops it."""
    out_path = tmp_path / "up.out"
    with out_path.open("wb") as out:
        up = subprocess.Popen(
            up_argv(tmp_path, *args),
            # This client polls a game's view every 50 ms while a part is down, faster than any
            # page: the gateway's per-address read rate (RATE_LIMIT_READS) is not what is tested.
            env=up_env(tmp_path, {"RATE_LIMIT_READS": "100000/minute", **(env or {})}),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )

    def said() -> str:
        return out_path.read_text(errors="replace")

    try:
        wait_up(up, said, timeout=120)
    except AssertionError:
        up.kill()
        raise
    return up, said


@pytest.mark.timeout(600)
def test_each_part_killed_mid_game_comes_back_and_the_game_finishes(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    up, said = start_up(tmp_path, "--port", str(port))
    try:
        game = Game(base)
        game.move()
        measured: dict[str, float] = {}
        for part in ("engine", "ai", "redis", "gateway", "engine"):
            game.our_turn()
            before = part_pids(up.pid)
            assert sorted(before) == ["ai", "engine", "gateway", "redis"], before
            victim = before[part][0]
            FAILED.clear()
            killed_at = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            # The next move of seat 0 gets through (sent again while the part is down), and
            # after it the AI seat moves again.
            game.move()
            measured.setdefault(part, time.monotonic() - killed_at)
            game.our_turn()
            # Back, as a new process, and nothing else was restarted.
            wait_until(
                functools.partial(replaced, up.pid, part, victim, len(before[part])),
                f"{part} back as a new process (pid {victim} killed; before: {before})",
                timeout=max(0.0, killed_at + RECOVER_S - time.monotonic()),
                every=0.1,
            )
            after = part_pids(up.pid)
            for other in before:
                if other != part:
                    assert after[other] == before[other], (part, other, before, after)
            print(f"kill -9 {part}: next move answered after {measured[part]:.2f} s; "
                  f"refused meanwhile: {FAILED or 'none'}")  # fmt: skip
        assert up.poll() is None, said()
        name = {"ai": r"ai-[12]"}
        for part in ("engine", "ai", "redis", "gateway"):
            pattern = rf"{name.get(part, part)} exited with status -9; restarting it in"
            assert re.search(pattern, said()), said()
        assert "stopping the rest" not in said()
        # Logs are appended to across restarts: both runs of the engine are in its log.
        engine_log = (tmp_path / "run" / "logs" / "engine.log").read_text()
        assert engine_log.count("---- metro up: starting engine") == 3
        assert engine_log.count("engine serving on") == 3

        while (view := game.our_turn())["status"] != "over":
            game.move()
        record = until_ok(base, "GET", f"/api/games/{game.id}/record")
        replayed = games.get("metro").replay(record)
        assert replayed.scores == [s["score"] for s in view["seats"]] == record["scores"]
        print(f"game of {game.moves} moves by seat 0 finished through 5 kills; {measured}")

        up.send_signal(signal.SIGINT)
        assert up.wait(60) == 0, said()
        wait_none_marked(tmp_path)
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()


@pytest.mark.timeout(300)
def test_a_part_that_keeps_dying_stops_the_stack_with_its_log(tmp_path: Path) -> None:
    port = free_port()
    up, said = start_up(tmp_path, "--port", str(port), "--ai-workers", "1")

    def back(times: int) -> bool:
        if said().count("ai-1 is back (healthy)") >= times:
            return True
        assert up.poll() is None, said()
        return False

    try:
        for death in range(1, 6):
            wait_until(
                functools.partial(back, death - 1),
                f"ai-1 back (healthy) {death - 1} times",
                timeout=RECOVER_S,
            )
            os.kill(part_pids(up.pid)["ai"][0], signal.SIGKILL)
        assert up.wait(60) == 1, said()
        assert "ai-1 exited with status -9, 5 times within 60s; stopping the rest." in said()
        assert "ai-1.log ends:" in said()
        assert "stopping engine" in said() and "stopping redis" in said()
        log = (tmp_path / "run" / "logs" / "ai-1.log").read_text()
        assert log.count("---- metro up: starting ai-1") == 5
        wait_none_marked(tmp_path)
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()
