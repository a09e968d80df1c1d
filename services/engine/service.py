"""The Engine gRPC service: each call validates, loads the game, asks the rules core, commits.

Hidden information: every view and event sent is built (messages.py) from `state.view(seat)` or
the rules core's public event, never from the stored state. Errors become statuses in `_call`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import grpc
import redis.asyncio as aioredis
from google.protobuf.timestamp_pb2 import Timestamp
from metro.v1 import engine_pb2, engine_pb2_grpc

import games
from games.base import Game, GameState
from games.errors import GameError
from services.common.auth import new_token, token_hash
from services.common.config import Settings
from services.common.grpc_util import ServiceError, from_game_error, invalid_argument
from services.common.levels import DEFAULT_LEVEL
from services.engine import messages, validation
from services.engine.access import Caller
from services.engine.bots import BotQueue
from services.engine.cache import GameCache, Snapshot
from services.engine.meta import AI, HUMAN, OPEN, SEAT_KINDS, GameMeta, SeatInfo
from services.engine.store import (
    STORAGE_ERRORS,
    Change,
    Committed,
    Conflict,
    Duplicate,
    GameStore,
    StoredGame,
)

log = logging.getLogger("metro.engine")

T = TypeVar("T")
COMMIT_ATTEMPTS = 5  # internal retries of a change that no client pinned to a version
LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX = 50, 200
WATCH_SLICE_MS = 5000


def _state_json(state: GameState) -> str:
    """The stored form of a state (compact: it is written on every move)."""
    return json.dumps(state.to_dict(), separators=(",", ":"), check_circular=False)


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


class EngineService(engine_pb2_grpc.EngineServicer):
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
            mapped = from_game_error(err)
            await context.abort(mapped.code, mapped.message, mapped.trailing_metadata())
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the call took longer than its deadline ({budget:.1f}s)",
                (("metro-error-reason", "deadline_exceeded"),),
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

    # ---- loading ------------------------------------------------------------------------

    @staticmethod
    def _game(kind: str) -> Game:
        return games.get(kind)

    async def _load(self, game_id: str) -> Snapshot:
        """The game as stored now; parsing is skipped for what the cache holds unchanged."""
        stored, _ = await self.store.load(game_id)
        if stored is None:
            raise _not_found(game_id)
        return self._snapshot(stored)

    def _snapshot(self, stored: StoredGame) -> Snapshot:
        cached = self.cache.get(stored.game_id)
        if cached is not None and cached.meta_json == stored.meta_json:
            meta = cached.meta
        else:
            meta = GameMeta.from_dict(json.loads(stored.meta_json))
        if cached is not None and cached.version == stored.version:
            state = cached.state
        else:
            state = self._game(meta.kind).state_from_dict(json.loads(stored.state_json))
        snap = Snapshot(
            memo=cached.memo if cached is not None else {},
            game_id=stored.game_id,
            version=stored.version,
            status=stored.status,
            meta=meta,
            meta_json=stored.meta_json,
            state=state,
            last_event_id=stored.last_event_id,
            created_at_ms=stored.created_at_ms,
        )
        self.cache.put(snap)
        return snap

    def _remember(
        self,
        snap: Snapshot,
        result: Committed,
        state: GameState,
        status: str,
        meta: GameMeta | None = None,
        meta_json: str = "",
    ) -> None:
        """Cache the game as this replica just committed it."""
        self.cache.put(
            replace(
                snap,
                version=result.version,
                status=status,
                state=state,
                last_event_id=result.event_id,
                meta=meta or snap.meta,
                meta_json=meta_json or snap.meta_json,
                from_cache=False,
            )
        )

    def _ttl(self, status: str) -> int:
        return self.settings.finished_ttl_s if status == "over" else self.settings.idle_ttl_s

    def _view(
        self,
        snap: Snapshot,
        state: GameState,
        *,
        version: int,
        status: str,
        last_event_id: str,
        seat: int | None,
    ) -> engine_pb2.GameView:
        return messages.game_view(
            game_id=snap.game_id,
            meta=snap.meta,
            version=version,
            status=status,
            last_event_id=last_event_id,
            view=state.view(seat),
            seat=seat,
            memo=snap.memo,
        )

    @staticmethod
    def _status(meta: GameMeta, state: GameState) -> str:
        return "over" if state.is_over else meta.status_before_over

    @staticmethod
    def _bot_turn(meta: GameMeta, state: GameState, status: str) -> tuple[int | None, str]:
        seat = state.current_seat
        if status == "playing" and meta.is_ai(seat):
            assert seat is not None
            return seat, meta.seats[seat].level
        return None, ""

    # ---- CreateGame ---------------------------------------------------------------------

    async def CreateGame(
        self, request: engine_pb2.CreateGameRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.CreateGameResponse:
        return await self._call(context, lambda: self._create(request))

    async def _create(self, request: engine_pb2.CreateGameRequest) -> engine_pb2.CreateGameResponse:
        kind = request.game
        if not kind:
            raise invalid_argument("game", "game is required (the game kind, e.g. 'metro')")
        if len(kind) > 32:
            raise invalid_argument("game", f"unknown game {validation.shown(kind)}")
        try:
            game = self._game(kind)
        except GameError:
            known = ", ".join(games.kinds())
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"unknown game {validation.shown(kind)}; known games: {known}",
                reason="wrong_game",
                field="game",
            ) from None
        raw_rules: dict[str, Any] = {}
        if request.HasField("rules"):
            member = request.rules.WhichOneof("detail")
            if member is not None and member != kind:
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"the rules are for {member}, but the game is {kind}",
                    reason="wrong_game",
                    field="rules",
                )
            if member is not None:
                raw_rules = messages.detail_dict(request.rules, kind)
        rules = game.normalise_rules(raw_rules)
        state = game.new_state(rules, secrets.randbits(63))
        specs = list(request.seats) or [engine_pb2.SeatSpec(kind=HUMAN)] + [
            engine_pb2.SeatSpec(kind=OPEN) for _ in range(state.seat_count - 1)
        ]
        if len(specs) != state.seat_count:
            raise invalid_argument(
                "seats",
                f"{len(specs)} seats given, but the rules are for {state.seat_count} players",
            )
        game_id = secrets.token_urlsafe(9)
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
        now_ms = int(time.time() * 1000)
        meta = GameMeta(kind=kind, rules=rules, seats=tuple(seats), created_at_ms=now_ms)
        meta_json = meta.to_json()
        status = self._status(meta, state)
        bot_seat, bot_level = self._bot_turn(meta, state, status)
        event = {
            "action": "create",
            "version": 1,
            "status": status,
            "turn": state.current_seat if status == "playing" else None,
            "scores": list(state.scores),
        }
        result = await self.store.commit(
            Change(
                game_id=game_id,
                kind=kind,
                expected_version=None,
                request_key=f"req:{uuid.uuid4().hex}",
                answer="",
                state_json=_state_json(state),
                meta_json=meta_json,
                status=status,
                event=event,
                ttl_s=self._ttl(status),
                bot_seat=bot_seat,
                bot_level=bot_level,
                created_at_ms=now_ms,
            )
        )
        if isinstance(result, Conflict):  # a 72-bit id collided: vanishingly rare
            raise ServiceError(
                grpc.StatusCode.ABORTED, "game id collision; try again", reason="version_conflict"
            )
        if isinstance(result, Committed):  # (a Duplicate: our own commit, re-sent)
            self.cache.put(
                Snapshot(game_id, 1, status, meta, meta_json, state, result.event_id, now_ms)
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
                    rules=messages.rules_message(meta.kind, meta.rules),
                    seats=messages.seats(meta, None),
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
            bot_seat, bot_level = self._bot_turn(meta, state, status)
            meta_json = meta.to_json()
            event = {
                "action": "join",
                "seat": seat,
                "name": meta.seats[seat].name,
                "version": snap.version + 1,
                "status": status,
                "turn": state.current_seat if status == "playing" else None,
                "scores": list(state.scores),
            }
            result = await self.store.commit(
                Change(
                    game_id=game_id,
                    kind=meta.kind,
                    expected_version=snap.version,
                    request_key=f"req:{uuid.uuid4().hex}",
                    answer="",
                    state_json=_state_json(state),
                    meta_json=meta_json,
                    status=status,
                    event=event,
                    ttl_s=self._ttl(status),
                    bot_seat=bot_seat,
                    bot_level=bot_level,
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
        seat = caller.seat(snap.meta, game_id, requested, required=False)
        return self._snapshot_view(snap, seat)

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
        seat = caller.seat(snap.meta, game_id, requested, required=True)
        assert seat is not None
        out = engine_pb2.ListLegalMovesResponse(seat=seat, version=snap.version)
        if snap.status == "playing":
            kind = snap.meta.kind
            out.moves.extend(
                messages.move_message(kind, m) for m in snap.state.legal_moves_json(seat)
            )
        return out

    # ---- ApplyMove ----------------------------------------------------------------------

    async def ApplyMove(
        self, request: engine_pb2.ApplyMoveRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.GameView:
        return await self._call(context, lambda: self._apply(request, self._caller(context)))

    async def _apply(
        self, request: engine_pb2.ApplyMoveRequest, caller: Caller
    ) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        move_id = validation.move_id(request.move_id)
        if request.WhichOneof("detail") is None:
            raise invalid_argument("action", "the move is missing: give an action")
        pinned = request.expected_version if request.HasField("expected_version") else None
        requested = request.seat if request.HasField("seat") else None
        # The hot path: this replica's snapshot, no read. The commit's version check catches a
        # stale one, and any refusal based on it is re-checked against Redis before it is sent.
        cached = self.cache.get(game_id)
        snap: Snapshot | None = None
        if cached is not None and (pinned is None or pinned == cached.version):
            snap = replace(cached, from_cache=True)
        for _ in range(COMMIT_ATTEMPTS):
            if snap is None:
                snap = await self._load(game_id)
            try:
                outcome = await self._try_move(snap, request, caller, requested, pinned, move_id)
            except (ServiceError, GameError):
                if snap.from_cache:
                    snap = None
                    continue
                raise
            if isinstance(outcome, engine_pb2.GameView):
                return outcome
            if outcome is None:
                raise _not_found(game_id)
            if pinned is not None and outcome.current_version != pinned:
                raise _aborted(game_id, outcome.current_version, pinned)
            snap = None  # stale snapshot, or another move won the race: look again
        raise _aborted(game_id, None, -1)

    async def _try_move(
        self,
        snap: Snapshot,
        request: engine_pb2.ApplyMoveRequest,
        caller: Caller,
        requested: int | None,
        pinned: int | None,
        move_id: str,
    ) -> engine_pb2.GameView | Conflict | None:
        """One attempt: the new view, a Conflict that calls for a fresh look, or None when the
        game is gone."""
        game_id, meta = snap.game_id, snap.meta
        seat = caller.seat(meta, game_id, requested, required=True)
        assert seat is not None
        answer_key = f"move:{seat}:{move_id}" if move_id else ""
        move = messages.detail_dict(request, meta.kind)
        validation.move_fields(move)
        try:
            if pinned is not None and pinned != snap.version:
                raise _aborted(game_id, snap.version, pinned)
            if snap.status == "waiting":
                raise _failed(
                    "game_not_started",
                    f"game {game_id} has not started: seats {meta.open_seats} are still open",
                    "RULES.md §5",
                )
            if snap.status == "over":
                raise _failed("game_over", f"game {game_id} is over", "RULES.md §5")
            state = snap.state.copy()
            event = state.play(seat, move)
        except (ServiceError, GameError):
            # A retry of a move that was applied: answer it as the first time.
            if answer_key and not snap.from_cache:
                answered = await self._stored_answer(game_id, answer_key)
                if answered is not None:
                    return answered
            raise
        status = self._status(meta, state)
        bot_seat, bot_level = self._bot_turn(meta, state, status)
        version = snap.version + 1
        view = self._view(snap, state, version=version, status=status, last_event_id="", seat=seat)
        answer = base64.b64encode(view.SerializeToString()).decode() if answer_key else ""
        event["version"] = version
        event["status"] = status
        result = await self.store.commit(
            Change(
                game_id=game_id,
                kind=meta.kind,
                expected_version=snap.version,
                request_key=answer_key or f"req:{uuid.uuid4().hex}",
                answer=answer,
                state_json=_state_json(state),
                meta_json="",
                status=status,
                event=event,
                ttl_s=self._ttl(status),
                bot_seat=bot_seat,
                bot_level=bot_level,
            )
        )
        if isinstance(result, Committed):
            self._remember(snap, result, state, status)
            view.last_event_id = result.event_id
            return view
        if isinstance(result, Duplicate):
            return await self._answer_of(game_id, result, seat)
        return result if result.current_version is not None else None

    async def _stored_answer(self, game_id: str, answer_key: str) -> engine_pb2.GameView | None:
        raw = await self.store.answer(game_id, answer_key)
        if raw is None:
            return None
        event_id, version, answer = raw.split("\n", 2)
        return await self._answer_of(game_id, Duplicate(event_id, int(version), answer), None)

    async def _answer_of(
        self, game_id: str, dup: Duplicate, seat: int | None
    ) -> engine_pb2.GameView:
        """The view first answered to a request (or, for one that stored none, the current)."""
        if dup.answer:
            view = engine_pb2.GameView.FromString(base64.b64decode(dup.answer))
            view.last_event_id = dup.event_id
            return view
        return self._snapshot_view(await self._load(game_id), seat)

    def _snapshot_view(self, snap: Snapshot, seat: int | None) -> engine_pb2.GameView:
        return self._view(
            snap,
            snap.state,
            version=snap.version,
            status=snap.status,
            last_event_id=snap.last_event_id,
            seat=seat,
        )

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
        kind = snap.meta.kind
        last = after or "0-0"
        try:
            # What was missed, in pages.
            while True:
                batch = await self.store.events_after(game_id, last)
                for event_id, event in batch:
                    yield messages.game_event(game_id, kind, event_id, event)
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
                    yield messages.game_event(game_id, kind, event_id, event)
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
            if not validation.JOB_ID.fullmatch(request.job_id):
                raise invalid_argument("job_id", "job_id must be a job id from ClaimBotTurn")
            game_id = await self.bots.job_game(request.job_id)
            if game_id is not None and await self.bots.is_current_id(game_id, request.job_id):
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
