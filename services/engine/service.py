"""The Engine gRPC service (engine.proto): a thin edge. Each call runs under edge.py (deadline,
errors as statuses) and is answered by the part that holds its seam:

  lobby.py          CreateGame, ListGames, JoinGame (and a rematch's new game)
  moves.py          ApplyMove
  watching.py       GetView, ListLegalMoves, WatchGame, GetRecord
  away.py           SetAway, and the clock keeper's time-outs
  offers.py         Offer: a table of people agrees to abort or end a game
  player_calls.py   players, seats of players, a player's games
  rating_calls.py   the leaderboard, rating ended games
  rematch_calls.py  rematch offers
  bot_calls.py      the AI workers' queue of turns
  analysis.py       post-game analyses: their queue and results (the AI workers compute)
  invitations.py, player_feed.py, ladder.py   bot accounts (bot_accounts.py): invitations,
                    a player's own event stream, the bot ladder (issue 24)
  party.py          party tables: join codes, the host's start

All of them read and write games through tables.py (one load path, one commit path). Hidden
information: every view and event sent is built (messages.py) from `state.view(seat)` or the
rules core's public event, never from the stored state.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TypeAlias

import grpc
import redis.asyncio as aioredis
from metro.v1 import engine_pb2, engine_pb2_grpc

from services.common.config import BotSettings, Settings
from services.common.grpc_util import REPLAYED_METADATA
from services.engine.bots.bot_calls import BotCalls
from services.engine.bots.bots import BotQueue
from services.engine.bots.ladder import Ladder, Pauses
from services.engine.core.edge import Edge
from services.engine.core.store import GameStore
from services.engine.core.tables import Tables
from services.engine.daily.daily import DailyBook
from services.engine.daily.daily_calls import DailyCalls
from services.engine.play.analysis import Analyses
from services.engine.play.away import Away
from services.engine.play.chat import Chat
from services.engine.play.lobby import Lobby
from services.engine.play.moves import Moves
from services.engine.play.offers import StopOffers
from services.engine.play.party import Parties
from services.engine.play.rematch import Offers
from services.engine.play.rematch_calls import Rematches
from services.engine.play.watching import WATCH_SLICE_MS, Watching
from services.engine.players.bot_accounts import BotAccounts
from services.engine.players.follows import Follows
from services.engine.players.invitations import Invitations
from services.engine.players.player_calls import PlayerCalls
from services.engine.players.player_feed import Feed
from services.engine.players.players import Players
from services.engine.players.rating_calls import Ratings
from services.engine.players.ratings import RatingBook

__all__ = ["WATCH_SLICE_MS", "EngineService", "close_quietly"]

Ctx: TypeAlias = grpc.aio.ServicerContext


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
        self.edge = Edge(settings, store.gate)
        players = Players(store.redis)
        book = RatingBook(store.redis)
        # Bot accounts, their pauses and the players' own streams (issue 24) come first: the
        # tables tell the streams of each commit, and the moves tell them of each refused move.
        bot_settings = BotSettings.from_env()
        self.bot_accounts = BotAccounts(store.redis, players, bot_settings)
        pauses = Pauses(store.redis, self.bot_accounts, bot_settings)
        self.feed = Feed(store.redis, blocking, players, self.bot_accounts, pauses)
        # `_game_ended` calls back into `ratings` and `daily`, made below; a commit runs only
        # once this constructor has returned.
        self.tables = Tables(settings, store, self._game_ended)
        self.ratings = Ratings(players, book, self.tables, self.bot_accounts)
        self.invitations = Invitations(self.tables, players, self.bot_accounts, self.feed)
        self.lobby = Lobby(self.tables, store, self.invitations)
        self.moves = Moves(self.tables, players, self.feed.illegal)
        self.watching = Watching(self.tables, players, blocking)
        self.away = Away(self.tables, players)
        self.stop_offers = StopOffers(self.tables, players)
        self.players = PlayerCalls(self.tables, players, book, self.bot_accounts, self.invitations)
        self.rematches = Rematches(self.tables, self.lobby, players, book, Offers(store.redis))
        self.bots = BotCalls(bots)
        self.analyses = Analyses(self.tables, players)
        self.ladder = Ladder(
            bot_settings, players, self.bot_accounts, pauses, self.lobby, self.invitations, book
        )
        self.daily = DailyCalls(
            self.tables, self.lobby, players, DailyBook(store.redis, settings.daily_secret)
        )
        self.parties = Parties(self.tables, self.lobby)
        self.follows = Follows(store.redis, players, self.tables)  # (issue 35 item 3)
        self.chat = Chat(store.redis, self.tables, players)  # (issue 35 item 2)

    def _game_ended(self, game_id: str, kind: str) -> None:
        """A commit ended a game: rate it, and count it if it is a daily puzzle's attempt."""
        self.ratings.game_ended(game_id, kind)
        self.daily.game_ended(game_id, kind)

    # ---- for the server's background tasks (server.py, timeouts.ClockKeeper) ----------------

    async def settle_clock(self, game_id: str, at_ms: int) -> None:
        await self.away.settle_clock(game_id, at_ms)

    async def sweep_ratings(self) -> None:
        await self.ratings.sweep()

    # ---- the lobby ----------------------------------------------------------------------

    async def CreateGame(
        self, request: engine_pb2.CreateGameRequest, context: Ctx
    ) -> engine_pb2.CreateGameResponse:
        return await self.edge.unary(context, lambda: self.lobby.create(request))

    async def ListGames(
        self, request: engine_pb2.ListGamesRequest, context: Ctx
    ) -> engine_pb2.ListGamesResponse:
        return await self.edge.unary(context, lambda: self.lobby.list(request))

    async def JoinGame(
        self, request: engine_pb2.JoinGameRequest, context: Ctx
    ) -> engine_pb2.JoinGameResponse:
        return await self.edge.unary(context, lambda: self.lobby.join(request))

    # ---- moves and looking --------------------------------------------------------------

    async def ApplyMove(
        self, request: engine_pb2.ApplyMoveRequest, context: Ctx
    ) -> engine_pb2.GameView:
        view, replayed = await self.edge.unary(
            context, lambda: self.moves.apply(request, self.edge.caller(context))
        )
        if replayed:
            context.set_trailing_metadata(REPLAYED_METADATA)
        return view

    async def GetView(
        self, request: engine_pb2.GetViewRequest, context: Ctx
    ) -> engine_pb2.GameView:
        return await self.edge.unary(
            context, lambda: self.watching.view(request, self.edge.caller(context))
        )

    async def ListLegalMoves(
        self, request: engine_pb2.ListLegalMovesRequest, context: Ctx
    ) -> engine_pb2.ListLegalMovesResponse:
        return await self.edge.unary(
            context, lambda: self.watching.legal(request, self.edge.caller(context))
        )

    async def WatchGame(
        self, request: engine_pb2.WatchGameRequest, context: Ctx
    ) -> AsyncIterator[engine_pb2.GameEvent]:
        caller = lambda: self.edge.caller(context)  # noqa: E731 (read inside the stream's errors)
        async for event in self.watching.watch(request, context, caller):  # (gRPC: a generator)
            yield event

    async def GetRecord(
        self, request: engine_pb2.GetRecordRequest, context: Ctx
    ) -> engine_pb2.GetRecordResponse:
        return await self.edge.unary(
            context, lambda: self.watching.record(request, self.edge.caller(context))
        )

    async def SetAway(
        self, request: engine_pb2.SetAwayRequest, context: Ctx
    ) -> engine_pb2.GameView:
        return await self.edge.unary(
            context, lambda: self.away.set_away(request, self.edge.caller(context))
        )

    async def Offer(self, request: engine_pb2.OfferRequest, context: Ctx) -> engine_pb2.GameView:
        return await self.edge.unary(
            context, lambda: self.stop_offers.offer(request, self.edge.caller(context))
        )

    # ---- chat (chat.py) -------------------------------------------------------------------

    async def SendChat(self, request: engine_pb2.ChatRequest, context: Ctx) -> engine_pb2.ChatLines:
        return await self.edge.unary(
            context, lambda: self.chat.send(request, self.edge.caller(context))
        )

    async def GetChat(self, request: engine_pb2.ChatRequest, context: Ctx) -> engine_pb2.ChatLines:
        return await self.edge.unary(
            context, lambda: self.chat.get(request, self.edge.caller(context))
        )

    async def ReportChat(
        self, request: engine_pb2.ChatRequest, context: Ctx
    ) -> engine_pb2.ChatLines:
        return await self.edge.unary(
            context, lambda: self.chat.report(request, self.edge.caller(context))
        )

    # ---- party tables -------------------------------------------------------------------

    async def CreateParty(
        self, request: engine_pb2.CreatePartyRequest, context: Ctx
    ) -> engine_pb2.CreatePartyResponse:
        return await self.edge.unary(context, lambda: self.parties.create(request))

    async def JoinParty(
        self, request: engine_pb2.JoinPartyRequest, context: Ctx
    ) -> engine_pb2.JoinGameResponse:
        return await self.edge.unary(context, lambda: self.parties.join(request))

    async def StartParty(
        self, request: engine_pb2.PartyRequest, context: Ctx
    ) -> engine_pb2.PartyInfo:
        return await self.edge.unary(
            context, lambda: self.parties.start(request, self.edge.caller(context))
        )

    async def GetParty(
        self, request: engine_pb2.PartyRequest, context: Ctx
    ) -> engine_pb2.PartyInfo:
        return await self.edge.unary(context, lambda: self.parties.get(request))

    # ---- bot turns ----------------------------------------------------------------------

    async def ClaimBotTurn(
        self, request: engine_pb2.ClaimBotTurnRequest, context: Ctx
    ) -> engine_pb2.ClaimBotTurnResponse:
        return await self.edge.unary(
            context, lambda: self.bots.claim(request, context, self.edge.caller(context))
        )

    async def AckBotTurn(
        self, request: engine_pb2.AckBotTurnRequest, context: Ctx
    ) -> engine_pb2.AckBotTurnResponse:
        return await self.edge.unary(
            context, lambda: self.bots.ack(request, self.edge.caller(context))
        )

    # ---- players ------------------------------------------------------------------------

    async def CreatePlayer(
        self, request: engine_pb2.CreatePlayerRequest, context: Ctx
    ) -> engine_pb2.PlayerCredentials:
        return await self.edge.unary(context, lambda: self.players.create(request, context))

    async def RecoverPlayer(
        self, request: engine_pb2.RecoverPlayerRequest, context: Ctx
    ) -> engine_pb2.PlayerCredentials:
        return await self.edge.unary(context, lambda: self.players.recover(request, context))

    async def GetPlayer(
        self, request: engine_pb2.GetPlayerRequest, context: Ctx
    ) -> engine_pb2.Player:
        return await self.edge.unary(context, lambda: self.players.get(context))

    async def DeletePlayer(
        self, request: engine_pb2.GetPlayerRequest, context: Ctx
    ) -> engine_pb2.Player:
        return await self.edge.unary(context, lambda: self.players.delete(context))

    async def SitPlayer(
        self, request: engine_pb2.SitPlayerRequest, context: Ctx
    ) -> engine_pb2.SitPlayerResponse:
        return await self.edge.unary(
            context, lambda: self.players.sit(request, context, self.edge.caller(context))
        )

    async def GetTable(self, request: engine_pb2.GetTableRequest, context: Ctx) -> engine_pb2.Table:
        return await self.edge.unary(
            context, lambda: self.players.seats(request, self.edge.caller(context))
        )

    async def ListPlayerGames(
        self, request: engine_pb2.ListPlayerGamesRequest, context: Ctx
    ) -> engine_pb2.ListPlayerGamesResponse:
        return await self.edge.unary(context, lambda: self.players.games(request, context))

    async def ClaimSeat(
        self, request: engine_pb2.ClaimSeatRequest, context: Ctx
    ) -> engine_pb2.JoinGameResponse:
        return await self.edge.unary(context, lambda: self.players.claim_seat(request, context))

    async def GetLeaderboard(
        self, request: engine_pb2.GetLeaderboardRequest, context: Ctx
    ) -> engine_pb2.GetLeaderboardResponse:
        return await self.edge.unary(context, lambda: self.ratings.leaderboard(request))

    # ---- rematch ------------------------------------------------------------------------

    async def OfferRematch(
        self, request: engine_pb2.RematchRequest, context: Ctx
    ) -> engine_pb2.RematchAnswer:
        return await self.edge.unary(
            context,
            lambda: self.rematches.accept(request, self.edge.caller(context), offer=True),
        )

    async def AcceptRematch(
        self, request: engine_pb2.RematchRequest, context: Ctx
    ) -> engine_pb2.RematchAnswer:
        return await self.edge.unary(
            context,
            lambda: self.rematches.accept(request, self.edge.caller(context), offer=False),
        )

    async def DeclineRematch(
        self, request: engine_pb2.RematchRequest, context: Ctx
    ) -> engine_pb2.RematchAnswer:
        return await self.edge.unary(
            context, lambda: self.rematches.decline(request, self.edge.caller(context))
        )

    async def GetRematch(
        self, request: engine_pb2.RematchRequest, context: Ctx
    ) -> engine_pb2.RematchAnswer:
        return await self.edge.unary(
            context, lambda: self.rematches.get(request, self.edge.caller(context))
        )

    # ---- the daily puzzle ---------------------------------------------------------------

    async def GetDaily(
        self, request: engine_pb2.DailyRequest, context: Ctx
    ) -> engine_pb2.DailyAnswer:
        return await self.edge.unary(context, lambda: self.daily.get(request, context))

    async def StartDaily(
        self, request: engine_pb2.DailyRequest, context: Ctx
    ) -> engine_pb2.DailyStart:
        return await self.edge.unary(context, lambda: self.daily.start(request, context))

    async def GetDailyResults(
        self, request: engine_pb2.DailyRequest, context: Ctx
    ) -> engine_pb2.DailyAnswer:
        return await self.edge.unary(context, lambda: self.daily.results(request, context))

    # ---- bot accounts: invitations, the player's own events, the ladder (issue 24) ------

    async def AcceptInvitation(
        self, request: engine_pb2.InvitationRequest, context: Ctx
    ) -> engine_pb2.JoinGameResponse:
        return await self.edge.unary(context, lambda: self.invitations.accept(request, context))

    async def DeclineInvitation(
        self, request: engine_pb2.InvitationRequest, context: Ctx
    ) -> engine_pb2.DeclineInvitationResponse:
        return await self.edge.unary(context, lambda: self.invitations.decline(request, context))

    async def WatchPlayer(
        self, request: engine_pb2.WatchPlayerRequest, context: Ctx
    ) -> AsyncIterator[engine_pb2.PlayerEvent]:
        async for event in self.feed.watch(request, context):  # (gRPC wants a generator)
            yield event

    async def GetLadder(self, request: engine_pb2.LadderRequest, context: Ctx) -> engine_pb2.Ladder:
        return await self.edge.unary(context, lambda: self.ladder.get_call(context))

    async def SetLadder(self, request: engine_pb2.LadderRequest, context: Ctx) -> engine_pb2.Ladder:
        return await self.edge.unary(context, lambda: self.ladder.set_call(request, context))

    async def SetFollow(
        self, request: engine_pb2.FollowRequest, context: Ctx
    ) -> engine_pb2.Follows:
        return await self.edge.unary(context, lambda: self.follows.set_call(request, context))

    async def GetFollows(
        self, request: engine_pb2.FollowRequest, context: Ctx
    ) -> engine_pb2.Follows:
        return await self.edge.unary(context, lambda: self.follows.get_call(context))

    # ---- post-game analysis (analysis.py) ----------------------------------------------

    async def RequestAnalysis(
        self, request: engine_pb2.AnalysisRequest, context: Ctx
    ) -> engine_pb2.AnalysisState:
        return await self.edge.unary(
            context, lambda: self.analyses.request(request, self.edge.caller(context))
        )

    async def GetAnalysis(
        self, request: engine_pb2.AnalysisRequest, context: Ctx
    ) -> engine_pb2.AnalysisState:
        return await self.edge.unary(
            context, lambda: self.analyses.get(request, self.edge.caller(context))
        )

    async def ClaimAnalysis(
        self, request: engine_pb2.ClaimAnalysisRequest, context: Ctx
    ) -> engine_pb2.ClaimAnalysisResponse:
        return await self.edge.unary(
            context, lambda: self.analyses.claim(request, self.edge.caller(context))
        )

    async def ReportAnalysis(
        self, request: engine_pb2.ReportAnalysisRequest, context: Ctx
    ) -> engine_pb2.AnalysisState:
        return await self.edge.unary(
            context, lambda: self.analyses.report(request, self.edge.caller(context))
        )


async def close_quietly(client: aioredis.Redis) -> None:
    with contextlib.suppress(Exception):
        await client.aclose()
