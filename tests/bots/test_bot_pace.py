"""An example bot never sleeps through its turn (issue 30.14): each time the game comes back to
the bot's seat, the bot's next move follows within a few seconds, not after its 10 s poll.

The bots once cleared their wake-up flag after reading the view, so an event that came in
between was forgotten and the bot slept until its slow poll (10 s stalls, several a game). The
gaps are read from the game's own event ids (`<ms>-<seq>`: the server's clock at each commit),
so nothing here depends on the bot's own timing."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.bots.conftest import FAST_LEVEL, run_bot
from tests.bots.test_vs_ai import events_of

BOT_SEAT = 0
# The bot's answer to its turn: a few HTTP calls (view, legal moves, a move, and for Metro a
# rules query per candidate), well under a second on an idle machine; 4 s leaves room for a
# loaded CI machine and still catches the 10 s poll.
MAX_ANSWER_S = 4.0


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
