"""Bot accounts (issue 24): players that are programs. Not the AI seats (bots.py, bot_calls.py
are the AI workers' queue): a bot account is a player like a person, with a device key, rated
on the same leaderboard, marked as a bot wherever its name appears.

Keys:
  player:{<id>}             the player's hash (players.py) gets bot = "1"
  bots:{all}                set: every bot's player id (one read marks a whole leaderboard)
  botname:{<name folded>}   string: the bot's player id (people invite a bot by its name, so a
                            bot's name is unique among bots, in any case)
  player:{<id>}:active      set: the bot's games not over yet (BOT_MAX_GAMES)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc

from services.common.config import BotSettings
from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core.edge import failed
from services.engine.players.players import PlayerInfo, Players, player_key

BOTS_KEY = "bots:{all}"


def name_key(name: str) -> str:
    return f"botname:{{{name.casefold()}}}"


def active_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:active"


def not_a_bot(what: str) -> ServiceError:
    return failed("not_a_bot", f'{what} is for bot accounts (created with "bot": true)')


def name_taken(name: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ALREADY_EXISTS,
        f"a bot named {name!r} exists already; bots are invited by name, so each needs its "
        "own (recover that bot's key with its recovery code, or pick another name)",
        reason="bot_name_taken",
    )


class BotAccounts:
    """Which players are bots, by name; their games at once and their own call rate."""

    def __init__(self, redis: Any, players: Players, settings: BotSettings) -> None:
        self.redis = redis
        self.players = players
        self.settings = settings

    async def register(self, player_id: str, name: str) -> None:
        """Make a new player a bot; ALREADY_EXISTS when another bot has this name."""
        if not await self.redis.set(name_key(name), player_id, nx=True):
            raise name_taken(name)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(player_key(player_id), "bot", "1")
        pipe.sadd(BOTS_KEY, player_id)
        await pipe.execute()

    async def check_free(self, name: str) -> None:
        if await self.redis.exists(name_key(name)):
            raise name_taken(name)

    async def is_bot(self, player_id: str) -> bool:
        return await self.redis.hget(player_key(player_id), "bot") == "1"

    async def which(self, player_ids: Sequence[str]) -> set[str]:
        """The bots among these players (one read)."""
        if not player_ids:
            return set()
        flags = await self.redis.smismember(BOTS_KEY, list(player_ids))
        return {p for p, f in zip(player_ids, flags, strict=True) if f}

    async def by_name(self, name: str, field: str) -> tuple[str, str]:
        """(player id, name as registered) of the bot called `name`; INVALID_ARGUMENT naming
        `field` when no bot is."""
        player_id = await self.redis.get(name_key(name)) if name else None
        known = await self.players.name_of(player_id) if player_id else ""
        if not player_id or not known:
            raise invalid_argument(
                field, f"{field}: no bot account is named {name!r} (a bot seat names a bot)"
            )
        return player_id, known

    async def require(self, me: PlayerInfo, what: str) -> None:
        """The bot's own rate (BOT_CALLS_PER_MINUTE, counted per bot, wherever it calls from)
        and that it is a bot at all."""
        if not await self.is_bot(me.player_id):
            raise not_a_bot(what)
        await self.players._count(f"bot-{me.player_id}", "bot", self.settings.calls_per_minute)

    # ---- games at once ------------------------------------------------------------------

    async def take_game(self, player_id: str, game_id: str, still_running: Any) -> None:
        """Count `game_id` among the bot's games; FAILED_PRECONDITION "bot_max_games" when it
        holds BOT_MAX_GAMES unfinished ones. `still_running(game_id)`: whether a listed game
        is still unfinished (a game that expired unseen leaves the count here)."""
        held = [g for g in await self.redis.smembers(active_key(player_id)) if g != game_id]
        if len(held) >= self.settings.max_games:
            gone = [g for g in held if not await still_running(g)]
            if gone:
                await self.redis.srem(active_key(player_id), *gone)
            if len(held) - len(gone) >= self.settings.max_games:
                raise failed(
                    "bot_max_games",
                    f"this bot holds {self.settings.max_games} unfinished games, the most a "
                    "bot may (BOT_MAX_GAMES); finish one first",
                )
        await self.redis.sadd(active_key(player_id), game_id)

    async def game_over(self, player_id: str, game_id: str) -> None:
        await self.redis.srem(active_key(player_id), game_id)

    async def active(self, player_id: str) -> int:
        return int(await self.redis.scard(active_key(player_id)))
