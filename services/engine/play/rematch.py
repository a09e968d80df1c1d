"""Rematch offers: after a game, the same table again (same options, the same seats rotated by
one, so the second player moves first), started once every human seat has accepted.

An offer is one hash, `rematch:{<old game id>}` (tagged by the old game), changed only by the
scripts below. The new game's id is chosen with the offer, so an accepting seat gets its token
for the new game in its own answer at once; only the token's hash is kept, and the offer is
sealed (no more changes) when the last human accepts. Whoever sees it sealed and the game not
made yet makes it: creation is create-if-absent, so two makers start one game.

  rematch:{<id>}  hash: game_id (the new one), order (JSON: new seat -> old seat), humans
                  (JSON: the old human seats), acc:<old seat> -> token hash ("ai" for AI
                  seats), declined -> the old seat that declined, sealed -> "1"
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

OFFER_TTL_S = 24 * 3600

# KEYS: the offer. ARGV: new game id, order JSON, humans JSON, ttl, then the AI seats.
# Returns 1 when this call made the offer, 0 when one existed.
_OFFER_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'game_id', ARGV[1], 'order', ARGV[2], 'humans', ARGV[3])
for i = 5, #ARGV do redis.call('HSET', KEYS[1], 'acc:' .. ARGV[i], 'ai') end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
"""

# KEYS: the offer. ARGV: old seat, token hash. Returns "none", "declined", "sealed" (before this
# call: nothing changed), "again" (this seat had accepted: its first token hash stays, so the
# token its first answer gave keeps working), "accepted", or "complete" (this call sealed it).
_ACCEPT_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'none' end
if redis.call('HEXISTS', KEYS[1], 'declined') == 1 then return 'declined' end
if redis.call('HEXISTS', KEYS[1], 'sealed') == 1 then return 'sealed' end
if redis.call('HSETNX', KEYS[1], 'acc:' .. ARGV[1], ARGV[2]) == 0 then return 'again' end
for _, seat in ipairs(cjson.decode(redis.call('HGET', KEYS[1], 'humans'))) do
  if redis.call('HEXISTS', KEYS[1], 'acc:' .. seat) == 0 then return 'accepted' end
end
redis.call('HSET', KEYS[1], 'sealed', '1')
return 'complete'
"""

# KEYS: the offer. ARGV: old seat. Returns "none", "sealed" or "declined".
_DECLINE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'none' end
if redis.call('HEXISTS', KEYS[1], 'sealed') == 1 then return 'sealed' end
redis.call('HSETNX', KEYS[1], 'declined', ARGV[1])
return 'declined'
"""


def offer_key(game_id: str) -> str:
    return f"rematch:{{{game_id}}}"


def rotated(seats: int) -> list[int]:
    """New seat -> old seat: everyone moves up one place, the first goes last."""
    return [(i + 1) % seats for i in range(seats)]


@dataclass(frozen=True, slots=True)
class Offer:
    game_id: str  # the new game
    order: list[int]  # new seat -> old seat
    humans: list[int]  # old seats
    accepted: dict[int, str]  # old seat -> token hash ("ai" for AI seats)
    declined: int | None
    sealed: bool

    def new_seat(self, old_seat: int) -> int:
        return self.order.index(old_seat)

    def public(self, started: bool) -> dict[str, Any]:
        """What the old game's view shows (never a token hash)."""
        return {
            "game_id": self.game_id,
            "accepted": sorted(self.accepted),
            "declined": [] if self.declined is None else [self.declined],
            "started": started,
        }


class Offers:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._offer = redis.register_script(_OFFER_LUA)
        self._accept = redis.register_script(_ACCEPT_LUA)
        self._decline = redis.register_script(_DECLINE_LUA)

    async def get(self, game_id: str) -> Offer | None:
        data = await self.redis.hgetall(offer_key(game_id))
        if not data or "game_id" not in data:
            return None
        declined = data.get("declined")
        return Offer(
            game_id=data["game_id"],
            order=json.loads(data["order"]),
            humans=json.loads(data["humans"]),
            accepted={int(k[4:]): v for k, v in data.items() if k.startswith("acc:")},
            declined=None if declined is None else int(declined),
            sealed=data.get("sealed") == "1",
        )

    async def offer(
        self, game_id: str, new_game_id: str, order: list[int], humans: list[int], ais: list[int]
    ) -> bool:
        made = await self._offer(
            keys=[offer_key(game_id)],
            args=[new_game_id, json.dumps(order), json.dumps(humans), OFFER_TTL_S, *ais],
        )
        return bool(int(made))

    async def accept(self, game_id: str, seat: int, hashed: str) -> str:
        return str(await self._accept(keys=[offer_key(game_id)], args=[seat, hashed]))

    async def decline(self, game_id: str, seat: int) -> str:
        return str(await self._decline(keys=[offer_key(game_id)], args=[seat]))
