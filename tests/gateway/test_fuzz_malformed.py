"""Hand-made malformed and abusive requests, as a tester attacks the API (issue 14's battery):
each must be a clean refusal, never a 5xx: a 4xx in the API's JSON error shape, naming the field
at fault where there is one, and the seat checks hold (no moving, reading or hinting for another
seat). The hypothesis-driven fuzzing from the OpenAPI document is test_openapi.py; this one holds
the cases a generator does not reach (wrong tokens, seats, stale versions, ranges, raw bodies).

With -s it prints how many were tried and how many were clean (the closing note's measure).
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient

from services.gateway.openapi import MAX_NAME
from tests.fixtures.gateway import GatewayApi

TWO = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
HUGE = 2**70


@dataclass(frozen=True)
class Attempt:
    """One request and the refusal it must get. `path`, `body` and `token` may name the
    prepared games (`{open}`, `{running}`, `{full}`) and seats (`seat0`, `seat1`, `other`)."""

    what: str
    method: str
    path: str
    status: int | tuple[int, ...]
    body: Any = None
    raw: bytes | None = None  # sent as is instead of `body`
    content_type: str = "application/json"
    token: str | None = None  # a seat's name from the prepared games, or a literal "!..."
    headers: dict[str, str] = field(default_factory=dict)
    field: str | None = None  # the field the error must name


def _create(**changes: Any) -> dict[str, Any]:
    return {"game": "metro", "rules": {"players": 2}, "seats": TWO, **changes}


# A table: one attempt a line (or two) reads better than formatted calls.
# fmt: off
ATTEMPTS = [
    # ---- creating a game ----
    Attempt("unknown top-level field", "POST", "/api/games", 400, _create(bogus=1), field="bogus"),
    Attempt("players as a string", "POST", "/api/games", 400,
            _create(rules={"players": "2"}), field="rules.players"),
    Attempt("players as a float", "POST", "/api/games", 400,
            _create(rules={"players": 2.0}), field="rules.players"),
    Attempt("players huge", "POST", "/api/games", 400, _create(rules={"players": HUGE})),
    Attempt("players too few", "POST", "/api/games", 400, _create(rules={"players": 1})),
    Attempt("unknown rule", "POST", "/api/games", 400, _create(rules={"players": 2, "x": 1})),
    Attempt("rules a list", "POST", "/api/games", 400, _create(rules=[]), field="rules"),
    Attempt("unknown game", "POST", "/api/games", 400, _create(game="chess"), field="game"),
    Attempt("game a number", "POST", "/api/games", 400, _create(game=5), field="game"),
    Attempt("seats a string", "POST", "/api/games", 400, _create(seats="x"), field="seats"),
    Attempt("seats empty", "POST", "/api/games", 400, _create(seats=[]), field="seats"),
    Attempt("seat not an object", "POST", "/api/games", 400, _create(seats=[1, 2]),
            field="seats[0]"),
    Attempt("seat kind unknown", "POST", "/api/games", 400,
            _create(seats=[{"kind": "robot"}, {"kind": "open"}])),
    Attempt("seat with an unknown field", "POST", "/api/games", 400,
            _create(seats=[{"kind": "human", "name": "A", "x": 1}, {"kind": "open"}])),
    Attempt("name too long", "POST", "/api/games", 400,
            _create(seats=[{"kind": "human", "name": "n" * (MAX_NAME + 1)}, {"kind": "open"}])),
    Attempt("AI level unknown", "POST", "/api/games", 400,
            _create(seats=[{"kind": "human"}, {"kind": "ai", "level": "godlike"}])),
    Attempt("AI level mcts-0", "POST", "/api/games", 400,
            _create(seats=[{"kind": "human"}, {"kind": "ai", "level": "mcts-0"}])),
    Attempt("more seats than players", "POST", "/api/games", 400, _create(seats=TWO * 2)),
    Attempt("body a list", "POST", "/api/games", 400, []),
    Attempt("body null", "POST", "/api/games", 400, raw=b"null"),
    Attempt("body not JSON", "POST", "/api/games", 400, raw=b"{'game': 'metro'"),
    Attempt("body not UTF-8", "POST", "/api/games", 400, raw=b'{"game": "\xff\xfe"}'),
    Attempt("body as text/plain", "POST", "/api/games", (400, 415),
            raw=b'{"game": "metro", "seats": [{"kind": "human"}]}', content_type="text/plain"),
    Attempt("body too large", "POST", "/api/games", 413, raw=b"[" + b"0," * 60_000 + b"0]"),
    Attempt("deeply nested body", "POST", "/api/games", 400, raw=b"[" * 5000 + b"]" * 5000),
    # ---- joining ----
    Attempt("join: unknown field", "POST", "/api/games/{open}/join", 400,
            {"name": "Bo", "x": 1}, field="x"),
    Attempt("join: a seat in the body", "POST", "/api/games/{open}/join", 400,
            {"name": "Bo", "seat": 0}, field="seat"),
    Attempt("join: name a number", "POST", "/api/games/{open}/join", 400, {"name": 5},
            field="name"),
    Attempt("join: no open seat", "POST", "/api/games/{full}/join", 409, {"name": "Bo"}),
    Attempt("join: unknown game", "POST", "/api/games/nosuchgame00000/join", 404, {"name": "B"}),
    Attempt("join: id with dots", "POST", "/api/games/..%2F..%2Fetc/join", (400, 404, 405),
            {"name": "B"}),
    # ---- moves ----
    Attempt("move: no token", "POST", "/api/games/{running}/moves", 403, {"action": "draw"}),
    Attempt("move: wrong token", "POST", "/api/games/{running}/moves", 403,
            {"action": "draw"}, token="!not-a-token-of-this-game"),
    Attempt("move: a token of another game", "POST", "/api/games/{running}/moves", 403,
            {"action": "draw"}, token="other"),
    Attempt("move: Basic auth", "POST", "/api/games/{running}/moves", 403, {"action": "draw"},
            headers={"Authorization": "Basic QWRhOnNlY3JldA=="}),
    Attempt("move: a 10 KB token", "POST", "/api/games/{running}/moves", 403,
            {"action": "draw"}, token="!" + "t" * 10_000),
    Attempt("move: the seat not to move", "POST", "/api/games/{running}/moves", 409,
            {"action": "draw"}, token="seat1"),
    Attempt("move: unknown field", "POST", "/api/games/{running}/moves", 400,
            {"action": "draw", "x": 1}, token="seat0", field="x"),
    Attempt("move: expected_version a string", "POST", "/api/games/{running}/moves", 400,
            {"action": "draw", "expected_version": "1"}, token="seat0",
            field="expected_version"),
    Attempt("move: expected_version huge", "POST", "/api/games/{running}/moves", (400, 409),
            {"action": "draw", "expected_version": HUGE}, token="seat0"),
    Attempt("move: stale expected_version", "POST", "/api/games/{running}/moves", 409,
            {"action": "draw", "expected_version": 0}, token="seat0"),
    Attempt("move: move_id a number", "POST", "/api/games/{running}/moves", 400,
            {"action": "draw", "move_id": 7}, token="seat0", field="move_id"),
    Attempt("move: move_id of 10 KB", "POST", "/api/games/{running}/moves", 400,
            {"action": "draw", "move_id": "m" * 10_000}, token="seat0"),
    Attempt("move: unknown action", "POST", "/api/games/{running}/moves", 400,
            {"action": "fly"}, token="seat0", field="action"),
    Attempt("move: placement garbage", "POST", "/api/games/{running}/moves", (400, 422),
            {"action": "place", "placement": "zz\x00zz"}, token="seat0"),
    Attempt("move: body a list", "POST", "/api/games/{running}/moves", 400, [1],
            token="seat0"),
    Attempt("move: a game still waiting", "POST", "/api/games/{open}/moves", 409,
            {"action": "draw"}, token="open0"),
    # ---- reading, hints, records ----
    Attempt("legal: no token", "GET", "/api/games/{running}/legal", 403),
    Attempt("legal: a token of another game", "GET", "/api/games/{running}/legal", 403,
            token="other"),
    Attempt("view: a token of another game", "GET", "/api/games/{running}", 403,
            token="other"),
    Attempt("hint: no token", "POST", "/api/games/{running}/hint", 403, {"level": "easy"}),
    Attempt("hint: a token of another game", "POST", "/api/games/{running}/hint", 403,
            {"level": "easy"}, token="other"),
    Attempt("hint: unknown level", "POST", "/api/games/{running}/hint", 400,
            {"level": "godlike"}, token="seat0", field="level"),
    Attempt("hint: level a number", "POST", "/api/games/{running}/hint", 400, {"level": 3},
            token="seat0", field="level"),
    Attempt("hint: negative budget", "POST", "/api/games/{running}/hint", 400,
            {"level": "easy", "budget_ms": -5}, token="seat0", field="budget_ms"),
    Attempt("hint: unknown field", "POST", "/api/games/{running}/hint", 400,
            {"level": "easy", "x": 1}, token="seat0", field="x"),
    Attempt("record of a running game", "GET", "/api/games/{running}/record", 403),
    Attempt("view of an unknown game", "GET", "/api/games/nosuchgame00000", 404),
    # ---- listing ----
    Attempt("list: limit above the one maximum", "GET", "/api/games?limit=201", 400,
            field="limit"),
    Attempt("list: limit 500", "GET", "/api/games?limit=500", 400, field="limit"),
    Attempt("list: limit negative", "GET", "/api/games?limit=-1", 400, field="limit"),
    Attempt("list: limit a word", "GET", "/api/games?limit=lots", 400, field="limit"),
    Attempt("list: limit huge", "GET", f"/api/games?limit={HUGE}", 400, field="limit"),
    Attempt("list: unknown status", "GET", "/api/games?status=finished", 400, field="status"),
    # ---- paths and methods ----
    Attempt("unknown path", "GET", "/api/nothing-here", 404),
    Attempt("wrong method", "DELETE", "/api/games", 405),
    Attempt("wrong method on a game", "PUT", "/api/games/{running}", 405),
]

# The live streams: the ASGI app's own routes (services/gateway/live/), sent over a socket.
STREAM_ATTEMPTS = [
    Attempt("events: Last-Event-ID out of range", "GET", "/api/games/{running}/events", 400,
            headers={"Last-Event-ID": "99999999999999999999-0"}, field="Last-Event-ID"),
    Attempt("events: Last-Event-ID garbage", "GET", "/api/games/{running}/events", 400,
            headers={"Last-Event-ID": "abc"}),
    Attempt("events: last_event_id garbage", "GET",
            "/api/games/{running}/events?last_event_id=1-2-3", 400),
    Attempt("events: delta a word", "GET", "/api/games/{running}/events?delta=yes", 400,
            field="delta"),
    Attempt("events: unknown game", "GET", "/api/games/nosuchgame00000/events", 404),
    Attempt("events: a stranger's token", "GET", "/api/games/{running}/events", 403,
            token="other"),
    Attempt("player events: no key", "GET", "/api/players/me/events", 403),
    Attempt("player events: key malformed", "GET", "/api/players/me/events", 403,
            headers={"X-Player-Key": "not a key"}),
    Attempt("player events: nobody's key", "GET", "/api/players/me/events", 403,
            headers={"X-Player-Key": "B" * 12 + "." + "C" * 20}),
]
# fmt: on


@dataclass
class SocketReply:
    """An answer read off a socket, with the Flask test response's names `_clean` reads."""

    status_code: int
    mimetype: str
    data: bytes

    def get_json(self, silent: bool = False) -> Any:
        try:
            return json.loads(self.data)
        except ValueError:
            return None


def _send_http(base: str, attempt: Attempt, prepared: dict[str, str]) -> SocketReply:
    path = attempt.path
    for name, game_id in prepared.items():
        if name.startswith("{"):
            path = path.replace(name, game_id)
    headers = dict(attempt.headers)
    if attempt.token is not None:
        headers["Authorization"] = f"Bearer {prepared[attempt.token]}"
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    try:
        conn.request(attempt.method, path, headers=headers)
        reply = conn.getresponse()
        mimetype = (reply.getheader("Content-Type") or "").split(";")[0].strip()
        # A refusal is a whole JSON answer; an opened stream (a fault here) is not read on.
        data = reply.read() if mimetype == "application/json" else b""
        return SocketReply(reply.status, mimetype, data)
    finally:
        conn.close()


@pytest.fixture
def prepared(api: GatewayApi) -> dict[str, str]:
    """The games the attempts aim at: `open` (seat 0 taken, seat 1 open), `running` (two human
    seats, seat 0 to move), `full` (both seats taken), and `other` (a token of another game)."""
    status, made = api.post("/api/games", _create())
    assert status == 201, made
    running, tokens = api.new_game()
    full, _ = api.new_game()
    _, other_tokens = api.new_game()
    view = api.view_when(running, tokens[0], lambda v: True)
    assert view["to_move"] == [0], view
    return {
        "{open}": made["game_id"],
        "{running}": running,
        "{full}": full,
        "open0": made["token"],
        "seat0": tokens[0],
        "seat1": tokens[1],
        "other": other_tokens[0],
    }


def _send(client: FlaskClient, attempt: Attempt, prepared: dict[str, str]) -> Any:
    path = attempt.path
    for name, game_id in prepared.items():
        if name.startswith("{"):
            path = path.replace(name, game_id)
    headers = dict(attempt.headers)
    if attempt.token is not None:
        literal = attempt.token.removeprefix("!")
        token = literal if attempt.token.startswith("!") else prepared[attempt.token]
        headers["Authorization"] = f"Bearer {token}"
    if attempt.raw is not None:
        data: Any = attempt.raw
    elif attempt.body is not None:
        data = json.dumps(attempt.body)
    else:
        data = None
    return client.open(
        path, method=attempt.method, data=data, content_type=attempt.content_type, headers=headers
    )


def _clean(attempt: Attempt, reply: Any) -> list[str]:
    """What is wrong with the answer to `attempt` (nothing: a clean refusal)."""
    faults = []
    allowed = attempt.status if isinstance(attempt.status, tuple) else (attempt.status,)
    if reply.status_code not in allowed:
        faults.append(f"status {reply.status_code}, expected {allowed}")
    if reply.status_code >= 500:
        faults.append("a server error")
    body = reply.get_json(silent=True)
    if reply.mimetype != "application/json" or not isinstance(body, dict):
        return [*faults, f"not JSON: {reply.data[:120]!r}"]
    error = body.get("error")
    if set(body) != {"error"} or not isinstance(error, dict):
        return [*faults, f"not an error body: {body}"]
    for key in ("code", "message"):
        if not isinstance(error.get(key), str) or not error[key]:
            faults.append(f"no {key}: {error}")
    if attempt.field is not None and error.get("field") != attempt.field:
        faults.append(f"names field {error.get('field')!r}, expected {attempt.field!r}")
    return faults


def test_every_malformed_request_is_a_clean_refusal(
    api: GatewayApi, prepared: dict[str, str], gateway_server: str
) -> None:
    unclean: dict[str, list[str]] = {}
    for attempt in ATTEMPTS:
        faults = _clean(attempt, _send(api.client, attempt, prepared))
        if faults:
            unclean[attempt.what] = faults
    for attempt in STREAM_ATTEMPTS:
        faults = _clean(attempt, _send_http(gateway_server, attempt, prepared))
        if faults:
            unclean[attempt.what] = faults
    tried = len(ATTEMPTS) + len(STREAM_ATTEMPTS)
    print(f"malformed requests: {tried} tried, {tried - len(unclean)} clean")
    assert not unclean, unclean
    # Nothing of that changed the running game: seat 0 is still to move, at the same version.
    status, view = api.get(f"/api/games/{prepared['{running}']}", token=prepared["seat0"])
    assert status == 200 and view["to_move"] == [0], view


def test_the_list_limit_is_one_number_for_gateway_and_engine(api: GatewayApi) -> None:
    """`?limit=` takes 0-200 at the gateway and the engine alike (it was clamped at 1000 by one
    and refused above 200 by the other): 200 is served, 201 is refused by the gateway."""
    for limit in (0, 1, 200):
        status, body = api.get(f"/api/games?limit={limit}")
        assert status == 200, (limit, body)
        assert len(body["games"]) <= (limit or 50)
    status, body = api.get("/api/games?limit=201")
    assert status == 400 and body["error"]["field"] == "limit", body


def test_the_battery_names_each_attempt_once() -> None:
    names = [a.what for a in ATTEMPTS + STREAM_ATTEMPTS]
    assert len(names) == len(set(names)) >= 60
