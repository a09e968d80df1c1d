"""Rating finished games (the leaderboard's side of engine.proto). Storage: ratings.py.

A game that ends is rated in the background once the commit that ended it has been answered
(`game_ended`, called by tables.py), so rating never delays the last move; should that fail or
the replica die first, `sweep` (the engine's server runs it now and then) and a leaderboard
read rate it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import grpc
from metro.v1 import engine_pb2

import games
from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core import validation
from services.engine.core.meta import AI, SeatInfo
from services.engine.core.store import STORAGE_ERRORS
from services.engine.core.tables import Tables
from services.engine.players.bot_accounts import BotAccounts
from services.engine.players.players import Players, ai_player
from services.engine.players.ratings import SWEEP_BATCH, RatingBook, mostly_ai

log = logging.getLogger("metro.engine.players")

BOARD_LIMIT_DEFAULT, BOARD_LIMIT_MAX = 50, 200
SWEEP_INTERVAL_S = 30.0
RATE_TIMEOUT_S = 10.0  # a rating that takes longer is left to the sweep
READ_SWEEP = 10  # due games a leaderboard read looks at before it answers
EVENT_PAGE = 500  # events read at once when counting who made a finished game's moves


class Ratings:
    def __init__(
        self, players: Players, rating_book: RatingBook, tables: Tables, bots: BotAccounts
    ) -> None:
        self.players = players
        self.rating_book = rating_book
        self.tables = tables
        self.bots = bots  # entries of bot accounts are marked
        self._running: set[asyncio.Task[None]] = set()

    def game_ended(self, game_id: str, kind: str) -> None:
        """A commit ended `game_id`: rate it in the background, after that call answers."""
        task = asyncio.get_running_loop().create_task(self._rate_later(game_id, kind))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _rate_later(self, game_id: str, kind: str) -> None:
        await asyncio.sleep(0)  # let the call that ended the game send its answer first
        try:
            async with asyncio.timeout(RATE_TIMEOUT_S):
                await self.rate_game(game_id, kind)
        except Exception:
            log.exception("game %s: rating failed; the sweep will try again", game_id)

    async def leaderboard(
        self, request: engine_pb2.GetLeaderboardRequest
    ) -> engine_pb2.GetLeaderboardResponse:
        kind = validation.game_kind(request.game)
        if not 0 <= request.limit <= BOARD_LIMIT_MAX:
            raise invalid_argument("limit", f"limit must be 0-{BOARD_LIMIT_MAX}")
        await self.sweep_kind(kind, READ_SWEEP)  # a safety net: ended games are rated at once
        out = engine_pb2.GetLeaderboardResponse(game=kind)
        limit = request.limit or BOARD_LIMIT_DEFAULT
        board = await self.rating_book.board(kind, BOARD_LIMIT_MAX if request.hide_bots else limit)
        bots = await self.bots.which([p for p, _ in board])
        if request.hide_bots:
            board = [(p, r) for p, r in board if p not in bots][:limit]
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
                    bot=player in bots,
                )
            )
        return out

    async def rate_game(self, game_id: str, kind: str) -> bool:
        """Rate `game_id` if it is a rated table that is over; True when it is settled (rated
        now or before, or never to be rated), False while it still runs."""
        table = await self.players.table(game_id)
        if table.get("rated") != "1":
            return True
        now = await self.tables.store.version_of(game_id)  # cheap: no state is read
        if now is not None and now[1] != "over":
            await self.rating_book.looked_at(kind, game_id)
            return False
        try:
            game = await self.tables.load(game_id)
        except ServiceError as err:
            if err.code != grpc.StatusCode.NOT_FOUND:
                raise
            await self.rating_book.apply(kind, game_id, [], {}, [], [])  # gone unfinished
            return True
        if game.status != "over":
            await self.rating_book.looked_at(kind, game_id)
            return False
        outcome = game.state.outcome()
        seats: list[str] = []
        names: dict[str, str] = {}
        for seat, info in enumerate(game.meta.seats):
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
        retired = list(game.state.retired) if seats else []
        unrated = await self._mostly_ai(game_id, game.meta.seats, seats)
        rated = await self.rating_book.apply(
            kind, game_id, seats, names, scores, winners, retired, unrated
        )
        if rated and seats:
            log.info("game %s: rated (%s)", game_id, kind)
        return True

    async def _mostly_ai(
        self, game_id: str, infos: Sequence[SeatInfo], seats: list[str]
    ) -> set[str]:
        """The players of people's seats whose moves the AI mostly made (ratings.mostly_ai),
        from the game's whole story of events."""
        if not seats:
            return set()
        events: list[dict[str, Any]] = []
        after = ""
        while True:
            batch = await self.tables.store.events_after(game_id, after, EVENT_PAGE)
            events += [event for _, event in batch]
            if len(batch) < EVENT_PAGE:
                break
            after = batch[-1][0]
        return {seats[s] for s in mostly_ai(events, len(infos)) if infos[s].kind != AI}

    async def sweep_kind(self, kind: str, limit: int = SWEEP_BATCH) -> None:
        """Rate the ended games of `kind` still due (at most `limit` looked at)."""
        for game_id in await self.rating_book.due(kind, limit):
            await self.rate_game(game_id, kind)

    async def sweep(self) -> None:
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
