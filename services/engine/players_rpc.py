"""The Engine service's calls for players, ratings and rematch (engine.proto), mixed into
EngineService: gRPC serves one servicer per service, so these live apart from the game calls but
answer on the same object. Storage: players.py, ratings.py, rematch.py.

A game that ends is rated by `game_ended` (awaited by the commit that ends it) and, should that
fail or the replica die first, by `sweep_ratings` (the engine's server runs it now and then)
and by a leaderboard read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from metro.v1 import engine_pb2

import games
from services.common.auth import new_token, token_hash
from services.common.grpc_util import ServiceError, invalid_argument
from services.engine import timeouts, validation
from services.engine.cache import Snapshot
from services.engine.clocks import Clock
from services.engine.meta import AI, HUMAN, GameMeta, SeatInfo
from services.engine.players import (
    PlayerInfo,
    Players,
    ai_player,
    client_id,
    presented_key,
)
from services.engine.ratings import SWEEP_BATCH, RatingBook
from services.engine.rematch import Offer, Offers, rotated
from services.engine.shards import new_game_id
from services.engine.store import STORAGE_ERRORS, Change, Conflict

if TYPE_CHECKING:
    from services.common.config import Settings
    from services.engine.access import Caller
    from services.engine.store import GameStore

log = logging.getLogger("metro.engine.players")

T = TypeVar("T")
GAMES_LIMIT_DEFAULT, GAMES_LIMIT_MAX = 20, 100
BOARD_LIMIT_DEFAULT, BOARD_LIMIT_MAX = 50, 200
MAX_OFFSET = 10_000
SWEEP_INTERVAL_S = 30.0
RATE_TIMEOUT_S = 2.0  # the most rating may add to the move that ends a game
READ_SWEEP = 10  # due games a leaderboard read looks at before it answers
# Events that carry a seat but are no move of it (see _human_moved).
NOT_MOVES = frozenset({"join", "create"})


def _failed(reason: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message, reason=reason)


def _no_offer(game_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"no rematch was offered after game {game_id} (or the offer has expired)",
        reason="no_rematch_offer",
    )


def _summary(game_id: str, meta: GameMeta, status: str, created_ms: int) -> engine_pb2.GameSummary:
    created = Timestamp()
    created.FromMilliseconds(created_ms)
    return engine_pb2.GameSummary(
        game_id=game_id,
        game=meta.kind,
        rules_json=json.dumps(meta.rules, separators=(",", ":")),
        seats=[
            engine_pb2.Seat(seat=i, name=x.name, kind=x.kind, level=x.level)
            for i, x in enumerate(meta.seats)
        ],
        status=status,
        created_at=created,
    )


class PlayerCalls:
    """Players, ratings and rematch; EngineService provides the attributes declared here."""

    settings: Settings
    store: GameStore

    if TYPE_CHECKING:

        async def _call(
            self, context: grpc.aio.ServicerContext, work: Callable[[], Awaitable[T]]
        ) -> T: ...

        async def _load(self, game_id: str) -> Snapshot: ...

        def _caller(self, context: grpc.aio.ServicerContext) -> Caller: ...

        async def _seat(
            self,
            caller: Caller,
            meta: GameMeta,
            game_id: str,
            requested: int | None,
            *,
            required: bool,
        ) -> int | None: ...

        def _ttl(self, status: str, meta: GameMeta | None = None) -> int: ...

        @staticmethod
        def _bots_due(meta: GameMeta, state: Any, status: str) -> tuple[tuple[int, str], ...]: ...

    @cached_property
    def players(self) -> Players:
        return Players(self.store.redis)

    @cached_property
    def rating_book(self) -> RatingBook:
        return RatingBook(self.store.redis)

    @cached_property
    def offers(self) -> Offers:
        return Offers(self.store.redis)

    async def _player(self, context: grpc.aio.ServicerContext) -> PlayerInfo:
        return await self.players.who(presented_key(context.invocation_metadata()))

    async def _seat_of(self, caller: Caller, snap: Snapshot) -> int:
        """The caller's own seat (a person's seat token; never the AI credential)."""
        if caller.is_ai_service:
            raise invalid_argument("token", "this call needs a player's seat token")
        seat = await self._seat(caller, snap.meta, snap.game_id, None, required=True)
        assert seat is not None
        return seat

    # ---- identity -----------------------------------------------------------------------

    async def CreatePlayer(
        self, request: engine_pb2.CreatePlayerRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.PlayerCredentials:
        async def work() -> engine_pb2.PlayerCredentials:
            name = validation.name(request.name, "name")
            made = await self.players.create(name, client_id(context.invocation_metadata()))
            return engine_pb2.PlayerCredentials(
                player_id=made.player_id,
                name=made.name,
                device_key=made.device_key,
                recovery_code=made.recovery_code,
            )

        return await self._call(context, work)

    async def RecoverPlayer(
        self, request: engine_pb2.RecoverPlayerRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.PlayerCredentials:
        async def work() -> engine_pb2.PlayerCredentials:
            if len(request.recovery_code) > 64:
                raise invalid_argument("recovery_code", "a recovery code is 10 characters")
            found = await self.players.recover(
                request.recovery_code, client_id(context.invocation_metadata())
            )
            return engine_pb2.PlayerCredentials(
                player_id=found.player_id, name=found.name, device_key=found.device_key
            )

        return await self._call(context, work)

    async def GetPlayer(
        self, request: engine_pb2.GetPlayerRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.Player:
        async def work() -> engine_pb2.Player:
            me = await self._player(context)
            return engine_pb2.Player(player_id=me.player_id, name=me.name)

        return await self._call(context, work)

    # ---- who sits where -----------------------------------------------------------------

    async def SitPlayer(
        self, request: engine_pb2.SitPlayerRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.SitPlayerResponse:
        async def work() -> engine_pb2.SitPlayerResponse:
            game_id = validation.game_id(request.game_id)
            snap = await self._load(game_id)
            seat = await self._seat_of(self._caller(context), snap)
            me = await self._player(context)
            await self.players.sit(game_id, snap.meta.kind, seat, me.player_id, snap.created_at_ms)
            table = await self.players.table(game_id)
            rated = table.get("rated") == "1"
            if request.rated and not rated:
                if snap.status == "over" or await self._human_moved(snap):
                    raise _failed(
                        "too_late_to_rate",
                        f"game {game_id} can be made rated only before any player has moved",
                    )
                await self.players.set_table(game_id, {"rated": "1"})
                await self.rating_book.make_due(snap.meta.kind, game_id)
                rated = True
            return engine_pb2.SitPlayerResponse(
                game_id=game_id, seat=seat, player_id=me.player_id, rated=rated
            )

        return await self._call(context, work)

    async def _human_moved(self, snap: Snapshot) -> bool:
        """Whether a person's seat has moved (its first events tell; a long story has)."""
        events = await self.store.events_after(snap.game_id, "", 200)
        if len(events) >= 200:
            return True
        for _id, event in events:
            seat = event.get("seat")
            if (
                isinstance(seat, int)
                and event.get("action") not in NOT_MOVES
                and 0 <= seat < len(snap.meta.seats)
                and snap.meta.seats[seat].kind != AI
            ):
                return True
        return False

    async def GetTable(
        self, request: engine_pb2.GetTableRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.Table:
        async def work() -> engine_pb2.Table:
            game_id = validation.game_id(request.game_id)
            snap = await self._load(game_id)
            table = await self.players.table(game_id)
            out = engine_pb2.Table(game_id=game_id, rated=table.get("rated") == "1")
            for seat, info in enumerate(snap.meta.seats):
                player = ai_player(info.level) if info.kind == AI else table.get(f"p{seat}", "")
                name = info.name if player else ""
                out.seats.append(engine_pb2.TableSeat(seat=seat, player_id=player, name=name))
            return out

        return await self._call(context, work)

    async def ListPlayerGames(
        self, request: engine_pb2.ListPlayerGamesRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.ListPlayerGamesResponse:
        async def work() -> engine_pb2.ListPlayerGamesResponse:
            if not 0 <= request.limit <= GAMES_LIMIT_MAX:
                raise invalid_argument("limit", f"limit must be 0-{GAMES_LIMIT_MAX}")
            if not 0 <= request.offset <= MAX_OFFSET:
                raise invalid_argument("offset", f"offset must be 0-{MAX_OFFSET}")
            me = await self._player(context)
            limit = request.limit or GAMES_LIMIT_DEFAULT
            page = await self.players.page(me.player_id, request.offset, limit + 1)
            out = engine_pb2.ListPlayerGamesResponse()
            gone: list[str] = []
            for game_id, seat in page[:limit]:
                try:
                    snap = await self._load(game_id)
                except ServiceError as err:
                    if err.code == grpc.StatusCode.NOT_FOUND:
                        gone.append(game_id)
                        continue
                    raise
                table = await self.players.table(game_id)
                out.games.append(
                    engine_pb2.PlayerGame(
                        game=_summary(game_id, snap.meta, snap.status, snap.created_at_ms),
                        seat=seat,
                        to_move=list(snap.state.to_move()) if snap.status == "playing" else [],
                        rated=table.get("rated") == "1",
                    )
                )
            await self.players.forget(me.player_id, gone)
            if len(page) > limit:
                out.next_offset = request.offset + limit - len(gone)
            return out

        return await self._call(context, work)

    # ---- ratings ------------------------------------------------------------------------

    async def GetLeaderboard(
        self, request: engine_pb2.GetLeaderboardRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.GetLeaderboardResponse:
        async def work() -> engine_pb2.GetLeaderboardResponse:
            kind = validation.game_kind(request.game)
            if not 0 <= request.limit <= BOARD_LIMIT_MAX:
                raise invalid_argument("limit", f"limit must be 0-{BOARD_LIMIT_MAX}")
            await self.sweep_kind(kind, READ_SWEEP)  # a safety net: the end's commit rates
            out = engine_pb2.GetLeaderboardResponse(game=kind)
            board = await self.rating_book.board(kind, request.limit or BOARD_LIMIT_DEFAULT)
            for player, rating in board:
                out.players.append(
                    engine_pb2.RatingEntry(
                        player_id=player,
                        name=rating.name,
                        ai=player.startswith("ai:"),
                        mu=rating.mu,
                        sigma=rating.sigma,
                        rating=rating.value,
                        games=rating.games,
                    )
                )
            return out

        return await self._call(context, work)

    async def game_ended(self, game_id: str, kind: str) -> None:
        """The commit that ended `game_id` calls this: rate it before the last move is answered
        (a few reads and one script). A failure is logged, never the move's: the sweep rates
        the game later."""
        try:
            async with asyncio.timeout(RATE_TIMEOUT_S):
                await self.rate_game(game_id, kind)
        except Exception:
            log.exception("game %s: rating failed; the sweep will try again", game_id)

    async def rate_game(self, game_id: str, kind: str) -> bool:
        """Rate `game_id` if it is a rated table that is over; True when it is settled (rated
        now or before, or never to be rated), False while it still runs."""
        table = await self.players.table(game_id)
        if table.get("rated") != "1":
            return True
        now = await self.store.version_of(game_id)  # cheap: no state is read for a running game
        if now is not None and now[1] != "over":
            await self.rating_book.looked_at(kind, game_id)
            return False
        try:
            snap = await self._load(game_id)
        except ServiceError as err:
            if err.code != grpc.StatusCode.NOT_FOUND:
                raise
            await self.rating_book.apply(kind, game_id, [], {}, [], [])  # gone unfinished
            return True
        if snap.status != "over":
            await self.rating_book.looked_at(kind, game_id)
            return False
        outcome = snap.state.outcome()
        seats: list[str] = []
        names: dict[str, str] = {}
        for seat, info in enumerate(snap.meta.seats):
            if info.kind == AI:
                player = ai_player(info.level)
                names[player] = f"AI {info.level}"
            else:
                player = table.get(f"p{seat}", "")
                if player:
                    names[player] = await self.players.name_of(player) or info.name
            if not player:
                seats = []  # a person without a player: nobody's rating can count it
                break
            seats.append(player)
        if outcome is None or len(set(seats)) < 2:
            seats = []  # one player against itself (two seats of one AI level) rates nothing
        scores = list(outcome.scores) if outcome and seats else []
        winners = list(outcome.winners) if outcome and seats else []
        retired = list(snap.state.retired) if seats else []
        rated = await self.rating_book.apply(
            kind, game_id, seats, names, scores, winners, retired
        )
        if rated and seats:
            log.info("game %s: rated (%s)", game_id, kind)
        return True

    async def sweep_kind(self, kind: str, limit: int = SWEEP_BATCH) -> None:
        """Rate the ended games of `kind` still due (at most `limit` looked at)."""
        for game_id in await self.rating_book.due(kind, limit):
            await self.rate_game(game_id, kind)

    async def sweep_ratings(self) -> None:
        """Forever: rate the ended games an engine did not (it died between end and rating)."""
        while True:
            await asyncio.sleep(SWEEP_INTERVAL_S)
            for kind in games.kinds():
                try:
                    await self.sweep_kind(kind)
                except STORAGE_ERRORS as err:
                    log.warning("rating sweep of %s: storage unavailable: %s", kind, err)
                except Exception:
                    log.exception("rating sweep of %s failed", kind)

    # ---- rematch ------------------------------------------------------------------------

    async def OfferRematch(
        self, request: engine_pb2.RematchRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.RematchAnswer:
        return await self._call(context, lambda: self._accept(request, context, offer=True))

    async def AcceptRematch(
        self, request: engine_pb2.RematchRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.RematchAnswer:
        return await self._call(context, lambda: self._accept(request, context, offer=False))

    async def DeclineRematch(
        self, request: engine_pb2.RematchRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.RematchAnswer:
        async def work() -> engine_pb2.RematchAnswer:
            game_id = validation.game_id(request.game_id)
            snap = await self._load(game_id)
            seat = await self._seat_of(self._caller(context), snap)
            said = await self.offers.decline(game_id, seat)
            if said == "none":
                raise _no_offer(game_id)
            if said == "sealed":
                raise _failed("rematch_started", "every player accepted: the rematch has begun")
            return await self._answer(snap, None)

        return await self._call(context, work)

    async def ClaimSeat(
        self, request: engine_pb2.ClaimSeatRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.JoinGameResponse:
        async def work() -> engine_pb2.JoinGameResponse:
            game_id = validation.game_id(request.game_id)
            await self._load(game_id)  # NOT_FOUND for a game that is gone
            me = await self._player(context)
            seat, token = await self.players.claim(game_id, me.player_id)
            return engine_pb2.JoinGameResponse(game_id=game_id, seat=seat, token=token)

        return await self._call(context, work)

    async def GetRematch(
        self, request: engine_pb2.RematchRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.RematchAnswer:
        async def work() -> engine_pb2.RematchAnswer:
            game_id = validation.game_id(request.game_id)
            snap = await self._load(game_id)
            caller = self._caller(context)
            seat = None
            if caller.token is not None and not caller.is_ai_service:
                seat = await self._seat(caller, snap.meta, game_id, None, required=False)
            offer = await self.offers.get(game_id)
            if offer is None:
                return engine_pb2.RematchAnswer()  # none offered: no rematch_json
            shown = seat if seat is not None and seat in offer.accepted else None
            return await self._answer(snap, shown)

        return await self._call(context, work)

    async def _accept(
        self, request: engine_pb2.RematchRequest, context: grpc.aio.ServicerContext, *, offer: bool
    ) -> engine_pb2.RematchAnswer:
        game_id = validation.game_id(request.game_id)
        snap = await self._load(game_id)
        seat = await self._seat_of(self._caller(context), snap)
        if snap.status != "over":
            raise _failed("game_not_over", f"game {game_id} is not over: a rematch comes after")
        current = await self.offers.get(game_id)
        if current is None:
            if not offer:
                raise _no_offer(game_id)
            seats = snap.meta.seats
            await self.offers.offer(
                game_id,
                new_game_id(),
                rotated(len(seats)),
                [i for i, s in enumerate(seats) if s.kind != AI],
                [i for i, s in enumerate(seats) if s.kind == AI],
            )
            current = await self.offers.get(game_id)
            if current is None:
                raise _no_offer(game_id)  # expired at once: only with a broken clock
        token = new_token()
        said = await self.offers.accept(game_id, seat, token_hash(current.game_id, token))
        if said == "none":
            raise _no_offer(game_id)
        if said == "declined":
            raise _failed("rematch_declined", "a player declined: there is no rematch")
        if said == "sealed":
            # Every seat had accepted before: this seat's token went out in its answer then.
            return await self._answer(snap, seat)
        return await self._answer(snap, seat, token)

    async def _answer(
        self, snap: Snapshot, seat: int | None, token: str = ""
    ) -> engine_pb2.RematchAnswer:
        """The offer as it stands, the new game started when it is sealed and not yet made."""
        offer = await self.offers.get(snap.game_id)
        if offer is None:
            raise _no_offer(snap.game_id)
        started = False
        if offer.sealed:
            started = await self._start_rematch(snap, offer)
        out = engine_pb2.RematchAnswer(
            rematch_json=json.dumps(offer.public(started), separators=(",", ":")),
            game_id=offer.game_id,
            token=token,
        )
        if seat is not None:
            out.seat = offer.new_seat(seat)
        return out

    async def _start_rematch(self, old: Snapshot, offer: Offer) -> bool:
        """Make the new game (create-if-absent: two makers start one game). True once it
        exists."""
        if await self.store.version_of(offer.game_id) is not None:
            return True
        meta, kind = old.meta, old.meta.kind
        seats: list[SeatInfo] = []
        for old_seat in offer.order:
            info = meta.seats[old_seat]
            if info.kind == AI:
                seats.append(SeatInfo(AI, info.name, info.level))
            else:
                seats.append(SeatInfo(HUMAN, info.name, "", offer.accepted[old_seat]))
        # The table first, so that the game never exists without its players and rating.
        table = await self.players.table(old.game_id)
        now = timeouts.now_ms()
        for new_seat, old_seat in enumerate(offer.order):
            player = table.get(f"p{old_seat}")
            if player and meta.seats[old_seat].kind != AI:
                await self.players.sit(offer.game_id, kind, new_seat, player, now)
        if table.get("rated") == "1":
            await self.players.set_table(offer.game_id, {"rated": "1", "kind": kind})
            await self.rating_book.make_due(kind, offer.game_id)
        state = games.get(kind).new_state(meta.rules, secrets.randbits(63))
        rules = meta.clock_rules
        new_meta = GameMeta(
            kind=kind,
            rules=meta.rules,
            seats=tuple(seats),
            created_at_ms=now,
            clock_rules=rules,
            clock=Clock.start(rules, len(seats)) if rules else None,
        )
        status = "over" if state.is_over else new_meta.status_before_over
        new_meta = timeouts.clocked(new_meta, state, status, now)
        result = await self.store.commit(
            Change(
                game_id=offer.game_id,
                kind=kind,
                expected_version=None,
                request_key=f"rematch:{old.game_id}",
                state_json=json.dumps(state.to_dict(), separators=(",", ":")),
                meta_json=new_meta.to_json(),
                status=status,
                event={
                    "action": "create",
                    "status": status,
                    "to_move": list(state.to_move()) if status == "playing" else [],
                    "scores": list(state.scores),
                    "rematch_of": old.game_id,
                },
                ttl_s=self._ttl(status, new_meta),
                seats=len(seats),
                turn_number=state.turn_number,
                bots=self._bots_due(new_meta, state, status),
                created_at_ms=now,
                deadline_ms=timeouts.deadline_of(new_meta),
            )
        )
        if isinstance(result, Conflict) and result.current_version is None:
            return False  # (cannot happen: the id is the engine's own)
        log.info("game %s: rematch of %s started", offer.game_id, old.game_id)
        return True
