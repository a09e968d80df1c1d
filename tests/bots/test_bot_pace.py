"""An example bot never sleeps through its turn (issue 30.14): each time the game comes back to
the bot's seat, the bot's next move follows within a few seconds, not after its 10 s poll.

The bots once cleared their wake-up flag after reading the view, so an event that came in
between was forgotten and the bot slept until its slow poll (10 s stalls, several a game). The
gaps are read from the game's own event ids (`<ms>-<seq>`: the server's clock at each commit),
so nothing here depends on the bot's own timing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from services.common.healthcheck import check_http
from tests.bots.conftest import FAST_LEVEL, run_bot
from tests.bots.test_vs_ai import events_of
from tests.fixtures.gateway import RELAXED_RATES
from tests.fixtures.processes import ServiceProcess, free_port, python_module

BOT_SEAT = 0
# The bot's answer to its turn: a few HTTP calls (view, legal moves, a move, and for Metro a
# rules query per candidate), well under a second on an idle machine; 4 s leaves room for a
# loaded CI machine and still catches the 10 s poll.
MAX_ANSWER_S = 4.0
RULES_LIMIT = "10/minute"  # a Metro game asks for hundreds without a limit


def answer_gaps(events: list[dict[str, Any]]) -> list[float]:
    """Seconds from each event that made the bot's seat one to move to the bot's next move."""
    gaps, waiting_since = [], None
    for event in events:
        at_s = int(str(event["event_id"]).split("-")[0]) / 1000
        by_bot = event.get("seat") == BOT_SEAT and event.get("by") == "player"
        if by_bot:
            if waiting_since is not None:
                gaps.append(at_s - waiting_since)
            waiting_since = None
        if waiting_since is None and BOT_SEAT in (event.get("to_move") or []) and not by_bot:
            waiting_since = at_s
    return gaps


@pytest.mark.parametrize("game", ["metro", "underground"])
def test_bot_answers_its_turn_without_stalling(
    gateway_process: str, language: str, game: str
) -> None:
    started = time.monotonic()
    run = run_bot(language, "--url", gateway_process, "--game", game, "--vs-ai", FAST_LEVEL)
    wall_s = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    gaps = answer_gaps(events_of(gateway_process, run.game_id))
    print(f"{language} {game}: {wall_s:.1f} s, {len(gaps)} turns, slowest answer {max(gaps):.2f} s")
    assert len(gaps) >= 5, gaps
    slow = [round(g, 2) for g in gaps if g > MAX_ANSWER_S]
    assert not slow, f"the bot slept through its turn: {slow} (wall {wall_s:.1f} s)"


@pytest.fixture
def rules_limited_gateway(
    engine: Any, ai: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A gateway process of its own whose position queries are limited as a real server's are
    (RATE_LIMIT_RULES; everything else relaxed as for the other tests): its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = ServiceProcess(
        "gateway",
        python_module("services.gateway"),
        log_dir=tmp_path_factory.mktemp("limited-gateway-logs"),
        env={
            "GATEWAY_HOST": "127.0.0.1",
            "GATEWAY_PORT": str(port),
            "ENGINE_TARGET": engine.address,
            "AI_TARGET": ai.target,
            **RELAXED_RATES,
            "RATE_LIMIT_RULES": RULES_LIMIT,
        },
        port=port,
        ready=lambda: check_http(url + "/", timeout=2.0) is None,
        timeout=60.0,
    )
    with process:
        yield url


def test_a_metro_bot_does_not_wait_out_the_rules_limit(
    rules_limited_gateway: str, language: str
) -> None:
    """The Metro strategy asks one rules query per candidate placement, far more than
    RATE_LIMIT_RULES allows in a game; past the limit it plays the best move scored so far
    instead of waiting a minute for the next query (it once stalled the game for minutes)."""
    started = time.monotonic()
    run = run_bot(language, "--url", rules_limited_gateway, "--game", "metro", "--vs-ai",
                  FAST_LEVEL)  # fmt: skip
    wall_s = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    gaps = answer_gaps(events_of(rules_limited_gateway, run.game_id))
    print(f"{language} metro, rules limited: {wall_s:.1f} s, slowest answer {max(gaps):.2f} s")
    slow = [round(g, 2) for g in gaps if g > MAX_ANSWER_S]
    assert not slow, f"the bot waited for the rules limit: {slow} (wall {wall_s:.1f} s)"
