"""The OpenAPI document of the HTTP API: valid OpenAPI (openapi-spec-validator), complete (every
path, every game), and true: schemathesis fuzzes every operation of a live gateway (real engine,
AI and Redis) from the document the server itself serves, and every answer must be no 5xx, of a
documented status and content type, and match its schema.

The run is CI-sized: a few examples per operation and generation mode (FUZZ_EXAMPLES), about a
minute in all. Half the cases aim at real games (each game kind, a seat's token or none), so they
get past the 404 into the engine; the rest use the generated ids and tokens.
"""

from __future__ import annotations

import collections
import copy
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

import games
from services.common.postgres_server import PostgresServer
from services.gateway.app import create_app
from services.gateway.limit_safety import FAIL_CLOSED
from services.gateway.live.asgi import GatewayAsgi
from services.gateway.openapi import document, view_schema_name
from services.gateway.openapi.refusals import ARCHIVE_OPERATIONS, COSTLY_OPERATIONS
from tests.fixtures.gateway import GatewayApi, asgi_server, gateway_config, live_limits
from tests.fixtures.postgres import fresh_database
from tests.fixtures.waits import wait_until

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
CALL_TIMEOUT_S = 30.0
FAST_LEVELS = {"random", "easy", "medium"}
SUMMARY_EXAMPLES = 4  # per operation in test_fuzz_summary's own run, all aimed at real games


# ---- the document ------------------------------------------------------------------------------


def test_refusal_codes_are_named_where_they_apply(api: GatewayApi) -> None:
    """503 archive_unavailable on the archive's routes, 503 limits_unavailable on the costly
    calls (exactly limit_safety's FAIL_CLOSED endpoints), 422 idempotency_mismatch on moves."""
    status, doc = api.get("/api/openapi.json")
    assert status == 200
    paths = doc["paths"]
    for method, path in ARCHIVE_OPERATIONS:
        assert "`archive_unavailable`" in paths[path][method]["responses"]["503"]["description"]
    for method, path in COSTLY_OPERATIONS:
        assert "`limits_unavailable`" in paths[path][method]["responses"]["503"]["description"]
    costly = {
        (method.lower(), re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in api.client.application.url_map.iter_rules()
        if rule.endpoint in FAIL_CLOSED
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    unnamed = {(m, re.sub(r"\{\w+\}", "{}", p)) for m, p in COSTLY_OPERATIONS}
    assert {(m, re.sub(r"\{\w+\}", "{}", p)) for m, p in costly} == unnamed  # {kind}: {game}
    moves = paths["/api/games/{game_id}/moves"]["post"]["responses"]["422"]
    assert "`idempotency_mismatch`" in moves["description"]
    assert (
        "limits_unavailable"
        not in paths["/api/games/{game_id}/moves"]["post"]["responses"]["503"]["description"]
    )


def test_document_is_valid_openapi(api: GatewayApi) -> None:
    status, doc = api.get("/api/openapi.json")
    assert status == 200
    validate(doc)  # raises, naming the fault, when the document is not valid OpenAPI
    assert doc == document()


def test_document_covers_every_path_and_game(api: GatewayApi) -> None:
    _, doc = api.get("/api/openapi.json")
    paths = doc["paths"]
    expected = {
        "/api/meta": {"get"},
        "/api/rules": {"post"},
        "/api/games": {"get", "post"},
        "/api/games/{game_id}": {"get"},
        "/api/games/{game_id}/join": {"post"},
        "/api/games/{game_id}/legal": {"get"},
        "/api/games/{game_id}/moves": {"post"},
        "/api/games/{game_id}/hint": {"post"},
        "/api/games/{game_id}/events": {"get"},
        "/api/games/{game_id}/record": {"get"},
        "/healthz": {"get"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
    events = paths["/api/games/{game_id}/events"]["get"]["responses"]["200"]["content"]
    assert "text/event-stream" in events
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    moves = paths["/api/games/{game_id}/moves"]["post"]["responses"]
    assert {"400", "403", "404", "409", "413", "422", "429", "503"} <= set(moves)
    schemas = doc["components"]["schemas"]
    kinds = {g.kind for g in games.all_games()}
    created = {alt["properties"]["game"]["const"] for alt in schemas["CreateGame"]["oneOf"]}
    assert created == kinds
    assert len(schemas["Move"]["oneOf"]) == len(kinds) == len(schemas["View"]["oneOf"])
    for alt, game in zip(schemas["CreateGame"]["oneOf"], games.all_games(), strict=True):
        # The rules schema is the game's option table: every option, nothing else.
        rules = alt["properties"]["rules"]
        assert set(rules["properties"]) == {o.name for o in game.options}
        assert rules["additionalProperties"] is False


def _validator(doc: dict[str, Any], name: str) -> Draft202012Validator:
    """A validator of the document's component `name`, its `$ref`s resolved in the document."""
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", **doc})


def _views_of_every_kind(api: GatewayApi) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(kind, what, view) for each game kind: waiting, playing (each seat, a spectator, the
    answer to a move) and over (an AI-only game of random play)."""
    for game in games.all_games():
        players = max(2, game.players[0])
        seats = [{"kind": "human", "name": "Ada"}] + [{"kind": "open"}] * (players - 1)
        body = {"game": game.kind, "rules": {"players": players}, "seats": seats}
        status, made = api.post("/api/games", body)
        assert status == 201, made
        game_id, tokens = made["game_id"], [made["token"]]
        yield game.kind, "waiting", api.view_when(game_id, tokens[0], lambda v: True)
        for i in range(1, players):
            status, joined = api.post(f"/api/games/{game_id}/join", {"name": f"P{i}"})
            assert status == 200, joined
            tokens.append(joined["token"])
        for seat, token in [*enumerate(tokens), (None, None)]:
            yield game.kind, f"playing, seat {seat}", api.view_when(game_id, token, lambda v: True)
        mover = api.view_when(game_id, None, lambda v: True)["to_move"][0]
        status, legal = api.get(f"/api/games/{game_id}/legal", token=tokens[mover])
        assert status == 200 and legal["moves"], legal
        status, moved = api.post(f"/api/games/{game_id}/moves", legal["moves"][0], tokens[mover])
        assert status == 200, moved
        yield game.kind, "a move's answer", moved
        ai_seats = [{"kind": "ai", "level": "random"}] * players
        status, made = api.post("/api/games", {**body, "seats": ai_seats})
        assert status == 201, made
        over = api.view_when(made["game_id"], None, lambda v: v["status"] == "over", timeout=90)
        yield game.kind, "over", over


def test_every_games_views_match_their_own_schema_only(api: GatewayApi) -> None:
    """`View` is one schema per game kind (the game's `view_schema()`), picked by `game`: real
    views from the engine match `View` and their own kind's schema, and no other kind's."""
    _, doc = api.get("/api/openapi.json")
    view = doc["components"]["schemas"]["View"]
    kinds = [g.kind for g in games.all_games()]
    assert set(view["discriminator"]["mapping"]) == set(kinds)
    assert view["discriminator"]["propertyName"] == "game"
    by_kind = {kind: _validator(doc, view_schema_name(kind)) for kind in kinds}
    whole = _validator(doc, "View")
    seen = collections.Counter[str]()
    for kind, what, data in _views_of_every_kind(api):
        errors = [e.message for e in whole.iter_errors(data)]
        assert not errors, f"{kind} {what}: {errors[:3]}"
        for other, validator in by_kind.items():
            assert validator.is_valid(data) == (other == kind), f"{kind} {what} vs {other}"
        seen[kind] += 1
    assert set(seen) == set(kinds)


def test_a_view_missing_a_games_own_field_breaks_its_schema(api: GatewayApi) -> None:
    """The per-game schemas say something: drop each required field of the game's own part
    (or give it 0.5, a number no field of any view is) and the view no longer matches."""
    _, doc = api.get("/api/openapi.json")
    for game in games.all_games():
        players = max(2, game.players[0])
        ai_seats = [{"kind": "ai", "level": "random"}] * players
        body = {"game": game.kind, "rules": {"players": players}, "seats": ai_seats}
        status, made = api.post("/api/games", body)
        assert status == 201, made
        data = api.view_when(made["game_id"], None, lambda v: True)
        validator = _validator(doc, view_schema_name(game.kind))
        assert validator.is_valid(data)
        required = game.view_schema()["required"]
        assert required, game.kind
        for field in required:
            broken = {k: v for k, v in data.items() if k != field}
            assert not validator.is_valid(broken), f"{game.kind} without {field}"
            assert not validator.is_valid({**data, field: 0.5}), f"{game.kind}: {field} 0.5"


def test_move_with_a_control_character_in_a_field_name_is_a_400(api: GatewayApi) -> None:
    """Found by fuzzing: the engine named the unknown field in gRPC trailing metadata, which
    must be printable ASCII, so the call failed as INTERNAL and the gateway answered 502."""
    game_id, tokens = api.new_game()
    status, body = api.post(f"/api/games/{game_id}/moves", {"\x05x\u00e9": 1}, token=tokens[0])
    assert status == 400, body
    assert body["error"]["field"] == "?x?"


def test_rules_query_with_a_list_for_a_name_is_refused(api: GatewayApi) -> None:
    """Found by fuzzing: `{"op": []}` was a 500 (a list looked up in a dict of ops)."""
    for query in ({"op": []}, {"op": "map", "game": {}}, {"op": "replay", "record": {"game": []}}):
        status, body = api.post("/api/rules", query)
        assert status == 200, body
        assert "must be a string" in body["error"]


# ---- the fuzzing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A real game to aim a case at, with a seat's token or none (a spectator)."""

    game_id: str
    token: str | None
    party: bool = False  # a party table (issue 23.2): what its own paths (.../party) aim at


@pytest.fixture(scope="module")
def fuzz_url(engine: Any, ai: Any, postgres_server: PostgresServer) -> Iterator[str]:
    """A gateway of its own on a real socket, served as production serves it (the ASGI app, whose
    hub answers the event streams), with event streams that close after 0.3 s, so fuzzing the
    streams does not wait on them, and a real archive (PostgreSQL), so that the players'
    profile, history and export are reached."""
    archive = fresh_database(postgres_server)
    app: Flask = create_app(
        gateway_config(engine.address, ai.target, WATCH_MAX_S=0.3, DATABASE_URL=archive)
    )
    with asgi_server(GatewayAsgi(app, live_limits())) as url:
        yield url
    app.extensions["metro_archive"].close()
    app.extensions["metro_gateway"].backends.close()


@pytest.fixture(scope="module")
def targets(fuzz_url: str) -> list[Target]:
    """Per game kind: a waiting game (one seat still open) and a running one, every token."""
    out: list[Target] = []
    with requests.Session() as http:

        def post(path: str, body: Any) -> Any:
            reply = http.post(f"{fuzz_url}{path}", json=body, timeout=CALL_TIMEOUT_S)
            assert reply.status_code in (200, 201), reply.text
            return reply.json()

        for game in games.all_games():
            players = max(2, game.players[0])
            for left_open in (1, 0):
                seats = [{"kind": "human", "name": "Ada"}] + [{"kind": "open"}] * (players - 1)
                body = {"game": game.kind, "rules": {"players": players}, "seats": seats}
                made = post("/api/games", body)
                out += [Target(made["game_id"], made["token"]), Target(made["game_id"], None)]
                for i in range(1, players - left_open):
                    joined = post(f"/api/games/{made['game_id']}/join", {"name": f"P{i}"})
                    out.append(Target(made["game_id"], joined["token"]))
        # Party tables: one the host plays at, with people joined by code; one host only.
        for host_only in (False, True):
            host = {"host_only": True} if host_only else {"name": "Host"}
            made = post("/api/games", {"game": "metrox", "party": True, "rules": {"players": 4},
                                       **host})  # fmt: skip
            out += [Target(made["game_id"], made["host_token"], True),
                    Target(made["game_id"], None, True)]  # fmt: skip
            for i in range(2 if host_only else 0):
                joined = post(f"/api/join/{made['join_code']}", {"name": f"P{i}"})
                out.append(Target(made["game_id"], joined["token"], True))
        # A finished game (AI seats only, random play), for records and final views.
        seats = [{"kind": "ai", "level": "random"}] * 2
        made = post("/api/games", {"game": "metro", "rules": {"players": 2}, "seats": seats})
        out.append(Target(made["game_id"], None))
        wait_until(
            lambda: http.get(f"{fuzz_url}/api/games/{made['game_id']}").json()["status"] == "over",
            "the AI-only game to finish",
            timeout=60,
            every=0.2,
        )
        record = http.get(f"{fuzz_url}/api/games/{made['game_id']}/record", timeout=10)
        assert record.status_code == 200, record.text
    return out


@pytest.fixture(scope="module")
def schema(fuzz_url: str) -> Any:
    return schemathesis.openapi.from_url(f"{fuzz_url}/api/openapi.json", timeout=10)


def _cases() -> list[tuple[str, GenerationMode]]:
    """Every operation with valid data; and with invalid data where it takes any input besides
    the game id (an id that breaks its pattern is no more than a 400 or 404)."""
    out = []
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            label = f"{method.upper()} {path}"
            out.append((label, GenerationMode.POSITIVE))
            inputs = [p for p in operation.get("parameters", []) if p["in"] != "path"]
            if inputs or "requestBody" in operation:
                out.append((label, GenerationMode.NEGATIVE))
    return out


def _tame_hint(body: Any) -> None:
    """A hint from a seat really runs the AI: keep the search short, so the run stays small."""
    if not isinstance(body, dict):
        return
    level = body.get("level")
    if isinstance(level, str) and level not in FAST_LEVELS:
        body["level"] = "easy" if level else level
    if isinstance(body.get("budget_ms"), int) and body["budget_ms"] > 200:
        body["budget_ms"] = 200


def test_the_fuzzers_schema_check_reaches_each_games_view(
    fuzz_url: str, targets: list[Target]
) -> None:
    """The fuzzing's response check is no `type: object`: with a document whose view of one
    game kind demands a field no view has, schemathesis fails that kind's real views (and only
    that kind's), so the passing run above did check every view against its game's schema."""
    served = requests.get(f"{fuzz_url}/api/openapi.json", timeout=10).json()
    kinds = {
        t.game_id: requests.get(f"{fuzz_url}/api/games/{t.game_id}", timeout=10).json()["game"]
        for t in targets
    }
    for kind in {g.kind for g in games.all_games()}:
        doc = copy.deepcopy(served)
        own = doc["components"]["schemas"][view_schema_name(kind)]
        own["allOf"].append({"type": "object", "required": ["not_a_view_field"]})
        operation = schemathesis.openapi.from_dict(doc)["/api/games/{game_id}"]["GET"]
        for game_id, game_kind in kinds.items():
            case = operation.Case(path_parameters={"game_id": game_id})
            if game_kind == kind:
                with pytest.raises(FailureGroup, match="Response violates schema"):
                    case.call_and_validate(base_url=fuzz_url, checks=CHECKS, timeout=10)
            else:
                case.call_and_validate(base_url=fuzz_url, checks=CHECKS, timeout=10)


def fuzz(
    label: str,
    mode: GenerationMode,
    schema: Any,
    fuzz_url: str,
    targets: list[Target],
    examples: int,
    aim_always: bool = False,
) -> dict[int, int]:
    """Fuzz one operation with `examples` cases (about half aimed at a real game, every one
    with `aim_always`); each answer is checked (CHECKS); how many of each status came back."""
    method, path = label.split(" ", 1)
    operation = schema[path][method]
    aimed = "{game_id}" in path
    if path.endswith(("/party", "/start")):  # a party's own paths: 404 on any other game
        targets = [t for t in targets if t.party]
    statuses: dict[int, int] = {}
    picks = st.integers(0, len(targets) - 1 if aim_always else 2 * len(targets))

    @given(case=operation.as_strategy(generation_mode=mode), pick=picks)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any, pick: int) -> None:
        if aimed and pick < len(targets):
            target = targets[pick]
            case.path_parameters = {**(case.path_parameters or {}), "game_id": target.game_id}
            headers = dict(case.headers or {})
            if target.token is not None:
                headers["Authorization"] = f"Bearer {target.token}"
            case.headers = headers
        if path.endswith("/hint"):
            _tame_hint(case.body)
        reply = case.call_and_validate(base_url=fuzz_url, checks=CHECKS, timeout=CALL_TIMEOUT_S)
        if (method.lower(), path) in ARCHIVE_OPERATIONS:  # the archive is there: reached
            assert reply.status_code != 503, reply.text
        statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1

    started = time.monotonic()
    run()
    assert time.monotonic() - started < 300, f"{label}: fuzzing took too long (hung?)"
    return statuses


@pytest.mark.parametrize(("label", "mode"), _cases())
def test_fuzz_operation(
    label: str, mode: GenerationMode, schema: Any, fuzz_url: str, targets: list[Target]
) -> None:
    fuzz(label, mode, schema, fuzz_url, targets, FUZZ_EXAMPLES)


def test_fuzz_summary(schema: Any, fuzz_url: str, targets: list[Target]) -> None:
    """What fuzzing reaches, per operation and status (printed with -s): every operation is
    answered, and those on a game get past the 404 into the engine. It fuzzes for itself (a few
    cases per operation, each aimed at a real game), so it holds in any order and on any worker
    of a parallel run, not only after test_fuzz_operation in the same process."""
    reached: dict[str, dict[int, int]] = {}
    for label in sorted({label for label, _ in _cases()}):
        reached[label] = fuzz(
            label, GenerationMode.POSITIVE, schema, fuzz_url, targets, SUMMARY_EXAMPLES, True
        )
    for label, counts in sorted(reached.items()):
        print(f"{label}: {dict(sorted(counts.items()))}  ({sum(counts.values())} cases)")
    print(f"fuzzed cases: {sum(sum(c.values()) for c in reached.values())}")
    for label, counts in reached.items():
        assert counts, label
        if "{game_id}" in label:
            assert set(counts) - {404}, f"{label} never reached a game: {counts}"
