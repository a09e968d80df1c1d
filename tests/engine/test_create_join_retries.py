"""A create or join that carries an idempotency key is safe to repeat: the same key answers the
same game, seat and token and makes nothing new, also when the first try's commit landed but
could not be confirmed (the engine then answers UNKNOWN "outcome_unknown", which no channel
retries, and the client sends the same request again)."""

from __future__ import annotations

import json
import secrets
import time

import grpc
import pytest
import redis
from metro.v1 import engine_pb2

from services.common.grpc_util import (
    CLIENT_OPTIONS,
    NOT_RETRIED,
    OUTCOME_UNKNOWN_REASON,
    error_details,
)
from tests.fixtures.engine import EngineClient, doc, metro_seats
from tests.fixtures.gateway import GatewayApi, api_error, dead_target
from tests.fixtures.waits import wait_until

CALL_S = 10


def _key() -> str:
    return secrets.token_urlsafe(18)


def _create(players: int, key: str) -> engine_pb2.CreateGameRequest:
    return engine_pb2.CreateGameRequest(
        game="metro",
        rules_json=json.dumps({"players": players}),
        seats=metro_seats("human", *["open"] * (players - 1)),
        idempotency_key=key,
    )


def _join(c: EngineClient, game_id: str, key: str, name: str = "Bo") -> engine_pb2.JoinGameResponse:
    request = engine_pb2.JoinGameRequest(game_id=game_id, name=name, idempotency_key=key)
    return c.stub.JoinGame(request, timeout=CALL_S)


def _games_waiting(c: EngineClient) -> list[str]:
    listed = c.stub.ListGames(engine_pb2.ListGamesRequest(status="open", limit=200), timeout=CALL_S)
    return [g.game_id for g in listed.games]


def test_the_same_key_twice_makes_one_game_and_takes_one_seat(engine_client: EngineClient) -> None:
    c = engine_client
    key = _key()
    first = c.stub.CreateGame(_create(3, key), timeout=CALL_S)
    again = c.stub.CreateGame(_create(3, key), timeout=CALL_S)
    assert (again.game_id, again.seat, again.token) == (first.game_id, first.seat, first.token)
    assert _games_waiting(c).count(first.game_id) == 1
    view = c.view(first.game_id, first.token)
    assert view.version == 1 and view.seat == 0  # one create, and its token is the creator's

    join_key = _key()
    joined = _join(c, first.game_id, join_key)
    repeat = _join(c, first.game_id, join_key, name="someone else")
    assert (repeat.seat, repeat.token) == (joined.seat, joined.token) == (1, joined.token)
    assert c.view(first.game_id, repeat.token).seat == 1
    other = _join(c, first.game_id, _key())
    assert other.seat == 2  # the repeat took no seat of its own
    seats = doc(c.view(first.game_id))["seats"]
    assert [s["name"] for s in seats][1:] == ["Bo", "Bo"]
    assert c.view(first.game_id).version == 3  # create + two joins, nothing more

    # Another key is another game; a key that is no key is refused, naming the field.
    assert c.stub.CreateGame(_create(2, _key()), timeout=CALL_S).game_id != first.game_id
    with pytest.raises(grpc.RpcError) as bad:
        c.stub.CreateGame(_create(2, "short"), timeout=CALL_S)
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_details(bad.value)["field"] == "idempotency_key"


def _attach_replica(primary_url: str, replica_url: str) -> None:
    """Make the second server a replica of the first and wait until it is in sync."""
    host, port = primary_url.split("//")[1].split("/")[0].split(":")
    with redis.Redis.from_url(replica_url) as r, redis.Redis.from_url(primary_url) as p:
        r.replicaof(host, port)
        wait_until(
            lambda: (
                p.info("replication").get("connected_slaves", 0) >= 1
                and r.info("replication").get("master_link_status") == "up"
            ),
            "the replica to come up",
            timeout=20,
            every=0.1,
        )


def _unknown(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == grpc.StatusCode.UNKNOWN, err.value
    assert error_details(err.value)["reason"] == OUTCOME_UNKNOWN_REASON


def _confirmed(call):  # type: ignore[no-untyped-def]
    """The same request sent again until a replica confirms it, as a client does after UNKNOWN
    (on a loaded machine the fresh replica may miss a first wait for its acknowledgement)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return call()
        except grpc.RpcError as err:
            unconfirmed = error_details(err).get("reason") == OUTCOME_UNKNOWN_REASON
            if not unconfirmed or time.monotonic() > deadline:
                raise


def test_a_retry_after_an_unconfirmed_commit_answers_the_first(
    redis_server_factory, engine_factory
) -> None:
    """REDIS_MIN_REPLICAS=1 with no replica: every commit lands on the primary and is never
    confirmed. The create and the join are answered UNKNOWN (not UNAVAILABLE: the channel would
    retry that blindly); once a replica holds them, the same requests are answered with what
    the first tries made, and nothing is made twice."""
    primary = redis_server_factory(appendonly=False)
    engine = engine_factory(
        primary.url, {"REDIS_MIN_REPLICAS": "1", "REDIS_REPLICA_WAIT_MS": "100"}
    )
    c = engine.client()
    key = _key()
    _unknown(lambda: c.stub.CreateGame(_create(3, key), timeout=CALL_S))
    _unknown(lambda: c.stub.CreateGame(_create(3, key), timeout=CALL_S))  # still unconfirmed
    with redis.Redis.from_url(primary.url) as r:
        assert sum(1 for _ in r.scan_iter("game:{*}", count=1000) if _.count(b":") == 1) == 1

    replica = redis_server_factory(appendonly=False)
    _attach_replica(primary.url, replica.url)
    created = _confirmed(lambda: c.stub.CreateGame(_create(3, key), timeout=CALL_S))
    assert _games_waiting(c) == [created.game_id]
    assert c.view(created.game_id, created.token).seat == 0

    replica.stop()  # the join lands, unconfirmed, then is retried once a replica is back
    join_key = _key()
    _unknown(lambda: _join(c, created.game_id, join_key))
    replica.start()
    _attach_replica(primary.url, replica.url)
    joined = _confirmed(lambda: _join(c, created.game_id, join_key))
    assert joined.seat == 1 and c.view(created.game_id, joined.token).seat == 1
    key = _key()
    assert _confirmed(lambda: _join(c, created.game_id, key)).seat == 2
    assert c.view(created.game_id).version == 3  # one create, two joins


SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "open"}, {"kind": "open"}]


def test_the_http_api_passes_an_idempotency_key_header(api: GatewayApi) -> None:
    key = {"Idempotency-Key": _key()}
    body = {"game": "metro", "rules": {"players": 3}, "seats": SEATS}
    status, first = api.post("/api/games", body, headers=key)
    assert status == 201
    status, again = api.post("/api/games", body, headers=key)
    assert status == 201 and again == first
    game = first["game_id"]
    join = {"Idempotency-Key": _key()}
    joined = api.post(f"/api/games/{game}/join", {"name": "Bo"}, headers=join)
    assert joined == api.post(f"/api/games/{game}/join", {"name": "Bo"}, headers=join)
    assert joined[0] == 200 and joined[1]["seat"] == 1
    assert api.post(f"/api/games/{game}/join", {"name": "Cy"})[1]["seat"] == 2  # no key: fine
    status, refused = api.post("/api/games", body, headers={"Idempotency-Key": "x"})
    assert status == 400 and api_error(refused)["field"] == "Idempotency-Key"


def test_an_unconfirmed_create_is_a_503_that_asks_for_the_same_request(
    redis_server_factory, engine_factory, gateway_factory
) -> None:
    primary = redis_server_factory(appendonly=False)
    engine = engine_factory(
        primary.url, {"REDIS_MIN_REPLICAS": "1", "REDIS_REPLICA_WAIT_MS": "100"}
    )
    api = gateway_factory(engine.address, dead_target())
    key = {"Idempotency-Key": _key()}
    body = {"game": "metro", "rules": {"players": 2}, "seats": SEATS[:2]}
    status, unknown = api.post("/api/games", body, headers=key)
    assert status == 503 and api_error(unknown)["code"] == OUTCOME_UNKNOWN_REASON
    _attach_replica(primary.url, redis_server_factory(appendonly=False).url)
    status, made = api.post("/api/games", body, headers=key)
    assert status == 201
    status, listed = api.get("/api/games?status=open")
    assert [g["game_id"] for g in listed["games"]] == [made["game_id"]]


def test_the_channel_never_retries_a_call_that_makes_something_new() -> None:
    """Per-method retry policies: the calls with no key to recognise a repeat are named by
    their real names (a typo would silently retry them), and UNKNOWN is retried by none."""
    config = json.loads(dict(CLIENT_OPTIONS)["grpc.service_config"])
    engine = engine_pb2.DESCRIPTOR.services_by_name["Engine"]
    names = {m.name for m in engine.methods}
    (default, *others) = config["methodConfig"]
    assert default["name"] == [{}]
    assert default["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    (excluded,) = others
    assert "retryPolicy" not in excluded
    listed = {(n["service"], n["method"]) for n in excluded["name"]}
    assert listed == {(engine.full_name, m) for m in NOT_RETRIED} and set(NOT_RETRIED) <= names
