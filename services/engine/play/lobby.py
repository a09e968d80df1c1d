"""The lobby: creating a table (CreateGame, and a rematch's new game), listing games, taking an
open seat (JoinGame).

One create path (`Lobby.open_table`) serves CreateGame and rematch alike, and one commit path
(tables.py) every create and join. An idempotency key makes a create or join safe to repeat:
the game id, the seat token and the request key are derived from it, so a repeat finds its
first commit (the commit script answers a request key it has seen from what it stored) and
answers exactly what the first try did, without any token ever being stored.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Sequence
from typing import Any

import grpc
from metro.v1 import engine_pb2

import games
from games.errors import RulesError
from services.common.auth import TOKEN_BYTES, new_token, token_hash
from services.common.grpc_util import ServiceError, invalid_argument
from services.common.levels import DEFAULT_LEVEL
from services.engine.core import timeouts, validation
from services.engine.core.clocks import Clock, ClockError, ClockRules
from services.engine.core.edge import aborted, failed, not_found
from services.engine.core.messages import summary
from services.engine.core.meta import AI, HUMAN, OPEN, SEAT_KINDS, GameMeta, SeatInfo
from services.engine.core.party_keys import is_party_table, party_tables
from services.engine.core.shards import new_game_id
from services.engine.core.store import Conflict, Duplicate, GameStore, new_request_key
from services.engine.core.tables import COMMIT_ATTEMPTS, Tables, start_fields, status_of
from services.engine.core.watermark import Watermark
from services.engine.players.invitations import Invitations

LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX = 50, 200
BOT_SEAT = "bot"  # a seat reserved for a bot account, which is invited (issue 24)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:40]


def derived_token(key: str, game_id: str, seat: int) -> str:
    """The seat token a keyed create or join hands out: only the key's holder can make it."""
    mac = hmac.new(key.encode(), f"seat-token:{game_id}:{seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:TOKEN_BYTES]).decode().rstrip("=")


def _clock_rules(clock_json: str, kind: str) -> ClockRules | None:
    """The table's clock from a create request for game `kind`; INVALID_ARGUMENT naming a bad
    setting."""
    raw = validation.json_object(clock_json, "clock") if clock_json else None
    try:
        return ClockRules.parse(raw, kind)
    except ClockError as err:
        raise invalid_argument(err.field, str(err)) from None


class Lobby:
    def __init__(self, tables: Tables, store: GameStore, invitations: Invitations) -> None:
        self.tables = tables
        self.store = store
        self.invitations = invitations  # seats of kind "bot" (issue 24)
        # Every new table opens here: above the watermark none does, while moves go on.
        self.watermark = Watermark(store.redis)

    async def open_table(
        self,
        game_id: str,
        kind: str,
        rules: dict[str, Any],
        seats: Sequence[SeatInfo],
        clock_rules: ClockRules | None,
        request_key: str,
        *,
        seed: int | None = None,
        private: bool = False,
        scored_daily: bool = False,
        **event: Any,
    ) -> bool:
        """Create a game with these seats; True when it exists now (made by this request key,
        now or before), False when the id is taken by another. `seed`: the deal's (a daily
        puzzle's; default random); `private`: unlisted (GameMeta.private); `scored_daily`: no hints
        (GameMeta.scored_daily)."""
        try:
            await self.watermark.check_new_game()
        except ServiceError:
            # A retry of a create or start that already made its game (same request key) makes
            # nothing new: it is answered from what was stored, however full the store is.
            if await self.store.answer(game_id, request_key) is None:
                raise
        now = timeouts.now_ms()
        meta = GameMeta(
            kind=kind,
            rules=rules,
            seats=tuple(seats),
            created_at_ms=now,
            clock_rules=clock_rules,
            clock=Clock.start(clock_rules, len(seats)) if clock_rules else None,
            private=private,
            scored_daily=scored_daily,
        )
        state = games.get(kind).new_state(rules, secrets.randbits(63) if seed is None else seed)
        made = await self.tables.open(
            game_id, meta, state, {"action": "create", **event}, request_key
        )
        return not isinstance(made, Conflict)

    async def create(self, request: engine_pb2.CreateGameRequest) -> engine_pb2.CreateGameResponse:
        kind = validation.game_kind(request.game or games.default().kind)
        key = validation.idempotency_key(request.idempotency_key)
        game = games.get(kind)
        raw_rules = validation.json_object(request.rules_json, "rules")
        try:
            rules = game.normalise_rules(raw_rules)
        except RulesError as err:
            # A game names the option it refuses ("players" or "rules.players"); the API names
            # it as the request holds it: rules.<option>.
            if err.field and err.field != "rules" and not err.field.startswith("rules."):
                err.field = f"rules.{err.field}"
            raise
        seat_count = game.seat_count(rules)
        specs = list(request.seats) or [engine_pb2.SeatSpec(kind=HUMAN)] + [
            engine_pb2.SeatSpec(kind=OPEN) for _ in range(seat_count - 1)
        ]
        if len(specs) != seat_count:
            raise invalid_argument(
                "seats", f"{len(specs)} seats given, but the rules are for {seat_count} players"
            )
        game_id = new_game_id(f"create:{key}".encode() if key else None)
        token, creator, seats, invited = "", None, [], []
        for index, spec in enumerate(specs):
            field = f"seats[{index}]"
            if spec.kind not in (*SEAT_KINDS, BOT_SEAT):
                raise invalid_argument(
                    f"{field}.kind",
                    f"{field}.kind must be 'human', 'open', 'ai' or 'bot'; "
                    f"got {validation.shown(spec.kind)}",
                )
            name = validation.name(spec.name, f"{field}.name")
            if spec.kind != AI and spec.level:
                raise invalid_argument(f"{field}.level", f"{field}: only AI seats have a level")
            if spec.kind == HUMAN:
                if creator is not None:
                    raise invalid_argument(
                        f"{field}.kind",
                        f"{field}.kind: only one seat may be 'human' (the creator's); make "
                        "the others 'open' so that players join with their own tokens",
                    )
                creator = index
                token = derived_token(key, game_id, index) if key else new_token()
                seats.append(
                    SeatInfo(HUMAN, name or f"Player {index + 1}", "", token_hash(game_id, token))
                )
            elif spec.kind == AI:
                level = validation.level(spec.level or DEFAULT_LEVEL, f"{field}.level", kind)
                seats.append(SeatInfo(AI, name or f"AI {index + 1}", level))
            elif spec.kind == BOT_SEAT:
                bot_id, bot_name = await self.invitations.resolve(name, f"{field}.name")
                seats.append(SeatInfo(OPEN, bot_name, bot=True, invited=bot_id))
                invited.append(index)
            else:
                seats.append(SeatInfo(OPEN, name))
        request_key = f"create:{_digest(key)}" if key else new_request_key()
        clock = _clock_rules(request.clock_json, kind)
        if not await self.open_table(game_id, kind, rules, seats, clock, request_key):
            # A 72-bit id collided (vanishingly rare), or a key's id is another key's game.
            raise ServiceError(
                grpc.StatusCode.ABORTED, "game id collision; try again", reason="version_conflict"
            )
        if invited:
            sender = seats[creator].name if creator is not None else ""
            await self.invitations.invite(game_id, kind, rules, invited, sender)
        out = engine_pb2.CreateGameResponse(game_id=game_id, token=token)
        if creator is not None:
            out.seat = creator
        return out

    async def list(self, request: engine_pb2.ListGamesRequest) -> engine_pb2.ListGamesResponse:
        wanted = request.status or "open"
        index = {"open": "waiting", "waiting": "waiting", "playing": "playing", "over": "over"}
        if wanted not in index:
            raise invalid_argument(
                "status",
                f"status must be 'open', 'playing' or 'over'; got {validation.shown(wanted)}",
            )
        if not 0 <= request.limit <= LIST_LIMIT_MAX:
            raise invalid_argument("limit", f"limit must be 0-{LIST_LIMIT_MAX}")
        if len(request.game) > 32:
            raise invalid_argument("game", f"unknown game {validation.shown(request.game)}")
        limit = request.limit or LIST_LIMIT_DEFAULT
        scan = LIST_LIMIT_MAX if request.game else limit  # filtering by kind may drop some
        ids = await self.store.list_ids(index[wanted], scan)
        out = engine_pb2.ListGamesResponse()
        loaded = await self.store.load_many(ids)
        # A party table is joined by its code only: not among the open tables.
        parties = await party_tables(self.store.redis, [s.game_id for s in loaded]) if (
            index[wanted] == "waiting") else set()  # fmt: skip
        for stored in loaded:
            meta = GameMeta.from_dict(json.loads(stored.meta_json))
            if (request.game and meta.kind != request.game) or meta.private:
                continue
            if stored.game_id in parties:
                continue
            out.games.append(summary(stored.game_id, meta, stored.status, stored.created_at_ms))
            if len(out.games) >= limit:
                break
        return out

    async def join(
        self, request: engine_pb2.JoinGameRequest, *, by_code: bool = False
    ) -> engine_pb2.JoinGameResponse:
        """`by_code`: the join of a party table's code (party.py); a party table takes no other."""
        game_id = validation.game_id(request.game_id)
        name = validation.name(request.name)
        key = validation.idempotency_key(request.idempotency_key)
        if not by_code and await is_party_table(self.store.redis, game_id):
            raise failed("join_by_code", "This table is joined by its code (on the host's screen)")
        request_key = f"join:{_digest(key)}" if key else new_request_key()
        for _ in range(COMMIT_ATTEMPTS):
            table = await self.tables.load(game_id)
            if key:  # a repeat: the seat its first try took
                seat = await self._joined_seat(game_id, request_key)
                if seat is not None:
                    return self._joined(game_id, seat, derived_token(key, game_id, seat))
            meta = table.meta
            free = meta.joinable_seats  # not a seat reserved for an invited bot
            if table.status == "over":
                raise failed("game_over", f"game {game_id} is over")
            if not free:
                raise failed("no_open_seat", f"game {game_id} has no open seat left")
            seat = free[0]
            token = derived_token(key, game_id, seat) if key else new_token()
            info = SeatInfo(HUMAN, name or f"Player {seat + 1}", "", token_hash(game_id, token))
            meta = meta.with_seat(seat, info)
            state = table.state
            event = {"action": "join", "seat": seat, "name": info.name,
                     **start_fields(state, status_of(meta, state))}  # fmt: skip
            result = await self.tables.commit(table, state, event, request_key, meta=meta, moved=())
            if isinstance(result, Duplicate):  # this key's first try landed meanwhile
                seat = await self._joined_seat(game_id, request_key)
                if seat is None:
                    raise not_found(game_id)
                token = derived_token(key, game_id, seat)
            if not isinstance(result, Conflict):
                return self._joined(game_id, seat, token)
            if result.current_version is None:
                raise not_found(game_id)
        raise aborted(game_id, None, -1)

    async def _joined_seat(self, game_id: str, request_key: str) -> int | None:
        """The seat a join with this request key took, if one did (its join event says)."""
        answer = await self.store.answer(game_id, request_key)
        if answer is None:
            return None
        event = await self.store.event(game_id, answer.partition("\n")[0])
        seat = event.get("seat") if event is not None else None
        return seat if isinstance(seat, int) else None

    @staticmethod
    def _joined(game_id: str, seat: int, token: str) -> engine_pb2.JoinGameResponse:
        return engine_pb2.JoinGameResponse(game_id=game_id, seat=seat, token=token)
