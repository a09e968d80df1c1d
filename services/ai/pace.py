"""The AI on a person's seat plays at a person's pace (issue 19, item 5).

When a player leaves or runs out of time, the AI holds their seat until they take it back. At
machine speed it could finish the game before the player has read what happened (a table whose
every seat was away once ended 7 s after the last time-out). So, for a seat of kind "human" that
the AI plays (`away` in the view):

- each of its moves comes at least PACE_MS after the seat's previous move: the bot job was queued
  by the change that made the seat due, which came at or after that move, so waiting until
  PACE_MS after the job's own time (its stream entry id is a Redis timestamp) is enough;
- it never makes the move that ends the game within GRACE_MS of taking the seat over: until
  then it leaves the job pending (not acknowledged), and a worker retakes it once it has been
  idle for the engine's reclaim time, and looks again. The take-over time is the seat's last
  `timeout`/`left` event (its event id is a Redis timestamp too), read from the game's public
  events (WatchGame), only when the game could end with this turn.

AI seats of their own (kind "ai") keep playing at machine speed. The worker's clock is compared
with Redis's: a clock off by more than a second or two shifts these waits by as much (deployments
run NTP); a wait is capped so that a wrong clock can never stall a seat for long.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Mapping
from typing import Any

from metro.v1 import engine_pb2, engine_pb2_grpc

from services.common.grpc_util import bearer

PACE_MS = 2000  # at least this long between two moves of an away seat
GRACE_MS = 60_000  # no game-ending move by the AI this soon after it took the seat over
HOLD_S = 2.0  # a job put back waits this long here first (the engine retakes it after ~3 s)

_JOB_MS = re.compile(r"[0-9]{1,3}:([0-9]{1,20})-[0-9]{1,20}")
_EVENT_MS = re.compile(r"([0-9]{1,20})-[0-9]{1,20}")
TAKE_OVER = frozenset({"timeout", "left"})


def now_ms() -> int:
    return int(time.time() * 1000)


def job_ms(job_id: str) -> int | None:
    """When a bot job was queued: the ms part of its stream entry ("<shard>:<ms>-<seq>")."""
    found = _JOB_MS.fullmatch(job_id)
    return int(found[1]) if found else None


def event_ms(event_id: str) -> int | None:
    found = _EVENT_MS.fullmatch(event_id)
    return int(found[1]) if found else None


def _order(event_id: str) -> tuple[int, int]:
    """A stream id as a sortable pair ((0, 0) for a malformed one)."""
    ms, _, seq = event_id.partition("-")
    return (int(ms), int(seq)) if ms.isdigit() and seq.isdigit() else (0, 0)


def away_person(view: Mapping[str, Any], seat: int) -> bool:
    """Whether `seat` is a person's seat the AI plays now (time ran out, or they left)."""
    seats = view.get("seats") or []
    info = seats[seat] if 0 <= seat < len(seats) else {}
    return info.get("kind") == "human" and bool(info.get("away"))


def pace_wait_s(job_id: str, at_ms: int | None = None) -> float:
    """Seconds to wait before an away seat's move: until PACE_MS after its job was queued
    (never more than PACE_MS, whatever the clocks say)."""
    queued = job_ms(job_id)
    if queued is None:
        return PACE_MS / 1000
    left = queued + PACE_MS - (now_ms() if at_ms is None else at_ms)
    return max(0, min(PACE_MS, left)) / 1000


def turn_may_end_game(info: Any, seat: int, move: Any, rng: random.Random) -> bool:
    """Whether the game ends once `seat` makes `move` and the turn is completed (in a turn where
    everyone moves at once, the others' choices are made at random in a sampled world). In
    every game here the end depends on public counts (tiles, cards, passengers left), not on
    which move is made, so one sampled world tells."""
    world = info.sample(rng)
    before = world.turn_number
    world.apply(seat, move)
    for _ in range(len(world.scores) + 1):
        if world.is_over or world.turn_number != before:
            break
        waiting = [s for s in world.to_move() if s != seat]
        if not waiting:
            break
        for other in waiting:
            moves = world.legal_moves(other)
            if moves:
                world.apply(other, rng.choice(list(moves)))
    return bool(world.is_over)


async def taken_over_ms(
    stub: engine_pb2_grpc.EngineStub, game_id: str, seat: int, upto: str, timeout_s: float,
    token: str = "",
) -> int | None:  # fmt: skip
    """When the AI last took `seat` over (its latest `timeout`/`left` event), reading the game's
    public events up to event `upto` (the view's last event); None when none says so. `token`:
    the AI service credential (a private game's events are only for the seat's player and the
    AI playing it)."""
    if not upto:
        return None
    found: int | None = None
    call = stub.WatchGame(
        engine_pb2.WatchGameRequest(game_id=game_id),
        timeout=timeout_s,
        metadata=bearer(token) if token else None,
    )
    try:
        async for event in call:
            if _takes_over(event.json, seat):
                found = event_ms(event.event_id)
            if _order(event.event_id) >= _order(upto):
                break
    finally:
        call.cancel()
    return found


def _takes_over(text: str, seat: int) -> bool:
    """Whether an event's JSON hands `seat` to the AI (a time-out or the player leaving)."""
    try:
        data = json.loads(text)
    except ValueError:
        return False
    if not isinstance(data, dict) or data.get("action") not in TAKE_OVER:
        return False
    seats = data.get("seats")
    return isinstance(seats, list) and seat in seats
