"""A watch stream on a game where nobody moves stays open: no failure for longer than several
blocking reads (each waits 5 s on a Redis connection that must wait with it), then the next
move arrives on it."""

from __future__ import annotations

import json
import threading

from tests.fixtures.engine import RunningEngine, doc
from tests.fixtures.waits import assert_stays

IDLE_S = 32


def test_an_idle_watch_stream_stays_up_and_delivers_the_next_move(engine: RunningEngine) -> None:
    client = engine.client()
    game_id, tokens = client.create_full({"players": 2})
    start = client.view(game_id)
    stream = client.events(game_id, after=start.last_event_id, timeout=IDLE_S + 30)
    got: list[dict] = []  # type: ignore[type-arg]
    failure: list[BaseException] = []

    def read() -> None:
        try:
            for event in stream:
                got.append(doc(event))
                return
        except BaseException as err:
            failure.append(err)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert_stays(
        lambda: not failure and reader.is_alive() and not got,
        f"the idle stream open and silent for {IDLE_S} s (failure {failure}, got {got})",
        IDLE_S,
        every=0.5,
    )
    legal = client.legal(game_id, tokens[0])
    client.move(game_id, tokens[0], json.loads(legal.moves[0]))
    reader.join(timeout=10)
    stream.cancel()
    assert not failure, failure
    assert got and got[0]["seat"] == 0 and got[0]["version"] == start.version + 1
