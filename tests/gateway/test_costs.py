"""Bounded costs (issue 30, items 6-8): position queries with a work budget, a per-address rate
and a gate of their own; recovery codes checked in turn per address, so that a flood from one
address cannot starve another's; quotas for every address together on creating games, players
and analyses, each a clear 429."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from games.underground.map import load_map
from games.underground.rules import COLOURS
from services.common.config import GatewayLimits
from services.gateway.app import create_app
from services.gateway.costs import FairTurns, WorkGate
from services.gateway.errors import ApiError
from tests.fixtures.gateway import gateway_config
from tests.fixtures.waits import wait_until
from tests.gateway.test_limits import SEATS, client, defaults

LONDON = load_map("london")


@pytest.fixture
def make_app(engine: Any, ai: Any) -> Iterator[Any]:
    """Gateway apps (in this process) on the session's engine, with the limits given."""
    apps: list[Flask] = []

    def make(limits: GatewayLimits) -> Flask:
        app = create_app(gateway_config(engine.address, ai.target, LIMITS=limits))
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["metro_gateway"].backends.close()


def costly_routes(seed: int = 0) -> dict[str, Any]:
    """A ~38 KB `routes` query whose every colour is in dozens of one-rail pieces: before the
    budget it cost the gateway 1.3-1.6 s of CPU (4-5 s on the probe's machine)."""
    rng = random.Random(seed)
    stations = LONDON.stations
    sections = [
        (stations[a].id, stations[b].id)
        for a in range(len(stations))
        for b in range(a + 1, len(stations))
        if LONDON.section(a, b) is not None
    ]
    rails = []
    for colour in COLOURS:
        used: set[str] = set()
        rng.shuffle(sections)
        for a, b in sections:
            if a not in used and b not in used:
                used |= {a, b}
                rails.append({"colour": colour, "a": a, "b": b})
    return {
        "op": "routes",
        "game": "underground",
        "board": {"rails": rails},
        "from": stations[0].id,
        "to": [stations[-1].id],
    }


# ---- 6. position queries ---------------------------------------------------------------------


def test_a_costly_routes_query_stops_at_its_budget(make_app: Any) -> None:
    app = make_app(defaults())
    api = client(app, "10.0.30.1")
    started = time.process_time()
    status, body = api.post("/api/rules", costly_routes())
    spent = time.process_time() - started
    assert status == 200, body
    assert "too costly" in body.get("error", ""), body
    assert spent < 1.0, spent  # ~0.1 s of CPU; 1.3-1.6 s before the budget
    # A real question is answered as before.
    small = {"op": "routes", "game": "underground", "board": {"rails": []},
             "from": LONDON.stations[0].id, "to": [LONDON.stations[1].id]}  # fmt: skip
    status, body = api.post("/api/rules", small)
    assert status == 200 and "best" in body, body


def test_position_queries_have_a_rate_per_address(make_app: Any) -> None:
    app = make_app(defaults(rules="5/minute"))
    flood, other = client(app, "10.0.30.2"), client(app, "10.0.30.3")
    query = {"op": "map", "game": "underground"}
    statuses = [flood.post("/api/rules", query)[0] for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2, statuses
    assert other.post("/api/rules", query)[0] == 200


def test_position_queries_beyond_the_gate_are_told_to_come_back(make_app: Any) -> None:
    """With the process's query slots taken and its queue full, the next query is answered
    `503 busy` with Retry-After at once, not worked out beside the API's requests."""
    app = make_app(defaults())
    gate: WorkGate = app.extensions["metro_limits"].rules
    gate.queue = 0
    test_client = app.test_client()
    test_client.environ_base["REMOTE_ADDR"] = "10.0.30.4"
    with gate.hold():
        reply = test_client.post("/api/rules", json={"op": "map", "game": "underground"})
        assert reply.status_code == 503, reply.get_json()
        assert reply.get_json()["error"]["code"] == "busy"
        assert int(reply.headers["Retry-After"]) >= 1
    reply = test_client.post("/api/rules", json={"op": "map", "game": "underground"})
    assert reply.status_code == 200


def test_a_work_gate_lets_a_few_wait_for_a_turn() -> None:
    gate = WorkGate("tests", at_once=1, queue=1, wait_s=10.0)
    order: list[str] = []
    with gate.hold():
        waiter = threading.Thread(target=lambda: _in_turn(gate, order))
        waiter.start()
        wait_until(lambda: gate.waiting >= 1, "the waiter in the queue", timeout=10, every=0.01)
        assert gate.waiting == 1
        try:
            with gate.hold():
                raise AssertionError("a third job got a turn")
        except ApiError as err:
            assert (err.status, err.code) == (503, "busy")
        order.append("first")
    waiter.join(10)
    assert order == ["first", "waited"]


def _in_turn(gate: WorkGate, order: list[str]) -> None:
    with gate.hold():
        order.append("waited")


# ---- 7. recovery codes in turn ---------------------------------------------------------------


def test_addresses_take_turns_and_a_flood_waits_behind_the_others() -> None:
    """A holds the turn with two more codes waiting (its queue); its fourth is refused at once;
    B's code, sent last, goes right after A's next one, not after all of A's."""
    turns = FairTurns(per_address=2, wait_s=10.0, retry_after_s=2)
    served: list[str] = []
    threads: list[threading.Thread] = []

    def ask(name: str) -> None:
        with turns.turn(name[0]):
            served.append(name)

    with turns.turn("A"):
        for name in ("A2", "A3", "B1"):
            threads.append(threading.Thread(target=ask, args=(name,)))
            threads[-1].start()
            _until_waiting(turns, len(threads))
        try:
            with turns.turn("A"):
                raise AssertionError("a third waiting code of A was queued")
        except ApiError as err:
            assert (err.status, err.code) == (429, "rate_limited")
            assert err.headers["Retry-After"] == "2"
    for thread in threads:
        thread.join(10)
    assert served == ["A2", "B1", "A3"]


def test_no_more_than_a_few_codes_wait_in_all() -> None:
    """Each waiting code holds a gateway thread: past `most_waiting` in all, many addresses'
    codes are refused at once instead of taking every thread."""
    turns = FairTurns(per_address=2, wait_s=10.0, retry_after_s=2, most_waiting=2)
    threads: list[threading.Thread] = []
    with turns.turn("A"):
        for address in ("B", "C"):
            threads.append(threading.Thread(target=lambda a=address: _take_turn(turns, a)))
            threads[-1].start()
            _until_waiting(turns, len(threads))
        try:
            with turns.turn("D"):
                raise AssertionError("a third code waited")
        except ApiError as err:
            assert (err.status, err.code) == (429, "rate_limited")
    for thread in threads:
        thread.join(10)
    assert turns.waiting == 0 and not turns.busy


def _take_turn(turns: FairTurns, address: str) -> None:
    with turns.turn(address):
        pass


def _until_waiting(turns: FairTurns, n: int) -> None:
    """Until `n` codes wait for a turn (each thread's code is queued in the order started)."""
    _until(lambda: sum(map(len, turns._queues.values())) == n)


def _until(test: Any, timeout: float = 10.0) -> None:
    wait_until(test, "the threads to get there", timeout, every=0.01)


def test_a_flooding_address_cannot_starve_another_addresss_recovery(make_app: Any) -> None:
    """Six threads of one address send codes without pause; another address's codes all reach
    the engine (403 bad code, never 429). Before, one global slot answered 429 whenever the
    flood held it: a real user got through about 1 time in 20."""
    app = make_app(defaults())
    flood, user = client(app, "10.0.31.1"), client(app, "10.0.31.2")
    code = {"recovery_code": "ZZZZZ-ZZZZZ"}
    stop = threading.Event()
    flood_statuses: list[int] = []

    def flooding() -> None:
        while not stop.is_set():
            flood_statuses.append(flood.post("/api/players/recover", code)[0])

    threads = [threading.Thread(target=flooding) for _ in range(6)]
    for thread in threads:
        thread.start()
    try:
        _until(lambda: len(flood_statuses) >= 6)
        answers = [user.post("/api/players/recover", code) for _ in range(4)]
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert [status for status, _ in answers] == [403] * 4, answers
    assert {body["error"]["code"] for _, body in answers} == {"bad_recovery_code"}
    assert 429 in flood_statuses  # the flood's own codes past its queue are refused


# ---- 8. quotas for everyone together ---------------------------------------------------------


def test_game_creation_has_a_cap_for_every_address_together(make_app: Any) -> None:
    app = make_app(defaults(create_all="5/minute"))
    statuses = [client(app, f"10.0.32.{i % 3}").post("/api/games", {"seats": SEATS})
                for i in range(7)]  # fmt: skip
    assert [s for s, _ in statuses] == [201] * 5 + [429] * 2, statuses
    message = statuses[-1][1]["error"]["message"]
    assert "all clients together" in message, message


def test_player_creation_has_a_cap_for_every_address_together(make_app: Any) -> None:
    app = make_app(defaults(players_all="3/minute"))
    statuses = [client(app, f"10.0.33.{i}").post("/api/players", {"name": f"P{i}"})[0]
                for i in range(4)]  # fmt: skip
    assert statuses == [201] * 3 + [429], statuses


def test_analyses_have_a_quota_per_address_and_for_everyone(make_app: Any) -> None:
    """The quota counts requests, before the engine is asked (here for games that do not
    exist: 404 until the quota is spent)."""
    app = make_app(defaults(analyses="3/minute", analyses_all="5/minute"))
    one = client(app, "10.0.34.1")
    statuses = [one.post("/api/games/nope/analysis")[0] for _ in range(4)]
    assert statuses == [404] * 3 + [429], statuses
    others = [client(app, f"10.0.34.{i}").post("/api/games/nope/analysis")[0]
              for i in range(2, 5)]  # fmt: skip
    assert others == [404, 404, 429], others
