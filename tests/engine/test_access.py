"""Which seat a caller acts or looks as (services/engine/core/access.py), as two typed functions:
`seat_of` -> int for a call that acts for a seat (a spectator is refused), `seat_if_any` ->
int | None for a read anyone may make. The same answers the old `seat_of(required=...)` gave,
without an `assert seat is not None` after each call.

Pure logic over a game's meta: the token hashes are the engine's own (token_hash); the claimed
seats of other devices (a Redis lookup in players.py) are covered by the players API and
second-device tests, so here a caller's token is either a seat's own or no seat's at all.
"""

from __future__ import annotations

import asyncio
from typing import get_type_hints

import grpc
import pytest

from services.common.auth import token_hash
from services.common.grpc_util import ServiceError
from services.engine.core import access
from services.engine.core.access import Caller, own_seat, seat_if_any, seat_of
from services.engine.core.meta import AI, HUMAN, GameMeta, SeatInfo

GAME = "g1"
ADA, BOB = "ada-token-0123456789", "bob-token-0123456789"
META = GameMeta(
    kind="metro",
    rules={},
    seats=(
        SeatInfo(kind=HUMAN, name="Ada", token_hash=token_hash(GAME, ADA)),
        SeatInfo(kind=AI, level="easy"),
        SeatInfo(kind=HUMAN, name="Bob", token_hash=token_hash(GAME, BOB)),
    ),
    created_at_ms=0,
)


class NoClaims:
    """No token was claimed for another device (players.py answers None)."""

    async def claimed_seat(self, game_id: str, token: str) -> int | None:
        return None


def acting(caller: Caller, requested: int | None = None) -> int:
    return asyncio.run(seat_of(caller, NoClaims(), META, GAME, requested))


def looking(caller: Caller, requested: int | None = None) -> int | None:
    return asyncio.run(seat_if_any(caller, NoClaims(), META, GAME, requested))


def refused(call: object) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call()  # type: ignore[operator]
    return caught.value


def test_the_two_functions_say_their_answer_in_their_types() -> None:
    assert get_type_hints(seat_of)["return"] is int
    assert get_type_hints(seat_if_any)["return"] == int | None
    assert get_type_hints(Caller.seat)["return"] is int
    assert get_type_hints(Caller.seat_if_any)["return"] == int | None


def test_a_spectator_looks_as_nobody_and_may_not_act() -> None:
    nobody = Caller(token=None, is_ai_service=False)
    assert looking(nobody) is None
    err = refused(lambda: acting(nobody))
    assert err.code == grpc.StatusCode.PERMISSION_DENIED
    assert err.message == "this call needs a seat token (authorization: Bearer <token>)"
    # Naming a seat without its token is refused both ways.
    for call in (lambda: looking(nobody, 2), lambda: acting(nobody, 2)):
        assert refused(call).message == "seat 2's view and moves need that seat's token"


def test_a_seat_token_is_its_seat_for_both() -> None:
    bob = Caller(token=BOB, is_ai_service=False)
    assert acting(bob) == looking(bob) == 2
    assert acting(bob, 2) == 2
    assert refused(lambda: acting(bob, 0)).message == "this token is seat 2's, not seat 0's"
    stranger = Caller(token="nobodys-token-012345", is_ai_service=False)
    for call in (lambda: acting(stranger), lambda: looking(stranger)):
        assert refused(call).message == f"the token is not valid for game {GAME}"


def test_the_ai_credential_acts_for_the_ai_seat_it_names() -> None:
    service = Caller(token="ai-credential", is_ai_service=True)
    assert acting(service, 1) == looking(service, 1) == 1
    assert refused(lambda: acting(service, 0)).code == grpc.StatusCode.PERMISSION_DENIED
    assert refused(lambda: looking(service)).code == grpc.StatusCode.INVALID_ARGUMENT
    # own_seat is a person's seat only.
    err = refused(lambda: asyncio.run(own_seat(service, NoClaims(), META, GAME)))
    assert err.code == grpc.StatusCode.INVALID_ARGUMENT
    ada = Caller(token=ADA, is_ai_service=False)
    assert asyncio.run(own_seat(ada, NoClaims(), META, GAME)) == 0


def test_no_required_flag_is_left() -> None:
    """The old `required=` keyword is gone from the module (one behaviour per function)."""
    source = access.__loader__.get_source(access.__name__)  # type: ignore[union-attr]
    assert source is not None and "required" not in source
