"""Each hint is logged by the AI worker that answered it, naming the worker (issue 32: with
several workers an operator could not see how hints spread over them)."""

from __future__ import annotations

import time
from typing import Any

from tests.fixtures.gateway import GatewayApi


def test_a_hint_is_logged_with_the_worker_that_answered(api: GatewayApi, ai: Any) -> None:
    game, tokens = api.new_game()
    status, hint = api.post(f"/api/games/{game}/hint", {"level": "easy"}, token=tokens[0])
    assert status == 200, hint
    deadline = time.monotonic() + 10
    while True:
        lines = [
            line
            for line in ai.process.log_path.read_text(errors="replace").splitlines()
            if "hint answered by worker" in line and f"game {game} " in line
        ]
        if lines:
            break
        assert time.monotonic() < deadline, ai.process.log_tail()
        time.sleep(0.1)
    assert f":{ai.process.proc.pid}" in lines[0], lines[0]  # host:pid of the worker
    assert "level easy" in lines[0] and "iterations" in lines[0], lines[0]
