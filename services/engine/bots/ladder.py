"""The bot ladder (issue 24): bots that opt in are given rated games, against each other and
against the AI levels, a few an hour at most; a bot that keeps timing out or sending illegal
moves is paused.

Where it runs: in the engine, as a background task next to the clock keeper and the rating
sweep (server.py). A ladder game is only a table made through the lobby's one create path plus
invitations, both engine code with the store at hand; the AI service would have to reach them
through new RPCs and gains nothing (the AI seats of a ladder game are played by the AI workers
as any AI seat). Every engine replica runs the loop, and a lock in Redis (SET NX with an expiry
shorter than the interval) lets one of them schedule each round; a replica that dies holding it
frees it within an interval.

Keys:
  ladder:{all}              hash: bot player id -> JSON list of the game kinds it opted in to
  ladder:{all}:lock         string: the replica scheduling this round (expires)
  ladder:{all}:recent:<id>  zset: ladder game id -> ms it was made (the hourly cap)
  ladder:{all}:last         hash: bot player id -> "bot" or "ai", the kind of its last opponent
  ladder:{all}:waited       hash: bot player id -> rounds it has waited for another bot
  player:{<id>}             the player's hash: paused_until (ms), paused_reason
  strikes:{<id>}            hash: timeout, illegal -> how many in a row (a good move resets)
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
from typing import Any

from metro.v1 import engine_pb2

import games
from services.common.config import BotSettings
from services.common.levels import is_level
from services.engine.core import validation
from services.engine.core.clocks import REAL_TIME, ClockRules
from services.engine.core.meta import AI, OPEN, SeatInfo
from services.engine.core.shards import new_game_id
from services.engine.core.store import STORAGE_ERRORS, new_request_key
from services.engine.play.lobby import Lobby
from services.engine.players.bot_accounts import BotAccounts
from services.engine.players.invitations import Invitations
from services.engine.players.player_feed import publish
from services.engine.players.players import Players, player_key, presented_key
from services.engine.players.ratings import RatingBook

log = logging.getLogger("metro.engine.ladder")

LADDER_KEY = "ladder:{all}"
LOCK_KEY = "ladder:{all}:lock"
LAST_KEY = "ladder:{all}:last"  # hash: bot player id -> "bot" or "ai", its last opponent
WAITED_KEY = "ladder:{all}:waited"  # hash: bot player id -> rounds it waited for a bot
WAIT_ROUNDS = 3
HOUR_MS = 3600 * 1000


def recent_key(player_id: str) -> str:
    return f"ladder:{{all}}:recent:{player_id}"


def strikes_key(player_id: str) -> str:
    return f"strikes:{{{player_id}}}"


class Pauses:
    """Counts a bot's time-outs and illegal moves in a row; pauses it at the threshold."""

    def __init__(self, redis: Any, bots: BotAccounts, settings: BotSettings):
        self.redis = redis  # the players' streams' client too: `paused` and `resumed` go there
        self.bots = bots
        self.settings = settings

    async def strike(self, player_id: str, what: str, game_id: str) -> None:
        if not await self.bots.is_bot(player_id):
            return
        count = int(await self.redis.hincrby(strikes_key(player_id), what, 1))
        await self.redis.expire(strikes_key(player_id), 24 * 3600)
        limit = self.settings.pause_timeouts if what == "timeout" else self.settings.pause_illegal
        if count < limit:
            return
        await self.redis.delete(strikes_key(player_id))
        until = int(time.time() * 1000) + self.settings.pause_s * 1000
        words = "timed out" if what == "timeout" else "sent illegal moves"
        reason = (
            f"this bot {words} {count} times in a row (last in game {game_id}); the ladder "
            f"gives it no games until {time.strftime('%H:%M:%S UTC', time.gmtime(until / 1000))}"
        )
        await self.redis.hset(
            player_key(player_id), mapping={"paused_until": until, "paused_reason": reason}
        )
        await publish(self.redis, player_id, {"type": "paused", "reason": reason, "until": until})
        log.info("bot %s paused: %s", player_id, reason)

    async def played(self, player_id: str) -> None:
        """A move the rules took: the counts in a row start again."""
        await self.redis.delete(strikes_key(player_id))

    async def paused(self, player_id: str) -> tuple[str, int]:
        """(reason, until ms) while paused; ("", 0) when not. A pause that ran out is lifted
        here, with a `resumed` event."""
        until, reason = await self.redis.hmget(
            player_key(player_id), "paused_until", "paused_reason"
        )
        if not until:
            return "", 0
        if int(until) > time.time() * 1000:
            return reason or "", int(until)
        if await self.redis.hdel(player_key(player_id), "paused_until", "paused_reason"):
            await publish(self.redis, player_id, {"type": "resumed"})
        return "", 0


class Ladder:
    """The opt-ins (GetLadder, SetLadder) and the scheduler."""

    def __init__(
        self,
        settings: BotSettings,
        players: Players,
        bots: BotAccounts,
        pauses: Pauses,
        lobby: Lobby,
        invitations: Invitations,
        rating_book: RatingBook,
    ) -> None:
        self.settings = settings
        self.players = players
        self.redis = players.redis
        self.bots = bots
        self.pauses = pauses
        self.lobby = lobby
        self.invitations = invitations
        self.rating_book = rating_book
        self.owner = secrets.token_hex(8)

    # ---- calls ----------------------------------------------------------------------------

    async def get_call(self, context: Any) -> engine_pb2.Ladder:
        me = await self.players.who(presented_key(context.invocation_metadata()))
        await self.bots.require(me, "the ladder")
        return await self.answer(me.player_id)

    async def set_call(self, request: engine_pb2.LadderRequest, context: Any) -> engine_pb2.Ladder:
        me = await self.players.who(presented_key(context.invocation_metadata()))
        await self.bots.require(me, "the ladder")
        return await self.set(me.player_id, list(request.games))

    async def answer(self, player_id: str) -> engine_pb2.Ladder:
        raw = await self.redis.hget(LADDER_KEY, player_id)
        reason, until = await self.pauses.paused(player_id)
        return engine_pb2.Ladder(
            games=json.loads(raw) if raw else [], paused_reason=reason, paused_until_ms=until
        )

    async def set(self, player_id: str, kinds: list[str]) -> engine_pb2.Ladder:
        wanted: list[str] = []
        for index, kind in enumerate(kinds):
            validation.game_kind(kind, f"games[{index}]")
            if kind not in wanted:
                wanted.append(kind)
        if wanted:
            await self.redis.hset(LADDER_KEY, player_id, json.dumps(wanted))
        else:
            await self.redis.hdel(LADDER_KEY, player_id)
        return await self.answer(player_id)

    # ---- the scheduler --------------------------------------------------------------------

    async def run(self) -> None:
        """Forever: one round each LADDER_INTERVAL_S, by whichever replica holds the lock."""
        while True:
            await asyncio.sleep(self.settings.ladder_interval_s)
            try:
                if await self.redis.set(
                    LOCK_KEY, self.owner, nx=True,
                    px=max(100, int(self.settings.ladder_interval_s * 900)),
                ):  # fmt: skip
                    await self.round()
            except STORAGE_ERRORS as err:
                log.warning("ladder: storage unavailable: %s", err)
            except Exception:
                log.exception("ladder round failed")

    async def round(self) -> int:
        """Pair the bots that may play now; the number of games made."""
        entries = dict(await self.redis.hgetall(LADDER_KEY))
        ready: dict[str, list[str]] = {}
        for player_id, raw in entries.items():
            if not await self._may_play(player_id):
                continue
            for kind in json.loads(raw):
                if kind in games.kinds():
                    ready.setdefault(kind, []).append(player_id)
        made, busy = 0, set[str]()
        for kind, bots in ready.items():
            bots = [b for b in bots if b not in busy]
            random.shuffle(bots)
            # Opponents alternate: a bot whose last ladder game was against an AI level (or
            # that has none yet) meets another bot when one is free, then an AI level. One
            # that finds no bot waits WAIT_ROUNDS rounds for one before it gets an AI level.
            last = await self.redis.hmget(LAST_KEY, bots) if bots else []
            want_bot = [b for b, x in zip(bots, last, strict=True) if x != "bot"]
            pairs = [want_bot[i : i + 2] for i in range(0, len(want_bot) - 1, 2)]
            paired = {b for pair in pairs for b in pair}
            if len(want_bot) % 2:
                alone = want_bot[-1]
                if int(await self.redis.hincrby(WAITED_KEY, alone, 1)) <= WAIT_ROUNDS:
                    paired.add(alone)  # not this round
            pairs += [[b] for b in bots if b not in paired]
            for pair in pairs:
                await self.redis.hdel(WAITED_KEY, *pair)
                await self._make(kind, pair)
                busy.update(pair)
                made += 1
        return made

    async def _may_play(self, player_id: str) -> bool:
        if (await self.pauses.paused(player_id))[1]:
            return False
        if not await self.bots.is_bot(player_id):
            return False
        now = int(time.time() * 1000)
        key = recent_key(player_id)
        await self.redis.zremrangebyscore(key, "-inf", now - HOUR_MS)
        if int(await self.redis.zcard(key)) >= self.settings.ladder_games_per_hour:
            return False
        return await self.bots.active(player_id) < self.settings.max_games

    async def _make(self, kind: str, bots: list[str]) -> None:
        """One rated two-seat table: the bots' seats reserved for them (invited with
        `ladder: true`), an AI level on the other seat when one bot plays alone."""
        game = games.get(kind)
        rules = game.normalise_rules({"players": 2})
        levels = [x for x in self.settings.ladder_levels if is_level(x, kind)] or ["easy"]
        seats: list[SeatInfo] = []
        for player_id in bots:
            name = await self.players.name_of(player_id)
            seats.append(SeatInfo(OPEN, name, bot=True, invited=player_id))
        while len(seats) < game.seat_count(rules):
            level = random.choice(levels)
            seats.append(SeatInfo(AI, f"AI {level}", level))
        random.shuffle(seats)
        clock = ClockRules(mode=REAL_TIME, move_s=self.settings.ladder_move_s, ai_level=levels[0])
        game_id = new_game_id(None)
        await self.players.set_table(game_id, {"rated": "1", "ladder": "1"})
        await self.rating_book.make_due(kind, game_id)
        if not await self.lobby.open_table(game_id, kind, rules, seats, clock, new_request_key()):
            return
        now = int(time.time() * 1000)
        for player_id in bots:
            await self.redis.zadd(recent_key(player_id), {game_id: now})
            await self.redis.expire(recent_key(player_id), 3600)
            await self.redis.hset(LAST_KEY, player_id, "bot" if len(bots) > 1 else "ai")
        invited = [i for i, s in enumerate(seats) if s.invited]
        await self.invitations.invite(game_id, kind, rules, invited, "ladder", ladder=True)
        log.info("ladder: game %s (%s) for %s", game_id, kind, ", ".join(bots))
