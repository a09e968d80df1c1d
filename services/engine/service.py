"""The Engine gRPC service: each call validates, loads the game, asks the rules core, commits.

Hidden information: every view and event sent is built (messages.py) from `state.view(seat)` or
the rules core's public event, never from the stored state. Errors become statuses in `_call`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, TypeVar

import grpc
import orjson
import redis.asyncio as aioredis
from google.protobuf.timestamp_pb2 import Timestamp
from metro.v1 import engine_pb2, engine_pb2_grpc
from redis.exceptions import OutOfMemoryError as StoreFull

import games
from games.base import Game, GameState
from games.errors import GameError, RulesError
from services.common.auth import new_token, token_hash
from services.common.config import Settings
from services.common.grpc_util import (
    REPLAYED_METADATA,
    ServiceError,
    from_game_error,
    invalid_argument,
)
from services.common.levels import DEFAULT_LEVEL
from services.engine import messages, timeouts, validation
from services.engine.access import Caller
from services.engine.bots import BotQueue, parse_job_id
from services.engine.cache import GameCache, Snapshot, view_of
from services.engine.clocks import Clock, ClockError, ClockRules
from services.engine.meta import AI, HUMAN, OPEN, SEAT_KINDS, GameMeta, SeatInfo
from services.engine.players_rpc import PlayerCalls
from services.engine.shards import new_game_id
from services.engine.store import (
    STORAGE_ERRORS,
    Change,
    Choice,
    Committed,
    Conflict,
    Duplicate,
    GameStore,
    StoredGame,
    Submitted,
)

log = logging.getLogger("metro.engine")

# Set when ApplyMove answers a move_id applied before (REPLAYED_METADATA, grpc_util).
_REPLAYED: ContextVar[bool] = ContextVar("metro_apply_replayed", default=False)

T = TypeVar("T")
COMMIT_ATTEMPTS = 5  # internal retries of a join or a create
MOVE_ATTEMPTS = 60  # a move races at most the other seats of its turn; the deadline bounds it
LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX = 50, 200
WATCH_SLICE_MS = 5000
MAX_ERROR_SENTENCE = 240  # longer ones quote the client's input: see _bounded


def _state_json(state: GameState) -> str:
    """The stored form of a state (compact: it is written on every move; orjson, a tenth of
    the standard library's time for the same JSON)."""
    return orjson.dumps(state.to_dict(), option=orjson.OPT_NON_STR_KEYS).decode()


def _failed(reason: str, message: str, rule: str = "") -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message, reason=reason, rule=rule)


def _not_found(game_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"no game {game_id}: it never existed or has expired",
        reason="game_not_found",
    )


def _aborted(game_id: str, current: int | None, expected: int) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ABORTED,
        f"game {game_id} is at version {current}, not {expected}: "
        "someone moved first; reload the view and try again",
        reason="version_conflict",
    )


def _turn_over(game_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ABORTED,
        f"the turn of game {game_id} resolved before this choice arrived; "
        "reload the view and choose for the new turn",
        reason="version_conflict",
    )


def _bounded(err: ServiceError) -> ServiceError:
    """A rules-core error whose sentence quotes the client's input at length (a move field that
    is a long list or object) gets a short one: nothing a client sends is echoed at length, and
    an error's details must fit in the call's metadata."""
    if len(err.message) <= MAX_ERROR_SENTENCE:
        return err
    what = err.field or "move"
    return ServiceError(
        err.code,
        f"invalid {what}: not a value this game accepts there ({len(err.message)} characters "
        "would be needed to show it)",
        reason=err.reason,
        field=err.field,
        rule=err.rule,
        refusal=err.refusal,
        params=err.params,
    )


class EngineService(PlayerCalls, engine_pb2_grpc.EngineServicer):
    def __init__(
        self,
        settings: Settings,
        store: GameStore,
        bots: BotQueue,
        blocking: aioredis.Redis,
    ) -> None:
        self.settings = settings
        self.store = store
        self.bots = bots
        self.blocking = blocking
        self.cache = GameCache()

    # ---- the error edge -----------------------------------------------------------------

    async def _call(self, context: grpc.aio.ServicerContext, work: Callable[[], Awaitable[T]]) -> T:
        """Run one unary call under its deadline (and the server's RPC_DEADLINE_S), mapping
        every failure to a status with a sentence."""
        remaining = context.time_remaining()
        budget = self.settings.rpc_deadline_s
        if remaining is not None:
            budget = min(budget, remaining)
        try:
            async with asyncio.timeout(max(budget, 0.001)):
                return await work()
        except ServiceError as err:
            await context.abort(err.code, err.message, err.trailing_metadata())
        except GameError as err:
            mapped = _bounded(from_game_error(err))
            await context.abort(mapped.code, mapped.message, mapped.trailing_metadata())
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the call took longer than its deadline ({budget:.1f}s)",
                (("metro-error-reason", "deadline_exceeded"),),
            )
        except StoreFull as err:
            # maxmemory with noeviction: no write is taken, reads go on (see the README).
            log.error("the game store is full (Redis maxmemory): %s", err)
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the game store is full; no new game or move can be saved now, try again later",
                (("metro-error-reason", "storage_full"),),
            )
        except STORAGE_ERRORS as err:
            log.warning("storage unavailable: %s", err)
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the game store (Redis) is not answering; try again shortly",
                (("metro-error-reason", "storage_unavailable"),),
            )
        except Exception:
            # Never the exception's text: it could quote anything, hidden tiles included.
            incident = uuid.uuid4().hex[:12]
            log.exception("internal error %s", incident)
            await context.abort(
                grpc.StatusCode.INTERNAL,
                f"internal error {incident}; it has been logged",
                (("metro-error-reason", "internal"),),
            )
        raise AssertionError("unreachable: context.abort raises")

    def _caller(self, context: grpc.aio.ServicerContext) -> Caller:
        return Caller.from_metadata(context.invocation_metadata(), self.settings.ai_service_token)

    async def _seat(
        self,
        caller: Caller,
        meta: GameMeta,
        game_id: str,
        requested: int | None,
        *,
        required: bool,
    ) -> int | None:
        """The caller's seat (Caller.seat), a token its player claimed for another device
        included (looked up only for a token that no seat was given)."""
        if caller.token is not None and not caller.is_ai_service and caller.proven_seat is None:
            found = caller.issued_seat(meta, game_id)
            if found is None:
                found = await self.players.claimed_seat(game_id, caller.token)
            if found is not None:
                caller = replace(caller, proven_seat=found)
        return caller.seat(meta, game_id, requested, required=required)

    # ---- loading ------------------------------------------------------------------------

    @staticmethod
    def _game(kind: str) -> Game:
        return games.get(kind)

    async def _load(self, game_id: str) -> Snapshot:
        """The game as stored now, its pending choices applied; a turn whose choices are all in
        but whose resolution was never committed (its resolver died) is resolved here."""
        for _ in range(COMMIT_ATTEMPTS):
            stored = await self.store.load(game_id)
            if stored is None:
                raise _not_found(game_id)
            snap = self._snapshot(stored)
            if snap.unresolved is None:
                return snap
            await self._commit_resolution(snap)
        raise _aborted(game_id, None, -1)

    def _snapshot(self, stored: StoredGame) -> Snapshot:
        cached = self.cache.get(stored.game_id)
        if cached is not None and cached.meta_json == stored.meta_json:
            meta = cached.meta
        else:
            meta = GameMeta.from_dict(json.loads(stored.meta_json))
        if cached is not None and cached.version == stored.version:
            return cached
        game = self._game(meta.kind)
        base = game.state_from_dict(json.loads(stored.state_json))
        state, unresolved = base, None
        if stored.pending:
            state = base.copy()
            for seat, move_json in stored.pending:
                before = state.turn_number
                event = state.play(seat, json.loads(move_json))
                if state.turn_number != before:
                    unresolved = event  # every choice is in: the turn resolved here
        snap = Snapshot(
            game_id=stored.game_id,
            version=stored.version,
            status=stored.status,
            meta=meta,
            meta_json=stored.meta_json,
            state=state,
            base=base,
            pending=dict(stored.pending),
            turn_version=stored.turn_version,
            last_event_id=stored.last_event_id,
            created_at_ms=stored.created_at_ms,
            unresolved=unresolved,
        )
        if unresolved is None:
            self.cache.put(snap)
        return snap

    async def _commit_resolution(self, snap: Snapshot) -> None:
        """Commit a turn whose last choice came in through the hidden path."""
        assert snap.unresolved is not None
        result = await self._commit_state(
            snap, snap.state, snap.unresolved, f"req:{uuid.uuid4().hex}"
        )
        if isinstance(result, Committed):
            log.info("game %s: turn resolved at version %d", snap.game_id, result.version)

    async def _commit_state(
        self,
        snap: Snapshot,
        state: GameState,
        event: dict[str, Any],
        request_key: str,
        *,
        meta: GameMeta | None = None,
        new_turn: bool = True,
        resumed: tuple[int, ...] = (),
    ) -> Committed | Duplicate | Conflict:
        """Commit a public change of the game's state (a move, a resolved turn, a seat changing
        hands). `meta`: the game's meta after the change, when it changes; the table's clock (if
        any) moves on here: the seats that were to move made this change when `new_turn`."""
        changed = meta or snap.meta
        status = self._status(changed, state)
        if changed.clock is not None:
            base = snap.base if snap.base is not None else snap.state
            moved = base.to_move() if new_turn else ()
            changed = timeouts.clocked(
                changed, state, status, timeouts.now_ms(),
                moved=moved, new_turn=new_turn, resumed=resumed,
            )  # fmt: skip
        meta_json = changed.to_json() if changed is not snap.meta else ""
        event = {**event, "status": status}
        result = await self.store.commit(
            Change(
                game_id=snap.game_id,
                kind=changed.kind,
                expected_version=snap.version,
                request_key=request_key,
                state_json=_state_json(state),
                meta_json=meta_json,
                status=status,
                event=event,
                ttl_s=self._ttl(status, changed),
                seats=len(changed.seats),
                turn_number=state.turn_number,
                bots=self._bots_due(changed, state, status),
                deadline_ms=timeouts.deadline_of(changed),
            )
        )
        if isinstance(result, Committed):
            self._remember(snap, result, state, status, changed, meta_json)
            if status == "over" and snap.status != "over":
                await self.game_ended(snap.game_id, changed.kind)  # ratings: players_rpc
        return result

    def _remember(
        self,
        snap: Snapshot,
        result: Committed,
        state: GameState,
        status: str,
        meta: GameMeta | None = None,
        meta_json: str = "",
    ) -> None:
        """Cache the game as this replica just committed it (a public change: no choices)."""
        self.cache.put(
            replace(
                snap,
                version=result.version,
                status=status,
                state=state,
                base=state,
                pending={},
                turn_version=result.version,
                last_event_id=result.event_id,
                meta=meta or snap.meta,
                meta_json=meta_json or snap.meta_json,
                from_cache=False,
                unresolved=None,
            )
        )

    def _ttl(self, status: str, meta: GameMeta | None = None) -> int:
        """How long a game's keys live after this change: a game still waiting for players
        (that nobody joins) far shorter than a running one; a running one with a clock at least
        a day past its longest deadline (a correspondence clock may give two weeks a move)."""
        if status == "over":
            return self.settings.finished_ttl_s
        if status == "waiting":
            return self.settings.waiting_ttl_s
        rules = meta.clock_rules if meta is not None else None
        if rules is not None:
            return max(self.settings.idle_ttl_s, rules.move_s + rules.bank_s + 86400)
        return self.settings.idle_ttl_s

    @staticmethod
    def _view(snap: Snapshot, seat: int | None) -> engine_pb2.GameView:
        return view_of(  # built once per snapshot and seat (cache.py)
            snap,
            seat,
            lambda: messages.game_view(
                game_id=snap.game_id,
                meta=snap.meta,
                version=snap.version,
                status=snap.status,
                last_event_id=snap.last_event_id,
                view=snap.state.view(seat),
                seat=seat,
                turn_version=snap.turn_version,
            ),
        )

    @staticmethod
    def _clock_rules(clock_json: str) -> ClockRules | None:
        """The table's clock from a create request; INVALID_ARGUMENT naming a bad setting."""
        raw = validation.json_object(clock_json, "clock") if clock_json else None
        try:
            return ClockRules.parse(raw)
        except ClockError as err:
            raise invalid_argument(err.field, str(err)) from None

    @staticmethod
    def _taken_back(meta: GameMeta, seat: int, caller: Caller) -> GameMeta | None:
        """The meta with `seat` back in its player's hands when its own token moves on a seat
        the AI plays while the player is away; None when nothing changes hands."""
        info = meta.seats[seat]
        if not info.away or caller.is_ai_service:
            return None
        return meta.with_seat(seat, replace(info, away=False))

    @staticmethod
    def _status(meta: GameMeta, state: GameState) -> str:
        return "over" if state.is_over else meta.status_before_over

    @staticmethod
    def _bots_due(meta: GameMeta, state: GameState, status: str) -> tuple[tuple[int, str], ...]:
        """The AI seats that must move now, with their levels: each gets a job."""
        if status != "playing":
            return ()
        return tuple((s, meta.ai_level(s)) for s in state.to_move() if meta.is_ai(s))

    # ---- CreateGame ---------------------------------------------------------------------

    async def CreateGame(
        self, request: engine_pb2.CreateGameRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.CreateGameResponse:
        return await self._call(context, lambda: self._create(request))

    async def _create(self, request: engine_pb2.CreateGameRequest) -> engine_pb2.CreateGameResponse:
        kind = validation.game_kind(request.game or games.default().kind)
        game = self._game(kind)
        raw_rules = validation.json_object(request.rules_json, "rules")
        try:
            rules = game.normalise_rules(raw_rules)
        except RulesError as err:
            # A game names the option it refuses ("players" or "rules.players"); the API names
            # it as the request holds it: rules.<option>.
            if err.field and err.field != "rules" and not err.field.startswith("rules."):
                err.field = f"rules.{err.field}"
            raise
        state = game.new_state(rules, secrets.randbits(63))
        seat_count = game.seat_count(rules)
        specs = list(request.seats) or [engine_pb2.SeatSpec(kind=HUMAN)] + [
            engine_pb2.SeatSpec(kind=OPEN) for _ in range(seat_count - 1)
        ]
        if len(specs) != seat_count:
            raise invalid_argument(
                "seats", f"{len(specs)} seats given, but the rules are for {seat_count} players"
            )
        game_id = new_game_id()
        token, creator, seats = "", None, []
        for index, spec in enumerate(specs):
            field = f"seats[{index}]"
            if spec.kind not in SEAT_KINDS:
                raise invalid_argument(
                    f"{field}.kind",
                    f"{field}.kind must be 'human', 'open' or 'ai'; "
                    f"got {validation.shown(spec.kind)}",
                )
            name = validation.name(spec.name, f"{field}.name")
            if spec.kind != AI and spec.level:
                raise invalid_argument(f"{field}.level", f"{field}: only AI seats have a level")
            if spec.kind == HUMAN:
                if creator is not None:
                    raise invalid_argument(
                        f"{field}.kind",
                        f"{field}.kind: only one seat may be 'human' (the creator's); make "
                        "the others 'open' so that players join with their own tokens",
                    )
                creator, token = index, new_token()
                seats.append(
                    SeatInfo(HUMAN, name or f"Player {index + 1}", "", token_hash(game_id, token))
                )
            elif spec.kind == AI:
                level = validation.level(spec.level or DEFAULT_LEVEL, f"{field}.level")
                seats.append(SeatInfo(AI, name or f"AI {index + 1}", level))
            else:
                seats.append(SeatInfo(OPEN, name))
        now_ms = timeouts.now_ms()
        clock_rules = self._clock_rules(request.clock_json)
        meta = GameMeta(
            kind=kind,
            rules=rules,
            seats=tuple(seats),
            created_at_ms=now_ms,
            clock_rules=clock_rules,
            clock=Clock.start(clock_rules, len(seats)) if clock_rules else None,
        )
        status = self._status(meta, state)
        meta = timeouts.clocked(meta, state, status, now_ms)
        meta_json = meta.to_json()
        event = {
            "action": "create",
            "status": status,
            "to_move": list(state.to_move()) if status == "playing" else [],
            "scores": list(state.scores),
        }
        result = await self.store.commit(
            Change(
                game_id=game_id,
                kind=kind,
                expected_version=None,
                request_key=f"req:{uuid.uuid4().hex}",
                state_json=_state_json(state),
                meta_json=meta_json,
                status=status,
                event=event,
                ttl_s=self._ttl(status, meta),
                seats=len(seats),
                turn_number=state.turn_number,
                bots=self._bots_due(meta, state, status),
                created_at_ms=now_ms,
                deadline_ms=timeouts.deadline_of(meta),
            )
        )
        if isinstance(result, Conflict):  # a 72-bit id collided: vanishingly rare
            raise ServiceError(
                grpc.StatusCode.ABORTED, "game id collision; try again", reason="version_conflict"
            )
        if isinstance(result, Committed):  # (a Duplicate: our own commit, re-sent)
            self.cache.put(
                Snapshot(
                    game_id,
                    1,
                    status,
                    meta,
                    meta_json,
                    state,
                    result.event_id,
                    now_ms,
                    base=state,
                    turn_version=1,
                )
            )
        out = engine_pb2.CreateGameResponse(game_id=game_id, token=token)
        if creator is not None:
            out.seat = creator
        return out

    # ---- ListGames ----------------------------------------------------------------------

    async def ListGames(
        self, request: engine_pb2.ListGamesRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.ListGamesResponse:
        return await self._call(context, lambda: self._list(request))

    async def _list(self, request: engine_pb2.ListGamesRequest) -> engine_pb2.ListGamesResponse:
        wanted = request.status or "open"
        index = {"open": "waiting", "waiting": "waiting", "playing": "playing", "over": "over"}
        if wanted not in index:
            raise invalid_argument(
                "status",
                f"status must be 'open', 'playing' or 'over'; got {validation.shown(wanted)}",
            )
        if not 0 <= request.limit <= LIST_LIMIT_MAX:
            raise invalid_argument("limit", f"limit must be 0-{LIST_LIMIT_MAX}")
        if len(request.game) > 32:
            raise invalid_argument("game", f"unknown game {validation.shown(request.game)}")
        limit = request.limit or LIST_LIMIT_DEFAULT
        scan = LIST_LIMIT_MAX if request.game else limit  # filtering by kind may drop some
        ids = await self.store.list_ids(index[wanted], scan)
        out = engine_pb2.ListGamesResponse()
        for stored in await self.store.load_many(ids):
            meta = GameMeta.from_dict(json.loads(stored.meta_json))
            if request.game and meta.kind != request.game:
                continue
            created = Timestamp()
            created.FromMilliseconds(stored.created_at_ms)
            out.games.append(
                engine_pb2.GameSummary(
                    game_id=stored.game_id,
                    game=meta.kind,
                    rules_json=json.dumps(meta.rules, separators=(",", ":")),
                    seats=[
                        engine_pb2.Seat(seat=i, name=x.name, kind=x.kind, level=x.level)
                        for i, x in enumerate(meta.seats)
                    ],
                    status=stored.status,
                    created_at=created,
                )
            )
            if len(out.games) >= limit:
                break
        return out

    # ---- JoinGame -----------------------------------------------------------------------

    async def JoinGame(
        self, request: engine_pb2.JoinGameRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.JoinGameResponse:
        return await self._call(context, lambda: self._join(request))

    async def _join(self, request: engine_pb2.JoinGameRequest) -> engine_pb2.JoinGameResponse:
        game_id = validation.game_id(request.game_id)
        name = validation.name(request.name)
        for _ in range(COMMIT_ATTEMPTS):
            snap = await self._load(game_id)
            meta = snap.meta
            free = meta.open_seats
            if snap.status == "over":
                raise _failed("game_over", f"game {game_id} is over")
            if not free:
                raise _failed("no_open_seat", f"game {game_id} has no open seat left")
            seat = free[0]
            token = new_token()
            meta = meta.with_seat(
                seat, SeatInfo(HUMAN, name or f"Player {seat + 1}", "", token_hash(game_id, token))
            )
            state = snap.state
            status = self._status(meta, state)
            meta = timeouts.clocked(meta, state, status, timeouts.now_ms())
            meta_json = meta.to_json()
            event = {
                "action": "join",
                "seat": seat,
                "name": meta.seats[seat].name,
                "status": status,
                "to_move": list(state.to_move()) if status == "playing" else [],
                "scores": list(state.scores),
            }
            result = await self.store.commit(
                Change(
                    game_id=game_id,
                    kind=meta.kind,
                    expected_version=snap.version,
                    request_key=f"req:{uuid.uuid4().hex}",
                    state_json=_state_json(state),
                    meta_json=meta_json,
                    status=status,
                    event=event,
                    ttl_s=self._ttl(status, meta),
                    seats=len(meta.seats),
                    turn_number=state.turn_number,
                    bots=self._bots_due(meta, state, status),
                    deadline_ms=timeouts.deadline_of(meta),
                )
            )
            if isinstance(result, Committed):
                self._remember(snap, result, state, status, meta, meta_json)
            if not isinstance(result, Conflict):  # (a Duplicate: our own commit, re-sent)
                return engine_pb2.JoinGameResponse(game_id=game_id, seat=seat, token=token)
            if result.current_version is None:
                raise _not_found(game_id)
        raise _aborted(game_id, None, -1)

    # ---- GetView / ListLegalMoves -------------------------------------------------------

    async def GetView(
        self, request: engine_pb2.GetViewRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.GameView:
        return await self._call(context, lambda: self._get_view(request, self._caller(context)))

    async def _get_view(
        self, request: engine_pb2.GetViewRequest, caller: Caller
    ) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        snap = await self._load(game_id)
        requested = request.seat if request.HasField("seat") else None
        seat = await self._seat(caller, snap.meta, game_id, requested, required=False)
        return self._view(snap, seat)

    async def ListLegalMoves(
        self, request: engine_pb2.ListLegalMovesRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.ListLegalMovesResponse:
        return await self._call(context, lambda: self._legal(request, self._caller(context)))

    async def _legal(
        self, request: engine_pb2.ListLegalMovesRequest, caller: Caller
    ) -> engine_pb2.ListLegalMovesResponse:
        game_id = validation.game_id(request.game_id)
        snap = await self._load(game_id)
        requested = request.seat if request.HasField("seat") else None
        seat = await self._seat(caller, snap.meta, game_id, requested, required=True)
        assert seat is not None
        out = engine_pb2.ListLegalMovesResponse(seat=seat, version=snap.version)
        if snap.status == "playing":
            out.moves.extend(
                json.dumps(m.to_json(), separators=(",", ":")) for m in snap.state.legal_moves(seat)
            )
        return out

    # ---- ApplyMove ----------------------------------------------------------------------

    async def ApplyMove(
        self, request: engine_pb2.ApplyMoveRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.GameView:
        # Each call runs in its own task, so the flag is this call's alone.
        _REPLAYED.set(False)
        view = await self._call(context, lambda: self._apply(request, self._caller(context)))
        if _REPLAYED.get():
            context.set_trailing_metadata(REPLAYED_METADATA)
        return view

    async def _apply(
        self, request: engine_pb2.ApplyMoveRequest, caller: Caller
    ) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        move_id = validation.move_id(request.move_id)
        move = validation.json_object(request.move_json, "move")
        if not move:
            raise invalid_argument("move", "the move is missing: give the move's fields")
        validation.move_fields(move)
        pinned = request.expected_version if request.HasField("expected_version") else None
        requested = request.seat if request.HasField("seat") else None
        # The hot path: this replica's snapshot, no read. The commit's version check catches a
        # stale one, and any refusal based on it is re-checked against Redis before it is sent.
        cached = self.cache.get(game_id)
        snap: Snapshot | None = None
        if cached is not None and (pinned is None or pinned <= cached.version):
            snap = replace(cached, from_cache=True)
        for _ in range(MOVE_ATTEMPTS):
            if snap is None:
                snap = await self._load(game_id)
            try:
                outcome = await self._try_move(snap, move, caller, requested, pinned, move_id)
            except (ServiceError, GameError):
                if snap.from_cache:
                    snap = None
                    continue
                raise
            if isinstance(outcome, engine_pb2.GameView):
                return outcome
            if outcome is None:
                raise _not_found(game_id)
            snap = None  # stale snapshot, or another move won the race: look again
        raise _aborted(game_id, None, -1)

    async def _try_move(
        self,
        snap: Snapshot,
        move: dict[str, Any],
        caller: Caller,
        requested: int | None,
        pinned: int | None,
        move_id: str,
    ) -> engine_pb2.GameView | Conflict | None:
        """One attempt: the new view, a Conflict that calls for a fresh look, or None when the
        game is gone."""
        game_id, meta = snap.game_id, snap.meta
        seat = await self._seat(caller, meta, game_id, requested, required=True)
        assert seat is not None
        answer_key = f"move:{seat}:{move_id}" if move_id else ""
        try:
            if pinned is not None and not snap.turn_version <= pinned <= snap.version:
                # (Inside a simultaneous turn any version since it began will do: other
                # seats' hidden choices do not make this one stale.)
                raise _aborted(game_id, snap.version, pinned)
            if snap.status == "waiting":
                raise _failed(
                    "game_not_started",
                    f"game {game_id} has not started: seats {meta.open_seats} are still open",
                )
            if snap.status == "over":
                raise _failed("game_over", f"game {game_id} is over")
            state = snap.state.copy()
            before = state.turn_number
            event = state.play(seat, move)
        except (ServiceError, GameError):
            # A retry of a move that was applied: answer it as the first time.
            if answer_key and not snap.from_cache:
                answered = await self._stored_answer(game_id, answer_key, seat)
                if answered is not None:
                    return answered
            raise
        request_key = answer_key or f"req:{uuid.uuid4().hex}"
        base = snap.base if snap.base is not None else snap.state
        if seat not in base.to_move():
            # A choice made before another seat left mid-turn is part of the committed state
            # (the retirement was a public change): it is final, or the turn's count of hidden
            # choices would no longer match the seats still to choose.
            raise _failed("choice_final", "your choice for this turn is already final")
        back = self._taken_back(meta, seat, caller)
        if state.turn_number == before and len(base.to_move()) > 1 and back is None:
            return await self._choose(snap, state, seat, move, event, request_key)
        if back is not None:  # the player moves on a seat the AI was playing: it is theirs again
            event = {**event, "returned": [seat]}
        result = await self._commit_state(
            snap, state, event, request_key, meta=back, new_turn=state.turn_number != before
        )
        if isinstance(result, Committed):
            cached = self.cache.get(game_id)
            assert cached is not None
            return self._view(cached, seat)
        if isinstance(result, Duplicate):
            _REPLAYED.set(True)
            return self._view(await self._load(game_id), seat)
        return result if result.current_version is not None else None

    async def _choose(
        self,
        snap: Snapshot,
        state: GameState,
        seat: int,
        move: dict[str, Any],
        event: dict[str, Any],
        request_key: str,
    ) -> engine_pb2.GameView | Conflict | None:
        """A hidden choice in an open simultaneous turn: stored apart from the state, so that
        seats choosing at once never conflict. The choice that completes the turn resolves it."""
        game = self._game(snap.meta.kind)
        base = snap.base if snap.base is not None else snap.state
        choice = json.dumps(game.parse_move(move).to_json(), separators=(",", ":"))
        result = await self.store.submit(
            Choice(
                game_id=snap.game_id,
                request_key=request_key,
                turn_number=state.turn_number,
                seat=seat,
                move_json=choice,
                event={**event, "status": snap.status},
                choosers=len(base.to_move()),
                ttl_s=self._ttl(snap.status, snap.meta),
            )
        )
        if isinstance(result, Conflict):
            if result.current_version is None:
                return None
            if result.closed and snap.pending.get(seat) is not None:
                raise _turn_over(snap.game_id)  # a change that came after the last choice
            return result
        if isinstance(result, Submitted) and not result.complete:
            fresh = snap.version + 1 == result.version
            now = replace(
                snap,
                version=result.version,
                state=state,
                pending={**snap.pending, seat: choice},
                last_event_id=result.event_id,
                from_cache=False,
            )
            if fresh:  # nobody else chose in between: this is the game as stored
                self.cache.put(now)
            return self._view(now, seat)
        # Every seat has chosen (or this is a retry): the turn resolves in _load.
        if isinstance(result, Duplicate):
            _REPLAYED.set(True)
        return self._view(await self._load(snap.game_id), seat)

    async def _stored_answer(
        self, game_id: str, answer_key: str, seat: int
    ) -> engine_pb2.GameView | None:
        """For a request key already answered: the mover's view as it is now."""
        if await self.store.answer(game_id, answer_key) is None:
            return None
        _REPLAYED.set(True)
        return self._view(await self._load(game_id), seat)

    # ---- seats changing hands (timeouts.py) ---------------------------------------------

    async def SetAway(
        self, request: engine_pb2.SetAwayRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.GameView:
        return await self._call(context, lambda: self._set_away(request, self._caller(context)))

    async def _set_away(
        self, request: engine_pb2.SetAwayRequest, caller: Caller
    ) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        if caller.is_ai_service:
            raise invalid_argument("away", "only a seat's own player leaves or comes back")
        for _ in range(MOVE_ATTEMPTS):
            snap = await self._load(game_id)
            seat = await self._seat(caller, snap.meta, game_id, None, required=True)
            assert seat is not None
            info = snap.meta.seats[seat]
            if snap.status != "playing" or info.lost or info.away == request.away:
                return self._view(snap, seat)  # nothing to hand over (or done already)
            if request.away:
                result = await self._hand_over(snap, (seat,), "left")
            else:
                meta = snap.meta.with_seat(seat, replace(info, away=False))
                result = await self._commit_state(
                    snap, snap.state, {"action": "returned", "seats": [seat]},
                    timeouts.request_key(), meta=meta, new_turn=False, resumed=(seat,),
                )  # fmt: skip
            if isinstance(result, Committed | Duplicate):
                return self._view(await self._load(game_id), seat)
            if result.current_version is None:
                raise _not_found(game_id)
        raise _aborted(game_id, None, -1)

    async def settle_clock(self, game_id: str, at_ms: int) -> None:
        """Act on `game_id`'s passed deadlines at `at_ms` (the clock keeper calls this)."""
        for _ in range(COMMIT_ATTEMPTS):
            try:
                snap = await self._load(game_id)
            except ServiceError:
                await self.store.clear_deadline(game_id)  # gone
                return
            clock = snap.meta.clock
            due = set(timeouts.timed_seats(snap.meta, snap.state, snap.status))
            expired = tuple(s for s in clock.expired(at_ms) if s in due) if clock else ()
            if not expired:
                # Early, or already settled by another replica: index the true deadline.
                await self.store.set_deadline(game_id, timeouts.deadline_of(snap.meta))
                return
            result = await self._hand_over(snap, expired, "timeout")
            if not isinstance(result, Conflict) or result.current_version is None:
                return

    async def _hand_over(
        self, snap: Snapshot, seats: tuple[int, ...], why: str
    ) -> Committed | Duplicate | Conflict:
        """Commit `seats` leaving: the AI plays them, or (a table whose time-out loses) they
        retire for good, scores frozen (the rules core's `retire`)."""
        meta, state = snap.meta, snap.state
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
            log.info("game %s: time ran out for seats %s (%s)", snap.game_id, seats, event["then"])
        return await self._commit_state(
            snap, state, event, timeouts.request_key(), meta=meta,
            new_turn=state.turn_number != snap.state.turn_number,
        )  # fmt: skip

    # ---- WatchGame ----------------------------------------------------------------------

    async def WatchGame(
        self, request: engine_pb2.WatchGameRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[engine_pb2.GameEvent]:
        try:
            game_id = validation.game_id(request.game_id)
            after = validation.event_id(request.after_event_id)
            snap = await self._load(game_id)
        except ServiceError as err:
            await context.abort(err.code, err.message, err.trailing_metadata())
            return
        except STORAGE_ERRORS:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the game store (Redis) is not answering; try again shortly",
                (("metro-error-reason", "storage_unavailable"),),
            )
            return
        last = after or "0-0"
        try:
            # What was missed, in pages.
            while True:
                batch = await self.store.events_after(game_id, last)
                for event_id, event in batch:
                    yield messages.game_event(game_id, event_id, event)
                    last = event_id
                    if event.get("status") == "over":
                        return
                if len(batch) < 200:
                    break
            if snap.status == "over":
                return
            # Then live, one blocking read at a time.
            while True:
                remaining = context.time_remaining()
                block = WATCH_SLICE_MS
                if remaining is not None:
                    block = max(1, min(block, int(remaining * 1000)))
                batch = await self.store.wait_events(self.blocking, game_id, last, block)
                if not batch:
                    if await self.store.version_of(game_id) is None:
                        return  # expired
                    continue
                for event_id, event in batch:
                    yield messages.game_event(game_id, event_id, event)
                    last = event_id
                    if event.get("status") == "over":
                        return
        except STORAGE_ERRORS:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                f"the game store (Redis) stopped answering; resume after event {last}",
                (("metro-error-reason", "storage_unavailable"),),
            )

    # ---- GetRecord ----------------------------------------------------------------------

    async def GetRecord(
        self, request: engine_pb2.GetRecordRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.GetRecordResponse:
        return await self._call(context, lambda: self._record(request))

    async def _record(self, request: engine_pb2.GetRecordRequest) -> engine_pb2.GetRecordResponse:
        game_id = validation.game_id(request.game_id)
        snap = await self._load(game_id)
        if snap.status != "over":
            raise _failed(
                "game_running",
                f"game {game_id} is not over; its record (which holds the deck order) is "
                "available once it ends",
            )
        record = snap.state.record()
        record["seats"] = [s.public() for s in snap.meta.seats]
        return engine_pb2.GetRecordResponse(
            format=str(record.get("format", "")),
            record_json=json.dumps(record, separators=(",", ":")),
        )

    # ---- bot turns ----------------------------------------------------------------------

    async def ClaimBotTurn(
        self, request: engine_pb2.ClaimBotTurnRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.ClaimBotTurnResponse:
        async def claim() -> engine_pb2.ClaimBotTurnResponse:
            self._caller(context).require_ai_service()
            worker = validation.worker_id(request.worker_id)
            wait_ms = validation.wait_ms(request.wait_ms)
            remaining = context.time_remaining()
            if remaining is not None:  # leave time to answer before the deadline
                wait_ms = max(0, min(wait_ms, int(remaining * 1000) - 200))
            job = await self.bots.claim(worker, wait_ms)
            out = engine_pb2.ClaimBotTurnResponse()
            if job is not None:
                out.turn.CopyFrom(
                    engine_pb2.BotTurn(
                        job_id=job.job_id,
                        game_id=job.game_id,
                        game=job.game,
                        seat=job.seat,
                        version=job.version,
                        level=job.level,
                        attempt=job.attempt,
                    )
                )
            return out

        return await self._call(context, claim)

    async def AckBotTurn(
        self, request: engine_pb2.AckBotTurnRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.AckBotTurnResponse:
        async def ack() -> engine_pb2.AckBotTurnResponse:
            self._caller(context).require_ai_service()
            if parse_job_id(request.job_id) is None:
                raise invalid_argument("job_id", "job_id must be a job id from ClaimBotTurn")
            place = await self.bots.job_place(request.job_id)
            if place is not None and await self.bots.is_current_id(*place, request.job_id):
                raise _failed(
                    "job_current",
                    "this job is still the game's current AI turn: make the move, or leave it "
                    "and another worker retakes it",
                )
            await self.bots.drop(request.job_id)
            return engine_pb2.AckBotTurnResponse()

        return await self._call(context, ack)


async def close_quietly(client: aioredis.Redis) -> None:
    with contextlib.suppress(Exception):
        await client.aclose()
