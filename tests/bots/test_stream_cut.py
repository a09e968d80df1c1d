"""A bot whose connections are all cut mid-game (its event stream included) comes back: it
resumes the stream after the last event it saw (Last-Event-ID) and plays the game to its end."""

from __future__ import annotations

import re
import subprocess

from tests.bots.conftest import FAST_LEVEL, GAME_TIMEOUT_S, ROOT, CutProxy, bot_command
from tests.bots.test_vs_ai import expected_line, get_json
from tests.fixtures.waits import wait_until

EVENTS_HEAD = re.compile(r"GET /api/games/([\w-]+)/events")
LAST_ID = re.compile(r"(?im)^Last-Event-ID: *([0-9]+)-([0-9]+)\s*$")


def stream_heads(proxy: CutProxy) -> list[str]:
    with proxy.lock:
        return [h for h in proxy.heads if EVENTS_HEAD.match(h)]


def test_bot_recovers_after_its_stream_is_cut(
    gateway_process: str, cut_proxy: CutProxy, language: str
) -> None:
    command = bot_command(
        language, "--url", cut_proxy.url, "--game", "underground", "--vs-ai", FAST_LEVEL
    )
    bot = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_until(lambda: stream_heads(cut_proxy), "the bot's event stream", 300, every=0.2)
        game_id = EVENTS_HEAD.match(stream_heads(cut_proxy)[0]).group(1)  # type: ignore[union-attr]
        view_url = f"{gateway_process}/api/games/{game_id}"
        cuts = 0
        for rounds, version in enumerate((12, 40), 1):  # well inside a game of 100+ versions
            wait_until(
                lambda v=version: get_json(view_url)["version"] >= v,
                f"version {version}",
                300,
                every=0.2,
            )
            assert get_json(view_url)["status"] == "playing"
            cuts += cut_proxy.cut()
            wait_until(
                lambda r=rounds: len(stream_heads(cut_proxy)) > r, "a reconnection", 300, every=0.2
            )
        out, err = bot.communicate(timeout=GAME_TIMEOUT_S)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0, err
    assert cuts >= 2, "the bot had no connection open to cut"
    assert "cut" in err, err
    view = get_json(view_url)
    assert view["status"] == "over"
    assert out.strip().splitlines()[-1] == expected_line(view), (out, err)
    # Each reconnection resumed after an event the bot had seen: Last-Event-ID moved forward.
    heads = stream_heads(cut_proxy)
    assert len(heads) >= 3, heads
    ids = []
    for head in heads:
        found = LAST_ID.search(head)
        assert found, head
        ids.append((int(found.group(1)), int(found.group(2))))
    assert ids == sorted(ids) and ids[-1] > ids[0], ids
