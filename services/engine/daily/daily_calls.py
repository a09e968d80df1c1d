"""The daily puzzle's calls (engine.proto, "The daily puzzle"): today's puzzle, starting an
attempt (scored today, practice on an earlier day), a day's results. Storage and the deal:
daily.py.

A scored attempt's result is counted when its game ends: tables.py calls `game_ended` after the
commit that ended it (in the background, once the call is answered); should that be lost (the
replica died first), the player's next daily call counts it (`_settle`). Counting is idempotent.
Only the player's own play is a result: an attempt in which the AI made a move for them (they
left, away.py) ends unscored ("counted": false), out of the histogram and the streak.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.common.auth import new_token, token_hash
from services.common.grpc_util import ServiceError
from services.engine.core import timeouts
from services.engine.core.meta import HUMAN, SeatInfo
from services.engine.core.shards import new_game_id
from services.engine.core.store import new_request_key
from services.engine.core.tables import Tables
from services.engine.daily import daily
from services.engine.daily.daily import DailyBook
from services.engine.play.lobby import Lobby
from services.engine.players.players import PlayerInfo, Players, presented_key

log = logging.getLogger("metro.engine.daily")

SETTLE_TIMEOUT_S = 10.0
EVENT_PAGE = 500  # events read at once when looking for the AI's moves in a finished attempt
AI_MOVED = "ai_moved"  # why a finished attempt is not a result


def no_daily(kind: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"{kind!r} has no daily puzzle",
        reason="no_daily_puzzle",
    )


def _answer(doc: dict[str, Any]) -> engine_pb2.DailyAnswer:
    return engine_pb2.DailyAnswer(json=json.dumps(doc, separators=(",", ":")))


class DailyCalls:
    def __init__(self, tables: Tables, lobby: Lobby, players: Players, book: DailyBook) -> None:
        self.tables = tables
        self.lobby = lobby
        self.players = players
        self.book = book
        self._running: set[asyncio.Task[None]] = set()

    # ---- the calls ----------------------------------------------------------------------------

    async def get(
        self, request: engine_pb2.DailyRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.DailyAnswer:
        kind, day, now = self._day(request)
        rules, _seed = await self.book.deal(kind, day)
        doc: dict[str, Any] = {
            "date": day.isoformat(), "game": kind, "rules": rules,
            "played": False, "game_id": None, "finished": False, "score": None, "streak": 0,
        }  # fmt: skip
        me = await self._who(context, required=False)
        if me is not None:
            game_id = await self.book.attempt(kind, day, me.player_id)
            settled = await self._settle(kind, day, me.player_id, game_id)
            doc.update(
                played=game_id is not None,
                game_id=game_id,
                finished=settled is not None,
                score=None if settled is None else settled[0],
                streak=await self.book.streak(kind, me.player_id, now),
            )
            if settled is not None:
                doc["counted"] = settled[1]
        return _answer(doc)

    async def start(
        self, request: engine_pb2.DailyRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.DailyStart:
        """Make the attempt. Every step is undone when one fails (a full store's 503 leaves
        nothing behind), and the player sits before the table is made, so a game that exists
        always has its player: a retry after a start cut short (the engine killed) is answered
        `already_played` naming a game the player can claim, or makes the game that was never
        made under the same reservation (`_earlier`)."""
        kind, day, now = self._day(request)
        me = await self._who(context, required=True)
        assert me is not None
        scored = day == now
        game_id = new_game_id()
        started_ms = timeouts.now_ms()
        reserved = False
        try:
            if scored:
                first = await self.book.reserve(kind, day, me.player_id, game_id, started_ms)
                if first is not None:
                    if await self._earlier(kind, day, me.player_id, first):
                        return engine_pb2.DailyStart(
                            game_id=first, seat=0, date=day.isoformat(), scored=True,
                            already_played=True,
                        )  # fmt: skip
                    game_id = first  # reserved by a start that never made its game: make it
                reserved = True
            rules, seed = await self.book.deal(kind, day)
            token = new_token()
            seat = SeatInfo(HUMAN, me.name, "", token_hash(game_id, token))
            await self.players.sit(game_id, kind, 0, me.player_id, started_ms)
            made = await self.lobby.open_table(
                game_id,
                kind,
                rules,
                [seat],
                None,
                new_request_key(),
                seed=seed,
                private=True,
                scored_daily=scored,
            )
            if not made:  # a 72-bit id collided: vanishingly rare
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    "game id collision; try again",
                    reason="version_conflict",
                )
        except BaseException:
            await self._undo(kind, day, me.player_id, game_id, scored=scored, reserved=reserved)
            raise
        return engine_pb2.DailyStart(
            game_id=game_id, seat=0, token=token, date=day.isoformat(), scored=scored
        )

    async def _earlier(self, kind: str, day: dt.date, player_id: str, game_id: str) -> bool:
        """Whether the attempt reserved before as `game_id` was made (or played, or may have
        expired): then it is the day's attempt. False only for one whose start never made its
        game: reserved so recently that its game, had it been made, could not have expired."""
        try:
            table = await self.tables.load(game_id)
        except ServiceError as err:
            if err.code != grpc.StatusCode.NOT_FOUND:
                raise
        else:
            if (await self.players.table(game_id)).get("p0") != player_id:
                # Made before the player sat first (an older engine's start cut short): seat
                # them now, so the attempt the 409 names is one they can claim.
                await self.players.sit(game_id, kind, 0, player_id, table.created_at_ms)
            return True
        if await self.book.score(kind, day, player_id) is not None:
            return True
        if await self.book.void_score(kind, day, player_id) is not None:
            return True
        marker = await self.book.marker(game_id)
        at_ms = marker.get("at_ms") if marker is not None else None
        settings = self.tables.settings
        shortest_s = min(settings.waiting_ttl_s, settings.idle_ttl_s, settings.finished_ttl_s)
        return not (
            isinstance(at_ms, int) and timeouts.now_ms() - at_ms < shortest_s * 1000
        )  # fmt: skip

    async def _undo(
        self, kind: str, day: dt.date, player_id: str, game_id: str, *, scored: bool,
        reserved: bool,
    ) -> None:  # fmt: skip
        """Take back what a refused start wrote (best effort, deletes only: a full store takes
        them; what a failure here leaves, a retry finds in `_earlier`)."""
        try:
            await self.players.unsit(game_id, player_id)
            if reserved:
                await self.book.unreserve(kind, day, player_id, game_id)
            elif scored:  # a reservation that failed halfway may have left its marker
                await self.book.redis.delete(daily.marker_key(game_id))
        except Exception:
            log.exception("game %s: a refused daily start could not be undone", game_id)

    async def results(
        self, request: engine_pb2.DailyRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.DailyAnswer:
        kind, day, now = self._day(request)
        me = await self._who(context, required=False)
        settled = None
        if me is not None:
            game_id = await self.book.attempt(kind, day, me.player_id)
            settled = await self._settle(kind, day, me.player_id, game_id)
        mine = settled[0] if settled is not None and settled[1] else None
        doc = {"date": day.isoformat(), **daily.results(await self.book.histogram(kind, day), mine)}
        if settled is not None and not settled[1]:
            doc["uncounted"] = {"score": settled[0], "reason": AI_MOVED}
        if me is not None and doc["you"] is not None:
            doc["you"]["streak"] = await self.book.streak(kind, me.player_id, now)
        return _answer(doc)

    # ---- results as games end -------------------------------------------------------------------

    def game_ended(self, game_id: str, kind: str) -> None:
        """A commit ended `game_id`: count it if it is a scored attempt, after that call answers."""
        if not daily.has_daily(kind):
            return
        task = asyncio.get_running_loop().create_task(self._count_later(game_id))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _count_later(self, game_id: str) -> None:
        await asyncio.sleep(0)
        try:
            async with asyncio.timeout(SETTLE_TIMEOUT_S):
                marker = await self.book.marker(game_id)
                if marker is not None:
                    day = dt.date.fromisoformat(marker["date"])
                    await self._settle(marker["kind"], day, marker["player"], game_id)
        except Exception:
            log.exception("game %s: daily result not counted; the player's next call will", game_id)

    async def _settle(
        self, kind: str, day: dt.date, player_id: str, game_id: str | None
    ) -> tuple[int, bool] | None:
        """(score, counted) of the player's attempt of the day once it is over (counted now if
        it was not; not counted when the AI made a move for them); None while it runs, or when
        there is none."""
        if game_id is None:
            return None
        score = await self.book.score(kind, day, player_id)
        if score is not None:
            return score, True
        score = await self.book.void_score(kind, day, player_id)
        if score is not None:
            return score, False
        try:
            table = await self.tables.load(game_id)
        except ServiceError as err:
            if err.code == grpc.StatusCode.NOT_FOUND:
                return None  # expired unfinished
            raise
        if table.status != "over":
            return None
        score = int(table.state.scores[0])
        if await self._ai_moved(game_id):
            await self.book.void(kind, day, player_id, score)
            log.info("game %s: the AI moved for its player; daily attempt not counted", game_id)
            return score, False
        await self.book.record(kind, day, player_id, score)
        return score, True

    async def _ai_moved(self, game_id: str) -> bool:
        """Whether the AI made a move of the attempt's seat (daily.ai_moved), from its events."""
        after = ""
        while True:
            batch = await self.tables.store.events_after(game_id, after, EVENT_PAGE)
            if daily.ai_moved(event for _, event in batch):
                return True
            if len(batch) < EVENT_PAGE:
                return False
            after = batch[-1][0]

    # ---- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _day(request: engine_pb2.DailyRequest) -> tuple[str, dt.date, dt.date]:
        if not daily.has_daily(request.game):
            raise no_daily(request.game[:32])
        now = daily.today()
        return request.game, daily.parse_day(request.date, now), now

    async def _who(self, context: grpc.aio.ServicerContext, *, required: bool) -> PlayerInfo | None:
        key = presented_key(context.invocation_metadata())
        if key is None and not required:
            return None
        return await self.players.who(key)
