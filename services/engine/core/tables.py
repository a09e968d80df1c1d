"""Loading and committing tables: the one read path and the one write path of every call.

`Tables.load` reads a game (its pending hidden choices applied) into a `Table`; `Tables.open`
(a new game: create, rematch) and `Tables.commit` (every public change after that: a join, a
move, a resolved turn, a seat changing hands) are the only places a `store.Change` is built, and
both answer the table just committed, so a caller never reads its own write back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import orjson
from metro.v1 import engine_pb2

import games
from games.base import GameState
from services.common.config import Settings
from services.engine.core import timeouts
from services.engine.core.edge import not_found
from services.engine.core.feed_outbox import feed_doc
from services.engine.core.meta import GameMeta
from services.engine.core.store import (
    Change,
    Committed,
    Conflict,
    Duplicate,
    GameStore,
    StoredGame,
)
from services.engine.core.table import Table, TableCache, seat_view

log = logging.getLogger("metro.engine")

COMMIT_ATTEMPTS = 5  # internal retries of a join, a create or a clock's settling

Ended = Callable[[str, str], None]  # (game id, kind) of a game a commit just ended


def state_json(state: GameState) -> str:
    """The stored form of a state (compact: it is written on every move; orjson, a tenth of
    the standard library's time for the same JSON)."""
    return orjson.dumps(state.to_dict(), option=orjson.OPT_NON_STR_KEYS).decode()


def status_of(meta: GameMeta, state: GameState) -> str:
    """The engine's status: over when the rules say so, or when the table agreed to stop."""
    return "over" if state.is_over or meta.ended else meta.status_before_over


def bots_due(meta: GameMeta, state: GameState, status: str) -> tuple[tuple[int, str], ...]:
    """The AI seats that must move now, with their levels: each gets a job."""
    if status != "playing":
        return ()
    return tuple((s, meta.ai_level(s)) for s in state.to_move() if meta.is_ai(s))


def owed_to_feeds(
    meta: GameMeta, state: GameState, status: str, event: dict[str, Any], before: str | None
) -> str:
    """What a commit owes the players' own streams (player_feed.py), stored by the commit
    itself in its shard's feed outbox (feed_outbox.py): nothing is lost to a kill after it."""
    turn = [s for s in state.to_move() if not meta.is_ai(s)] if status == "playing" else []
    over = list(state.scores) if status == "over" and before != "over" else None
    timed_out = event.get("seats") if event.get("action") == "timeout" else None
    seat = event.get("seat")
    mover = seat if event.get("by") == "player" and isinstance(seat, int) else None
    return feed_doc(meta.kind, turn, over, [int(s) for s in timed_out or ()], mover)


def to_move_of(state: GameState, status: str) -> list[int]:
    """The seats an event says must move now: none unless the game is being played (as views)."""
    return list(state.to_move()) if status == "playing" else []


def start_fields(state: GameState, status: str) -> dict[str, Any]:
    """What a create or join event says of where the game stands."""
    return {
        "status": status,
        "to_move": to_move_of(state, status),
        "scores": list(state.scores),
    }


class Tables:
    """Every table this engine reads or writes, through this replica's cache."""

    def __init__(self, settings: Settings, store: GameStore, ended: Ended) -> None:
        self.settings = settings
        self.store = store
        self.cache = TableCache()
        # The commits this replica has in flight, by game: a live event can be read back from
        # the store before its commit's own coroutine has put the new table in the cache.
        self._in_flight: dict[str, set[asyncio.Future[None]]] = {}
        self._ended = ended

    # ---- reads --------------------------------------------------------------------------

    def cached(self, game_id: str) -> Table | None:
        """This replica's last table of the game (no read), marked as such."""
        table = self.cache.get(game_id)
        return None if table is None else replace(table, from_cache=True)

    def at_least(self, game_id: str, version: int) -> Table | None:
        """This replica's own table of the game when it is at `version` or later (no read),
        else None. A table is cached only once stored, so it is never ahead of the store; a
        live event's views need no newer one than the event's (the next event brings more)."""
        table = self.cache.get(game_id)
        return table if table is not None and table.version >= version else None

    async def settled(self, game_id: str, version: int) -> Table | None:
        """`at_least`, once the commits of the game this replica has in flight now are done
        (the event at `version` is often one of them, read back before its commit's answer)."""
        table = self.at_least(game_id, version)
        flights = self._in_flight.get(game_id)
        if table is None and flights:
            await asyncio.wait(set(flights))
            table = self.at_least(game_id, version)
        return table

    async def load(self, game_id: str) -> Table:
        """The game as stored now, its pending choices applied (a read: never a write)."""
        stored = await self.store.load(game_id)
        if stored is None:
            raise not_found(game_id)
        return self._parse(stored)

    def _parse(self, stored: StoredGame) -> Table:
        """The table of a stored game (the cached one when it is that version)."""
        cached = self.cache.get(stored.game_id)
        if cached is not None and cached.version == stored.version:
            return cached
        if cached is not None and cached.meta_json == stored.meta_json:
            meta = cached.meta
        else:
            meta = GameMeta.from_dict(orjson.loads(stored.meta_json))
        base = games.get(meta.kind).state_from_dict(orjson.loads(stored.state_json))
        state, pending = base, dict(stored.pending)
        if pending and len(pending) >= len(base.to_move()):
            # A complete set of choices (only an engine from before the last choice was
            # committed whole leaves one): the last is left out, so its seat chooses again and
            # that choice resolves the turn (moves.py). Nothing here ever writes.
            del pending[max(pending)]
        if pending:
            state = base.copy()
            for seat, move_json in pending.items():
                state.play(seat, orjson.loads(move_json))
        table = Table(
            game_id=stored.game_id,
            version=stored.version,
            status=stored.status,
            meta=meta,
            meta_json=stored.meta_json,
            state=state,
            base=base,
            pending=pending,
            turn_version=stored.turn_version,
            last_event_id=stored.last_event_id,
            created_at_ms=stored.created_at_ms,
        )
        self.cache.put(table)
        return table

    def remember(self, table: Table) -> None:
        """Keep a table this replica knows to be the game as stored (a hidden choice's)."""
        self.cache.put(table)

    # ---- the write path -----------------------------------------------------------------

    async def open(
        self,
        game_id: str,
        meta: GameMeta,
        state: GameState,
        event: dict[str, Any],
        request_key: str,
    ) -> Table | Duplicate | Conflict:
        """Create a game (create-if-absent: an id that exists is a Conflict, a request key seen
        before a Duplicate). `event`: the create event's own fields (action included)."""
        status = status_of(meta, state)
        meta = timeouts.clocked(meta, state, status, meta.created_at_ms)
        meta_json = meta.to_json()
        event = {**event, **start_fields(state, status)}
        result = await self.store.commit(
            self._change(game_id, None, request_key, meta, meta_json, state, status, event, None)
        )
        if not isinstance(result, Committed):
            return result
        table = Table(
            game_id=game_id,
            version=result.version,
            status=status,
            meta=meta,
            meta_json=meta_json,
            state=state,
            last_event_id=result.event_id,
            created_at_ms=meta.created_at_ms,
            base=state,
            turn_version=result.version,
        )
        self.cache.put(table)
        return table

    async def commit(
        self,
        table: Table,
        state: GameState,
        event: dict[str, Any],
        request_key: str,
        *,
        meta: GameMeta | None = None,
        new_turn: bool = True,
        moved: Iterable[int] | None = None,
        resumed: tuple[int, ...] = (),
        fingerprint: str = "",
    ) -> Table | Duplicate | Conflict:
        """Commit a public change of `table` (at exactly its version); the table as committed.

        `meta`: the game's meta after the change, when it changes. The table's clock (if any)
        moves on here: `moved` seats made this change (default: the seats that were to move,
        when `new_turn`); `event` gets the new status."""
        flight: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        flights = self._in_flight.setdefault(table.game_id, set())
        flights.add(flight)
        try:
            return await self._commit(
                table, state, event, request_key,
                meta=meta, new_turn=new_turn, moved=moved, resumed=resumed,
                fingerprint=fingerprint,
            )  # fmt: skip
        finally:
            flight.set_result(None)
            flights.discard(flight)
            if not flights and self._in_flight.get(table.game_id) is flights:
                del self._in_flight[table.game_id]

    async def seat_view_after(
        self, result: Table | Duplicate | Conflict, game_id: str, seat: int
    ) -> engine_pb2.GameView | None:
        """The seat's view once a commit landed (this one, or the same request's earlier one:
        Duplicate); None after a conflict, for the caller to look again; NOT_FOUND once the
        game is gone. The tail of every retried seat request's loop."""
        if isinstance(result, Table):
            return seat_view(result, seat)
        if isinstance(result, Duplicate):
            return seat_view(await self.load(game_id), seat)
        if result.current_version is None:
            raise not_found(game_id)
        return None

    async def _commit(
        self,
        table: Table,
        state: GameState,
        event: dict[str, Any],
        request_key: str,
        *,
        meta: GameMeta | None,
        new_turn: bool,
        moved: Iterable[int] | None,
        resumed: tuple[int, ...],
        fingerprint: str,
    ) -> Table | Duplicate | Conflict:
        changed = meta or table.meta
        if changed.offer is not None and not str(event.get("action", "")).startswith("offer"):
            # An offer to stop lapses once anything else happens at the table (a move...).
            event = {**event, "offer_lapsed": changed.offer["n"]}
            changed = replace(changed, offer=None)
        status = status_of(changed, state)
        if changed.clock is not None:
            if moved is None:
                moved = table.turn_start.to_move() if new_turn else ()
            changed = timeouts.clocked(
                changed, state, status, timeouts.now_ms(),
                moved=moved, new_turn=new_turn, resumed=resumed,
            )  # fmt: skip
        meta_json = changed.to_json() if changed is not table.meta else ""
        # Every event says where the game stands (API.md, docs/bots.md): its status and the
        # seats to move now, whatever changed (a seat handed to the AI, a bot taking its seat).
        event = {**event, "status": status, "to_move": to_move_of(state, status)}
        change = self._change(
            table.game_id, table.version, request_key, changed, meta_json, state, status,
            event, table.status,
        )  # fmt: skip
        result = await self.store.commit(replace(change, fingerprint=fingerprint))
        if not isinstance(result, Committed):
            return result
        committed = replace(
            table,
            version=result.version,
            status=status,
            state=state,
            base=state,
            pending={},
            turn_version=result.version,
            last_event_id=result.event_id,
            meta=changed,
            meta_json=meta_json or table.meta_json,
            from_cache=False,
        )
        self.cache.put(committed)
        if status == "over" and table.status != "over":
            self._ended(table.game_id, changed.kind)  # rated after this call answers
        return committed

    def _change(
        self,
        game_id: str,
        expected_version: int | None,
        request_key: str,
        meta: GameMeta,
        meta_json: str,
        state: GameState,
        status: str,
        event: dict[str, Any],
        before: str | None,
    ) -> Change:
        """The change to store; `before`: the status the game had (None: a new game)."""
        return Change(
            game_id=game_id,
            kind=meta.kind,
            expected_version=expected_version,
            request_key=request_key,
            state_json=state_json(state),
            meta_json=meta_json,
            status=status,
            event=event,
            ttl_s=self.ttl(status, meta),
            seats=len(meta.seats),
            turn_number=state.turn_number,
            bots=bots_due(meta, state, status),
            created_at_ms=meta.created_at_ms if expected_version is None else 0,
            deadline_ms=timeouts.deadline_of(meta),
            feed=owed_to_feeds(meta, state, status, event, before),
            archive=self.settings.archive,
        )

    def ttl(self, status: str, meta: GameMeta | None = None) -> int:
        """How long a game's keys live after this change: a game still waiting for players
        (that nobody joins) far shorter than a running one; a running one with a clock at least
        a day past its longest deadline (a correspondence clock may give two weeks a move)."""
        if status == "over":
            # With an archive, a finished game waits for it (the archiver then sets
            # finished_ttl_s); the hold only bounds how long an archive that is down may lag.
            if self.settings.archive:
                return self.settings.archive_hold_s
            return self.settings.finished_ttl_s
        if status == "waiting":
            return self.settings.waiting_ttl_s
        rules = meta.clock_rules if meta is not None else None
        if rules is not None:
            return max(self.settings.idle_ttl_s, rules.move_s + rules.bank_s + 86400)
        return self.settings.idle_ttl_s
