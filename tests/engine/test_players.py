"""Players, ratings and rematch in the engine: what is stored (hashes only, one hash tag per
script), recovery attempts counted per client, ratings applied once, on a real Redis and the real
engine process (tests/fixtures)."""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
import redis
import redis.asyncio as aioredis
from metro.v1 import engine_pb2

from services.engine.play.rematch import Offers, rotated
from services.engine.players.players import RECOVER_PER_MINUTE, normal_code
from services.engine.players.ratings import Rating, RatingBook, new_ratings, ranks
from tests.engine.helpers import code, play_out
from tests.fixtures.engine import EngineClient, metro_seats
from tests.fixtures.redis import DIRECT_DB

TIMEOUT = 10.0


def md(client: str, key: str | None = None, token: str | None = None) -> tuple[Any, ...]:
    out: list[tuple[str, str]] = [("x-client-id", client)]
    if key:
        out.append(("x-player-key", key))
    if token:
        out.append(("authorization", f"Bearer {token}"))
    return tuple(out)


def create(client: EngineClient, name: str, who: str = "") -> engine_pb2.PlayerCredentials:
    return client.stub.CreatePlayer(
        engine_pb2.CreatePlayerRequest(name=name), metadata=md(who or uuid.uuid4().hex),
        timeout=TIMEOUT,
    )  # fmt: skip


def reason(err: grpc.RpcError) -> str:
    return dict(err.trailing_metadata() or ()).get("metro-error-reason", "")


def test_only_hashes_are_stored_and_keys_keep_to_one_tag(
    engine_client: EngineClient, redis_url: str
) -> None:
    made = create(engine_client, "Ada")
    recovered = engine_client.stub.RecoverPlayer(
        engine_pb2.RecoverPlayerRequest(recovery_code=made.recovery_code),
        metadata=md(uuid.uuid4().hex), timeout=TIMEOUT,
    )  # fmt: skip
    assert recovered.player_id == made.player_id and not recovered.recovery_code
    created = engine_client.create(seats=metro_seats("human", "open"))
    engine_client.stub.SitPlayer(
        engine_pb2.SitPlayerRequest(game_id=created.game_id),
        metadata=md("t", made.device_key, created.token), timeout=TIMEOUT,
    )  # fmt: skip

    store: Any = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = sorted(store.scan_iter(match=f"*{made.player_id}*"))
        assert keys == [f"player:{{{made.player_id}}}", f"player:{{{made.player_id}}}:games",
                        f"player:{{{made.player_id}}}:seats"]  # fmt: skip
        secrets_ = [
            made.device_key.split(".", 1)[1],
            recovered.device_key.split(".", 1)[1],
            normal_code(made.recovery_code),
            made.recovery_code,
        ]
        dumped = [str(store.hgetall(keys[0])), str(store.zrange(keys[1], 0, -1))]
        for key in store.scan_iter(match="recovery:*"):
            dumped.append(key + str(store.get(key)))
        for text in dumped:
            for secret in secrets_:
                assert secret not in text
        fields = store.hgetall(keys[0])
        assert sum(1 for f in fields if f.startswith("key:")) == 2  # one per device
        # Every key of the feature names one hash tag: a script or MULTI on one of them stays
        # in one cluster slot.
        for pattern in ("player:*", "recovery:*", "table:*", "ratings:*", "rematch:*"):
            for key in store.scan_iter(match=pattern):
                assert re.fullmatch(r"[a-z]+:\{[^{}]+\}(:[A-Za-z0-9_-]+)*", key), key
    finally:
        store.close()


def test_recovery_attempts_are_counted_per_client(engine_client: EngineClient) -> None:
    who = f"tester-{uuid.uuid4().hex[:8]}"
    wrong = engine_pb2.RecoverPlayerRequest(recovery_code="00000-00000")
    for _ in range(RECOVER_PER_MINUTE):
        with pytest.raises(grpc.RpcError) as caught:
            engine_client.stub.RecoverPlayer(wrong, metadata=md(who), timeout=TIMEOUT)
        assert code(caught.value) == grpc.StatusCode.PERMISSION_DENIED
        assert reason(caught.value) == "bad_recovery_code"
    made = create(engine_client, "Bob")
    right = engine_pb2.RecoverPlayerRequest(recovery_code=made.recovery_code)
    with pytest.raises(grpc.RpcError) as caught:
        engine_client.stub.RecoverPlayer(right, metadata=md(who), timeout=TIMEOUT)
    assert code(caught.value) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason(caught.value) == "rate_limited" and "try again in" in caught.value.details()
    # Another client is not held back by this one's tries.
    again = engine_client.stub.RecoverPlayer(right, metadata=md(who + "x"), timeout=TIMEOUT)
    assert again.player_id == made.player_id


@pytest.mark.parametrize(
    ("typed", "ok"),
    [("abcde-12345", True), (" AbCdE 12345 ", True), ("ABCDE12345", True), ("OIL00-11100", True),
     ("ABCDE-1234", False), ("ABCDE-123456", False), ("ABCDU-12345", False), ("", False)],
)  # fmt: skip
def test_recovery_codes_read_as_typed(typed: str, ok: bool) -> None:
    if ok:
        assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{10}", normal_code(typed))
    else:
        with pytest.raises(Exception, match="recovery code"):
            normal_code(typed)


def test_rating_math() -> None:
    fresh = Rating.from_json(None)
    before = {"a": fresh, "b": fresh, "c": fresh}
    after = new_ratings(["a", "b", "c"], before, [10, 30, 20], [1])
    assert after["b"].mu > after["c"].mu > after["a"].mu
    assert all(r.games == 1 and r.sigma < fresh.sigma for r in after.values())
    assert ranks([10, 30, 30], [1, 2]) == [2, 1, 1]
    assert ranks([5, 9, 7, 7], [1]) == [4, 1, 2, 2]  # standard competition ranking
    # One player on two seats is rated once, with the mean of its seats.
    twice = new_ratings(["ai:easy", "ai:easy", "a"], {"ai:easy": fresh, "a": fresh}, [3, 2, 1],
                        [0])  # fmt: skip
    assert set(twice) == {"ai:easy", "a"} and twice["ai:easy"].games == 1
    assert rotated(3) == [1, 2, 0] and rotated(2) == [1, 0]


def direct_url(redis_url: str) -> str:
    return urlsplit(redis_url)._replace(path=f"/{DIRECT_DB}").geturl()


def test_a_game_is_rated_once_even_when_two_replicas_race(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def run() -> tuple[list[bool], list[tuple[str, Rating]]]:
        client = aioredis.from_url(direct_url(redis_url), decode_responses=True)
        try:
            book = RatingBook(client)
            await book.make_due("metro", "g1")
            done = await asyncio.gather(
                *(book.apply("metro", "g1", ["p", "q"], {"p": "P", "q": "Q"}, [3, 1], [0])
                  for _ in range(6))
            )  # fmt: skip
            assert await book.due("metro") == []
            assert await book.is_done("metro", "g1")
            return list(done), await book.board("metro", 10)
        finally:
            await client.aclose()

    done, table = asyncio.run(run())
    assert sorted(done) == [False] * 5 + [True]
    assert [p for p, _ in table] == ["p", "q"]
    assert [r.games for _, r in table] == [1, 1] and table[0][1].name == "P"


def test_two_accepts_at_once_start_one_rematch(redis_url: str, redis_client: redis.Redis) -> None:
    async def run() -> list[str]:
        client = aioredis.from_url(direct_url(redis_url), decode_responses=True)
        try:
            offers = Offers(client)
            assert await offers.offer("old", "new", [1, 2, 0], [0, 1], [2])
            assert not await offers.offer("old", "other", [1, 2, 0], [0, 1], [2])
            said = await asyncio.gather(
                offers.accept("old", 0, "h0"), offers.accept("old", 1, "h1")
            )
            offer = await offers.get("old")
            assert offer is not None and offer.sealed and offer.game_id == "new"
            assert offer.accepted == {0: "h0", 1: "h1", 2: "ai"}
            assert offer.public(True) == {
                "game_id": "new", "accepted": [0, 1, 2], "declined": [], "started": True,
            }  # fmt: skip
            assert await offers.decline("old", 1) == "sealed"
            return sorted(said)
        finally:
            await client.aclose()

    assert asyncio.run(run()) == ["accepted", "complete"]


def test_accepting_a_rematch_twice_keeps_the_first_token(engine_client: EngineClient) -> None:
    """A double click or a second tab: the same seat's second accept answers the same token for
    the new game and never voids the one its first answer gave."""
    c = engine_client
    game_id, tokens = c.create_full({"players": 3})
    play_out(c, game_id, tokens, random.Random(5))

    def accept(seat: int, rpc: str = "AcceptRematch") -> engine_pb2.RematchAnswer:
        method = getattr(c.stub, rpc)
        request = engine_pb2.RematchRequest(game_id=game_id)
        return method(request, metadata=md("t", token=tokens[seat]), timeout=TIMEOUT)

    first = accept(0, "OfferRematch")
    assert first.token and accept(0).token == first.token
    assert accept(0, "OfferRematch").token == first.token
    second = accept(1)
    assert accept(1).token == second.token != first.token
    last = accept(2)
    new_game = last.game_id
    for answer in (first, second, last):  # every first token plays its seat in the new game
        assert c.view(new_game, answer.token).seat == answer.seat
    again = accept(0)
    assert again.seat == first.seat and not again.token  # started: no token goes out again
    assert c.view(new_game, first.token).seat == first.seat
