"""Every game's data in Redis, and the one way to change it (commit_lua.py).

Keys of one game (all expire together, `GAME_TTL_IDLE_S` after the last change, or
`GAME_TTL_FINISHED_S` once the game is over):
  game:{id}          hash: version, status, state (the rules core's to_dict JSON: secrets!),
                     meta (JSON: kind, rules, seats with hashed tokens), created_at (ms),
                     last_event_id, turn (the state's turn number), turn_version (the version
                     the turn began at), bot:<seat> (the AI job of each seat due to move)
  game:{id}:events   stream: one public event per change; the entry id is the event id
  game:{id}:answers  hash: request key -> "event_id\nversion" of its first answer
  game:{id}:pending  hash: seat -> its hidden choice in the open simultaneous turn (the stored
                     state is the turn's start; the choices are applied to it on load)
Shared keys:
  games:waiting, games:playing, games:over   zsets of game ids by created_at (ListGames)
  bot-turns          stream of AI-turn jobs, consumer group "ai-workers" (bots.py)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.engine.commit_lua import COMMIT_LUA, SUBMIT_LUA

BOT_STREAM = "bot-turns"
BOT_GROUP = "ai-workers"
BOT_STREAM_MAXLEN = 100_000
STATUSES = ("waiting", "playing", "over")


def game_key(game_id: str) -> str:
    return f"game:{game_id}"


def events_key(game_id: str) -> str:
    return f"game:{game_id}:events"


def answers_key(game_id: str) -> str:
    return f"game:{game_id}:answers"


def pending_key(game_id: str) -> str:
    return f"game:{game_id}:pending"


def index_key(status: str) -> str:
    return f"games:{status}"


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One game as read from Redis, before the state is parsed."""

    game_id: str
    version: int
    status: str
    state_json: str
    meta_json: str
    created_at_ms: int
    last_event_id: str
    turn_version: int = 0
    pending: tuple[tuple[int, str], ...] = ()  # (seat, choice JSON) in seat order


@dataclass(frozen=True, slots=True)
class Change:
    """Everything one commit writes; see commit_lua.py for what each part becomes."""

    game_id: str
    kind: str
    expected_version: int | None  # None: create the game
    request_key: str
    state_json: str
    meta_json: str  # "" when unchanged
    status: str
    event: dict[str, Any]  # without "version": the script adds it
    ttl_s: int
    seats: int
    turn_number: int
    bots: tuple[tuple[int, str], ...] = ()  # (seat, level) of the AI seats due to move now
    created_at_ms: int = 0


@dataclass(frozen=True, slots=True)
class Choice:
    """One seat's hidden choice in an open simultaneous turn; see SUBMIT_LUA."""

    game_id: str
    request_key: str
    turn_number: int
    seat: int
    move_json: str
    event: dict[str, Any]  # without "version"
    choosers: int  # how many seats choose in this turn
    ttl_s: int


@dataclass(frozen=True, slots=True)
class Committed:
    event_id: str
    version: int


@dataclass(frozen=True, slots=True)
class Submitted:
    event_id: str
    version: int
    complete: bool  # every seat has chosen: the caller resolves the turn


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The request key was seen before: the change it made then."""

    event_id: str
    version: int


@dataclass(frozen=True, slots=True)
class Conflict:
    current_version: int | None  # None: the game is gone (expired) or, on create, exists
    closed: bool = False  # a choice that came when every seat had chosen


CommitResult = Committed | Duplicate | Conflict
SubmitResult = Submitted | Duplicate | Conflict

STORAGE_ERRORS = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)


COMMAND_TIMEOUT_S = 5.0  # no command of ours takes longer, except the blocking reads
BLOCKING_MARGIN_S = 5.0  # a blocking read may wait its full block, plus this, for its reply


def connect(
    url: str, *, max_connections: int = 256, longest_block_ms: int = 0
) -> aioredis.Redis:
    """A client that reconnects by itself (a restarted Redis is picked up on the next call).

    A command whose reply was lost is re-sent; commits stay safe because every commit carries a
    request key that the commit script answers from, instead of applying twice. A client for
    blocking reads (XREAD BLOCK) names the longest block it will ask for: its socket must wait
    that long for a reply, or every idle watch would end in a timeout.
    """
    return aioredis.Redis.from_url(
        url,
        decode_responses=True,
        max_connections=max_connections,
        socket_timeout=COMMAND_TIMEOUT_S + longest_block_ms / 1000 + (
            BLOCKING_MARGIN_S if longest_block_ms else 0
        ),
        socket_connect_timeout=2.0,
        health_check_interval=15,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=3),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )


class GameStore:
    """Reads and the single write path (one Lua script, registered once, run by EVALSHA)."""

    def __init__(self, client: aioredis.Redis) -> None:
        # Typed loosely on purpose: redis-py's annotations cannot express decode_responses,
        # with which every reply here is str (or None), never bytes.
        self.redis: Any = client
        self._commit = client.register_script(COMMIT_LUA)
        self._submit = client.register_script(SUBMIT_LUA)

    # ---- reads ------------------------------------------------------------------------------

    async def load(self, game_id: str) -> StoredGame | None:
        """The game with its pending choices, read in one transaction; None when unknown."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hmget(
            game_key(game_id),
            "version", "status", "state", "meta", "created_at", "last_event_id", "turn_version",
        )  # fmt: skip
        pipe.hgetall(pending_key(game_id))
        row, pending = await pipe.execute()
        version, status, state, meta, created_at, last_event_id, turn_version = row
        if version is None or state is None or meta is None:
            return None
        return StoredGame(
            game_id=game_id,
            version=int(version),
            status=status,
            state_json=state,
            meta_json=meta,
            created_at_ms=int(created_at or 0),
            last_event_id=last_event_id or "",
            turn_version=int(turn_version or version),
            pending=tuple(sorted((int(k), v) for k, v in pending.items())),
        )

    async def answer(self, game_id: str, request_key: str) -> str | None:
        """What was answered to a request key, as the commit script stored it."""
        return await self.redis.hget(answers_key(game_id), request_key)

    async def version_of(self, game_id: str) -> tuple[int, str] | None:
        """(version, status) without the state; None when the game is gone."""
        version, status = await self.redis.hmget(game_key(game_id), "version", "status")
        if version is None:
            return None
        return int(version), status or ""

    async def list_ids(self, status: str, limit: int) -> list[str]:
        """Newest first; ids whose game has expired are dropped from the index on the way."""
        key = index_key(status)
        found: list[str] = []
        start = 0
        while len(found) < limit:
            ids = await self.redis.zrevrange(key, start, start + limit - 1)
            if not ids:
                break
            start += len(ids)
            pipe = self.redis.pipeline(transaction=False)
            for game_id in ids:
                pipe.exists(game_key(game_id))
            alive = await pipe.execute()
            gone = [g for g, ok in zip(ids, alive, strict=True) if not ok]
            if gone:
                await self.redis.zrem(key, *gone)
                start -= len(gone)
            found.extend(g for g, ok in zip(ids, alive, strict=True) if ok)
        return found[:limit]

    async def load_many(self, game_ids: list[str]) -> list[StoredGame]:
        """Several games without their states (for listings); gone ones are left out."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hmget(game_key(game_id), "version", "status", "meta", "created_at")
        out = []
        for game_id, row in zip(game_ids, await pipe.execute(), strict=True):
            version, status, meta, created_at = row
            if version is None or meta is None:
                continue
            out.append(
                StoredGame(
                    game_id=game_id,
                    version=int(version),
                    status=status,
                    state_json="",
                    meta_json=meta,
                    created_at_ms=int(created_at or 0),
                    last_event_id="",
                )
            )
        return out

    async def events_after(
        self, game_id: str, after: str, count: int = 200
    ) -> list[tuple[str, dict[str, Any]]]:
        """Stored events after `after` ("" or "0-0": from the first), oldest first."""
        start = f"({after}" if after and after != "0-0" else "-"
        entries = await self.redis.xrange(events_key(game_id), min=start, max="+", count=count)
        return [(entry_id, json.loads(fields["event"])) for entry_id, fields in entries]

    async def wait_events(
        self, client: aioredis.Redis, game_id: str, after: str, block_ms: int
    ) -> list[tuple[str, dict[str, Any]]]:
        """Events after `after`, waiting up to block_ms for the first (on the blocking client)."""
        reply: Any = await client.xread(
            {events_key(game_id): after or "0-0"}, block=block_ms, count=200
        )
        out: list[tuple[str, dict[str, Any]]] = []
        for _key, entries in reply or ():
            out.extend((entry_id, json.loads(fields["event"])) for entry_id, fields in entries)
        return out

    # ---- the one write path -----------------------------------------------------------------

    async def commit(self, change: Change) -> CommitResult:
        """Run the commit script: check the version; write state, event, answer, jobs, TTLs."""
        reply = await self._commit(
            keys=[
                game_key(change.game_id),
                events_key(change.game_id),
                answers_key(change.game_id),
                BOT_STREAM,
                *(index_key(s) for s in STATUSES),
                pending_key(change.game_id),
            ],
            args=[
                "" if change.expected_version is None else str(change.expected_version),
                change.request_key,
                change.state_json,
                change.meta_json,
                change.status,
                _event_tail(change.event),
                str(change.ttl_s),
                ",".join(f"{seat}={level}" for seat, level in change.bots),
                str(change.seats),
                change.game_id,
                change.kind,
                BOT_GROUP,
                str(BOT_STREAM_MAXLEN),
                str(change.created_at_ms),
                str(change.turn_number),
            ],
        )
        tag = reply[0]
        if tag == "ok":
            return Committed(event_id=reply[1], version=int(reply[2]))
        if tag == "dup":
            return _duplicate(reply[1])
        if tag == "conflict":
            return Conflict(current_version=int(reply[1]))
        return Conflict(current_version=None)

    async def submit(self, choice: Choice) -> SubmitResult:
        """Run the submit script: store a hidden choice if its turn is still open."""
        reply = await self._submit(
            keys=[
                game_key(choice.game_id),
                events_key(choice.game_id),
                answers_key(choice.game_id),
                pending_key(choice.game_id),
                BOT_STREAM,
            ],
            args=[
                choice.request_key,
                str(choice.turn_number),
                str(choice.seat),
                choice.move_json,
                _event_tail(choice.event),
                str(choice.choosers),
                str(choice.ttl_s),
                BOT_GROUP,
            ],
        )
        tag = reply[0]
        if tag == "ok":
            return Submitted(
                event_id=reply[1], version=int(reply[2]), complete=int(reply[3]) >= choice.choosers
            )
        if tag == "dup":
            return _duplicate(reply[1])
        if tag in ("turn", "closed"):
            return Conflict(current_version=int(reply[1]), closed=tag == "closed")
        return Conflict(current_version=None)

    async def ping(self) -> bool:
        return bool(await self.redis.ping())


def _event_tail(event: dict[str, Any]) -> str:
    """The event's JSON without its opening brace: the scripts put the version in front."""
    if not event:
        raise ValueError("an event is never empty: it names at least its action")
    return json.dumps(event, separators=(",", ":"))[1:]


def _duplicate(answer: str) -> Duplicate:
    event_id, _, version = answer.partition("\n")
    return Duplicate(event_id=event_id, version=int(version.split("\n")[0]))
