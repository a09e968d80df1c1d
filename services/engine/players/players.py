"""Players: a name and a device key, no password (issue 12), and who sits where.

A device key is `<player id>.<secret>`: the id says where to look, and only the secret's keyed
hash is stored (as seat tokens are, services/common/auth.py), so a copy of the database lets
nobody play. A recovery code (10 characters from Crockford's base 32, shown as two groups of
five) gives a new device key to whoever types it; it is stored as a slow hash (PBKDF2), so a
copy of the database does not let its 50 bits be searched cheaply, and attempts are counted per
client.

Keys, each hash-tagged by one entity so that no command or script touches two slots:
  player:{<id>}            hash: name, created_ms, recovery (the code's hash), key:<hash> -> ms
  player:{<id>}:games      zset: game id -> the game's created_at ms ("My games", newest first)
  player:{<id>}:seats      hash: game id -> the player's seat in it
  recovery:{<code hash>}   string: the player id the code belongs to
  table:{<game id>}        hash: kind, rated ("1"), p<seat> -> player id, and
                           claim:<token hash> -> seat for each seat token a player's other
                           device claimed (ClaimSeat); lives TABLE_TTL_S
  attempts:{<client>}:<what>  a per-minute counter of one client's attempts
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

import grpc

from services.common.auth import new_token, token_hash
from services.common.grpc_util import ServiceError, invalid_argument

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{12}")
DEVICE_KEY = re.compile(r"([A-Za-z0-9_-]{12})\.([A-Za-z0-9_-]{16,64})")
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford: no I, L, O, U
CODE_LENGTH = 10
CODE_ITERATIONS = 100_000
CODE_SALT = b"metro-recovery/1"
MAX_DEVICES = 50
MAX_CLAIMS = 64  # seat tokens claimed at one table (devices of all its players together)
TABLE_TTL_S = 30 * 24 * 3600  # outlives any game: idle 7 days, finished 1 day by default
RECOVER_PER_MINUTE = 10
CREATE_PER_MINUTE = 30
MAX_CLIENT_ID = 64

# KEYS: the table. ARGV: seat field, player id, kind, ttl. Refuses another player's seat.
_SIT_LUA = """
local now = redis.call('HGET', KEYS[1], ARGV[1])
if now and now ~= ARGV[2] then return now end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], 'kind', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return ''
"""

# KEYS: a player. ARGV: field of the new key, now ms, most devices. The oldest keys go first.
_ADD_KEY_LUA = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local keys = {}
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 4) == 'key:' then table.insert(keys, {all[i], tonumber(all[i + 1])}) end
end
if #keys > tonumber(ARGV[3]) then
  table.sort(keys, function(a, b) return a[2] < b[2] end)
  for i = 1, #keys - tonumber(ARGV[3]) do redis.call('HDEL', KEYS[1], keys[i][1]) end
end
return #keys
"""


def player_key(player_id: str) -> str:
    return f"player:{{{player_id}}}"


def games_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:games"


def seats_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:seats"


def recovery_key(code_hash: str) -> str:
    return f"recovery:{{{code_hash}}}"


def table_key(game_id: str) -> str:
    return f"table:{{{game_id}}}"


def attempts_key(client: str, what: str) -> str:
    return f"attempts:{{{client}}}:{what}"


def ai_player(level: str) -> str:
    """An AI level is a rated player of its own, named by its level."""
    return f"ai:{level}"


def bad_key(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, message, reason="bad_player_key")


def rate_limited(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, message, reason="rate_limited")


def new_recovery_code() -> str:
    chars = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{chars[:5]}-{chars[5:]}"


def normal_code(text: str) -> str:
    """The code as typed, made canonical: any case, spaces and dashes anywhere, O for 0 and
    I or L for 1 (Crockford's reading). Raises for anything that cannot be a code."""
    code = re.sub(r"[\s-]", "", text).upper().translate(str.maketrans("OIL", "011"))
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise invalid_argument(
            "recovery_code",
            f"a recovery code is {CODE_LENGTH} letters and digits, such as ABCDE-12345",
        )
    return code


def code_hash(code: str) -> str:
    """Slow on purpose (tens of ms): see the module's doc."""
    digest = hashlib.pbkdf2_hmac("sha256", code.encode(), CODE_SALT, CODE_ITERATIONS)
    return digest.hex()


def client_id(metadata: Any) -> str:
    """Whom attempts are counted by: the gateway's `x-client-id`, else one shared bucket."""
    for key, value in metadata or ():
        if key.lower() == "x-client-id":
            text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
            return re.sub(r"[^A-Za-z0-9.:_-]", "_", text)[:MAX_CLIENT_ID] or "direct"
    return "direct"


def presented_key(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key.lower() == "x-player-key":
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return None


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Credentials:
    player_id: str
    name: str
    device_key: str
    recovery_code: str = ""


class Players:
    """The players' store: identities, device keys, recovery codes and who sits where."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._sit = redis.register_script(_SIT_LUA)
        self._add_key = redis.register_script(_ADD_KEY_LUA)

    # ---- identity -----------------------------------------------------------------------

    async def create(self, name: str, client: str) -> Credentials:
        await self._count(client, "create", CREATE_PER_MINUTE)
        if not name:
            raise invalid_argument("name", "a player needs a name (1-40 characters)")
        player_id = secrets.token_urlsafe(9)
        code = new_recovery_code()
        hashed = await asyncio.to_thread(code_hash, normal_code(code))
        if not await self.redis.set(recovery_key(hashed), player_id, nx=True):
            raise ServiceError(  # 50 random bits met another code: vanishingly rare
                grpc.StatusCode.ABORTED, "please try again", reason="version_conflict"
            )
        now = int(time.time() * 1000)
        await self.redis.hset(
            player_key(player_id),
            mapping={"name": name, "created_ms": now, "recovery": hashed},
        )
        device_key = await self._new_device_key(player_id)
        return Credentials(player_id, name, device_key, code)

    async def recover(self, typed: str, client: str) -> Credentials:
        await self._count(client, "recover", RECOVER_PER_MINUTE)
        hashed = await asyncio.to_thread(code_hash, normal_code(typed))
        player_id = await self.redis.get(recovery_key(hashed))
        if player_id is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "no player has this recovery code; check it and try again",
                reason="bad_recovery_code",
            )
        name = await self.redis.hget(player_key(player_id), "name")
        if name is None:
            raise bad_key("the player of this recovery code no longer exists")
        return Credentials(player_id, name, await self._new_device_key(player_id))

    async def who(self, device_key: str | None) -> PlayerInfo:
        """The player a device key belongs to; PERMISSION_DENIED for none or a wrong one."""
        if device_key is None:
            raise bad_key("this call needs a player's device key (header X-Player-Key)")
        found = DEVICE_KEY.fullmatch(device_key)
        if found is None:
            raise bad_key("the player key is malformed: use the device_key given by the server")
        player_id, secret = found.groups()
        field = f"key:{token_hash(player_key(player_id), secret)}"
        name, known = await self.redis.hmget(player_key(player_id), "name", field)
        if name is None or known is None:
            raise bad_key("the player key is not valid (unknown player or device)")
        return PlayerInfo(player_id, name)

    async def erase(self, player_id: str) -> None:
        """Forget the player: name, device keys, recovery code and games index. The tables it
        sat at keep its id (ratings and opponents' histories need it), never its name."""
        recovery = await self.redis.hget(player_key(player_id), "recovery")
        pipe = self.redis.pipeline(transaction=False)
        if recovery:
            pipe.delete(recovery_key(recovery if isinstance(recovery, str) else recovery.decode()))
        pipe.delete(player_key(player_id))
        pipe.delete(games_key(player_id))
        pipe.delete(seats_key(player_id))
        pipe.delete(f"player:{{{player_id}}}:follows")  # whom they follow (follows.py)
        await pipe.execute()

    async def name_of(self, player_id: str) -> str:
        return str(await self.redis.hget(player_key(player_id), "name") or "")

    async def _new_device_key(self, player_id: str) -> str:
        secret = new_token()
        field = f"key:{token_hash(player_key(player_id), secret)}"
        await self._add_key(
            keys=[player_key(player_id)],
            args=[field, int(time.time() * 1000), MAX_DEVICES],
        )
        return f"{player_id}.{secret}"

    async def _count(self, client: str, what: str, per_minute: int) -> None:
        key = attempts_key(client, what)
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, 60, nx=True)
        count, _ = await pipe.execute()
        if int(count) > per_minute:
            ttl = await self.redis.ttl(key)
            raise rate_limited(
                f"too many attempts from this client (at most {per_minute} a minute); "
                f"try again in {max(int(ttl), 1)} s"
            )

    # ---- who sits where -----------------------------------------------------------------

    async def sit(
        self, game_id: str, kind: str, seat: int, player_id: str, created_at_ms: int
    ) -> None:
        """Record the player on the seat (a seat holds one player for good) and list the game
        among the player's own."""
        taken = await self._sit(
            keys=[table_key(game_id)], args=[f"p{seat}", player_id, kind, TABLE_TTL_S]
        )
        if taken:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"seat {seat} of game {game_id} already has another player",
                reason="seat_has_player",
            )
        await self.index(player_id, game_id, seat, created_at_ms)

    async def unsit(self, game_id: str, player_id: str) -> None:
        """Undo `sit` at a table of the player's alone that was never made (a refused daily
        start): only deletes, which a full store (maxmemory) still takes."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(table_key(game_id))
        pipe.zrem(games_key(player_id), game_id)
        pipe.hdel(seats_key(player_id), game_id)
        await pipe.execute()

    async def index(self, player_id: str, game_id: str, seat: int, created_at_ms: int) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(games_key(player_id), {game_id: created_at_ms})
        pipe.hset(seats_key(player_id), game_id, seat)
        await pipe.execute()

    async def claim(self, game_id: str, player_id: str) -> tuple[int, str]:
        """A new token for the seat `player_id` holds at `game_id` (for the player's other
        devices: the seat's first token stays valid); (seat, token)."""
        table = await self.table(game_id)
        seats = [int(k[1:]) for k, v in table.items() if k[:1] == "p" and v == player_id]
        if not seats:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"this player has no seat in game {game_id}",
                reason="permission_denied",
            )
        if sum(1 for k in table if k.startswith("claim:")) >= MAX_CLAIMS:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many devices have claimed seats in game {game_id}",
                reason="rate_limited",
            )
        seat, token = min(seats), new_token()
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(table_key(game_id), f"claim:{token_hash(game_id, token)}", seat)
        pipe.expire(table_key(game_id), TABLE_TTL_S)
        await pipe.execute()
        return seat, token

    async def claimed_seat(self, game_id: str, token: str) -> int | None:
        """The seat a claimed token speaks for (None: not a claimed token of this game)."""
        seat = await self.redis.hget(table_key(game_id), f"claim:{token_hash(game_id, token)}")
        return None if seat is None else int(seat)

    async def table(self, game_id: str) -> dict[str, str]:
        """The table's hash: kind, rated, p<seat> -> player id ({} when nobody sat)."""
        return dict(await self.redis.hgetall(table_key(game_id)))

    async def set_table(self, game_id: str, fields: dict[str, str]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(table_key(game_id), mapping=fields)
        pipe.expire(table_key(game_id), TABLE_TTL_S)
        await pipe.execute()

    async def page(self, player_id: str, offset: int, limit: int) -> list[tuple[str, int]]:
        """(game id, the player's seat) of one page of the player's games, newest first."""
        ids = await self.redis.zrevrange(games_key(player_id), offset, offset + limit - 1)
        if not ids:
            return []
        seats = await self.redis.hmget(seats_key(player_id), ids)
        return [(g, int(s)) for g, s in zip(ids, seats, strict=True) if s is not None]

    async def forget(self, player_id: str, game_ids: list[str]) -> None:
        """Games that have expired leave the player's list."""
        if game_ids:
            pipe = self.redis.pipeline(transaction=False)
            pipe.zrem(games_key(player_id), *game_ids)
            pipe.hdel(seats_key(player_id), *game_ids)
            await pipe.execute()
