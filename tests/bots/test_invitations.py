"""A bot account at work (issue 24.2): each example bot, run without --vs-ai, registers a bot
account, two people's tables invite it by name, and the bot accepts both on its own event stream
and plays the two games at once to their end; started again, it reuses the account from its key
file."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import threading
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tests.bots.conftest import GAME_TIMEOUT_S, ROOT, CutProxy, bot_command
from tests.bots.test_vs_ai import expected_line
from tests.fixtures import waits


def call(url: str, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data, {"Content-Type": "application/json", **headers}, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class Output:
    """A running program's output lines, collected as they come."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        with contextlib.suppress(ValueError, OSError):  # the test closed the pipe
            for line in stream:
                self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = GAME_TIMEOUT_S) -> str:
        """The first line with `text` in it, once there is one."""
        try:
            return waits.wait_until(
                lambda: next((line for line in self.lines if text in line), None),
                f"a line with {text!r}",
                timeout,
                every=0.2,
            )
        except AssertionError as err:
            raise AssertionError(f"{err}; the lines: {self.lines}") from None


def wait_until(test: Any, what: str, timeout: float = 120) -> None:
    waits.wait_until(test, what, timeout, every=0.2)


def stop(process: subprocess.Popen[str]) -> None:
    """End a bot this test started, and close its pipes."""
    process.kill()
    process.wait(30)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def play_first_moves(url: str, game_id: str, token: str) -> None:
    """The person's seat: the first legal move whenever it must move, to the end."""
    auth = {"Authorization": f"Bearer {token}"}

    def over_or_moved() -> bool:
        """Whether the game is over; if not, and the seat is to move, its move."""
        status, view = call(url, "GET", f"/api/games/{game_id}", **auth)
        assert status == 200, view
        if view["status"] == "over":
            return True
        if view["seat"] in view["to_move"]:
            status, legal = call(url, "GET", f"/api/games/{game_id}/legal", **auth)
            if status == 200 and legal["moves"]:
                move = {**legal["moves"][0], "expected_version": legal["version"]}
                move["move_id"] = uuid.uuid4().hex
                status, answer = call(url, "POST", f"/api/games/{game_id}/moves", move, **auth)
                assert status in (200, 409), answer
        return False

    waits.wait_until(over_or_moved, f"game {game_id} to end", GAME_TIMEOUT_S, every=0.1)


def feed_heads(proxy: CutProxy) -> list[str]:
    """The requests for the player's event stream that went through the proxy, in order."""
    with proxy.lock:
        return [h for h in proxy.heads if h.startswith("GET /api/players/me/events")]


def last_event_id(head: str) -> str:
    found = re.search(r"(?im)^Last-Event-ID: *(\S+)\s*$", head)
    return found.group(1) if found else ""


def order(event_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in event_id.split("-"))


def test_bot_accepts_an_invitation_and_plays_it(
    gateway_process: str, cut_proxy: CutProxy, language: str, tmp_path: Path
) -> None:
    """The bot talks to the gateway through a proxy that cuts its connections once the game is
    over: its player stream comes back after the last event it saw."""
    name = f"inv-{language}-{uuid.uuid4().hex[:6]}"
    key_file = tmp_path / "bot.key"
    seen_file = tmp_path / "bot.key.last-event"
    args = ["--url", cut_proxy.url, "--game", "metrox", "--name", name]
    bot = subprocess.Popen(
        bot_command(language, *args, "--key-file", str(key_file)),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = Output(bot.stdout), Output(bot.stderr)
    try:
        err.wait_for("registered")
        assert key_file.stat().st_mode & 0o077 == 0, "the key file is readable by others"
        key = key_file.read_text().strip()
        assert call(gateway_process, "GET", "/api/players/me", **{"X-Player-Key": key})[1]["bot"]
        # Two people invite it at once: it plays both games together.
        tables = []
        for person in ("Ada", "Bea"):
            seats = [{"kind": "human", "name": person}, {"kind": "bot", "name": name}]
            status, made = call(
                gateway_process,
                "POST",
                "/api/games",
                {"game": "metrox", "rules": {"players": 2}, "seats": seats},
            )
            assert status == 201, made
            tables.append(made)
        people = []
        for made in tables:
            err.wait_for(f"accepted metrox {made['game_id']}")
            person = threading.Thread(
                target=play_first_moves, args=(gateway_process, made["game_id"], made["token"])
            )
            person.start()
            people.append(person)
        for made in tables:
            game_id = made["game_id"]
            line = out.wait_for(f"game {game_id} over")
            status, view = call(gateway_process, "GET", f"/api/games/{game_id}")
            assert view["seats"][1]["name"] == name and view["seats"][1].get("bot") is True
            assert line == f"game {game_id} over: {expected_line(view)}", line
        for person in people:
            person.join(GAME_TIMEOUT_S)
        # Its stream cut, the bot resumes it after the last event it had seen.
        wait_until(lambda: seen_file.exists() and seen_file.read_text().strip(), "an event id")
        before = len(feed_heads(cut_proxy))
        assert cut_proxy.cut() >= 1
        wait_until(lambda: len(feed_heads(cut_proxy)) > before, "the stream reopened")
        resumed = last_event_id(feed_heads(cut_proxy)[before])
        assert resumed, feed_heads(cut_proxy)
        assert order(resumed) >= order(seen_file.read_text().strip()), feed_heads(cut_proxy)
    finally:
        stop(bot)
    # Started again, it signs in with the saved key (no second account) and resumes its stream
    # after the last event it handled.
    seen = seen_file.read_text().strip()
    before = len(feed_heads(cut_proxy))
    again = subprocess.Popen(
        bot_command(language, *args, "--key-file", str(key_file)),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        Output(again.stderr).wait_for(f"signed in as {name}", timeout=120)
        wait_until(lambda: len(feed_heads(cut_proxy)) > before, "the stream of the new run")
        assert last_event_id(feed_heads(cut_proxy)[before]) == seen
    finally:
        stop(again)
        # Out of the session's ladder (the bot opted in for its --game), now that it is gone.
        key = {"X-Player-Key": key_file.read_text().strip()}
        call(gateway_process, "PUT", "/api/players/me/ladder", {"games": []}, **key)
