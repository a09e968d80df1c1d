"""Seats changing hands (SetAway, and the clock keeper's time-outs; timeouts.py says how):
the AI plays a seat whose player left or ran out of time, or (a table whose time-out loses)
the seat retires for good; a player who comes back takes the seat again."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from metro.v1 import engine_pb2

from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core import timeouts, validation
from services.engine.core.access import Caller, ClaimedSeats, seat_of
from services.engine.core.edge import aborted, failed
from services.engine.core.store import Conflict, Duplicate, new_request_key
from services.engine.core.table import Table, seat_view
from services.engine.core.tables import COMMIT_ATTEMPTS, Tables

log = logging.getLogger("metro.engine")

AWAY_ATTEMPTS = 60  # a seat's leaving races the moves of the turn; the deadline bounds it


class Away:
    def __init__(self, tables: Tables, claims: ClaimedSeats) -> None:
        self.tables = tables
        self.claims = claims

    async def set_away(
        self, request: engine_pb2.SetAwayRequest, caller: Caller
    ) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        if caller.is_ai_service:
            raise invalid_argument("away", "only a seat's own player leaves, resigns or comes back")
        for _ in range(AWAY_ATTEMPTS):
            table = await self.tables.load(game_id)
            seat = await seat_of(caller, self.claims, table.meta, game_id, None)
            info = table.meta.seats[seat]
            if request.resign:
                result = await self.resign(table, seat)
            elif table.status != "playing" or info.lost or info.away == request.away:
                return seat_view(table, seat)  # nothing to hand over (or done already)
            elif request.away:
                result = await self.hand_over(table, (seat,), "left")
            else:
                meta = table.meta.with_seat(seat, replace(info, away=False))
                result = await self.tables.commit(
                    table, table.state, {"action": "returned", "seats": [seat]},
                    new_request_key(), meta=meta, new_turn=False, resumed=(seat,),
                )  # fmt: skip
            view = await self.tables.seat_view_after(result, game_id, seat)
            if view is not None:
                return view
        raise aborted(game_id, None, -1)

    async def resign(self, table: Table, seat: int) -> Table | Duplicate | Conflict:
        """Commit `seat` giving up (issue 35): it retires as the rules retire a leaver (score
        frozen, never a winner, rated as a loss: ratings.py ranks retired seats last), whether
        or not the AI was playing it; the others play on, or the game ends by its rules when
        too few seats are left. Resigning again, or after the end, changes nothing."""
        if table.status == "waiting":
            raise failed(
                "game_not_started", f"game {table.game_id} has not started: nothing to resign"
            )
        info = table.meta.seats[seat]
        if table.status != "playing" or info.lost:
            return table  # done already (a retried request) or over: nothing to give up
        state = table.state.copy()
        event: dict[str, Any] = {
            "action": "resigned", "seat": seat, "seats": [seat], "retired": [state.retire(seat)],
        }  # fmt: skip
        meta = table.meta.with_seat(seat, replace(info, lost=True, away=False))
        return await self.tables.commit(
            table, state, event, new_request_key(), meta=meta,
            new_turn=state.turn_number != table.state.turn_number,
        )  # fmt: skip

    async def settle_clock(self, game_id: str, at_ms: int) -> None:
        """Act on `game_id`'s passed deadlines at `at_ms` (the clock keeper calls this)."""
        for _ in range(COMMIT_ATTEMPTS):
            try:
                table = await self.tables.load(game_id)
            except ServiceError:
                await self.tables.store.clear_deadline(game_id)  # gone
                return
            clock = table.meta.clock
            due = set(timeouts.timed_seats(table.meta, table.state, table.status))
            expired = tuple(s for s in clock.expired(at_ms) if s in due) if clock else ()
            if not expired:
                # Early, or already settled by another replica: index the true deadline.
                await self.tables.store.set_deadline(game_id, timeouts.deadline_of(table.meta))
                return
            result = await self.hand_over(table, expired, "timeout")
            if not isinstance(result, Conflict) or result.current_version is None:
                return

    async def hand_over(
        self, table: Table, seats: tuple[int, ...], why: str
    ) -> Table | Duplicate | Conflict:
        """Commit `seats` leaving: the AI plays them, or (a table whose time-out loses) they
        retire for good, scores frozen (the rules core's `retire`)."""
        meta, state = table.meta, table.state
        loses = meta.clock_rules is not None and meta.clock_rules.on_timeout == "lose"
        event: dict[str, Any] = {"action": why, "seats": list(seats), "then": "ai"}
        if loses:
            state = state.copy()
            for seat in seats:
                event.setdefault("retired", []).append(state.retire(seat))
                meta = meta.with_seat(seat, replace(meta.seats[seat], lost=True))
            event["then"] = "lose"
        else:
            for seat in seats:
                meta = meta.with_seat(seat, replace(meta.seats[seat], away=True))
        if why == "timeout":
            log.info("game %s: time ran out for seats %s (%s)", table.game_id, seats, event["then"])
        return await self.tables.commit(
            table, state, event, new_request_key(), meta=meta,
            new_turn=state.turn_number != table.state.turn_number,
        )  # fmt: skip
