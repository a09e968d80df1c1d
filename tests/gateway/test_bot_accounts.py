"""Bot accounts, invitations, the player's own event stream and the bot ladder (issue 24), over
HTTP through a real gateway (on a socket, for the streams) to a real engine and AI process on a
real Redis. The engine of this module has short bot settings (a ladder round a second, two games
at once, a pause after three illegal moves) and a Redis database of its own, so its ladder sees
only this module's bots.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask

from services.gateway.app import create_app
from services.gateway.live.asgi import GatewayAsgi
from tests.fixtures.ai import start_ai
from tests.fixtures.engine import RunningEngine, start_engine
from tests.fixtures.gateway import (
    GatewayApi,
    asgi_server,
    gateway_config,
    live_limits,
    relaxed_limits,
)
from tests.fixtures.gateway import api_error as error
from tests.fixtures.waits import wait_until

BOT_ENV = {
    "GAME_TTL_WAITING_S": "1800",
    "BOT_MAX_GAMES": "2",
    "BOT_PAUSE_ILLEGAL": "3",
    "BOT_PAUSE_TIMEOUTS": "2",
    "BOT_CALLS_PER_MINUTE": "40",
    "LADDER_INTERVAL_S": "1",
    "LADDER_GAMES_PER_HOUR": "1",
    "LADDER_AI_LEVELS": "random",
    "LADDER_MOVE_S": "120",
}
WAIT_S = 120.0  # a loaded machine: generous, never relied on for speed


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    parts = urllib.parse.urlsplit(redis_url)
    own = urllib.parse.urlunsplit(parts._replace(path="/11"))
    redis.Redis.from_url(own).flushdb()
    logs: Path = tmp_path_factory.mktemp("bot-stack")
    engine: RunningEngine = start_engine(logs / "engine", own, BOT_ENV)
    ai = start_ai(logs / "ai", engine, env={"AI_BOT_WORKERS": "2"})
    app = create_app(gateway_config(engine.address, ai.address))
    app.config["BOT_TEST_TARGETS"] = (engine.address, ai.address)
    try:
        yield app
    finally:
        app.extensions["metro_gateway"].backends.close()
        ai.stop()
        engine.close_channels()
        engine.process.stop()


@pytest.fixture(scope="module")
def server(stack: Flask) -> Iterator[str]:
    """The module's gateway on a real socket, as production serves it (the ASGI app: the
    player's stream by the hub): host:port."""
    with asgi_server(GatewayAsgi(stack, live_limits())) as url:
        yield url.removeprefix("http://")


@pytest.fixture
def api(stack: Flask) -> GatewayApi:
    return GatewayApi(stack.test_client())


def new_bot(api: GatewayApi, prefix: str = "bot") -> dict[str, Any]:
    status, made = api.post(
        "/api/players", {"name": f"{prefix}-{uuid.uuid4().hex[:8]}", "bot": True}
    )
    assert status == 201, made
    return made


def key(player: dict[str, Any]) -> dict[str, str]:
    return {"X-Player-Key": player["device_key"]}


def invite(
    api: GatewayApi, bot: dict[str, Any], game: str = "metro", **extra: Any
) -> dict[str, Any]:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "name": bot["name"]}]
    body = {"game": game, "rules": {"players": 2}, "seats": seats, **extra}
    status, made = api.post("/api/games", body)
    assert status == 201, made
    return made


class Stream:
    """GET /api/players/me/events on a socket; its messages arrive on `events` as (id, data)."""

    def __init__(self, server: str, bot: dict[str, Any], last_event_id: str = "") -> None:
        host, port = server.split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=WAIT_S)
        headers = {"X-Player-Key": bot["device_key"], "Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        self.conn.request("GET", "/api/players/me/events", headers=headers)
        self.sock = self.conn.sock  # the response takes it over from the connection
        self.reply = self.conn.getresponse()
        assert self.reply.status == 200, self.reply.read()
        assert self.reply.getheader("Content-Type", "").startswith("text/event-stream")
        self.events: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.received: list[str] = []  # every id this connection read, in order
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event_id, data = "", ""
        try:
            for raw in self.reply:
                line = raw.decode().rstrip("\n")
                if line.startswith("id: "):
                    event_id = line[4:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif not line and data:
                    self.received.append(event_id)
                    self.events.put((event_id, json.loads(data)))
                    event_id, data = "", ""
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # the test cut the connection (a closed response has no file left)

    def next(self, kind: str, **match: Any) -> tuple[str, dict[str, Any]]:
        """The next message of this type (and these fields); earlier others are skipped."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            try:
                event_id, doc = self.events.get(timeout=1.0)
            except queue.Empty:
                continue
            if doc["type"] == kind and all(doc.get(k) == v for k, v in match.items()):
                return event_id, doc
        raise AssertionError(f"no {kind} event {match} in time")

    def until(self, kind: str, **match: Any) -> list[tuple[str, dict[str, Any]]]:
        """Every message up to and including the next of this type (and these fields)."""
        out: list[tuple[str, dict[str, Any]]] = []
        deadline = time.monotonic() + WAIT_S
        while True:
            assert time.monotonic() < deadline, f"no {kind} event {match} in time after {out}"
            try:
                event_id, doc = self.events.get(timeout=1.0)
            except queue.Empty:
                continue
            out.append((event_id, doc))
            if doc["type"] == kind and all(doc.get(k) == v for k, v in match.items()):
                return out

    def cut(self) -> None:
        """The connection drops (as a network would cut it)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]
        self.reply.close()
        self.conn.close()


def play(api: GatewayApi, game_id: str, token: str, seat: int) -> bool:
    """One greedy move (a placement over a draw) if `seat` is to move; whether it moved."""
    status, legal = api.get(f"/api/games/{game_id}/legal", token=token)
    assert status == 200, legal
    if not legal["moves"]:
        return False
    move = next((m for m in legal["moves"] if m.get("action") == "place"), legal["moves"][0])
    status, after = api.post(
        f"/api/games/{game_id}/moves",
        {**move, "expected_version": legal["version"], "move_id": uuid.uuid4().hex},
        token=token,
    )
    assert status in (200, 409), after
    return status == 200


# ---- bot accounts, marked ---------------------------------------------------------------------


def test_a_bot_account_is_marked_and_its_name_reserves_a_seat(api: GatewayApi) -> None:
    bot = new_bot(api)
    assert set(bot) == {"player_id", "name", "device_key", "recovery_code"}
    assert api.get("/api/players/me", headers=key(bot)) == (
        200, {"player_id": bot["player_id"], "name": bot["name"], "bot": True},
    )  # fmt: skip
    status, person = api.post("/api/players", {"name": "Ada"})
    assert api.get("/api/players/me", headers=key(person))[1]["bot"] is False
    status, body = api.post("/api/players", {"name": bot["name"].upper(), "bot": True})
    assert status == 409 and error(body)["code"] == "bot_name_taken", body
    status, body = api.post("/api/players", {"name": "x", "bot": "yes"})
    assert status == 400 and error(body)["field"] == "bot", body

    status, body = api.post(
        "/api/games",
        {"game": "metro", "seats": [{"kind": "human"}, {"kind": "bot", "name": "nobody-here"}]},
    )
    assert status == 400 and error(body)["field"] == "seats[1].name", body
    assert "nobody-here" in error(body)["message"]

    made = invite(api, bot)
    status, view = api.get(f"/api/games/{made['game_id']}")
    assert view["seats"][1]["bot"] is True and view["seats"][1]["name"] == bot["name"]
    assert view["status"] == "waiting" and "bot" not in view["seats"][0]
    status, listed = api.get("/api/games?status=open&game=metro&limit=200")
    mine = next(g for g in listed["games"] if g["game_id"] == made["game_id"])
    assert mine["seats"][1]["bot"] is True
    status, body = api.post(f"/api/games/{made['game_id']}/join", {"name": "Eve"})
    assert status == 409 and error(body)["code"] == "no_open_seat", body  # reserved


# ---- invitations and the stream ---------------------------------------------------------------


def test_invitation_accepted_the_bot_plays_and_its_stream_resumes_after_a_cut(
    api: GatewayApi, server: str
) -> None:
    bot = new_bot(api)
    stream = Stream(server, bot)
    made = invite(api, bot)
    game_id = made["game_id"]
    _, invitation = stream.next("invitation", game_id=game_id)
    assert invitation == {
        "type": "invitation", "invitation_id": invitation["invitation_id"], "game_id": game_id,
        "game": "metro", "rules": invitation["rules"], "seat": 1, "from": "Ada", "ladder": False,
    }  # fmt: skip
    iid = invitation["invitation_id"]
    status, body = api.post(f"/api/invitations/{iid}/accept", {})
    assert status == 403, body  # the bot's key is needed
    other = new_bot(api)
    status, body = api.post(f"/api/invitations/{iid}/accept", {}, headers=key(other))
    assert status == 403 and error(body)["code"] == "permission_denied", body
    status, seat = api.post(f"/api/invitations/{iid}/accept", {}, headers=key(bot))
    assert status == 200 and seat["game_id"] == game_id and seat["seat"] == 1, seat
    bot_token, ada_token = seat["token"], made["token"]
    status, view = api.get(f"/api/games/{game_id}")
    assert view["status"] == "playing" and view["seats"][1]["bot"] is True
    assert view["seats"][1]["kind"] == "human"

    seen: list[tuple[str, dict[str, Any]]] = []
    cut_done = False
    deadline = time.monotonic() + 4 * WAIT_S
    while time.monotonic() < deadline:
        status, view = api.get(f"/api/games/{game_id}")
        if view["status"] == "over":
            break
        if 0 in view["to_move"]:
            play(api, game_id, ada_token, 0)
            continue
        event_id, turn = stream.next("your_turn", game_id=game_id)
        seen.append((event_id, turn))
        assert turn["seat"] == 1
        play(api, game_id, bot_token, 1)
        if len(seen) == 3 and not cut_done:  # the connection drops; moves go on meanwhile
            stream.cut()
            first = stream.received
            for _ in range(2):
                status, view = api.get(f"/api/games/{game_id}")
                if 0 in view["to_move"]:
                    play(api, game_id, ada_token, 0)
                elif 1 in view["to_move"]:
                    play(api, game_id, bot_token, 1)
            stream = Stream(server, bot, last_event_id=first[-1])
            cut_done = True
    else:
        raise AssertionError("the game did not end in time")
    _, over = stream.next("game_over", game_id=game_id)
    assert over["scores"] == [s["score"] for s in view["seats"]] and over["seat"] == 1
    stream.cut()
    assert cut_done

    # Everything the two connections gave, against the stream read whole from its start: the
    # second picked up right after the first's last event, nothing lost, nothing twice.
    whole = Stream(server, bot)
    everything = whole.until("game_over", game_id=game_id)
    whole.cut()
    ids = [i for i, _ in everything]
    assert everything[-1][1]["type"] == "game_over"
    assert first + stream.received == ids  # in order, each once
    assert [e for e in everything if e[1]["type"] == "invitation"] == [(ids[0], invitation)]
    assert seen[0] in everything


def test_a_declined_invitation_opens_the_seat(api: GatewayApi, server: str) -> None:
    bot = new_bot(api)
    stream = Stream(server, bot)
    made = invite(api, bot)
    _, invitation = stream.next("invitation", game_id=made["game_id"])
    stream.cut()
    iid = invitation["invitation_id"]
    status, body = api.post(f"/api/invitations/{iid}/decline", {}, headers=key(bot))
    assert (status, body) == (200, {"declined": True})
    assert api.post(f"/api/invitations/{iid}/decline", {}, headers=key(bot)) == (
        200, {"declined": True},
    )  # fmt: skip
    status, body = api.post(f"/api/invitations/{iid}/accept", {}, headers=key(bot))
    assert status == 409 and error(body)["code"] == "invitation_declined", body
    status, view = api.get(f"/api/games/{made['game_id']}")
    assert view["seats"][1]["kind"] == "open" and "bot" not in view["seats"][1]
    status, joined = api.post(f"/api/games/{made['game_id']}/join", {"name": "Eve"})
    assert status == 200 and joined["seat"] == 1, joined
    status, body = api.post("/api/invitations/not-an-id!/accept", {}, headers=key(bot))
    assert status in (400, 404), body


def test_bot_max_games(api: GatewayApi, server: str) -> None:
    bot = new_bot(api)
    stream = Stream(server, bot)
    games = [invite(api, bot)["game_id"] for _ in range(3)]
    ids = [stream.next("invitation", game_id=g)[1]["invitation_id"] for g in games]
    stream.cut()
    for iid in ids[:2]:
        status, body = api.post(f"/api/invitations/{iid}/accept", {}, headers=key(bot))
        assert status == 200, body
    status, body = api.post(f"/api/invitations/{ids[2]}/accept", {}, headers=key(bot))
    assert status == 409 and error(body)["code"] == "bot_max_games", body
    assert "BOT_MAX_GAMES" in error(body)["message"]
    # An accept repeated is refused as docs/bots.md says (no second token), and counts no game.
    status, again = api.post(f"/api/invitations/{ids[0]}/accept", {}, headers=key(bot))
    assert status == 409 and error(again)["code"] == "invitation_gone", again


def test_twenty_accepts_at_once_give_one_token(stack: Flask, api: GatewayApi, server: str) -> None:
    """Issue 30 item 5: an invitation accepted by 20 requests at once gives one seat token;
    the other 19 get `409 invitation_gone` (docs/bots.md), never a second working token."""
    bot = new_bot(api)
    stream = Stream(server, bot)
    made = invite(api, bot)
    _, invitation = stream.next("invitation", game_id=made["game_id"])
    stream.cut()
    barrier = threading.Barrier(20)
    answers: list[tuple[int, Any]] = []

    def accept() -> None:
        own = GatewayApi(stack.test_client())
        barrier.wait()
        answers.append(
            own.post(f"/api/invitations/{invitation['invitation_id']}/accept", {}, headers=key(bot))
        )

    threads = [threading.Thread(target=accept) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    tokens = [body["token"] for status, body in answers if status == 200]
    refused = [error(body)["code"] for status, body in answers if status == 409]
    assert len(answers) == 20 and len(tokens) == 1, answers
    assert refused == ["invitation_gone"] * 19, answers


def test_repeated_illegal_moves_pause_the_bot(api: GatewayApi, server: str) -> None:
    bot = new_bot(api)
    stream = Stream(server, bot)
    made = invite(api, bot)
    _, invitation = stream.next("invitation", game_id=made["game_id"])
    status, seat = api.post(
        f"/api/invitations/{invitation['invitation_id']}/accept", {}, headers=key(bot)
    )
    assert status == 200, seat
    game_id = made["game_id"]
    play(api, game_id, made["token"], 0)  # Ada moves: the bot is to move
    stream.next("your_turn", game_id=game_id)
    assert api.get("/api/players/me/ladder", headers=key(bot))[1]["paused"] is None
    for _ in range(3):
        status, body = api.post(
            f"/api/games/{game_id}/moves",
            {"action": "place", "placement": "A1", "move_id": uuid.uuid4().hex},
            token=seat["token"],
        )
        assert status == 400 and error(body)["field"] == "placement", body
    _, paused = stream.next("paused")
    stream.cut()
    assert "illegal moves 3 times in a row" in paused["reason"]
    assert paused["until"] > time.time() * 1000
    status, ladder = api.get("/api/players/me/ladder", headers=key(bot))
    assert status == 200 and ladder["paused"]["reason"] == paused["reason"], ladder


def test_repeated_time_outs_pause_the_bot(api: GatewayApi, server: str) -> None:
    """A bot that accepts games and then never moves: its time runs out in two games (the AI
    plays its seat), and it is paused (BOT_PAUSE_TIMEOUTS=2 here)."""
    bot = new_bot(api)
    stream = Stream(server, bot)
    clock = {"mode": "realtime", "move_s": 5, "bank_s": 0}
    for _ in range(2):
        made = invite(api, bot, clock=clock)
        _, invitation = stream.next("invitation", game_id=made["game_id"])
        status, seat = api.post(
            f"/api/invitations/{invitation['invitation_id']}/accept", {}, headers=key(bot)
        )
        assert status == 200, seat
        play(api, made["game_id"], made["token"], 0)  # the bot's turn: it never answers
    _, paused = stream.next("paused")
    stream.cut()
    assert "timed out 2 times in a row" in paused["reason"], paused


# ---- the ladder ---------------------------------------------------------------------------------


def test_the_ladder_plays_and_rates_a_round(api: GatewayApi, server: str) -> None:
    bot = new_bot(api, "ladder")
    status, body = api.call("PUT", "/api/players/me/ladder", {"games": ["chess"]}, headers=key(bot))
    assert status == 400 and error(body)["code"] == "wrong_game", body
    status, person = api.post("/api/players", {"name": "Ada"})
    status, body = api.call(
        "PUT", "/api/players/me/ladder", {"games": ["metro"]}, headers=key(person)
    )
    assert status == 409 and error(body)["code"] == "not_a_bot", body
    stream = Stream(server, bot)
    status, ladder = api.call(
        "PUT", "/api/players/me/ladder", {"games": ["metro"]}, headers=key(bot)
    )
    assert (status, ladder) == (200, {"games": ["metro"], "paused": None})
    _, invitation = stream.next("invitation", ladder=True)
    assert invitation["from"] == "ladder" and invitation["game"] == "metro"
    status, seat = api.post(
        f"/api/invitations/{invitation['invitation_id']}/accept", {}, headers=key(bot)
    )
    assert status == 200, seat
    game_id = seat["game_id"]
    status, table = api.get(f"/api/games/{game_id}/table")
    assert table["rated"] is True
    assert any(s["player_id"] == "ai:random" for s in table["seats"])

    def over() -> bool:
        """Whether the ladder game is over; the bot's move made when it is the bot's turn."""
        _, view = api.get(f"/api/games/{game_id}")
        if view["status"] == "over":
            return True
        if seat["seat"] in view["to_move"]:
            play(api, game_id, seat["token"], seat["seat"])
        return False

    wait_until(over, "the ladder game to end", timeout=4 * WAIT_S, every=0.05)
    stream.next("game_over", game_id=game_id)
    stream.cut()

    def rated() -> Any:
        _, board = api.get("/api/leaderboard/metro?limit=200")
        entry = next((p for p in board["players"] if p["player_id"] == bot["player_id"]), None)
        return entry is not None and (entry, board)

    entry, board = wait_until(rated, "the ladder game to be rated", timeout=WAIT_S, every=0.5)
    assert entry["bot"] is True and entry["games"] == 1 and entry["ai"] is False
    assert any(p["player_id"] == "ai:random" and not p["bot"] for p in board["players"])
    status, people = api.get("/api/leaderboard/metro?limit=200&bots=0")
    assert status == 200 and all(not p["bot"] for p in people["players"])
    assert bot["player_id"] not in {p["player_id"] for p in people["players"]}
    assert api.get("/api/leaderboard/metro?bots=maybe")[0] == 400


def test_the_ladder_pairs_two_bots_with_each_other(api: GatewayApi, server: str) -> None:
    """Two bots new to the ladder (the only ones in its Underground part) meet each other
    first: one rated table, both seats theirs, no AI seat."""
    bots = [new_bot(api, "pair") for _ in range(2)]
    streams = [Stream(server, bot) for bot in bots]
    for bot in bots:
        status, ladder = api.call(
            "PUT", "/api/players/me/ladder", {"games": ["underground"]}, headers=key(bot)
        )
        assert status == 200, ladder
    found = [stream.next("invitation", ladder=True, game="underground")[1] for stream in streams]
    for stream in streams:
        stream.cut()
    assert found[0]["game_id"] == found[1]["game_id"]
    assert {i["seat"] for i in found} == {0, 1}
    status, view = api.get(f"/api/games/{found[0]['game_id']}")
    assert [s["kind"] for s in view["seats"]] == ["open", "open"]
    assert {s["name"] for s in view["seats"]} == {b["name"] for b in bots}
    for bot, invitation in zip(bots, found, strict=True):
        status, seat = api.post(
            f"/api/invitations/{invitation['invitation_id']}/accept", {}, headers=key(bot)
        )
        assert status == 200, seat
    status, table = api.get(f"/api/games/{found[0]['game_id']}/table")
    assert table["rated"] is True
    assert {s["player_id"] for s in table["seats"]} == {b["player_id"] for b in bots}


# ---- limits -----------------------------------------------------------------------------------


def test_a_bot_has_its_own_rates(api: GatewayApi, stack: Flask) -> None:
    """The engine counts a bot's calls per bot (BOT_CALLS_PER_MINUTE, 40 here), wherever they
    come from; the gateway counts the bot API per client (RATE_LIMIT_BOTS)."""
    bot = new_bot(api)
    codes = [api.get("/api/players/me/ladder", headers=key(bot))[0] for _ in range(41)]
    assert codes[:40] == [200] * 40 and codes[40] == 429, codes
    status, body = api.get("/api/players/me/ladder", headers=key(bot))
    assert status == 429 and error(body)["code"] == "rate_limited", body

    engine_target, ai_target = stack.config["BOT_TEST_TARGETS"]
    config = gateway_config(engine_target, ai_target, LIMITS=relaxed_limits(bots="3/minute"))
    strict = create_app(config)
    try:
        client = GatewayApi(strict.test_client())
        other = new_bot(client)
        codes = [client.get("/api/players/me/ladder", headers=key(other))[0] for _ in range(4)]
        assert codes == [200, 200, 200, 429], codes
    finally:
        strict.extensions["metro_gateway"].backends.close()
