"""Players (engine.proto, "Players, ratings and rematch"): who a device key is, who sits where,
a player's games across devices, a seat token for another device. Storage: players.py."""

from __future__ import annotations

import grpc
from metro.v1 import engine_pb2

from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core import validation
from services.engine.core.access import Caller, check_private, own_seat
from services.engine.core.edge import failed
from services.engine.core.messages import summary
from services.engine.core.meta import AI
from services.engine.core.table import Table
from services.engine.core.tables import Tables
from services.engine.players.bot_accounts import BotAccounts
from services.engine.players.invitations import Invitations
from services.engine.players.players import PlayerInfo, Players, ai_player, client_id, presented_key
from services.engine.players.ratings import RatingBook

GAMES_LIMIT_DEFAULT, GAMES_LIMIT_MAX = 20, 100
MAX_OFFSET = 10_000
# Events that carry a seat but are no move of it (see _human_moved).
NOT_MOVES = frozenset({"join", "create"})


class PlayerCalls:
    def __init__(
        self,
        tables: Tables,
        players: Players,
        rating_book: RatingBook,
        bots: BotAccounts,
        invitations: Invitations,
    ) -> None:
        self.tables = tables
        self.players = players
        self.rating_book = rating_book
        self.bots = bots  # (issue 24)
        self.invitations = invitations

    async def who(self, context: grpc.aio.ServicerContext) -> PlayerInfo:
        return await self.players.who(presented_key(context.invocation_metadata()))

    async def create(
        self, request: engine_pb2.CreatePlayerRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.PlayerCredentials:
        name = validation.name(request.name, "name")
        if request.bot and name:
            await self.bots.check_free(name)  # before a player is made for nothing
        made = await self.players.create(name, client_id(context.invocation_metadata()))
        if request.bot:
            await self.bots.register(made.player_id, made.name)
        return engine_pb2.PlayerCredentials(
            player_id=made.player_id,
            name=made.name,
            device_key=made.device_key,
            recovery_code=made.recovery_code,
        )

    async def recover(
        self, request: engine_pb2.RecoverPlayerRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.PlayerCredentials:
        if len(request.recovery_code) > 64:
            raise invalid_argument("recovery_code", "a recovery code is 10 characters")
        found = await self.players.recover(
            request.recovery_code, client_id(context.invocation_metadata())
        )
        return engine_pb2.PlayerCredentials(
            player_id=found.player_id, name=found.name, device_key=found.device_key
        )

    async def get(self, context: grpc.aio.ServicerContext) -> engine_pb2.Player:
        me = await self.who(context)
        bot = await self.bots.is_bot(me.player_id)
        return engine_pb2.Player(player_id=me.player_id, name=me.name, bot=bot)

    async def delete(self, context: grpc.aio.ServicerContext) -> engine_pb2.Player:
        """Erase the key's player (DeletePlayer): who it was comes back, then it is gone."""
        me = await self.who(context)
        bot = await self.bots.is_bot(me.player_id)
        await self.rating_book.forget_name(me.player_id)
        await self.players.erase(me.player_id)
        return engine_pb2.Player(player_id=me.player_id, name=me.name, bot=bot)

    async def sit(
        self,
        request: engine_pb2.SitPlayerRequest,
        context: grpc.aio.ServicerContext,
        caller: Caller,
    ) -> engine_pb2.SitPlayerResponse:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        seat = await own_seat(caller, self.players, table.meta, game_id)
        me = await self.who(context)
        bot = await self.bots.is_bot(me.player_id)
        if bot:  # BOT_MAX_GAMES before the seat is taken
            await self.bots.take_game(me.player_id, game_id, self.invitations._running)
        await self.players.sit(game_id, table.meta.kind, seat, me.player_id, table.created_at_ms)
        if bot:
            await self.invitations.bot_sat(table, seat, me.player_id)
        fields = await self.players.table(game_id)
        rated = fields.get("rated") == "1"
        if request.rated and not rated:
            if table.status == "over" or await self._human_moved(table):
                raise failed(
                    "too_late_to_rate",
                    f"game {game_id} can be made rated only before any player has moved",
                )
            await self.players.set_table(game_id, {"rated": "1"})
            await self.rating_book.make_due(table.meta.kind, game_id)
            rated = True
        return engine_pb2.SitPlayerResponse(
            game_id=game_id, seat=seat, player_id=me.player_id, rated=rated
        )

    async def _human_moved(self, table: Table) -> bool:
        """Whether a person's seat has moved (its first events tell; a long story has)."""
        events = await self.tables.store.events_after(table.game_id, "", 200)
        if len(events) >= 200:
            return True
        for _id, event in events:
            seat = event.get("seat")
            if (
                isinstance(seat, int)
                and event.get("action") not in NOT_MOVES
                and 0 <= seat < len(table.meta.seats)
                and table.meta.seats[seat].kind != AI
            ):
                return True
        return False

    async def seats(self, request: engine_pb2.GetTableRequest, caller: Caller) -> engine_pb2.Table:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        await check_private(caller, self.players, table.meta, game_id, "its table")
        fields = await self.players.table(game_id)
        out = engine_pb2.Table(game_id=game_id, rated=fields.get("rated") == "1")
        for seat, info in enumerate(table.meta.seats):
            player = ai_player(info.level) if info.kind == AI else fields.get(f"p{seat}", "")
            name = info.name if player else ""
            out.seats.append(engine_pb2.TableSeat(seat=seat, player_id=player, name=name))
        return out

    async def games(
        self, request: engine_pb2.ListPlayerGamesRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.ListPlayerGamesResponse:
        if not 0 <= request.limit <= GAMES_LIMIT_MAX:
            raise invalid_argument("limit", f"limit must be 0-{GAMES_LIMIT_MAX}")
        if not 0 <= request.offset <= MAX_OFFSET:
            raise invalid_argument("offset", f"offset must be 0-{MAX_OFFSET}")
        me = await self.who(context)
        limit = request.limit or GAMES_LIMIT_DEFAULT
        page = await self.players.page(me.player_id, request.offset, limit + 1)
        out = engine_pb2.ListPlayerGamesResponse()
        gone: list[str] = []
        for game_id, seat in page[:limit]:
            try:
                table = await self.tables.load(game_id)
            except ServiceError as err:
                if err.code == grpc.StatusCode.NOT_FOUND:
                    gone.append(game_id)
                    continue
                raise
            fields = await self.players.table(game_id)
            out.games.append(
                engine_pb2.PlayerGame(
                    game=summary(game_id, table.meta, table.status, table.created_at_ms),
                    seat=seat,
                    to_move=list(table.state.to_move()) if table.status == "playing" else [],
                    rated=fields.get("rated") == "1",
                )
            )
        await self.players.forget(me.player_id, gone)
        if len(page) > limit:
            out.next_offset = request.offset + limit - len(gone)
        return out

    async def claim_seat(
        self, request: engine_pb2.ClaimSeatRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.JoinGameResponse:
        game_id = validation.game_id(request.game_id)
        await self.tables.load(game_id)  # NOT_FOUND for a game that is gone
        me = await self.who(context)
        seat, token = await self.players.claim(game_id, me.player_id)
        return engine_pb2.JoinGameResponse(game_id=game_id, seat=seat, token=token)
