"""The example bots keep to the stream contract (issue 30.14): a create carries an
Idempotency-Key, a refused stream waits the server's Retry-After (not the bot's own back-off),
and `event: failure` ends a connection, which the bot resumes at once instead of waiting on a
silent socket. The CutProxy between bot and gateway answers the bot's first game stream itself,
as the gateway does when it is full or a stream breaks; every other request reaches the real
gateway, and the bot plays its game to the end."""

from __future__ import annotations

import json
import re
import subprocess

from tests.bots.conftest import FAST_LEVEL, GAME_TIMEOUT_S, ROOT, CutProxy, bot_command

STREAM = re.compile(r"GET /api/games/[\w-]+/events")
RETRY_AFTER_S = 2


def play(proxy: CutProxy, language: str) -> tuple[list[float], list[str], str]:
    """Run the bot through the proxy to the end: (times of its game stream requests, every
    request head, stderr)."""
    command = bot_command(
        language, "--url", proxy.url, "--game", "underground", "--vs-ai", FAST_LEVEL
    )
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=GAME_TIMEOUT_S, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("final scores:"), done.stdout
    with proxy.lock:
        heads, times = list(proxy.heads), list(proxy.times)
    streams = [t for h, t in zip(heads, times, strict=True) if STREAM.match(h)]
    return streams, heads, done.stderr


def answer(status: str, headers: dict[str, str], body: bytes) -> bytes:
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return f"HTTP/1.1 {status}\r\n{head}\r\n".encode() + body


def test_a_refused_stream_waits_retry_after_and_creates_are_idempotent(
    gateway_process: str, cut_proxy: CutProxy, language: str
) -> None:
    body = json.dumps({"error": {"code": "busy", "message": "too many streams"}}).encode()
    cut_proxy.answer_streams(
        (
            answer(
                "503 Service Unavailable",
                {"Content-Type": "application/json", "Content-Length": str(len(body)),
                 "Retry-After": str(RETRY_AFTER_S), "Connection": "close"},
                body,
            ),
            False,
        )
    )  # fmt: skip
    streams, heads, err = play(cut_proxy, language)
    # The bot's own back-off would have come back after 1 s; the server asked for 2.
    if len(streams) > 1:
        assert streams[1] - streams[0] >= RETRY_AFTER_S - 0.2, (streams, err)
    assert "busy" in err, err
    creates = [h for h in heads if h.startswith("POST /api/games ")]
    assert len(creates) == 1, creates
    key = re.search(r"(?im)^Idempotency-Key: *([A-Za-z0-9_-]{16,128})\s*$", creates[0])
    assert key, creates[0]


def test_event_failure_ends_the_connection_and_the_bot_resumes(
    gateway_process: str, cut_proxy: CutProxy, language: str
) -> None:
    failure = json.dumps({"code": "unavailable", "message": "the engine went away"})
    cut_proxy.answer_streams(
        (
            answer(
                "200 OK",
                {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
                f"retry: 3000\n\nevent: failure\ndata: {failure}\n\n".encode(),
            ),
            True,  # and then silence on an open socket, which the bot must not wait out
        )
    )
    streams, _, err = play(cut_proxy, language)
    assert len(streams) >= 2, f"the bot never resumed its stream after event: failure\n{err}"
    assert streams[1] - streams[0] < 10, streams
    assert "unavailable" in err, err
