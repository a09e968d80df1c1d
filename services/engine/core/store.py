"""Every game's data in Redis, and the one way to change it (commit_lua.py).

Redis is one server, a Redis Cluster or a primary behind Sentinel (REDIS_URL: see
services/common/redis_url.py). Every key a commit touches hashes to one cluster slot: the game's
keys carry its id as hash tag, and the keys shared by many games are split into shards
(shards.py), each pinned to one slot, with every game id made to land in one shard's slot.

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
Keys of one shard (tag: shards.TAGS[shard], in the same slot as the games of that shard):
  games:{tag}:waiting, games:{tag}:playing, games:{tag}:over
                     zsets of game ids by created_at; ListGames merges the shards
  bot-turns:{tag}    stream of AI-turn jobs, consumer group "ai-workers" (bots.py)
  clocks:{tag}       zset of game ids by their next clock deadline in ms (timeouts.py)
  feed-out:{tag}     stream of what commits owe the players' own streams (feed_outbox.py)
  archive-out:{tag}  stream of finished games (and done analyses) the archivers owe PostgreSQL
                     (archive_outbox.py)

With replicas (REDIS_MIN_REPLICAS > 0) a change is answered only once that many replicas hold
it (WAIT), so a replica promoted after its primary dies never lacks an acknowledged move.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    ClusterError,
    NoScriptError,
    ReadOnlyError,
    RedisClusterException,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.common.config import Durability
from services.common.redis_url import async_client
from services.engine.core.archive_outbox import archive_outbox_key
from services.engine.core.commit_lua import COMMIT_LUA, LOAD_LUA, SUBMIT_LUA
from services.engine.core.shards import SHARD_COUNT, shard_of
from services.engine.core.storage_gate import PROBE_TIMEOUT_S, StorageGate, note_write
from services.engine.core.store_keys import (  # (importers of these from here keep working)
    FEED_OUTBOX_MAXLEN,
    answers_key,
    bot_stream,
    clocks_key,
    events_key,
    feed_outbox_key,
    game_key,
    index_key,
    pending_key,
)

BOT_GROUP = "ai-workers"
BOT_STREAM_MAXLEN = 100_000
STATUSES = ("waiting", "playing", "over")
LIST_ROUNDS = 20  # a listing drops expired ids and looks again at most this often


BOT_STREAMS = tuple(bot_stream(shard) for shard in range(SHARD_COUNT))


class NotReplicated(RedisTimeoutError):
    """A change reached the primary but not REDIS_MIN_REPLICAS replicas in time: it is not
    acknowledged, yet it may survive (the caller answers "outcome unknown"; a retry with the
    same request key is answered once the replicas have it)."""


class OutcomeUnknown(Exception):
    """A write was sent but no reply came (the connection dropped or timed out after every
    retry): it may or may not have been made. The same request key again tells."""


def new_request_key() -> str:
    """The request key of a change that no client retries (it has no key of its own)."""
    return f"req:{uuid.uuid4().hex}"


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
    deadline_ms: int | None = None  # the game's next clock deadline; None: nothing is timed
    feed: str = ""  # what the commit owes the players' feeds (feed_outbox.feed_doc); "": none
    archive: bool = False  # an archive is configured: a commit that ends the game tells it
    fingerprint: str = ""  # the request's hash, kept with its answer (idempotency_mismatch)


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
    turn_version: int  # the version of the turn's last public change, that `choosers` is of
    fingerprint: str = ""  # the request's hash, kept with its answer (idempotency_mismatch)


@dataclass(frozen=True, slots=True)
class Committed:
    event_id: str
    version: int


@dataclass(frozen=True, slots=True)
class Submitted:
    event_id: str
    version: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The request key was seen before: the change it made then (and its request's hash)."""

    event_id: str
    version: int
    fingerprint: str = ""


@dataclass(frozen=True, slots=True)
class Conflict:
    current_version: int | None  # None: the game is gone (expired) or, on create, exists
    last: bool = False  # a choice that would complete the turn: commit the resolution instead


CommitResult = Committed | Duplicate | Conflict
SubmitResult = Submitted | Duplicate | Conflict

# What "the store is not answering" looks like, on one server, a cluster mid-failover (slots
# not served for a moment, a primary that is now a replica), a cluster none of whose nodes
# answers (RedisClusterException, which is no RedisError) or a Sentinel-managed primary.
STORAGE_ERRORS = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterError,
    TryAgainError,
    SlotNotCoveredError,
    RedisClusterException,
    ReadOnlyError,
    ConnectionError,
    OSError,
)


COMMAND_TIMEOUT_S = 5.0  # no command of ours takes longer, except the blocking reads
BLOCKING_MARGIN_S = 5.0  # a blocking read may wait its full block, plus this, for its reply


def connect(url: str, *, max_connections: int = 256, longest_block_ms: int = 0) -> Any:
    """A client that reconnects by itself (a restarted Redis, a failed-over primary or a moved
    slot is picked up on a later call), for one server, a cluster or Sentinel alike.

    A command whose reply was lost is re-sent; commits stay safe because every commit carries a
    request key that the commit script answers from, instead of applying twice. A client for
    blocking reads (XREAD BLOCK) names the longest block it will ask for: its socket must wait
    that long for a reply, or every idle watch would end in a timeout.
    """
    return async_client(
        url,
        decode_responses=True,
        max_connections=max_connections,
        socket_timeout=COMMAND_TIMEOUT_S
        + longest_block_ms / 1000
        + (BLOCKING_MARGIN_S if longest_block_ms else 0),
        # Short: on one network a connection is made in a millisecond; a host that is gone
        # should not hold a call for long (the storage gate answers the others at once).
        socket_connect_timeout=1.0,
        health_check_interval=15,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=3),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )


def probe_client(url: str) -> Any:
    """A client for the storage gate's ping alone: no retries, and a connect and a reply each
    given PROBE_TIMEOUT_S, so a Redis that is gone is noticed within a second."""
    return async_client(
        url,
        decode_responses=True,
        max_connections=2,
        socket_timeout=PROBE_TIMEOUT_S,
        socket_connect_timeout=PROBE_TIMEOUT_S,
    )


class GameStore:
    """Reads and the single write path (one Lua script, registered once, run by EVALSHA)."""

    def __init__(self, client: Any, durability: Durability | None = None) -> None:
        # Typed loosely on purpose: redis-py's annotations cannot express decode_responses,
        # with which every reply here is str (or None), never bytes; and a cluster client
        # shares the commands but not the type of a plain one.
        self.redis: Any = client
        self.cluster = isinstance(client, RedisCluster)
        self.durability = durability or Durability.from_env()
        self._commit = client.register_script(COMMIT_LUA)
        self._submit = client.register_script(SUBMIT_LUA)
        self._read = client.register_script(LOAD_LUA)
        # Whether Redis answers (storage_gate.py): kept by the server's probe, read by edge.py.
        self.gate = StorageGate()

    # ---- reads ------------------------------------------------------------------------------

    async def load(self, game_id: str) -> StoredGame | None:
        """The game with its pending choices, read in one atomic step (LOAD_LUA: both keys
        share the game's slot); None when unknown."""
        if shard_of(game_id) is None:
            return None  # not an id the engine makes: no such game
        row, flat = await self._read(keys=[game_key(game_id), pending_key(game_id)])
        pending = dict(zip(flat[::2], flat[1::2], strict=True))
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
        if shard_of(game_id) is None:
            return None
        return await self.redis.hget(answers_key(game_id), request_key)

    async def version_of(self, game_id: str) -> tuple[int, str] | None:
        """(version, status) without the state; None when the game is gone."""
        if shard_of(game_id) is None:
            return None
        version, status = await self.redis.hmget(game_key(game_id), "version", "status")
        if version is None:
            return None
        return int(version), status or ""

    async def list_ids(self, status: str, limit: int) -> list[str]:
        """The newest `limit` games of a status over every shard, newest first; ids whose game
        has expired are dropped from their shard's index on the way.

        Each shard's newest `limit` are read (one pipeline: per node on a cluster) and merged
        by created_at; any expired among the chosen are removed and the merge is done again."""
        for _ in range(LIST_ROUNDS):
            pipe = self.redis.pipeline(transaction=False)
            for shard in range(SHARD_COUNT):
                pipe.zrevrange(index_key(status, shard), 0, limit - 1, withscores=True)
            rows = await pipe.execute()
            newest = sorted(
                (
                    (-score, game_id, shard)
                    for shard, entries in enumerate(rows)
                    for game_id, score in entries
                ),
            )[:limit]
            pipe = self.redis.pipeline(transaction=False)
            for _score, game_id, _shard in newest:
                pipe.exists(game_key(game_id))
            alive = await pipe.execute() if newest else []
            gone = [(g, shard) for (_s, g, shard), ok in zip(newest, alive, strict=True) if not ok]
            if not gone:
                return [game_id for _score, game_id, _shard in newest]
            pipe = self.redis.pipeline(transaction=False)
            for game_id, shard in gone:
                pipe.zrem(index_key(status, shard), game_id)
            await pipe.execute()
        return [g for (_s, g, _shard), ok in zip(newest, alive, strict=True) if ok]

    async def load_many(self, game_ids: list[str]) -> list[StoredGame]:
        """Several games without their states (for listings); gone ones are left out."""
        game_ids = [g for g in game_ids if shard_of(g) is not None]
        if not game_ids:
            return []
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

    async def event(self, game_id: str, event_id: str) -> dict[str, Any] | None:
        """One stored event by its id; None when it is gone."""
        if shard_of(game_id) is None:
            return None
        entries = await self.redis.xrange(events_key(game_id), min=event_id, max=event_id)
        return json.loads(entries[0][1]["event"]) if entries else None

    async def wait_events(
        self, client: Any, game_id: str, after: str, block_ms: int
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
        shard = shard_of(change.game_id)
        if shard is None:
            return Conflict(current_version=None)  # no such game can exist
        keys = [
            game_key(change.game_id),
            events_key(change.game_id),
            answers_key(change.game_id),
            bot_stream(shard),
            *(index_key(s, shard) for s in STATUSES),
            pending_key(change.game_id),
            clocks_key(shard),
            feed_outbox_key(shard),
            archive_outbox_key(shard),
        ]
        args = [
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
            "" if change.deadline_ms is None else str(change.deadline_ms),
            change.feed,
            str(FEED_OUTBOX_MAXLEN),
            "1" if change.archive else "",
            change.fingerprint,
        ]
        reply = await self._run(self._commit, keys, args)
        tag = reply[0]
        if tag == "ok":
            return Committed(event_id=reply[1], version=int(reply[2]))
        if tag == "dup":
            await self._replicated_answer(change.game_id, change.request_key, reply[1])
            return parse_answer(reply[1])
        if tag == "conflict":
            return Conflict(current_version=int(reply[1]))
        return Conflict(current_version=None)

    async def submit(self, choice: Choice) -> SubmitResult:
        """Run the submit script: store a hidden choice if its turn is still open and it is not
        the choice that completes it (Conflict with `last`: commit the resolved turn)."""
        shard = shard_of(choice.game_id)
        if shard is None:
            return Conflict(current_version=None)
        keys = [
            game_key(choice.game_id),
            events_key(choice.game_id),
            answers_key(choice.game_id),
            pending_key(choice.game_id),
            bot_stream(shard),
        ]
        args = [
            choice.request_key,
            str(choice.turn_number),
            str(choice.seat),
            choice.move_json,
            _event_tail(choice.event),
            str(choice.choosers),
            str(choice.ttl_s),
            BOT_GROUP,
            str(choice.turn_version),
            choice.fingerprint,
        ]
        reply = await self._run(self._submit, keys, args)
        tag = reply[0]
        if tag == "ok":
            return Submitted(event_id=reply[1], version=int(reply[2]))
        if tag == "dup":
            await self._replicated_answer(choice.game_id, choice.request_key, reply[1])
            return parse_answer(reply[1])
        if tag in ("turn", "last"):
            return Conflict(current_version=int(reply[1]), last=tag == "last")
        return Conflict(current_version=None)

    async def _run(self, script: Any, keys: list[str], args: list[str]) -> Any:
        """Run a write script (a reply lost to a timeout: OutcomeUnknown, for the script may
        have run)."""
        note_write()
        try:
            return await self._run_waited(script, keys, args)
        except NotReplicated:
            raise
        except RedisTimeoutError as err:
            raise OutcomeUnknown(f"no reply to a change: {err}") from err

    async def _run_waited(self, script: Any, keys: list[str], args: list[str]) -> Any:
        """Run a script; with replicas required, WAIT for them on the same connection (WAIT
        counts the replicas that hold this connection's writes), in one round trip."""
        need = self.durability.min_replicas
        if not need:
            return await script(keys=keys, args=args)
        for attempt in (1, 2):
            pipe = self.redis.pipeline(transaction=False)
            # (Not pipe.evalsha: redis-py's cluster pipeline refuses that method by name, but
            # routes the raw command by its keys, all of one slot.)
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            try:
                reply, acked = await self._waited(pipe, keys[0])
            except NoScriptError:
                if attempt == 2:
                    raise
                await self._load_script(script)
                continue
            # A refused change (conflict, duplicate) wrote nothing: nothing to wait for.
            if reply[0] == "ok" and acked < need:
                raise NotReplicated(
                    f"{acked} of {need} replicas confirmed a change within "
                    f"{self.durability.wait_ms} ms"
                )
            return reply
        raise AssertionError("unreachable")

    async def _replicated_answer(self, game_id: str, request_key: str, answer: str) -> None:
        """Before a repeated request is answered, its first change must be on the replicas too
        (its first answer may have been lost to a failover): rewrite the stored answer (the
        same value; any write moves this connection's offset past the first change) and WAIT."""
        need = self.durability.min_replicas
        if not need:
            return
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(answers_key(game_id), request_key, answer)
        _, acked = await self._waited(pipe, answers_key(game_id))
        if acked < need:
            raise NotReplicated(f"{acked} of {need} replicas confirmed a repeated change")

    async def _waited(self, pipe: Any, key: str) -> tuple[Any, int]:
        """Run a pipeline holding one write to `key`, with WAIT queued behind it on the same
        connection (on a cluster: to the primary of the key's slot); (the write's reply, how
        many replicas hold it).

        A WAIT that fails, or a slot that moved to another primary meanwhile (the client then
        re-sends the write alone, elsewhere, so this WAIT proves nothing), is NotReplicated:
        the caller's retry with the same request key is answered once replicas hold it."""
        args = ("WAIT", self.durability.min_replicas, self.durability.wait_ms)
        node = None
        if self.cluster:
            node = self.redis.get_node_from_key(key)
            pipe.execute_command(*args, target_nodes=node)
        else:
            pipe.execute_command(*args)
        reply, acked = await pipe.execute(raise_on_error=False)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(acked, Exception):
            raise NotReplicated(f"no replica count for a change: {acked}")
        if node is not None and self.redis.get_node_from_key(key).name != node.name:
            raise NotReplicated("the game's slot moved to another primary during a change")
        return reply, int(acked)

    async def _load_script(self, script: Any) -> None:
        """Load a script where it was missing: a cluster client sends SCRIPT LOAD to every
        primary it knows (a replica promoted since, or a restarted node, starts without it)."""
        await self.redis.script_load(script.script)

    # ---- clocks (timeouts.py) ------------------------------------------------------------------

    async def due_games(self, at_ms: int, limit: int) -> list[str]:
        """Games whose next clock deadline is at or before `at_ms`, earliest first, over every
        shard (one pipeline; per node on a cluster)."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(SHARD_COUNT):
            pipe.zrangebyscore(clocks_key(shard), "-inf", at_ms, 0, limit, withscores=True)
        rows = await pipe.execute()
        due = sorted((score, game_id) for entries in rows for game_id, score in entries)
        return [game_id for _score, game_id in due[:limit]]

    async def set_deadline(self, game_id: str, deadline_ms: int | None) -> None:
        """Index a game's true next deadline (None: drop it), for a keeper that found the
        index ahead of the game (settled by another engine, or a clock moved on)."""
        shard = shard_of(game_id)
        if shard is None:
            return
        if deadline_ms is None:
            await self.redis.zrem(clocks_key(shard), game_id)
        else:
            await self.redis.zadd(clocks_key(shard), {game_id: deadline_ms})

    async def clear_deadline(self, game_id: str) -> None:
        await self.set_deadline(game_id, None)

    async def ping(self) -> bool:
        """Whether the store takes commands: a server that answers, or on a cluster a node that
        says every slot is served (nodes answer PING before the cluster is formed, and while
        slots wait for a failover)."""
        if self.cluster:
            info = await self.redis.cluster_info()
            return bool(info.get("cluster_state") == "ok")
        return bool(await self.redis.ping())


def _event_tail(event: dict[str, Any]) -> str:
    """The event's JSON without its opening brace: the scripts put the version in front."""
    if not event:
        raise ValueError("an event is never empty: it names at least its action")
    return json.dumps(event, separators=(",", ":"))[1:]


def parse_answer(answer: str) -> Duplicate:
    """A stored answer: "event_id\nversion", then "\nfingerprint" when one was kept."""
    event_id, version, *rest = answer.split("\n")
    return Duplicate(event_id=event_id, version=int(version), fingerprint=rest[0] if rest else "")
