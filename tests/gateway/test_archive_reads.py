"""The archive's read side over HTTP (issue 29 items 4-6): the real gateway, engine, AI workers
and Redis (tests/fixtures) and a real PostgreSQL with the archive's schema (archive_rows.py).

A finished game whose live copy is gone (its Redis keys deleted, as expiry does) still answers
its view, record and analysis in the same shapes; profiles, history pages, exports, erasure and
the privacy of daily attempts are read from rows written as the archiver writes them.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask

import games
from services.common.auth import token_hash
from services.common.postgres_server import PostgresServer
from services.gateway.app import create_app
from tests.fixtures.gateway import GatewayApi, api_error, gateway_config
from tests.fixtures.postgres import fresh_database
from tests.fixtures.processes import free_port
from tests.fixtures.waits import wait_until
from tests.gateway.archive_rows import add_game, add_player, new_id, random_record

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def archive_url(postgres_server: PostgresServer) -> str:
    return fresh_database(postgres_server)


@pytest.fixture
def app(engine: Any, ai: Any, archive_url: str) -> Iterator[Flask]:
    made = create_app(gateway_config(engine.address, ai.target, DATABASE_URL=archive_url))
    yield made
    made.extensions["metro_archive"].close()
    made.extensions["metro_gateway"].backends.close()


@pytest.fixture
def api(app: Flask) -> GatewayApi:
    return GatewayApi(app.test_client())


def new_player(api: GatewayApi, name: str) -> tuple[str, dict[str, str]]:
    """A player made through the API: its id and the header that presents its device key."""
    status, made = api.post("/api/players", {"name": name})
    assert status == 201, made
    return made["player_id"], {"X-Player-Key": made["device_key"]}


def two_seats(a: str, b: str, result_a: str = "w", rating: int | None = None) -> list[Any]:
    other = {"w": "l", "l": "w", "d": "d"}[result_a]
    first: dict[str, Any] = {"player_id": a, "score": 30, "result": result_a}
    if rating is not None:
        first.update(rating_before=rating - 100, rating_after=rating)
    second = {"player_id": b, "score": 20, "result": other} if b else {
        "level": "easy", "score": 20, "result": other}  # fmt: skip
    return [first, second]


def play_to_the_end(
    api: GatewayApi, started: tuple[str, list[str]] | None = None
) -> tuple[str, list[str]]:
    """A 2-player game of people played out through the API (the last legal move each turn)."""
    game_id, tokens = started or api.new_game(2)
    for _ in range(400):
        status, view = api.get(f"/api/games/{game_id}")
        assert status == 200, view
        if view["status"] == "over":
            return game_id, tokens
        seat = view["to_move"][0]
        status, legal = api.get(f"/api/games/{game_id}/legal", token=tokens[seat])
        assert status == 200 and legal["moves"], legal
        status, moved = api.post(f"/api/games/{game_id}/moves", legal["moves"][-1], tokens[seat])
        assert status == 200, moved
    raise AssertionError("the game did not end")


def expire(redis_url: str, game_id: str) -> None:
    """What GAME_TTL_FINISHED_S does to a finished game: every key of it goes."""
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"*{{{game_id}}}*", count=1000))
        assert keys
        client.delete(*keys)
    finally:
        client.close()


def finished_analysis(api: GatewayApi, game_id: str, timeout: float = 480.0) -> dict[str, Any]:
    """The game's analysis once the AI workers are done with it (asserted: done, not failed)."""

    def settled() -> Any:
        status, analysis = api.get(f"/api/games/{game_id}/analysis")
        assert status == 200, analysis
        return analysis["status"] in ("done", "failed") and analysis

    analysis = wait_until(settled, f"the analysis of {game_id}", timeout=timeout, every=0.5)
    assert analysis["status"] == "done", analysis
    return dict(analysis)


def test_an_expired_game_answers_its_view_record_and_analysis_from_the_archive(
    api: GatewayApi, archive_url: str, redis_url: str
) -> None:
    game_id, tokens = play_to_the_end(api)
    before = {
        "public": api.get(f"/api/games/{game_id}")[1],
        "seat": api.get(f"/api/games/{game_id}", token=tokens[1])[1],
        "record": api.get(f"/api/games/{game_id}/record")[1],
    }
    record = before["record"]
    scores = before["public"]["seats"]
    winners = before["public"]["winners"]
    add_game(
        archive_url, record,
        [{"name": s["name"], "score": s["score"], "result": "w" if i in winners else "l"}
         for i, s in enumerate(scores)],
        game_id=game_id, version=before["public"]["version"],
    )  # fmt: skip
    expire(redis_url, game_id)
    assert api.get(f"/api/games/{game_id}/legal", token=tokens[0])[0] == 404  # live: gone

    status, view = api.get(f"/api/games/{game_id}")
    assert status == 200, view
    for key in ("last_event_id",):  # the archive keeps the end's id; the test wrote a stand-in
        view.pop(key)
        before["public"].pop(key)
    assert view == before["public"]
    status, record_after = api.get(f"/api/games/{game_id}/record")
    assert status == 200 and record_after == record
    status, analysis = api.get(f"/api/games/{game_id}/analysis")
    assert status == 200 and analysis["status"] == "none", analysis

    # POST on the archived game: the engine is given the record and the AI workers analyse it.
    status, queued = api.post(f"/api/games/{game_id}/analysis")
    assert status == 202 and queued["status"] in ("queued", "running", "done"), queued
    analysis = finished_analysis(api, game_id)
    assert analysis["game_id"] == game_id and analysis["moves"]


def test_an_archived_analysis_is_answered_and_an_unknown_game_is_still_404(
    api: GatewayApi, archive_url: str
) -> None:
    a = new_id(12)
    add_player(archive_url, a, "Ada")
    document = {"game_id": "", "moves": [{"label": "best"}], "seats": []}
    game_id = new_id()
    document["game_id"] = game_id
    add_game(archive_url, random_record(4), two_seats(a, ""), game_id=game_id,
             analysis=zlib.compress(json.dumps(document).encode()))  # fmt: skip
    status, body = api.get(f"/api/games/{game_id}/analysis")
    assert status == 200 and body["status"] == "done" and body["moves"] == document["moves"]
    status, body = api.post(f"/api/games/{game_id}/analysis")
    assert status == 202 and body["status"] == "done"
    unknown = new_id()
    for path in ("", "/record", "/analysis"):
        status, body = api.get(f"/api/games/{unknown}{path}")
        assert status == 404 and api_error(body)["code"] == "game_not_found", (path, body)


def test_profile_history_filters_and_a_cursor_stable_while_games_arrive(
    api: GatewayApi, archive_url: str
) -> None:
    ada, bob, cy = new_id(12), new_id(12), new_id(12)
    for pid, name in ((ada, "Ada"), (bob, "Bob"), (cy, "Cy")):
        add_player(archive_url, pid, name)
    made = []
    for i in range(7):
        vs = bob if i % 2 else cy
        made.append(add_game(archive_url, random_record(i), two_seats(
            ada, vs, "w" if i % 3 else "l", rating=1000 + 50 * i)))  # fmt: skip
    made.append(add_game(archive_url, random_record(9), two_seats(ada, "", "d")))  # vs the AI

    status, profile = api.get(f"/api/players/{ada}")
    assert status == 200, profile
    metro = profile["games"]["metro"]
    assert (profile["name"], profile["bot"], metro["games"]) == ("Ada", False, 8)
    assert metro["wins"] == sum(1 for i in range(7) if i % 3)
    assert metro["mean_score"] == 30
    assert [p[1] for p in metro["rating_history"]] == [10.0 + 0.5 * i for i in range(7)]
    assert metro["rating"] == 13.0
    times = [p[0] for p in metro["rating_history"]]
    assert times == sorted(times)

    seen: list[str] = []
    status, page = api.get(f"/api/players/{ada}/games?limit=3")
    assert status == 200, page
    seen += [g["game_id"] for g in page["games"]]
    # New games arrive between pages: they are newer, so the next pages do not shift.
    for i in range(3):
        add_game(archive_url, random_record(20 + i), two_seats(ada, bob))
    while page["next"]:
        status, page = api.get(f"/api/players/{ada}/games?limit=3&before={page['next']}")
        assert status == 200, page
        seen += [g["game_id"] for g in page["games"]]
    assert seen == made[::-1]
    first = api.get(f"/api/players/{ada}/games?limit=1")[1]["games"][0]
    assert set(first) >= {"game_id", "game", "ended_at", "seats", "scores", "result"}
    assert first["seats"][1]["name"] == "Bob" and first["seats"][1]["player_id"] == bob
    assert first["scores"] == [30, 20] and first["result"] == "win"

    def ids(query: str) -> list[str]:
        status, body = api.get(f"/api/players/{ada}/games?limit=100&{query}")
        assert status == 200, body
        return [g["game_id"] for g in body["games"]]

    assert len(ids("vs=" + bob)) == 3 + 3 and len(ids("vs=" + cy)) == 4
    assert ids("result=draw") == [made[-1]]
    assert len(ids("result=loss")) == 3 and len(ids("result=win")) == 4 + 3
    assert ids("game=metrox") == []
    for bad in ("result=tie", "game=chess", "limit=0", "limit=101", "before=zzz", "vs=no"):
        status, body = api.get(f"/api/players/{ada}/games?{bad}")
        assert status == 400 and api_error(body)["field"], (bad, body)
    status, body = api.get(f"/api/players/{new_id(12)}")
    assert status == 404 and api_error(body)["code"] == "player_not_found"


def test_export_streams_every_public_game_as_ndjson_records(app: Flask, archive_url: str) -> None:
    ada = new_id(12)
    add_player(archive_url, ada, "Ada")
    records = [random_record(40 + i) for i in range(5)]
    made = [add_game(archive_url, r, two_seats(ada, "")) for r in records]
    add_game(archive_url, random_record(50), two_seats(ada, ""), private_seat=0)
    reply = app.test_client().get(f"/api/players/{ada}/games/export")
    assert reply.status_code == 200 and reply.mimetype == "application/x-ndjson"
    assert reply.is_streamed
    lines = [json.loads(line) for line in reply.get_data().splitlines()]
    assert [line["game_id"] for line in lines] == made[::-1]
    for line, record in zip(lines, records[::-1], strict=True):
        assert line["moves"] == record["moves"] and line["seats"][0]["name"] == "Ada"
        games.get("metro").replay(line)  # each line is a record the rules core replays


def test_deleting_a_player_keeps_their_games_for_opponents_as_deleted_player(
    api: GatewayApi, archive_url: str
) -> None:
    me, key = new_player(api, "Leaving")
    bob = new_id(12)
    add_player(archive_url, me, "Leaving")
    add_player(archive_url, bob, "Bob")
    game_id = add_game(archive_url, random_record(60), two_seats(me, bob))

    status, mine = api.get("/api/players/me/export", headers=key)
    assert status == 200 and mine["player_id"] == me and mine["name"] == "Leaving", mine
    assert [g["game_id"] for g in mine["archive"]["games"]] == [game_id]

    assert api.call("DELETE", "/api/players/me", headers=key)[0] == 204
    status, body = api.get("/api/players/me", headers=key)
    assert status == 403 and api_error(body)["code"] == "bad_player_key"
    assert api.call("DELETE", "/api/players/me", headers=key)[0] == 403
    status, page = api.get(f"/api/players/{bob}/games")
    assert status == 200 and page["games"][0]["game_id"] == game_id
    assert page["games"][0]["seats"][0]["name"] == "deleted player"
    assert "player_id" not in page["games"][0]["seats"][0]
    status, view = api.get(f"/api/games/{game_id}")
    assert status == 200 and view["seats"][0]["name"] == "deleted player"
    status, record = api.get(f"/api/games/{game_id}/record")
    assert status == 200 and record["seats"][0]["name"] == "deleted player"
    assert "Leaving" not in json.dumps([view, record, page])
    status, profile = api.get(f"/api/players/{me}")
    assert status == 200 and profile["name"] == "deleted player"


def test_a_daily_attempt_s_view_record_and_analysis_stay_its_seat_s_alone(
    api: GatewayApi, archive_url: str
) -> None:
    owner, key = new_player(api, "Solo")
    nosy = new_player(api, "Nosy")[1]
    add_player(archive_url, owner, "Solo")
    game_id, token = new_id(), "seat-token-" + new_id()
    add_game(archive_url, random_record(70), [{"player_id": owner, "score": 5, "result": "w"},
             {"level": "easy", "score": 3, "result": "l"}], game_id=game_id, private_seat=0,
             tokens={0: token_hash(game_id, token)})  # fmt: skip
    for path in ("", "/record", "/analysis"):
        for headers in (None, nosy):
            status, body = api.get(f"/api/games/{game_id}{path}", headers=headers)
            assert status == 403 and api_error(body)["code"] == "permission_denied", body
        status, body = api.get(f"/api/games/{game_id}{path}", token="not-the-token")
        assert status == 403, body
        assert api.get(f"/api/games/{game_id}{path}", token=token)[0] == 200
        assert api.get(f"/api/games/{game_id}{path}", headers=key)[0] == 200
    assert api.post(f"/api/games/{game_id}/analysis")[0] == 403
    status, view = api.get(f"/api/games/{game_id}", token=token)
    assert status == 200 and view["seat"] == 0 and view["status"] == "over"
    status, page = api.get(f"/api/players/{owner}/games")
    assert status == 200 and page["games"] == []  # never listed in public


def test_postgres_down_is_a_quick_503_and_live_play_never_waits_on_it(engine: Any, ai: Any) -> None:
    dead = f"postgresql://nobody@127.0.0.1:{free_port()}/none"
    app = create_app(gateway_config(engine.address, ai.target, DATABASE_URL=dead))
    api = GatewayApi(app.test_client())
    try:
        game_id, tokens = api.new_game(2)
        started = time.monotonic()
        for _ in range(3):
            status, legal = api.get(f"/api/games/{game_id}/legal", token=tokens[0])
            assert status == 200, legal
            status, view = api.post(f"/api/games/{game_id}/moves", legal["moves"][0], tokens[0])
            assert status == 200, view
            status, view = api.get(f"/api/games/{game_id}", token=tokens[1])
            assert status == 200, view
            tokens = tokens[::-1]
        assert time.monotonic() - started < 10
        started = time.monotonic()
        status, body = api.get(f"/api/players/{new_id(12)}/games")
        assert status == 503 and api_error(body)["code"] == "archive_unavailable", body
        status, body = api.get(f"/api/games/{new_id()}")
        assert status == 503 and api_error(body)["code"] == "archive_unavailable", body
        assert time.monotonic() - started < 8
    finally:
        app.extensions["metro_archive"].close()
        app.extensions["metro_gateway"].backends.close()


def test_my_games_merges_the_archive_with_the_live_games_each_game_once(
    api: GatewayApi, archive_url: str
) -> None:
    me, key = new_player(api, "Mia")
    add_player(archive_url, me, "Mia")
    old = add_game(archive_url, random_record(80), two_seats(me, ""))
    live, tokens = api.new_game(2)
    status, sat = api.post(f"/api/games/{live}/player", {}, tokens[0], headers=key)
    assert status == 200, sat
    add_game(archive_url, random_record(81), two_seats(me, ""), game_id=live)  # both places
    status, body = api.get("/api/players/me/games", headers=key)
    assert status == 200, body
    ids = [g["game_id"] for g in body["games"]]
    assert sorted(ids) == sorted([old, live]) and len(ids) == 2, ids
    listed = {g["game_id"]: g for g in body["games"]}
    assert listed[live]["status"] == "playing"  # the live copy says more
    assert listed[old]["status"] == "over" and listed[old]["seat"] == 0


def test_with_a_short_ttl_a_game_played_to_the_end_answers_for_good(
    redis_server_factory: Any,
    engine_factory: Any,
    ai_factory: Any,
    archiver_factory: Any,
    postgres_server: PostgresServer,
) -> None:
    """Issue 29's "done when": GAME_TTL_FINISHED_S small, the real archiver; once the game's
    Redis keys are gone its view, record, analysis, My games and history still answer."""
    server = redis_server_factory()
    db = fresh_database(postgres_server)
    env = {"DATABASE_URL": db, "GAME_TTL_FINISHED_S": "2"}
    engine = engine_factory(server.url, env)
    worker = ai_factory(engine)
    archiver_factory(server.url, db, env)
    app = create_app(gateway_config(engine.address, worker.address, DATABASE_URL=db))
    api = GatewayApi(app.test_client())
    try:
        ada, key = new_player(api, "Ada")
        game_id, tokens = api.new_game(2)
        assert api.post(f"/api/games/{game_id}/player", {}, tokens[0], headers=key)[0] == 200
        game_id, tokens = play_to_the_end(api, (game_id, tokens))
        before = {
            "view": api.get(f"/api/games/{game_id}")[1],
            "seat": api.get(f"/api/games/{game_id}", token=tokens[0])[1],
            "record": api.get(f"/api/games/{game_id}/record")[1],
        }
        store = redis.Redis.from_url(server.url)
        wait_until(  # archived, released, expired
            lambda: not store.exists(f"game:{{{game_id}}}"),
            "the finished game's live copy to expire",
            timeout=90,
            every=0.2,
        )
        assert not store.exists(f"game:{{{game_id}}}")
        store.close()
        assert api.get(f"/api/games/{game_id}")[1] == before["view"]
        # A public game's archive keeps no seat tokens: a seat's token reads the public view,
        # which at the end differs from the seat's only in naming no seat.
        seat_view = api.get(f"/api/games/{game_id}", token=tokens[0])[1]
        assert {**seat_view, "seat": 0} == before["seat"]
        assert api.get(f"/api/games/{game_id}/record")[1] == before["record"]
        status, mine = api.get("/api/players/me/games", headers=key)
        assert status == 200 and [g["game_id"] for g in mine["games"]] == [game_id], mine
        status, page = api.get(f"/api/players/{ada}/games")
        assert status == 200 and [g["game_id"] for g in page["games"]] == [game_id], page
        status, queued = api.post(f"/api/games/{game_id}/analysis")
        assert status == 202, queued
        analysis = finished_analysis(api, game_id)
        assert analysis["moves"], analysis
        # The archiver keeps it: once the engine's copy is gone it comes from PostgreSQL.
        archive = app.extensions["metro_archive"]
        wait_until(
            lambda: archive.analysis(game_id) is not None,
            "the archiver to keep the analysis",
            timeout=60,
            every=0.2,
        )
        store = redis.Redis.from_url(server.url)
        store.delete(f"game:{{{game_id}}}:analysis")
        store.close()
        status, kept = api.get(f"/api/games/{game_id}/analysis")
        assert status == 200 and kept["status"] == "done" and kept["moves"] == analysis["moves"]
    finally:
        app.extensions["metro_archive"].close()
        app.extensions["metro_gateway"].backends.close()


def test_an_erased_player_leaves_the_leaderboard_under_deleted_player(api: GatewayApi) -> None:
    """DELETE /api/players/me through the engine: the name goes from the ratings too."""
    keys = [new_player(api, name) for name in ("Rated Ray", "Rated Rita")]
    game_id, tokens = api.new_game(2)
    for seat, (_, key) in enumerate(keys):
        body = {"rated": True} if seat == 0 else {}
        status, sat = api.post(f"/api/games/{game_id}/player", body, tokens[seat], headers=key)
        assert status == 200, sat
    play_to_the_end(api, (game_id, tokens))
    ray = keys[0][0]

    def ray_on_board() -> dict[str, Any] | None:
        status, board = api.get("/api/leaderboard/metro?limit=200")
        assert status == 200, board
        return next((p for p in board["players"] if p["player_id"] == ray), None)

    wait_until(ray_on_board, "Rated Ray on the leaderboard", timeout=60, every=0.2)
    entry = ray_on_board()
    assert entry is not None and entry["name"] == "Rated Ray"
    assert api.call("DELETE", "/api/players/me", headers=keys[0][1])[0] == 204
    entry = ray_on_board()
    assert entry is not None and entry["name"] == "deleted player"
    assert api.get("/api/players/me", headers=keys[1][1])[0] == 200  # the other one stays
