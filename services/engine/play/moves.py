"""Moves (ApplyMove): check a seat's move with the rules core and commit it, once.

The hot path reads nothing: this replica's table of the game is played on and committed, and
the commit's version check catches a stale one (any refusal based on it is re-checked against
Redis before it is sent). The answer is the view of the table just committed. A move in an
open simultaneous turn is that seat's hidden choice (stored apart from the state, so seats
choosing at once never conflict); the choice that completes the turn is never stored: the turn
it completes is committed whole. A move reads the game at most once per attempt, decides once
and writes once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import grpc
import orjson
from metro.v1 import engine_pb2

import games
from games.errors import GameError, NotYourTurnError
from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core import validation
from services.engine.core.access import Caller, ClaimedSeats, seat_of
from services.engine.core.edge import aborted, failed, not_found
from services.engine.core.meta import GameMeta
from services.engine.core.store import Choice, Conflict, Duplicate, new_request_key, parse_answer
from services.engine.core.table import Table, seat_view
from services.engine.core.tables import Tables, to_move_of

MOVE_ATTEMPTS = 60  # a move races at most the other seats of its turn; the deadline bounds it

Answer = tuple[engine_pb2.GameView, bool]  # the mover's view; True when a repeat was answered


def taken_back(meta: GameMeta, seat: int, caller: Caller) -> GameMeta | None:
    """The meta with `seat` back in its player's hands when its own token moves on a seat the
    AI plays while the player is away; None when nothing changes hands."""
    info = meta.seats[seat]
    if not info.away or caller.is_ai_service:
        return None
    return meta.with_seat(seat, replace(info, away=False))


def made_by(caller: Caller) -> str:
    """Who made a move, kept on its event as `by` (docs/decisions.md): "ai" when the AI
    service made it (an AI seat, or a person's seat the AI plays while they are away), else
    "player". A page tells every past move's maker from the events; ratings count them."""
    return "ai" if caller.is_ai_service else "player"


class Moves:
    def __init__(
        self, tables: Tables, claims: ClaimedSeats, refused: Callable[[str, int], None]
    ) -> None:
        self.tables = tables
        self.claims = claims
        # Told of each move the rules refused (game id, seat): a bot that keeps sending
        # illegal moves is paused (player_feed.py, ladder.py).
        self.refused = refused

    async def apply(self, request: engine_pb2.ApplyMoveRequest, caller: Caller) -> Answer:
        """The mover's view after the move, and whether it answers a repeated move_id."""
        game_id = validation.game_id(request.game_id)
        move_id = validation.move_id(request.move_id)
        move = validation.json_object(request.move_json, "move")
        move.pop("preview", None)  # a legal move sent back as ListLegalMoves listed it
        if not move:
            raise invalid_argument("move", "the move is missing: give the move's fields")
        validation.move_fields(move)
        pinned = request.expected_version if request.HasField("expected_version") else None
        requested = request.seat if request.HasField("seat") else None
        cached = self.tables.cached(game_id)
        table = (
            cached if cached is not None and (pinned is None or pinned <= cached.version) else None
        )
        for _ in range(MOVE_ATTEMPTS):
            if table is None:
                table = await self.tables.load(game_id)
            try:
                outcome = await self._try(table, move, caller, requested, pinned, move_id)
            except (ServiceError, GameError):
                if table.from_cache:
                    table = None
                    continue
                raise
            if isinstance(outcome, tuple):
                return outcome
            if outcome is None:
                raise not_found(game_id)
            table = None  # stale table, or another move won the race: look again
        raise aborted(game_id, None, -1)

    async def _try(
        self,
        table: Table,
        move: dict[str, Any],
        caller: Caller,
        requested: int | None,
        pinned: int | None,
        move_id: str,
    ) -> Answer | Conflict | None:
        """One attempt: the answer, a Conflict that calls for a fresh look, or None when the
        game is gone."""
        game_id, meta = table.game_id, table.meta
        seat = await seat_of(caller, self.claims, meta, game_id, requested)
        answer_key = f"move:{seat}:{move_id}" if move_id else ""
        print_ = fingerprint(move) if move_id else ""
        try:
            if pinned is not None and not table.turn_version <= pinned <= table.version:
                # (Inside a simultaneous turn any version since it began will do: other
                # seats' hidden choices do not make this one stale.)
                raise aborted(game_id, table.version, pinned)
            if table.status == "waiting":
                raise failed(
                    "game_not_started",
                    f"game {game_id} has not started: seats {meta.open_seats} are still open",
                )
            if table.status == "over":
                # The refusal every game shares (games/errors.py), as the game itself says it.
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION, f"game {game_id} is over",
                    reason="game_over", refusal="game_over",
                )  # fmt: skip
            state = table.state.copy()
            before = state.turn_number
            event = {**state.play(seat, move), "by": made_by(caller)}
        except (ServiceError, GameError) as err:
            # A retry of a move that was applied: answer it as the first time.
            if answer_key and not table.from_cache:
                answered = await self._repeat(game_id, answer_key, seat, print_)
                if answered is not None:
                    return answered
            if (
                isinstance(err, GameError)
                and not isinstance(err, NotYourTurnError)  # a race, not a broken bot
                and not table.from_cache
            ):
                self.refused(game_id, seat)
            raise
        request_key = answer_key or new_request_key()
        base = table.turn_start
        if seat not in base.to_move():
            # A choice made before another seat left mid-turn is part of the committed state
            # (the retirement was a public change): it is final, or the turn's count of hidden
            # choices would no longer match the seats still to choose.
            raise failed("choice_final", "your choice for this turn is already final")
        back = taken_back(meta, seat, caller)
        if state.turn_number == before and len(base.to_move()) > 1 and back is None:
            return await self._choose(table, state, seat, move, event, request_key, print_)
        if back is not None:  # the player moves on a seat the AI was playing: it is theirs again
            event = {**event, "returned": [seat]}
        result = await self.tables.commit(
            table, state, event, request_key, meta=back, new_turn=state.turn_number != before,
            fingerprint=print_,
        )  # fmt: skip
        if isinstance(result, Table):
            return seat_view(result, seat), False
        if isinstance(result, Duplicate):
            _same_request(result, print_)
            return seat_view(await self.tables.load(game_id), seat), True
        return result if result.current_version is not None else None

    async def _choose(
        self,
        table: Table,
        state: Any,
        seat: int,
        move: dict[str, Any],
        event: dict[str, Any],
        request_key: str,
        print_: str,
    ) -> Answer | Conflict | None:
        """A hidden choice in an open simultaneous turn: stored apart from the state, so that
        seats choosing at once never conflict. The choice that would complete the turn is not
        stored (Conflict with `last`): the caller looks again, and on the game as stored it
        completes the turn, which is then committed whole, in one write."""
        game = games.get(table.meta.kind)
        choice = orjson.dumps(game.parse_move(move).to_json()).decode()  # its canonical form
        result = await self.tables.store.submit(
            Choice(
                game_id=table.game_id,
                request_key=request_key,
                turn_number=state.turn_number,
                seat=seat,
                move_json=choice,
                # Who is still to choose is public (each seat's `chosen`); this choice is not.
                event={**event, "status": table.status, "to_move": to_move_of(state, table.status)},
                choosers=len(table.turn_start.to_move()),
                ttl_s=self.tables.ttl(table.status, table.meta),
                turn_version=table.turn_version,
                fingerprint=print_,
            )
        )
        if isinstance(result, Conflict):
            return result if result.current_version is not None else None
        if isinstance(result, Duplicate):
            _same_request(result, print_)
            return seat_view(await self.tables.load(table.game_id), seat), True
        now = replace(
            table,
            version=result.version,
            state=state,
            pending={**table.pending, seat: choice},
            last_event_id=result.event_id,
            from_cache=False,
        )
        if table.version + 1 == result.version:  # nobody chose in between: as stored
            self.tables.remember(now)
        return seat_view(now, seat), False

    async def _repeat(self, game_id: str, answer_key: str, seat: int, print_: str) -> Answer | None:
        """For a request key already answered: the mover's view as it is now (a different
        move under the same move_id: idempotency_mismatch)."""
        answer = await self.tables.store.answer(game_id, answer_key)
        if answer is None:
            return None
        _same_request(parse_answer(answer), print_)
        return seat_view(await self.tables.load(game_id), seat), True


def fingerprint(move: dict[str, Any]) -> str:
    """A move's hash, kept with the answer to its move_id: the same fields in any order give
    the same hash."""
    return hashlib.sha256(orjson.dumps(move, option=orjson.OPT_SORT_KEYS)).hexdigest()[:24]


def _same_request(answered: Duplicate, print_: str) -> None:
    """A move_id answered before must name the same move (as payment APIs keep their keys)."""
    if answered.fingerprint and print_ and answered.fingerprint != print_:
        raise failed(
            "idempotency_mismatch",
            "this move_id was already used for a different move; send a new move_id for a new move",
        )
