"""What the archive keeps of one finished game, read from Redis (the archiver's first half).

Everything comes from the keys the engine keeps: the game's hash (state -> record through the
rules core, meta -> seats, created/ended, version), the table (`table:{id}`: rated, which player
sits where), the players' hashes (names, bot marks), the rating the game caused
(`ratings:{kind}:game:<id>`, written by the rating script) and a done analysis.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

import games
from services.archive.chat import ROOM, from_room
from services.engine.core.meta import AI, GameMeta
from services.engine.core.store import GameStore
from services.engine.play.analysis import analysis_key
from services.engine.play.chat import room_key
from services.engine.players.players import ai_player, player_key, table_key
from services.engine.players.ratings import changes_key, done_key

RATING_SCALE = 100  # ratings are kept as int2 hundredths (migrations/0001)
INT2 = 32767


class NotReady(Exception):
    """The game is not ready to archive yet (its rating is still to come): try again later."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    player_id: str | None  # None: a guest or an AI seat
    name: str  # the player's name (players.name), or the guest's (seat_labels)
    bot: bool  # the player is a bot account
    seat_kind: str  # 'h' a person's seat, 'a' the AI's
    level: str  # an AI seat's level, else ""
    score: int
    result: str  # 'w' | 'l' | 'd'
    rating_before: int | None  # hundredths
    rating_after: int | None

    @property
    def label(self) -> tuple[str, str] | None:
        """The seat_labels row of a seat no player holds: (kind, name or level)."""
        if self.player_id is not None:
            return None
        return ("a", self.level) if self.seat_kind == "a" else ("h", self.name)


@dataclass(frozen=True, slots=True)
class GameRow:
    game_id: str
    kind: str
    created_ms: int
    ended_ms: int
    last_event_seq: int
    version: int
    private_seat: int  # -1: public
    rated: bool
    record: bytes
    seats: list[SeatRow]
    tokens: list[tuple[int, str]] = field(default_factory=list)  # private games only
    analysis: bytes | None = None  # zlib-compressed JSON, when one is done
    chat: list[list[Any]] = field(default_factory=list)  # the players' room (archive/chat.py)


def encode_record(record: Mapping[str, Any]) -> bytes:
    """The one call of the compact codec (games/compact.py): the record as Game.record gives
    it; the codec keeps no seats (they come back from the archive's rows)."""
    from games.compact import encode_record as encode

    return encode(record)


def hundredths(value: Any) -> int | None:
    if value is None:
        return None
    return max(-INT2, min(INT2, round(float(value) * RATING_SCALE)))


def result_of(seat: int, winners: tuple[int, ...] | list[int]) -> str:
    """'w' the only winner, 'd' one of several winners, 'l' otherwise."""
    if seat not in winners:
        return "l"
    return "w" if len(winners) == 1 else "d"


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)


async def gather(
    redis: Any, store: GameStore, game_id: str, *, entry_ms: int, rating_wait_ms: int
) -> GameRow | None:
    """The game as the archive keeps it; None when Redis no longer has it (or it is not over).

    A rated table whose rating is not done yet raises NotReady while the entry is younger than
    `rating_wait_ms`; after that the game is archived without ratings (logged by the caller)."""
    stored = await store.load(game_id)
    if stored is None or stored.status != "over":
        return None
    meta = GameMeta.from_dict(orjson.loads(stored.meta_json))
    state = games.get(meta.kind).state_from_dict(orjson.loads(stored.state_json))
    table = {_text(k): _text(v) for k, v in (await redis.hgetall(table_key(game_id))).items()}
    rated = table.get("rated") == "1"
    changes: dict[str, list[float]] = {}
    if rated:
        done = await redis.zscore(done_key(meta.kind), game_id)
        if done is None and time.time() * 1000 - entry_ms < rating_wait_ms:
            raise NotReady(f"game {game_id} is rated and its rating is not done yet")
        raw = await redis.get(changes_key(meta.kind, game_id))
        changes = orjson.loads(raw) if raw else {}
    outcome = state.outcome()
    winners = tuple(outcome.winners) if outcome is not None else ()
    if meta.ended is not None:  # stopped by agreement (engine/offers.py): its winners, if any
        winners = tuple(meta.ended["winners"])
    scores = list(state.scores)
    player_ids = [table.get(f"p{seat}") or None for seat in range(len(meta.seats))]
    names: dict[str, tuple[str, bool]] = {}
    for known in {p for p in player_ids if p}:
        name, bot = await redis.hmget(player_key(known), ["name", "bot"])
        names[known] = (_text(name), _text(bot) == "1")
    seats: list[SeatRow] = []
    for seat, info in enumerate(meta.seats):
        player_id = player_ids[seat] if info.kind != AI else None
        rating_id = ai_player(info.level) if info.kind == AI else player_id
        change = changes.get(rating_id or "")
        name, bot = names.get(player_id or "", ("", info.bot))
        seats.append(
            SeatRow(
                seat=seat,
                player_id=player_id,
                name=name or info.name,
                bot=bot,
                seat_kind="a" if info.kind == AI else "h",
                level=info.level if info.kind == AI else "",
                score=int(scores[seat]) if seat < len(scores) else 0,
                result=result_of(seat, winners),
                rating_before=hundredths(change[0]) if change else None,
                rating_after=hundredths(change[1]) if change else None,
            )
        )
    private_seat, tokens = -1, []
    if meta.private:
        humans = [i for i, s in enumerate(meta.seats) if s.kind != AI]
        private_seat = humans[0] if humans else 0
        tokens = [(i, s.token_hash) for i, s in enumerate(meta.seats) if s.token_hash]
    ended_ms, _, seq = stored.last_event_id.partition("-")
    return GameRow(
        game_id=game_id,
        kind=meta.kind,
        created_ms=stored.created_at_ms or meta.created_at_ms,
        ended_ms=int(ended_ms or 0),
        last_event_seq=int(seq or 0),
        version=stored.version,
        private_seat=private_seat,
        rated=rated,
        record=encode_record(state.record()),
        seats=seats,
        tokens=tokens,
        analysis=await done_analysis(redis, game_id),
        chat=await room_lines(redis, game_id),
    )


async def room_lines(redis: Any, game_id: str) -> list[list[Any]]:
    """The players' room of the game as Redis holds it now, in the archive's form."""
    lines = []
    for entry_id, fields in await redis.xrange(room_key(game_id, ROOM)):
        raw = fields.get(b"line") or fields.get("line")
        line = from_room(_text(entry_id), orjson.loads(raw)) if raw else None
        if line is not None:
            lines.append(line)
    return lines


async def done_analysis(redis: Any, game_id: str) -> bytes | None:
    """The game's analysis when it is done, compressed as the archive keeps it."""
    status, result = await redis.hmget(analysis_key(game_id), ["status", "result"])
    if _text(status) != "done" or not result:
        return None
    raw = result if isinstance(result, bytes) else str(result).encode()
    return zlib.compress(raw, 6)
