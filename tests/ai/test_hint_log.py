"""Each hint is logged by the AI worker that answered it, naming the worker (issue 32: with
several workers an operator could not see how hints spread over them)."""

from __future__ import annotations

from typing import Any

from tests.fixtures.gateway import GatewayApi
from tests.fixtures.waits import wait_until


def test_a_hint_is_logged_with_the_worker_that_answered(api: GatewayApi, ai: Any) -> None:
    game, tokens = api.new_game()
    status, hint = api.post(f"/api/games/{game}/hint", {"level": "easy"}, token=tokens[0])
    assert status == 200, hint

    def answered() -> list[str]:
        return [
            line
            for line in ai.process.log_path.read_text(errors="replace").splitlines()
            if "hint answered by worker" in line and f"game {game} " in line
        ]

    try:
        lines = wait_until(answered, f"the AI worker to log the hint of {game}", timeout=10)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{ai.process.log_tail()}") from None
    assert f":{ai.process.proc.pid}" in lines[0], lines[0]  # host:pid of the worker
    assert "level easy" in lines[0] and "iterations" in lines[0], lines[0]
