"""The daily puzzle's deal and book (issue 23): one solo deck and map per UTC day and game.

A day's deal is HMAC-SHA256(secret, "metro-daily/1/<kind>/<date>"): the game's `daily_rules` picks
the rules from it and the day (Metro X: the maps in turn, one a day), its bytes 8-16 are the deck's
seed. The secret is `DAILY_SECRET`, or
one made once and kept in Redis (`daily:secret`, SET NX) so every engine replica deals the same;
it is never sent anywhere, so nobody can compute a day's deck, today's or tomorrow's, and the
rules shown (`{"players": 1, "map"}`) name no seed.

Keys (each command or script touches one hash tag, so a Redis Cluster serves them):
  daily:secret                       the secret, when DAILY_SECRET is unset
  daily:{<kind>:<date>}:attempts     hash: player id -> game id of the scored attempt
  daily:{<kind>:<date>}:scores       hash: player id -> score (finished scored attempts)
  daily:{<kind>:<date>}:hist         hash: score -> how many finished with it
  daily:{<kind>:<date>}:void         hash: player id -> score of a finished attempt the AI moved
                                     in (the player left): not a result, not in the streak
  daily:game:{<game id>}             JSON {"kind", "date", "player", "at_ms"} of a scored attempt
                                     (at_ms: when it was reserved)
  daily:{<player id>}:days:<kind>    zset: the days (ordinals) the player finished an attempt
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import math
import re
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import games
from services.common.grpc_util import invalid_argument

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
PRACTICE_DAYS = 366  # how far back a practice game or a day's results may go
DAY_TTL_S = 400 * 24 * 3600  # a day's results are kept this long
MARKER_TTL_S = 30 * 24 * 3600  # outlives any attempt (games idle at most 7 days by default)
STREAK_DAYS = 400  # days looked at when counting a streak
SEED_MASK = (1 << 63) - 1

# KEYS: scores, hist. ARGV: player, score, ttl. A finished attempt counts once.
_RECORD_LUA = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
"""

# KEYS: attempts. ARGV: player, game id. Frees a reservation whose game was never made.
_UNRESERVE_LUA = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def has_daily(kind: str) -> bool:
    """Whether `kind` is a game of the registry that offers a daily puzzle."""
    return kind in games.kinds() and games.get(kind).daily_rules(bytes(32)) is not None


def parse_day(text: str, now: dt.date) -> dt.date:
    """The day a request names ("" = today); INVALID_ARGUMENT naming `date` for a malformed,
    future or too old one (a future day's deck exists nowhere before that day begins)."""
    if not text:
        return now
    try:
        if not DATE.fullmatch(text):
            raise ValueError
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise invalid_argument("date", "date must be a day written YYYY-MM-DD") from None
    if day > now:
        raise invalid_argument(
            "date", f"there is no puzzle for {day} yet: the latest is today's ({now}, UTC)"
        )
    if (now - day).days > PRACTICE_DAYS:
        raise invalid_argument(
            "date", f"puzzles go back {PRACTICE_DAYS} days; {day} is older than that"
        )
    return day


def deal(secret: str, kind: str, day: dt.date) -> tuple[dict[str, Any], int]:
    """The day's rules and deck seed (a pure function of the secret, the game and the day)."""
    message = f"metro-daily/1/{kind}/{day.isoformat()}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    rules = games.get(kind).daily_rules(digest, day.toordinal())
    if rules is None:
        raise ValueError(f"{kind} has no daily puzzle")
    return dict(rules), int.from_bytes(digest[8:16], "big") & SEED_MASK


def streak_of(days: set[int], now: dt.date) -> int:
    """Days in a row with a finished scored attempt, up to today (or up to yesterday while
    today's is still to play: a streak lasts until a day is missed)."""
    day = now.toordinal()
    if day not in days:
        day -= 1
    count = 0
    while day in days:
        count, day = count + 1, day - 1
    return count


def ai_moved(events: Iterable[Mapping[str, Any]], seat: int = 0) -> bool:
    """Whether the AI made any of `seat`'s moves (an event's `by`, moves.made_by): its player
    left and the AI played on for them, so the score is not the player's own."""
    return any(e.get("seat") == seat and e.get("by") == "ai" for e in events)


@dataclass(frozen=True, slots=True)
class Standing:
    score: int
    rank: int  # 1 + how many scored more
    percentile: int  # % of the day's players who scored as much as you or less
    top: int  # you are in the top `top` % (rank over players, rounded up)


def results(hist: dict[int, int], mine: int | None) -> dict[str, Any]:
    """A day's results document (without "date" and "you"'s streak) from its histogram."""
    players = sum(hist.values())
    out: dict[str, Any] = {
        "players": players,
        "histogram": [{"score": s, "count": hist[s]} for s in sorted(hist)],
        "best": max(hist) if hist else None,
        "mean": round(sum(s * c for s, c in hist.items()) / players, 1) if players else None,
        "you": None,
    }
    if mine is not None and players:
        above = sum(c for s, c in hist.items() if s > mine)
        at_most = players - above
        you = Standing(
            score=mine,
            rank=above + 1,
            percentile=round(100 * at_most / players),
            top=max(1, math.ceil(100 * (above + 1) / players)),
        )
        out["you"] = {
            "score": you.score, "rank": you.rank, "percentile": you.percentile, "top": you.top
        }  # fmt: skip
    return out


def _tag(kind: str, day: dt.date) -> str:
    return f"daily:{{{kind}:{day.isoformat()}}}"


def marker_key(game_id: str) -> str:
    return f"daily:game:{{{game_id}}}"


def days_key(player_id: str, kind: str) -> str:
    return f"daily:{{{player_id}}}:days:{kind}"


class DailyBook:
    """The daily puzzles' storage: the secret, the attempts, the scores and the streaks."""

    def __init__(self, redis: Any, secret: str = "") -> None:
        self.redis = redis
        self._secret = secret
        self._record = redis.register_script(_RECORD_LUA)
        self._unreserve = redis.register_script(_UNRESERVE_LUA)

    async def secret(self) -> str:
        """DAILY_SECRET, else the one kept in Redis (the first replica to ask makes it)."""
        if not self._secret:
            await self.redis.set("daily:secret", secrets.token_hex(32), nx=True)
            self._secret = str(await self.redis.get("daily:secret"))
        return self._secret

    async def deal(self, kind: str, day: dt.date) -> tuple[dict[str, Any], int]:
        return deal(await self.secret(), kind, day)

    # ---- attempts ---------------------------------------------------------------------------

    async def reserve(
        self, kind: str, day: dt.date, player_id: str, game_id: str, now_ms: int | None = None
    ) -> str | None:
        """Claim the player's one scored attempt of the day for `game_id`; None when claimed
        now, else the game id of the attempt claimed before. The marker is written first, so a
        claimed attempt always has one (a failure in between leaves only an unused marker,
        which `unreserve` removes)."""
        key = f"{_tag(kind, day)}:attempts"
        at_ms = int(time.time() * 1000) if now_ms is None else now_ms
        marker = {"kind": kind, "date": day.isoformat(), "player": player_id, "at_ms": at_ms}
        await self.redis.set(marker_key(game_id), json.dumps(marker), ex=MARKER_TTL_S)
        if await self.redis.hsetnx(key, player_id, game_id):
            await self.redis.expire(key, DAY_TTL_S)
            return None
        await self.redis.delete(marker_key(game_id))
        return str(await self.redis.hget(key, player_id))

    async def unreserve(self, kind: str, day: dt.date, player_id: str, game_id: str) -> None:
        """Undo `reserve` of a game that was never made (deletes only: a full store takes it)."""
        await self._unreserve(keys=[f"{_tag(kind, day)}:attempts"], args=[player_id, game_id])
        await self.redis.delete(marker_key(game_id))

    async def attempt(self, kind: str, day: dt.date, player_id: str) -> str | None:
        found = await self.redis.hget(f"{_tag(kind, day)}:attempts", player_id)
        return None if found is None else str(found)

    async def marker(self, game_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(marker_key(game_id))
        return None if raw is None else dict(json.loads(raw))

    # ---- results ----------------------------------------------------------------------------

    async def record(self, kind: str, day: dt.date, player_id: str, score: int) -> bool:
        """Count a finished scored attempt (once: a repeat changes nothing); True when new."""
        tag = _tag(kind, day)
        new = await self._record(
            keys=[f"{tag}:scores", f"{tag}:hist"], args=[player_id, score, DAY_TTL_S]
        )
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(days_key(player_id, kind), {str(day.toordinal()): day.toordinal()})
        pipe.zremrangebyrank(days_key(player_id, kind), 0, -STREAK_DAYS - 1)
        pipe.expire(days_key(player_id, kind), DAY_TTL_S)
        await pipe.execute()
        return bool(new)

    async def void(self, kind: str, day: dt.date, player_id: str, score: int) -> None:
        """Keep a finished attempt the AI made moves in: the player's, but not a result."""
        key = f"{_tag(kind, day)}:void"
        await self.redis.hsetnx(key, player_id, score)
        await self.redis.expire(key, DAY_TTL_S)

    async def void_score(self, kind: str, day: dt.date, player_id: str) -> int | None:
        found = await self.redis.hget(f"{_tag(kind, day)}:void", player_id)
        return None if found is None else int(found)

    async def score(self, kind: str, day: dt.date, player_id: str) -> int | None:
        found = await self.redis.hget(f"{_tag(kind, day)}:scores", player_id)
        return None if found is None else int(found)

    async def histogram(self, kind: str, day: dt.date) -> dict[int, int]:
        raw = await self.redis.hgetall(f"{_tag(kind, day)}:hist")
        return {int(s): int(c) for s, c in raw.items()}

    async def streak(self, kind: str, player_id: str, now: dt.date) -> int:
        days = await self.redis.zrevrange(days_key(player_id, kind), 0, STREAK_DAYS - 1)
        return streak_of({int(d) for d in days}, now)
