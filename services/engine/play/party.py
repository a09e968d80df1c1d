"""Party tables: a table of a game whose seats move at once, for a room. People join by
a short code (typed on a phone, or read from the host screen's QR code) until the host starts
it; the game is then dealt for the seats actually taken.

A party table is an ordinary game created through the lobby with every seat but the host's open
(the game's rules' `players` is the most who may join), plus two small keys beside it:

  party:{<game_id>}   JSON {"code", "host_hash", "host_seat", "max", "status"}: the party
  party-code:<CODE>   the game id: the code's one owner while the key lives

The code key is taken with SET NX, so a code is unique among live tables; both keys live as
long as a waiting game (GAME_TTL_WAITING_S, renewed by every join), so an abandoned table's code
frees itself. At the start the party is marked started and its code key is kept until it
expires, so a late join gets a clear `party_started` (409), not `party_not_found`.

Start: the seats taken so far are the table (in the order they joined); the state is dealt anew
for that many players with the table's clock, in one commit whose event is
`{"action": "start", "players": n, ...}`. A table whose last seat is taken by a join starts by
itself, as any table does.

The code's shape: services/common/party_rules.py. Names may repeat (seats are told apart by
their number and colour).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import random
import secrets
import weakref
from dataclasses import dataclass, replace
from typing import Any

import grpc
from metro.v1 import engine_pb2

import games
from games.errors import RulesError
from services.common.auth import token_hash
from services.common.grpc_util import ServiceError, invalid_argument
from services.common.party_rules import ALPHABET, CODE_LENGTH, moves_at_once, normal_code
from services.engine.core import validation
from services.engine.core.access import Caller, denied
from services.engine.core.clocks import Clock
from services.engine.core.edge import failed
from services.engine.core.meta import HUMAN, OPEN
from services.engine.core.party_keys import code_key, party_key
from services.engine.core.store import Conflict, Duplicate, new_request_key
from services.engine.core.tables import COMMIT_ATTEMPTS, Tables, start_fields, status_of
from services.engine.play.lobby import Lobby, derived_token

CODE_TRIES = 20
JOIN_ATTEMPTS = 30  # a join's tries against others joining at the same moment
JOIN_PAUSE_S = 0.01  # the longest random pause grows by this with each try
HOST_SEAT_LABEL = -1  # the host token of a host-only table is derived as this seat's


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def typed_code(value: str) -> str:
    """The code a person typed, as stored; INVALID_ARGUMENT when it cannot be a code at all."""
    code = normal_code(value)
    if code is None:
        raise invalid_argument(
            "code",
            f"a join code is {CODE_LENGTH} characters of {ALPHABET}; got {validation.shown(value)}",
        )
    return code


def party_not_found(what: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"no party table {what}: check the code on the host's screen (it may have expired)",
        reason="party_not_found",
    )


@dataclass(frozen=True, slots=True)
class Party:
    code: str
    host_hash: str
    host_seat: int | None
    max: int
    status: str = "open"  # "open" (people join), "started"

    def to_json(self) -> str:
        return json.dumps(
            {"code": self.code, "host_hash": self.host_hash, "host_seat": self.host_seat,
             "max": self.max, "status": self.status}, separators=(",", ":"),
        )  # fmt: skip

    @classmethod
    def from_json(cls, text: str) -> Party:
        data = json.loads(text)
        return cls(data["code"], data["host_hash"], data["host_seat"], data["max"], data["status"])


class Parties:
    """CreateParty, JoinParty, StartParty and GetParty."""

    def __init__(self, tables: Tables, lobby: Lobby) -> None:
        self.tables = tables
        self.lobby = lobby
        self.redis: Any = tables.store.redis
        # One join at a time per table in this process: a room joins at once, and 50 joins
        # racing for the same version cost ~n^2 loads (they ran past the call's deadline).
        # Other engine replicas still race; a conflict is tried again (_take_seat).
        self._joining: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    @property
    def ttl_s(self) -> int:
        return self.tables.settings.waiting_ttl_s

    async def _load(self, game_id: str) -> Party | None:
        text = await self.redis.get(party_key(game_id))
        return None if text is None else Party.from_json(text)

    # ---- create -------------------------------------------------------------------------

    async def create(
        self, request: engine_pb2.CreatePartyRequest
    ) -> engine_pb2.CreatePartyResponse:
        kind = validation.game_kind(request.game or games.default().kind)
        key = validation.idempotency_key(request.idempotency_key)
        game = games.get(kind)
        if not moves_at_once(kind):
            raise invalid_argument(
                "party", f"{game.name} has no party tables: its seats do not move at once"
            )
        raw = validation.json_object(request.rules_json, "rules") or {}
        raw.setdefault("players", game.players[1])
        try:
            rules = game.normalise_rules(raw)
        except RulesError as err:
            if err.field and not err.field.startswith("rules"):
                err.field = f"rules.{err.field}"
            raise
        most = game.seat_count(rules)
        host = [] if request.host_only else [
            engine_pb2.SeatSpec(kind=HUMAN, name=request.host_name)
        ]  # fmt: skip
        seats = host + [engine_pb2.SeatSpec(kind=OPEN) for _ in range(most - len(host))]
        if not seats:
            raise invalid_argument("rules.players", "a party table needs at least one seat")
        created = await self.lobby.create(
            engine_pb2.CreateGameRequest(
                game=kind, rules_json=json.dumps(rules), seats=seats,
                clock_json=request.clock_json, idempotency_key=key,
            )
        )  # fmt: skip
        game_id = created.game_id
        if request.host_only:
            host_token = (
                derived_token(key, game_id, HOST_SEAT_LABEL) if key else secrets.token_urlsafe(24)
            )
        else:
            host_token = created.token
        party = await self._register(game_id, token_hash(game_id, host_token), None if
                                     request.host_only else created.seat, most)  # fmt: skip
        out = engine_pb2.CreatePartyResponse(
            game_id=game_id, token=created.token, join_code=party.code, host_token=host_token
        )
        if created.HasField("seat"):
            out.seat = created.seat
        return out

    async def _register(self, game_id: str, host_hash: str, host_seat: int | None,
                        most: int) -> Party:  # fmt: skip
        """The party of a new table: a fresh code taken with SET NX (unique among live tables);
        a repeated keyed create finds the party its first try registered."""
        known = await self._load(game_id)
        if known is not None:
            return known
        for _ in range(CODE_TRIES):
            code = new_code()
            if await self.redis.set(code_key(code), game_id, nx=True, ex=self.ttl_s):
                break
        else:  # 47 million codes: only a store full of parties gets here
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE, "no free join code; try again", reason="no_free_code"
            )
        party = Party(code, host_hash, host_seat, most)
        if not await self.redis.set(party_key(game_id), party.to_json(), nx=True, ex=self.ttl_s):
            await self.redis.delete(code_key(code))  # a concurrent repeat registered first
            known = await self._load(game_id)
            if known is None:
                raise party_not_found(game_id)
            return known
        return party

    # ---- join ---------------------------------------------------------------------------

    async def join(self, request: engine_pb2.JoinPartyRequest) -> engine_pb2.JoinGameResponse:
        code = typed_code(request.code)
        name = validation.name(request.name)
        key = validation.idempotency_key(request.idempotency_key)
        game_id = await self.redis.get(code_key(code))
        party = None if game_id is None else await self._load(game_id)
        if game_id is None or party is None:
            raise party_not_found(code)
        table = await self.tables.load(game_id)
        if table.status != "waiting" and party.status == "open":
            party = await self._mark_started(game_id, party)
        if party.status != "open" and not key:
            raise _closed(code, party, table)
        # (With a key the lobby answers a repeat of a join that took a seat before the table
        # closed; a new join finds no seat and is told why.)
        lock = self._joining.get(game_id)
        if lock is None:
            lock = self._joining[game_id] = asyncio.Lock()
        async with lock:
            joined = await self._take_seat(code, party, game_id, name, key)
        if (await self.tables.load(game_id)).status != "waiting":
            await self._mark_started(game_id, party)  # the last seat: the table started itself
        else:
            await self.redis.expire(party_key(game_id), self.ttl_s)
            await self.redis.expire(code_key(code), self.ttl_s)
        return joined

    async def _take_seat(
        self, code: str, party: Party, game_id: str, name: str, key: str
    ) -> engine_pb2.JoinGameResponse:
        """A seat through the lobby's join. A room joins at once (50 phones within a second or
        two), and every join commits at the table's version: the lobby's few tries are not
        enough then, so a conflict is tried again here after a short random pause."""
        for attempt in range(JOIN_ATTEMPTS):
            try:
                return await self.lobby.join(
                    engine_pb2.JoinGameRequest(game_id=game_id, name=name, idempotency_key=key),
                    by_code=True,
                )
            except ServiceError as err:
                if err.reason == "no_open_seat":
                    # Taken meanwhile: the last seat, or the host started the table.
                    raise _closed(code, party, await self.tables.load(game_id)) from None
                if err.reason != "version_conflict" or attempt == JOIN_ATTEMPTS - 1:
                    raise
            await asyncio.sleep(random.uniform(0, JOIN_PAUSE_S * (attempt + 1)))
        raise AssertionError("unreachable")

    async def _mark_started(self, game_id: str, party: Party) -> Party:
        started = replace(party, status="started")
        # The record lives on for the host's screen as long as a running game may.
        await self.redis.set(party_key(game_id), started.to_json(),
                             ex=self.tables.ttl("playing"))  # fmt: skip
        return started

    # ---- start --------------------------------------------------------------------------

    async def start(self, request: engine_pb2.PartyRequest, caller: Caller) -> engine_pb2.PartyInfo:
        game_id = validation.game_id(request.game_id)
        party = await self._load(game_id)
        if party is None:
            raise party_not_found(game_id)
        token = caller.token or ""
        if not hmac.compare_digest(token_hash(game_id, token), party.host_hash):
            raise denied("only the host starts a party table: send the host token")
        for _ in range(COMMIT_ATTEMPTS):
            table = await self.tables.load(game_id)
            if table.status != "waiting":  # started already (a repeat, or full)
                return self._info(game_id, await self._mark_started(game_id, party), table)
            meta = table.meta
            seated = tuple(s for s in meta.seats if s.kind != OPEN)
            game = games.get(meta.kind)
            if len(seated) < max(1, game.players[0]):
                raise failed("party_empty", "nobody has joined yet: wait for the first player")
            rules = game.normalise_rules({**meta.rules, "players": len(seated)})
            state = game.new_state(rules, secrets.randbits(63))
            clock = Clock.start(meta.clock_rules, len(seated)) if meta.clock_rules else None
            dealt = replace(meta, rules=rules, seats=seated, clock=clock)
            event = {"action": "start", "players": len(seated),
                     **start_fields(state, status_of(dealt, state))}  # fmt: skip
            result = await self.tables.commit(
                table, state, event, new_request_key(), meta=dealt, moved=()
            )
            if isinstance(result, Conflict | Duplicate):
                continue  # someone joined meanwhile: deal again with them
            return self._info(game_id, await self._mark_started(game_id, party), result)
        raise ServiceError(grpc.StatusCode.ABORTED, "the table kept changing; start again",
                           reason="version_conflict")  # fmt: skip

    # ---- read ---------------------------------------------------------------------------

    async def get(self, request: engine_pb2.PartyRequest) -> engine_pb2.PartyInfo:
        game_id = validation.game_id(request.game_id)
        party = await self._load(game_id)
        if party is None:
            raise party_not_found(game_id)
        table = await self.tables.load(game_id)
        if table.status != "waiting" and party.status == "open":
            party = await self._mark_started(game_id, party)
        return self._info(game_id, party, table)

    @staticmethod
    def _info(game_id: str, party: Party, table: Any) -> engine_pb2.PartyInfo:
        return engine_pb2.PartyInfo(
            game_id=game_id,
            join_code=party.code,
            status=party.status,
            seats_taken=sum(1 for s in table.meta.seats if s.kind != OPEN),
            max_seats=party.max,
            host_only=party.host_seat is None,
        )


def _started(code: str) -> ServiceError:
    return failed("party_started", f"party {code} has started: no one joins it any more")


def _closed(code: str, party: Party, table: Any) -> ServiceError:
    """Why a join came too late: every seat taken (the table started itself), or started."""
    if len(table.meta.seats) >= party.max:
        return failed("party_full", f"party {code} is full: all {party.max} seats are taken")
    return _started(code)
