"""The bot ladder with the example bots (issue 24.5): a bot run without --vs-ai opts in for its
game, the ladder's scheduler (a round a second here) invites it to a rated game against an AI
level, the bot accepts and plays it to the end, and the leaderboard then lists it, marked as a
bot, with a rated game. This module's stack is its own (engine, AI, gateway process) on a Redis
database of its own, so its ladder sees only this module's bots."""

from __future__ import annotations

import subprocess
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from services.common.healthcheck import check_http
from tests.bots.conftest import GAME_TIMEOUT_S, ROOT, bot_command
from tests.bots.test_invitations import Output, call, stop
from tests.bots.test_vs_ai import expected_line
from tests.fixtures.ai import start_ai
from tests.fixtures.engine import start_engine
from tests.fixtures.gateway import RELAXED_RATES
from tests.fixtures.processes import ServiceProcess, free_port, python_module
from tests.fixtures.waits import wait_until

LADDER_ENV = {
    "LADDER_INTERVAL_S": "1",
    "LADDER_GAMES_PER_HOUR": "1",
    "LADDER_AI_LEVELS": "random",
    "LADDER_MOVE_S": "120",
}


@pytest.fixture(scope="module")
def ladder_gateway(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    parts = urllib.parse.urlsplit(redis_url)
    own = urllib.parse.urlunsplit(parts._replace(path="/12"))
    redis.Redis.from_url(own).flushdb()
    logs: Path = tmp_path_factory.mktemp("bots-ladder")
    engine = start_engine(logs / "engine", own, LADDER_ENV)
    ai = start_ai(logs / "ai", engine)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    gateway = ServiceProcess(
        "gateway",
        python_module("services.gateway"),
        log_dir=logs / "gateway",
        env={
            "GATEWAY_HOST": "127.0.0.1",
            "GATEWAY_PORT": str(port),
            "ENGINE_TARGET": engine.address,
            "AI_TARGET": ai.address,
            **RELAXED_RATES,
        },
        port=port,
        ready=lambda: check_http(url + "/", timeout=2.0) is None,
        timeout=60.0,
    )
    try:
        with gateway:
            yield url
    finally:
        ai.stop()
        engine.close_channels()
        engine.process.stop()


def test_bot_plays_a_rated_ladder_game(ladder_gateway: str, language: str, tmp_path: Path) -> None:
    name = f"ladder-{language}-{uuid.uuid4().hex[:6]}"
    key_file = tmp_path / "bot.key"
    bot = subprocess.Popen(
        bot_command(
            language, "--url", ladder_gateway, "--game", "metrox", "--name", name,
            "--key-file", str(key_file),
        ),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    out, err = Output(bot.stdout), Output(bot.stderr)
    try:
        err.wait_for("registered")
        accepted = err.wait_for("accepted metrox ")
        game_id = accepted.split()[3]
        line = out.wait_for(f"game {game_id} over", timeout=GAME_TIMEOUT_S)
    finally:
        stop(bot)
        # Out of the ladder, so that no other bot of this module is paired with a gone one.
        if key_file.exists():
            key = {"X-Player-Key": key_file.read_text().strip()}
            call(ladder_gateway, "PUT", "/api/players/me/ladder", {"games": []}, **key)
    status, view = call(ladder_gateway, "GET", f"/api/games/{game_id}")
    assert status == 200 and view["status"] == "over", view
    assert line == f"game {game_id} over: {expected_line(view)}"
    bot_seat = next(s for s in view["seats"] if s["name"] == name)
    assert bot_seat.get("bot") is True
    other = next(s for s in view["seats"] if s["name"] != name)
    assert other["kind"] == "ai" and other["level"] == "random"
    status, table = call(ladder_gateway, "GET", f"/api/games/{game_id}/table")
    assert status == 200 and table["rated"] is True, table

    # Rated once the game ended (the engine rates it right after; a loaded machine: ask again).
    def listed() -> dict[str, Any] | None:
        status, board = call(ladder_gateway, "GET", "/api/leaderboard/metrox")
        assert status == 200, board
        return next((p for p in board["players"] if p["name"] == name), None)

    entry = wait_until(listed, f"{name} on the leaderboard", timeout=120, every=1)
    assert entry["bot"] is True and entry["games"] >= 1, entry
