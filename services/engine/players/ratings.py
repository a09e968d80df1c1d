"""Ratings per game kind (openskill's Plackett-Luce model, for any number of seats), applied once
per finished rated game.

A game is rated when its table chose so and, at its end, every human seat has a player; AI seats
are rated players named by their level (`ai:<level>`). Ratings are computed here, then written
by one script that first checks that the game was not rated already and that no rating it read
has changed since: two engine replicas that both see a game end rate it once, and a lost race
is computed again. A rated table is put on the kind's `due` list when it is chosen; the commit
that ends a game triggers its rating, and a sweep rates any ended game still due (an engine that
died between the two loses nothing).

Keys, all tagged by the kind (one slot per kind):
  ratings:{<kind>}         hash: player id -> JSON {mu, sigma, games, name}
  ratings:{<kind>}:board   zset: player id -> rating (mu - 3 sigma), the leaderboard
  ratings:{<kind>}:done    zset: game id -> ms when rated (kept DONE_KEEP_MS)
  ratings:{<kind>}:due     zset: game id -> ms last looked at (rated tables not yet rated)
  ratings:{<kind>}:game:<game id>  string: JSON {player id: [before, after]} (ratings as shown,
                           mu - 3 sigma) of the players this game rated, kept DONE_KEEP_MS, for
                           the archive (services/archive/archiver.py)
"""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

log = logging.getLogger("metro.engine.ratings")

MODEL = PlackettLuce()
DONE_KEEP_MS = 60 * 24 * 3600 * 1000
RATE_ATTEMPTS = 8
SWEEP_BATCH = 100
DELETED_NAME = "deleted player"  # an erased player's name wherever it is shown

# KEYS: ratings, board, done, due, the game's changes. ARGV: game id, now ms, keep ms, n, then
# n times: player id, the JSON read before ("" for none), the new JSON, the new rating; then the
# game's changes (JSON). 1: rated now; 0: rated before; -1: a rating changed since it was read
# (compute again).
_RATE_LUA = """
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then
  redis.call('ZREM', KEYS[4], ARGV[1])
  return 0
end
local n = tonumber(ARGV[4])
for i = 0, n - 1 do
  local at = 5 + i * 4
  local now = redis.call('HGET', KEYS[1], ARGV[at]) or ''
  if now ~= ARGV[at + 1] then return -1 end
end
for i = 0, n - 1 do
  local at = 5 + i * 4
  redis.call('HSET', KEYS[1], ARGV[at], ARGV[at + 2])
  redis.call('ZADD', KEYS[2], ARGV[at + 3], ARGV[at])
end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('SET', KEYS[5], ARGV[5 + n * 4], 'PX', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
"""


def ratings_key(kind: str) -> str:
    return f"ratings:{{{kind}}}"


def board_key(kind: str) -> str:
    return f"ratings:{{{kind}}}:board"


def done_key(kind: str) -> str:
    return f"ratings:{{{kind}}}:done"


def due_key(kind: str) -> str:
    return f"ratings:{{{kind}}}:due"


def changes_key(kind: str, game_id: str) -> str:
    """What one game did to its players' ratings: {player id: [before, after]} (the archive's)."""
    return f"ratings:{{{kind}}}:game:{game_id}"


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0
    name: str = ""

    @property
    def value(self) -> float:
        """What is shown and ranked by: a conservative estimate (openskill's ordinal)."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> str:
        return json.dumps(
            {"mu": self.mu, "sigma": self.sigma, "games": self.games, "name": self.name},
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | None, name: str = "") -> Rating:
        if not text:
            fresh = MODEL.rating()
            return cls(fresh.mu, fresh.sigma, 0, name)
        data = json.loads(text)
        return cls(float(data["mu"]), float(data["sigma"]), int(data["games"]), data["name"])


def ranks(
    scores: Sequence[int], winners: Sequence[int], retired: Sequence[int] = ()
) -> list[float]:
    """Openskill's ranks (1 is best) from an outcome: the winners share 1 (a game's own
    tie-break may pick them among equal scores); the others follow by score; seats that left
    the game (a time-out that loses) come after every seat that played it out."""
    out: list[float] = []
    stayed = [s for s in range(len(scores)) if s not in retired]
    for seat, score in enumerate(scores):
        if seat in winners and seat not in retired:
            out.append(1)
            continue
        group = stayed if seat not in retired else list(retired)
        better = sum(1 for s in group if s not in winners and scores[s] > score)
        out.append(2 + better + (len(stayed) if seat in retired else 0))
    return out


def mostly_ai(events: Iterable[Mapping[str, Any]], seats: int) -> set[int]:
    """The seats more than half of whose moves the AI made for their player (the events' `by`,
    moves.made_by): a rated game does not rate such a seat's player, who mostly did not play it.
    Every move event counts once (a changed hidden choice too); events without `by` do not."""
    made = [0] * seats
    by_ai = [0] * seats
    for event in events:
        seat, by = event.get("seat"), event.get("by")
        if by not in ("ai", "player") or not isinstance(seat, int) or not 0 <= seat < seats:
            continue
        made[seat] += 1
        by_ai[seat] += by == "ai"
    return {s for s in range(seats) if 2 * by_ai[s] > made[s]}


def new_ratings(
    seats: Sequence[str],
    before: dict[str, Rating],
    scores: Sequence[int],
    winners: Sequence[int],
    retired: Sequence[int] = (),
) -> dict[str, Rating]:
    """Each seat is a team of one. A player on several seats (two AI seats of one level) gets
    the mean of its seats' new ratings, so sitting twice neither doubles nor cancels a game."""
    teams = [[MODEL.rating(mu=before[p].mu, sigma=before[p].sigma)] for p in seats]
    rated = MODEL.rate(teams, ranks=ranks(scores, winners, retired))
    mus: dict[str, list[float]] = defaultdict(list)
    sigmas: dict[str, list[float]] = defaultdict(list)
    for player, team in zip(seats, rated, strict=True):
        mus[player].append(team[0].mu)
        sigmas[player].append(team[0].sigma)
    return {
        p: Rating(
            sum(mus[p]) / len(mus[p]),
            sum(sigmas[p]) / len(sigmas[p]),
            before[p].games + 1,
            before[p].name,
        )
        for p in mus
    }


class RatingBook:
    """Reads and the one write of the ratings of every kind."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._rate = redis.register_script(_RATE_LUA)

    async def forget_name(self, player_id: str, kinds: Iterable[str] | None = None) -> None:
        """An erased player (DeletePlayer) stays on the boards as "deleted player"."""
        import games  # (the registry: every kind a player may be rated in)

        for kind in kinds if kinds is not None else games.kinds():
            text = await self.redis.hget(ratings_key(kind), player_id)
            if text:
                data = json.loads(text)
                data["name"] = DELETED_NAME
                await self.redis.hset(ratings_key(kind), player_id, json.dumps(data))

    async def make_due(self, kind: str, game_id: str) -> None:
        await self.redis.zadd(due_key(kind), {game_id: int(time.time() * 1000)})

    async def due(self, kind: str, limit: int = SWEEP_BATCH) -> list[str]:
        """The rated games of a kind still to rate, the longest unvisited first."""
        ids: list[str] = await self.redis.zrange(due_key(kind), 0, limit - 1)
        return ids

    async def looked_at(self, kind: str, game_id: str) -> None:
        """A due game still running goes to the back of the line."""
        await self.redis.zadd(due_key(kind), {game_id: int(time.time() * 1000)}, xx=True)

    async def is_done(self, kind: str, game_id: str) -> bool:
        return await self.redis.zscore(done_key(kind), game_id) is not None

    async def apply(
        self,
        kind: str,
        game_id: str,
        seats: Sequence[str],
        names: dict[str, str],
        scores: Sequence[int],
        winners: Sequence[int],
        retired: Sequence[int] = (),
        unrated: Collection[str] = (),
    ) -> bool:
        """Rate one finished game (no seats: mark it done unrated). True when this call rated
        it, False when it was rated before. `unrated`: players whose rating this game leaves
        as it is (the others are rated as the game was played)."""
        players = sorted(set(seats))
        for _ in range(RATE_ATTEMPTS):
            texts = await self.redis.hmget(ratings_key(kind), players) if players else []
            before = {
                p: Rating.from_json(t, names.get(p, p)) for p, t in zip(players, texts, strict=True)
            }
            after = new_ratings(seats, before, scores, winners, retired) if players else {}
            args: list[Any] = [game_id, int(time.time() * 1000), DONE_KEEP_MS, len(players)]
            written = [(p, t) for p, t in zip(players, texts, strict=True) if p not in unrated]
            args[3] = len(written)
            for p, text in written:
                args += [p, text or "", after[p].to_json(), after[p].value]
            changes = {p: [before[p].value, after[p].value] for p, _ in written}
            args.append(json.dumps(changes, separators=(",", ":")))
            done = await self._rate(
                keys=[
                    ratings_key(kind),
                    board_key(kind),
                    done_key(kind),
                    due_key(kind),
                    changes_key(kind, game_id),
                ],
                args=args,
            )
            if int(done) >= 0:
                return int(done) == 1
        raise RuntimeError(f"ratings of {kind} kept changing while game {game_id} was rated")

    async def board(self, kind: str, limit: int) -> list[tuple[str, Rating]]:
        ids = await self.redis.zrevrange(board_key(kind), 0, limit - 1)
        if not ids:
            return []
        texts = await self.redis.hmget(ratings_key(kind), ids)
        return [(p, Rating.from_json(t)) for p, t in zip(ids, texts, strict=True) if t]
