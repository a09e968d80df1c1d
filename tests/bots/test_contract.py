"""docs/bots.md and the OpenAPI document say what the server does (issue 30.13): each test puts a
statement of the guide or of the document next to the live server's own answer (the real gateway
process, engine, AI workers and Redis), so that neither side can drift alone again.

Where they disagreed, what is right for a bot author decided which side moved:
- every event carries `version`, `status` and `to_move` (the server now adds `to_move` to the
  events that lacked it: a Metro X choice, a bot taking its seat, a seat handed to the AI), and
  every `action` is in the document's `GameEvent` and the guide's table, both made from one
  source (services/gateway/openapi/events.py);
- a move on a finished game is `409 game_over` with `refusal: game_over`, as the games' own
  refusal (server);
- `/legal` when the seat may not move is `200 {"moves": []}` (docs: no 409);
- a finished game's stream ends, any stream ends after WATCH_MAX_S (docs);
- `paused.until` is an integer of ms (docs);
- a fresh player stream starts at the oldest event its feed keeps, and `?last_event_id=` resumes
  too (docs and document);
- a bot sits at a table it made with `POST /api/games/{id}/player` (docs: the key on a create is
  not read);
- a device key's form is documented exactly, so "malformed" is said only of a key not of that
  form (document);
- the bot paths' 403/404/409 say what they mean there, not what they mean on a game's path.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from services.gateway.openapi.events import ENGINE_ACTIONS, actions_table
from tests.bots.conftest import ROOT
from tests.fixtures import waits

DOC = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
FLAT = re.sub(r"\s+", " ", DOC)  # the guide's words, wherever its lines break
KINDS = ("metro", "metrox", "underground")


def call(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    key: str | None = None,
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if key:
        headers["X-Player-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def sse(
    url: str, path: str, key: str | None = None, until: Any = None, quiet_s: float = 3.0
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(event type, id, data) of a stream, until `until(data)` or `quiet_s` without a message;
    returns when the server closes it."""
    headers = {"X-Player-Key": key} if key else {}
    request = urllib.request.Request(url + path, headers=headers)
    with urllib.request.urlopen(request, timeout=quiet_s) as reply:
        kind, event_id, data = "message", "", ""
        try:
            for raw in reply:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("id:"):
                    event_id = line[3:].strip()
                elif line.startswith("data:"):
                    data = line[5:].strip()
                elif line == "" and data:
                    doc = json.loads(data)
                    yield kind, event_id, doc
                    if until is not None and until(doc):
                        return
                    kind, data = "message", ""
        except TimeoutError:
            return


def document(url: str) -> dict[str, Any]:
    status, doc = call(url, "GET", "/api/openapi.json")
    assert status == 200
    return dict(doc)


def validator(doc: dict[str, Any], name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", **doc})


def wait_until(test: Any, what: str, timeout: float = 120.0) -> Any:
    return waits.wait_until(test, what, timeout, every=0.2)


def finished_game(url: str, kind: str) -> str:
    """A two-seat game of random AIs, played to its end."""
    seats = [{"kind": "ai", "level": "random"}] * 2
    status, made = call(url, "POST", "/api/games", {"game": kind, "rules": {"players": 2},
                                                     "seats": seats})  # fmt: skip
    assert status == 201, made
    game_id = str(made["game_id"])
    wait_until(
        lambda: call(url, "GET", f"/api/games/{game_id}")[1]["status"] == "over",
        f"{kind} {game_id} to end",
        timeout=300,
    )
    return game_id


def new_bot(url: str) -> tuple[str, str]:
    """A fresh bot account: (device key, name)."""
    name = f"contract-{uuid.uuid4().hex[:10]}"
    status, made = call(url, "POST", "/api/players", {"name": name, "bot": True})
    assert status in (200, 201), made
    return str(made["device_key"]), name


def bot_at_own_table(url: str, kind: str = "metro") -> tuple[str, str, str]:
    """A bot account seated at a table it made against the AI: (key, game id, seat token)."""
    key, name = new_bot(url)
    seats = [{"kind": "human", "name": name}, {"kind": "ai", "level": "random"}]
    status, made = call(url, "POST", "/api/games", {"game": kind, "rules": {"players": 2},
                                                     "seats": seats}, key=key)  # fmt: skip
    assert status == 201, made
    status, sat = call(url, "POST", f"/api/games/{made['game_id']}/player", {},
                       token=made["token"], key=key)  # fmt: skip
    assert status == 200, sat
    return key, str(made["game_id"]), str(made["token"])


# ---- events: every one has to_move, every action is documented -------------------------------


def test_every_event_of_every_game_matches_the_documented_event(gateway_process: str) -> None:
    url = gateway_process
    doc = document(url)
    check = validator(doc, "GameEvent")
    games_played = {kind: finished_game(url, kind) for kind in KINDS}
    # A bot sitting at its table (`bot`), a seat handed to the AI and taken back.
    _, game_id, token = bot_at_own_table(url)
    assert call(url, "POST", f"/api/games/{game_id}/leave", {}, token=token)[0] == 200
    assert call(url, "POST", f"/api/games/{game_id}/return", {}, token=token)[0] == 200
    games_played["bot"] = game_id
    seen: dict[str, set[str]] = {}
    for what, gid in games_played.items():
        stream = sse(url, f"/api/games/{gid}/events")
        events = [data for kind, _, data in stream if kind == "message"]
        assert events, what
        for event in events:
            errors = [e.message for e in check.iter_errors(event)]
            assert not errors, (what, event.get("action"), errors, event)
            seen.setdefault(what, set()).add(str(event["action"]))
    assert {"choose", "resolve"} <= seen["metrox"], seen
    assert {"place"} <= seen["metro"] and {"rail", "stop"} <= seen["underground"], seen
    assert {"bot", "left", "returned"} <= seen["bot"], seen


def test_the_guides_table_of_actions_is_the_documents() -> None:
    """docs/bots.md's table is made from the same source as `GameEvent` (print it with
    `python -m services.gateway.openapi.events`)."""
    assert actions_table() in DOC, "docs/bots.md's table of event actions is out of date:\n" + (
        actions_table()
    )
    assert "holds `version`, `to_move`, `status`" in FLAT


def test_every_action_the_engine_writes_is_documented() -> None:
    """An action named in the engine's code (`"action": "..."`) is one of ENGINE_ACTIONS: a new
    kind of event cannot reach the streams without its line in the document and the guide."""
    written = set()
    for path in (ROOT / "services" / "engine").glob("*.py"):
        written |= set(re.findall(r'"action": "([a-z_]+)"', path.read_text(encoding="utf-8")))
    missing = written - set(ENGINE_ACTIONS)
    assert not missing, (
        f"engine actions {sorted(missing)} are not in services/gateway/openapi/events.py's "
        "ENGINE_ACTIONS (then paste `python -m services.gateway.openapi.events` into "
        "docs/bots.md's table)"
    )


# ---- streams: which end, where a fresh one starts ---------------------------------------------


def test_a_finished_games_stream_ends_and_the_guide_says_so(gateway_process: str) -> None:
    game_id = finished_game(gateway_process, "metrox")
    started = time.monotonic()
    events = list(sse(gateway_process, f"/api/games/{game_id}/events", quiet_s=20))
    assert events and events[-1][2]["status"] == "over"
    assert time.monotonic() - started < 15, "the stream of a finished game stayed open"
    assert "never ends by itself" not in DOC
    assert "A finished game's stream ends after its last event" in FLAT
    doc = document(gateway_process)
    text = doc["paths"]["/api/games/{game_id}/events"]["get"]["description"]
    assert "A finished game's stream ends" in text and "WATCH_MAX_S" in text


def test_a_fresh_player_stream_replays_and_last_event_id_resumes(gateway_process: str) -> None:
    url = gateway_process
    key, name = new_bot(url)
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "name": name}]
    made = [call(url, "POST", "/api/games", {"game": "metro", "seats": seats})[1] for _ in "ab"]
    invited = [e for _, _, e in sse(url, "/api/players/me/events", key=key)]
    # A fresh stream starts at the oldest event the feed keeps: both invitations, in order.
    assert [e["game_id"] for e in invited] == [m["game_id"] for m in made], invited
    first_id = next(i for _, i, _ in sse(url, "/api/players/me/events", key=key))
    after = [e for _, _, e in sse(url, f"/api/players/me/events?last_event_id={first_id}", key=key)]
    assert [e["game_id"] for e in after] == [made[1]["game_id"]]
    doc = document(url)
    op = doc["paths"]["/api/players/me/events"]["get"]
    assert "last_event_id" in {p["name"] for p in op["parameters"]}
    assert "oldest event" in op["description"]
    assert "starts at the oldest event its feed keeps" in FLAT and "?last_event_id=" in FLAT


# ---- moves, legal moves, pauses ----------------------------------------------------------------


def test_legal_out_of_turn_is_an_empty_list_never_409(gateway_process: str) -> None:
    url = gateway_process
    seats = [{"kind": "human", "name": "A"}, {"kind": "open"}]
    status, made = call(url, "POST", "/api/games", {"game": "metro", "seats": seats})
    assert status == 201
    waiting = call(url, "GET", f"/api/games/{made['game_id']}/legal", token=made["token"])
    assert waiting[0] == 200 and waiting[1]["moves"] == [], waiting
    status, joined = call(url, "POST", f"/api/games/{made['game_id']}/join", {"name": "B"})
    assert status == 200
    view = call(url, "GET", f"/api/games/{made['game_id']}", token=made["token"])[1]
    idle = joined["token"] if 0 in view["to_move"] else made["token"]
    status, legal = call(url, "GET", f"/api/games/{made['game_id']}/legal", token=idle)
    assert status == 200 and legal["moves"] == [], legal
    doc = document(url)
    assert "409" not in doc["paths"]["/api/games/{game_id}/legal"]["get"]["responses"]
    assert '`200` with `"moves": []`, never a `409`' in FLAT


def test_a_move_on_a_finished_game_names_its_refusal(gateway_process: str) -> None:
    url = gateway_process
    _, game_id, token = bot_at_own_table(url, "metrox")

    # The bot plays its own seat to the end, as fast as its answers come (the AI on an away
    # seat would take a person's pace: 2 s a move and a minute's grace before the last).
    def played_to_the_end() -> bool:
        view = call(url, "GET", f"/api/games/{game_id}", token=token)[1]
        if view["status"] == "over":
            return True
        moves = call(url, "GET", f"/api/games/{game_id}/legal", token=token)[1]["moves"]
        if moves:
            move = {**moves[0], "move_id": uuid.uuid4().hex}
            move.pop("preview", None)
            call(url, "POST", f"/api/games/{game_id}/moves", move, token=token)
        return False

    wait_until(played_to_the_end, "the game to end", timeout=300)
    status, answer = call(url, "POST", f"/api/games/{game_id}/moves",
                          {"pass": True, "move_id": uuid.uuid4().hex}, token=token)  # fmt: skip
    assert status == 409, answer
    assert answer["error"]["code"] == "game_over" and answer["error"]["refusal"] == "game_over"
    assert "`409 game_over` (with `refusal`: `game_over`)" in FLAT


def test_a_paused_bot_hears_until_as_ms(gateway_process: str) -> None:
    url = gateway_process
    key, game_id, token = bot_at_own_table(url, "metro")
    before_ms = int(time.time() * 1000)
    wait_until(lambda: 0 in call(url, "GET", f"/api/games/{game_id}")[1]["to_move"], "a turn")
    legal = call(url, "GET", f"/api/games/{game_id}/legal", token=token)[1]
    places = {m["placement"] for m in legal["moves"] if m["action"] == "place"}
    tile = next(iter(places))[:4]
    square = next(f"{r}{c}" for r in range(8) for c in range(8) if tile + f"{r}{c}" not in places)
    for _ in range(5):  # BOT_PAUSE_ILLEGAL illegal moves in a row (refused: still its turn)
        move = {"action": "place", "placement": tile + square}
        status, answer = call(url, "POST", f"/api/games/{game_id}/moves", move, token=token)
        assert status == 422, answer
    doc = document(url)
    check = validator(doc, "PlayerEvent")
    paused = wait_until(
        lambda: [e for _, _, e in sse(url, "/api/players/me/events", key=key)
                 if e["type"] == "paused"],
        "the paused event",
    )  # fmt: skip
    assert isinstance(paused[0]["until"], int) and paused[0]["until"] > before_ms, paused
    assert not list(check.iter_errors(paused[0]))
    ladder = call(url, "GET", "/api/players/me/ladder", key=key)[1]
    assert isinstance(ladder["paused"]["until"], int)
    shown = re.search(r'^\{"type": "paused".*$', DOC, re.M)
    assert shown, "the guide shows no paused event"
    assert isinstance(json.loads(shown.group(0))["until"], int), shown.group(0)


# ---- who the bot is: keys, its own table -------------------------------------------------------


def test_sitting_a_bot_at_its_own_table_is_documented(gateway_process: str) -> None:
    url = gateway_process
    key, name = new_bot(url)
    seats = [{"kind": "human", "name": name}, {"kind": "ai", "level": "random"}]
    status, made = call(url, "POST", "/api/games", {"game": "metro", "seats": seats}, key=key)
    assert status == 201
    mine = call(url, "GET", "/api/players/me/games", key=key)[1]["games"]
    assert made["game_id"] not in {g["game_id"] for g in mine}, "the key on a create is read now"
    status, sat = call(url, "POST", f"/api/games/{made['game_id']}/player", {},
                       token=made["token"], key=key)  # fmt: skip
    assert status == 200 and sat["seat"] == 0
    mine = call(url, "GET", "/api/players/me/games", key=key)[1]["games"]
    assert made["game_id"] in {g["game_id"] for g in mine}
    assert "POST /api/games/{id}/player" in FLAT and "a create does not read the key" in FLAT


def test_malformed_is_said_only_of_a_key_not_of_the_documented_form(gateway_process: str) -> None:
    url = gateway_process
    doc = document(url)
    form = re.compile(doc["paths"]["/api/players/me"]["get"]["parameters"][0]["schema"]["pattern"])
    real, _ = new_bot(url)
    assert form.fullmatch(real), real
    player, secret = real.split(".")
    other = "B" if secret[0] == "A" else "A"  # a secret that differs from the real one
    unknown = [f"{player}.{other}{secret[1:]}", "B" * 12 + "." + "C" * 20]
    for key in unknown:
        assert form.fullmatch(key)
        status, answer = call(url, "GET", "/api/players/me", key=key)
        assert status == 403 and "malformed" not in answer["error"]["message"], answer
    for key in ("abc.def", "x" * 40):
        assert not form.fullmatch(key), f"{key} is of the documented form"
        status, answer = call(url, "GET", "/api/players/me", key=key)
        assert status == 403 and answer["error"]["code"] == "bad_player_key", answer


def test_the_bot_paths_errors_say_what_they_mean_there(gateway_process: str) -> None:
    doc = document(gateway_process)
    for path in ("/api/invitations/{invitation_id}/accept", "/api/players/me/ladder",
                 "/api/players/me/events"):  # fmt: skip
        for op in doc["paths"][path].values():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            said = {s: r["description"] for s, r in op["responses"].items()}
            assert "seat token" not in said.get("403", ""), (path, said["403"])
            assert "X-Player-Key" in said.get("403", "X-Player-Key"), (path, said)
            assert "game" not in said.get("404", "").lower(), (path, said["404"])
    status, answer = call(gateway_process, "POST", "/api/invitations/abc/accept",
                          key=new_bot(gateway_process)[0])  # fmt: skip
    assert status == 404 and answer["error"]["code"] == "invitation_not_found"


@pytest.mark.parametrize("kind", ["bash", "python"])
def test_the_guide_keeps_its_runnable_examples(kind: str) -> None:
    """The one-request-per-move bot is one of the guide's runnable examples."""
    assert re.search(rf"^```{kind}\n", DOC, re.M)
    assert "?delta=1" in FLAT and "one request per move" in FLAT
