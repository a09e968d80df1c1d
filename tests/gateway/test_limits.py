"""Abuse limits of the gateway (services/gateway/limits.py): per-client rates on create, join,
moves, hints, seat changes and reads with their real default values, answered 429 + Retry-After
in the API's error shape; counts shared through Redis; a normal game never limited; hints at once
per game and per client; recovery codes checked at once over every gateway; live streams capped
per process."""

from __future__ import annotations

import runpy
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask

from services.common.config import DEFAULT_GATEWAY_THREADS, GatewayLimits
from services.engine.players.invitations import invitation_id
from services.gateway.app import create_app
from services.gateway.errors import ApiError
from services.gateway.limits import HintSlots
from services.gateway.live.asgi import StreamSlots
from tests.fixtures.gateway import GatewayApi, gateway_config
from tests.fixtures.waits import wait_until

SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
AI_TABLE = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}]


def defaults(**changes: Any) -> GatewayLimits:
    """The limits a deployment gets with no setting at all (counted in memory here)."""
    real = GatewayLimits(
        enabled=True, storage_url="", create="30/minute", open_games="10/hour",
        join="60/minute", moves="600/minute",
        hints="20/minute", hints_per_game=2, hints_per_client=2, proxies=0,
        reads="1200/minute", seats="60/minute", recover_at_once=1,
    )  # fmt: skip
    return replace(real, **changes)


@pytest.fixture
def make_app(engine: Any, ai: Any) -> Iterator[Any]:
    apps: list[Flask] = []

    def make(limits: GatewayLimits) -> Flask:
        app = create_app(gateway_config(engine.address, ai.target, LIMITS=limits))
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["metro_gateway"].backends.close()


def client(app: Flask, address: str = "127.0.0.1") -> GatewayApi:
    test_client = app.test_client()
    test_client.environ_base["REMOTE_ADDR"] = address
    return GatewayApi(test_client)


def first_refusal(statuses: list[int]) -> int:
    """How many requests were answered before the first 429."""
    return statuses.index(429) if 429 in statuses else len(statuses)


def test_real_defaults_match_the_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RATE_LIMIT_STORAGE_URL", "REDIS_URL", "GATEWAY_THREADS", "RATE_LIMIT_CREATE"):
        monkeypatch.delenv(name, raising=False)
    assert GatewayLimits.from_env() == defaults()
    monkeypatch.setenv("GATEWAY_THREADS", "10")
    monkeypatch.setenv("REDIS_URL", "redis://example:6379/0")
    assert GatewayLimits.from_env().storage_url == "redis://example:6379/0"


def test_gunicorn_runs_as_many_threads_as_the_gateway_counts_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """deploy/gunicorn.conf.py and the gateway's stream cap read the same default."""
    monkeypatch.delenv("GATEWAY_THREADS", raising=False)
    conf = runpy.run_path(str(Path(__file__).resolve().parents[2] / "deploy/gunicorn.conf.py"))
    assert conf["threads"] == DEFAULT_GATEWAY_THREADS
    monkeypatch.setenv("RATE_LIMIT_CREATE", "lots")
    with pytest.raises(SystemExit, match="RATE_LIMIT_CREATE must be a rate"):
        GatewayLimits.from_env()


def test_a_flood_of_creates_gets_429_after_30(make_app: Any) -> None:
    app = make_app(defaults(open_games="1000/hour"))
    flood = client(app, "10.0.0.1")
    answers = [flood.post("/api/games", {"seats": SEATS}) for _ in range(40)]
    statuses = [status for status, _ in answers]
    assert first_refusal(statuses) == 30, statuses
    assert set(statuses[:30]) == {201} and set(statuses[30:]) == {429}, statuses
    reply = flood.client.post("/api/games", json={"seats": SEATS})
    assert reply.status_code == 429
    assert 1 <= int(reply.headers["Retry-After"]) <= 60
    error = reply.get_json()["error"]
    assert error["code"] == "rate_limited"
    assert "30 per minute" in error["message"], error
    # Another client is not held back by the flood.
    assert client(app, "10.0.0.2").post("/api/games", {"seats": SEATS})[0] == 201


def test_one_client_cannot_fill_the_lobby(make_app: Any) -> None:
    """Games with an open seat (the ones every lobby lists) at the real default, 10 an hour per
    client: the 11th is refused, while tables without an open seat are still made."""
    app = make_app(defaults())
    spam = client(app, "10.0.0.9")
    statuses = [spam.post("/api/games", {"seats": SEATS})[0] for _ in range(12)]
    assert first_refusal(statuses) == 10 and statuses[10:] == [429, 429], statuses
    status, body = spam.post("/api/games", {"seats": SEATS})
    assert status == 429 and body["error"]["code"] == "rate_limited"
    assert "10 per hour" in body["error"]["message"], body
    assert spam.post("/api/games", {"seats": AI_TABLE})[0] == 201
    assert client(app, "10.0.0.10").post("/api/games", {"seats": SEATS})[0] == 201


def test_inviting_a_bot_that_declines_is_an_open_table_too(make_app: Any) -> None:
    """Issue 30.3: a seat reserved for a bot becomes an ordinary open seat, listed in every lobby,
    when the bot declines. Inviting one's own bot account and declining once made 25 open
    tables in 10 s from one address; such a create counts as an open table: the 11th is 429."""
    app = make_app(defaults())
    spam = client(app, "10.0.0.11")
    name = f"Decliner {uuid.uuid4().hex[:8]}"
    status, bot = spam.post("/api/players", {"name": name, "bot": True})
    assert status == 201, bot
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "name": bot["name"]}]
    statuses, opened = [], []
    for _ in range(12):
        status, made = spam.post("/api/games", {"game": "metro", "seats": seats})
        statuses.append(status)
        if status != 201:
            continue
        invitation = invitation_id(made["game_id"], 1)
        status, body = spam.post(
            f"/api/invitations/{invitation}/decline", headers={"X-Player-Key": bot["device_key"]}
        )
        assert status == 200 and body == {"declined": True}, body
        opened.append(made["game_id"])
    assert first_refusal(statuses) == 10 and statuses[10:] == [429, 429], statuses
    status, lobby = spam.get("/api/games?status=open&limit=200")
    assert status == 200
    listed = {g["game_id"] for g in lobby["games"]}
    assert set(opened) <= listed  # each declined seat is open in the lobby: hence the limit


def test_joins_moves_and_hints_have_their_own_rates(make_app: Any) -> None:
    app = make_app(defaults(join="5/minute", moves="8/minute"))
    flood = client(app, "10.0.1.1")
    # Hints at the real default (20/minute); without a token each is a 403, and counted.
    hints = [flood.post("/api/games/nope/hint", {})[0] for _ in range(25)]
    assert first_refusal(hints) == 20 and set(hints[:20]) == {403}, hints
    joins = [flood.post("/api/games/nope/join", {})[0] for _ in range(7)]
    assert first_refusal(joins) == 5, joins
    moves = [flood.post("/api/games/nope/moves", {"action": "draw"}, token="t")[0]
             for _ in range(10)]  # fmt: skip
    assert first_refusal(moves) == 8, moves
    # Reading has a rate of its own, far above the others (next test).
    assert {flood.get("/api/games/nope")[0] for _ in range(30)} == {404}


def test_reads_and_seat_changes_have_rates_too(make_app: Any) -> None:
    """Views, legal moves and the other reads share one generous rate per address, and claim,
    leave and return another (1,500 views from one address were once all answered)."""
    app = make_app(defaults(reads="12/minute", seats="4/minute"))
    flood = client(app, "10.0.1.2")
    reads = [flood.get("/api/games/nope")[0] for _ in range(6)]
    reads += [flood.get("/api/games/nope/legal")[0] for _ in range(6)]
    reads += [flood.get("/api/games/nope/record")[0], flood.get("/api/games/nope/table")[0]]
    assert first_refusal(reads) == 12 and set(reads[:12]) == {404}, reads
    status, body = flood.get("/api/games/nope")
    assert status == 429 and body["error"]["code"] == "rate_limited"
    seats = [flood.post("/api/games/nope/claim", {})[0] for _ in range(2)]
    seats += [flood.post(f"/api/games/nope/{what}", {}, token="t")[0]
              for what in ("leave", "return", "leave")]  # fmt: skip
    assert first_refusal(seats) == 4, seats
    # Another address is not held back by this one.
    assert client(app, "10.0.1.3").get("/api/games/nope")[0] == 404


def test_the_real_read_rate_is_far_above_a_page(make_app: Any) -> None:
    """A page reads a view and its legal moves per move and polls when its stream is refused:
    a few hundred reads in a minute from one address are all answered at the real default."""
    app = make_app(defaults())
    home = client(app, "10.0.1.4")
    statuses = {home.get("/api/games/nope")[0] for _ in range(300)}
    assert statuses == {404}


# ---- recovery codes: each check is a slow hash in the engine --------------------------------


def test_recovery_checks_at_once_are_capped_over_every_gateway(
    make_app: Any, redis_url: str
) -> None:
    """A check in flight on one gateway takes the only slot for all: another gateway answers
    429 at once, without asking the engine; once it is given back, codes are checked again."""
    shared = defaults(storage_url=redis_url, recover_at_once=1)
    first, second = make_app(shared), make_app(shared)
    other = client(second, "10.0.7.1")
    code = {"recovery_code": "ZZZZZ-ZZZZZ"}
    with first.extensions["metro_limits"].recoveries.hold_one():
        status, body = other.post("/api/players/recover", code)
        assert status == 429 and body["error"]["code"] == "rate_limited", body
        assert "recovery codes" in body["error"]["message"]
    status, body = other.post("/api/players/recover", code)
    assert status == 403 and body["error"]["code"] == "bad_recovery_code", body


def test_a_malformed_recovery_code_costs_no_slot_and_no_hash(make_app: Any) -> None:
    """A code that cannot be one is refused by the gateway before any slot is taken (even
    with every slot held) and never reaches the engine, whose per-address count of attempts
    (10 a minute) it would otherwise use up."""
    app = make_app(defaults(recover_at_once=1))
    flood = client(app, "10.0.7.2")
    with app.extensions["metro_limits"].recoveries.hold_one():
        for bad in ("12", "ABCDE-1234!", "ABCDE-123456", "x" * 10_000):
            status, body = flood.post("/api/players/recover", {"recovery_code": bad})
            assert status == 400, (bad, body)
            assert body["error"]["code"] == "invalid_argument"
            assert body["error"]["field"] == "recovery_code"
    statuses = [flood.post("/api/players/recover", {"recovery_code": "1"})[0] for _ in range(15)]
    assert set(statuses) == {400}, statuses
    # Well-formed codes still reach the engine, which counts them.
    status, body = flood.post("/api/players/recover", {"recovery_code": "ZZZZZ-ZZZZZ"})
    assert status == 403 and body["error"]["code"] == "bad_recovery_code", body


def test_a_normal_game_with_hints_is_never_limited(make_app: Any) -> None:
    """Two people on one address (a household behind one router) play a whole game, asking a
    hint on many turns, with the real default limits."""
    app = make_app(defaults())
    home = client(app, "10.0.2.1")
    game_id, tokens = home.new_game(2)
    statuses: list[int] = []
    moves = 0
    while True:
        status, view = home.get(f"/api/games/{game_id}", token=tokens[0])
        assert status == 200
        if view["status"] == "over":
            break
        token = tokens[view["turn"]]
        if moves < 12:
            status, hint = home.post(f"/api/games/{game_id}/hint", {"level": "medium"}, token)
            statuses.append(status)
            move = hint["suggestions"][0]["move"]
        else:
            status, legal = home.get(f"/api/games/{game_id}/legal", token=token)
            move = legal["moves"][0]
        status, _ = home.post(f"/api/games/{game_id}/moves",
                              {**move, "expected_version": view["version"]}, token)  # fmt: skip
        statuses.append(status)
        moves += 1
    assert moves > 30
    assert set(statuses) == {200}, statuses


def test_counts_are_shared_through_redis(make_app: Any, redis_url: str) -> None:
    """Two gateway apps (two processes or replicas) on one Redis count one client together."""
    shared = defaults(storage_url=redis_url, create="6/minute")
    a, b = client(make_app(shared), "10.0.3.1"), client(make_app(shared), "10.0.3.1")
    statuses = [gw.post("/api/games", {"seats": SEATS})[0] for gw in (a, b) * 4]
    assert statuses == [201] * 6 + [429] * 2, statuses


@pytest.mark.parametrize("shared", [False, True], ids=["per-process", "redis"])
def test_hint_slots_per_game_and_per_client(shared: bool, redis_url: str) -> None:
    slots = HintSlots(redis_url if shared else "", per_game=2, per_client=2, hold_s=1.0)
    game = f"g-{shared}-{time.monotonic_ns()}"
    with slots.hold(game, "ada"), slots.hold(game, "bo"):
        with pytest.raises(ApiError) as full, slots.hold(game, "cy"):
            pass
        assert (full.value.status, full.value.code) == (429, "rate_limited")
        assert "for this game" in full.value.message
        assert full.value.headers["Retry-After"] == "2"
        with slots.hold(game + "-other", "cy"):  # another game is free
            pass
    with slots.hold(game, "ada"), slots.hold(game + "-2", "ada"):
        with pytest.raises(ApiError) as mine, slots.hold(game + "-3", "ada"):
            pass
        assert "of your hints" in mine.value.message
    with slots.hold(game, "cy"), slots.hold(game, "dee"):  # all given back
        pass


def test_a_slot_left_by_a_dead_gateway_frees_itself(redis_url: str) -> None:
    slots = HintSlots(redis_url, per_game=1, per_client=1, hold_s=1.0)
    game = f"dead-{time.monotonic_ns()}"
    held = slots.hold(game, "ada")
    held.__enter__()  # never left: the process holding it died
    with pytest.raises(ApiError), slots.hold(game, "bo"):
        pass

    def free() -> bool:
        try:
            with slots.hold(game, "bo"):
                return True
        except ApiError:
            return False

    wait_until(free, "the dead gateway's slot to free itself (held for 1 s)", timeout=30)


def test_concurrent_hints_of_one_game_are_capped(make_app: Any) -> None:
    app = make_app(defaults(hints_per_game=1))
    home = client(app, "10.0.4.1")
    game_id, tokens = home.new_game(2)
    answers: list[tuple[int, Any]] = []

    def ask(address: str) -> None:
        body = {"level": "hard", "budget_ms": 1500}
        answers.append(client(app, address).post(f"/api/games/{game_id}/hint", body, tokens[0]))

    threads = [threading.Thread(target=ask, args=(f"10.0.4.{i}",)) for i in (2, 3)]
    hints = app.extensions["metro_limits"].hints
    threads[0].start()
    wait_until(  # the first hint holds the game's one slot (or is already answered)
        lambda: sum(hints._local.values()) or answers, "the first hint to take its slot"
    )
    threads[1].start()
    for t in threads:
        t.join(30)
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200, 429], answers
    refused = next(body for status, body in answers if status == 429)
    assert refused["error"]["code"] == "rate_limited"


def test_stream_slots_cap_and_give_back_once() -> None:
    """The one stream cap of a process (game and player streams alike)."""
    slots = StreamSlots(2, 0)
    first, second = slots.take("a"), slots.take("b")
    with pytest.raises(ApiError) as busy:
        slots.take("c")
    assert (busy.value.status, busy.value.code) == (503, "busy")
    assert busy.value.message == "too many live streams on this server; retrying in a few seconds"
    assert busy.value.headers["Retry-After"] == "5"
    first()
    first()  # twice: still one slot
    assert slots.open == 1
    slots.take("c")
    second()
    assert slots.open == 1


def test_no_redis_means_memory_and_a_warning(
    make_app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    make_app(defaults())
    assert "rate limits are counted in memory" in caplog.text


# ---- replays and a failing store (issue 30 items 5 and 9) ---------------------------------------


def test_a_replayed_idempotency_key_is_not_a_new_create(make_app: Any) -> None:
    """Retries of one create (the same Idempotency-Key, as through an outage) are one request
    for the rate: they do not use up the allowance; a new key still counts."""
    app = make_app(defaults(create="2/minute", open_games="1000/hour"))
    bot = client(app, "10.0.3.1")
    first_key = {"Idempotency-Key": "replay-" + "a" * 20}
    status, made = bot.post("/api/games", {"seats": AI_TABLE}, headers=first_key)
    assert status == 201, made
    for _ in range(5):
        status, again = bot.post("/api/games", {"seats": AI_TABLE}, headers=first_key)
        assert status in (200, 201) and again["game_id"] == made["game_id"], (status, again)
    second = {"Idempotency-Key": "replay-" + "b" * 20}
    status, other = bot.post("/api/games", {"seats": AI_TABLE}, headers=second)
    assert status == 201 and other["game_id"] != made["game_id"], other
    status, body = bot.post(
        "/api/games", {"seats": AI_TABLE}, headers={"Idempotency-Key": "c" * 20}
    )
    assert status == 429 and body["error"]["code"] == "rate_limited", body  # the third new key


def test_a_refused_create_earns_no_free_replay(make_app: Any) -> None:
    app = make_app(defaults(create="1/minute", open_games="1000/hour"))
    bot = client(app, "10.0.3.2")
    assert bot.post("/api/games", {"seats": AI_TABLE})[0] == 201
    key = {"Idempotency-Key": "refused-" + "d" * 20}
    assert bot.post("/api/games", {"seats": AI_TABLE}, headers=key)[0] == 429
    assert bot.post("/api/games", {"seats": AI_TABLE}, headers=key)[0] == 429


@pytest.mark.parametrize("failure", ["down", "full"])
def test_costly_calls_fail_closed_while_the_limits_store_fails(
    make_app: Any, redis_server_factory: Any, failure: str
) -> None:
    """With the limits' Redis down or full, creates, joins and player creation answer 503 with
    Retry-After (counting from zero in memory would let a flood through); reads go on."""
    server = redis_server_factory(appendonly=False)
    app = make_app(defaults(storage_url=server.url))
    user = client(app, "10.0.4.1")
    status, made = user.post("/api/games", {"seats": SEATS})
    assert status == 201, made
    store = redis.Redis.from_url(server.url)
    if failure == "down":
        server.stop()
    else:
        store.config_set("maxmemory", 1)  # every write refused: OOM
    try:
        reply = user.client.post("/api/games", json={"seats": AI_TABLE})
        assert reply.status_code == 503, reply.get_json()
        assert reply.get_json()["error"]["code"] == "limits_unavailable"
        assert int(reply.headers["Retry-After"]) >= 1
        status, body = user.post(f"/api/games/{made['game_id']}/join", {"name": "Eve"})
        assert status == 503 and body["error"]["code"] == "limits_unavailable", body
        status, body = user.post("/api/players", {"name": "Flood"})
        assert status == 503 and body["error"]["code"] == "limits_unavailable", body
        status, body = user.get(f"/api/games/{made['game_id']}")  # reads stay open
        assert status == 200, body
    finally:
        if failure == "down":
            server.start()
        else:
            store.config_set("maxmemory", 0)
        store.close()
    # Once the store answers again, creates go on (flask-limiter looks again within ~30 s).

    def created() -> Any:
        status, body = user.post("/api/games", {"seats": AI_TABLE})
        return status == 201 and (status, body)

    status, body = wait_until(created, "a create to be answered 201 again", timeout=90, every=0.5)
    assert status == 201, body
