"""Both example bots play a whole game of every kind against the platform's AI, through the real
gateway, and end by printing the final scores the game's own view shows (issue 24.4)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from tests.bots.conftest import FAST_LEVEL, run_bot

GAMES = ["metro", "metrox", "underground"]


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.loads(reply.read())


def expected_line(view: dict[str, Any]) -> str:
    """The final scores line as the bots word it, from the game's view."""
    parts = []
    for seat in view["seats"]:
        name = seat["name"]
        if seat["kind"] == "ai":
            name = f"{name} ({seat['level']})"
        parts.append(f"{name} {seat['score']}")
    return "final scores: " + ", ".join(parts)


@pytest.mark.parametrize("game", GAMES)
def test_bot_plays_a_whole_game_against_the_ai(
    gateway_process: str, language: str, game: str
) -> None:
    name = f"greedy-{language}"
    run = run_bot(
        language, "--url", gateway_process, "--game", game, "--vs-ai", FAST_LEVEL, "--name", name
    )
    assert run.returncode == 0, run.stderr
    view = get_json(f"{gateway_process}/api/games/{run.game_id}")
    assert view["game"] == game and view["status"] == "over", view["status"]
    assert [s["name"] for s in view["seats"]] == [name, view["seats"][1]["name"]]
    assert view["seats"][1]["kind"] == "ai" and view["seats"][1]["level"] == FAST_LEVEL
    assert run.last_line == expected_line(view), (run.stdout, run.stderr)
    # Every move the bot sent was legal and its own: the engine's record replays to these scores
    # with the rules core, and the bot's seat moved (an AI standing in for it would say "ai").
    record = get_json(f"{gateway_process}/api/games/{run.game_id}/record")
    assert record["scores"] == [s["score"] for s in view["seats"]]
    events = events_of(gateway_process, run.game_id)
    by_bot = [e for e in events if e.get("seat") == 0 and e.get("by")]
    assert by_bot and {e["by"] for e in by_bot} == {"player"}, by_bot[:5]


def events_of(url: str, game_id: str) -> list[dict[str, Any]]:
    """Every event of a finished game (its stream from the start; read until quiet)."""
    request = urllib.request.Request(f"{url}/api/games/{game_id}/events")
    events: list[dict[str, Any]] = []
    with urllib.request.urlopen(request, timeout=5) as reply:
        try:
            for raw in reply:
                line = raw.decode().strip()
                if line.startswith("data:"):
                    events.append(json.loads(line[5:]))
                    if events[-1].get("status") == "over":
                        break
        except TimeoutError:
            pass
    return events


def test_bot_refuses_a_bad_level_clearly(gateway_process: str) -> None:
    """A level the platform does not have: the API's error, said, and a failing exit status."""
    run = run_bot(
        "python",
        "--url",
        gateway_process,
        "--game",
        "metro",
        "--vs-ai",
        "grandmaster",
        timeout=120,
    )
    assert run.returncode == 1
    assert "400" in run.stderr and "grandmaster" in run.stderr, run.stderr
