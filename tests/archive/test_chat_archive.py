"""A table's chat in the archive (issue 35; docs/archive.md "Chat"): the players' room is archived
with the game, and a line said after the end too (the engine's `what=chat` outbox entry); the
spectators' room is not. Once the game has left Redis, `GET /api/games/{id}/chat` answers the
archived room to a registered player who sat at the table (X-Player-Key) and 403 to anyone else;
the export holds the player's own lines; deleting an account blanks its lines (text gone, marked
deleted, the name "deleted player"). Real engine, Redis, PostgreSQL, archiver and gateway."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from metro.v1 import engine_pb2

from services.archive.chat import unpack_lines
from services.archive.ids import pack_id
from services.common.grpc_util import bearer
from services.common.postgres_server import PostgresServer
from services.gateway.app import create_app
from tests.archive.helpers import new_player, rows, start_rated_game, wait_for
from tests.fixtures.gateway import GatewayApi, api_error, dead_target, gateway_config
from tests.fixtures.postgres import fresh_database

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def stack(
    redis_server_factory: Any, engine_factory: Any, postgres_server: PostgresServer
) -> Iterator[tuple[Any, Any, str, GatewayApi]]:
    """An engine with an archive, its Redis, a fresh archive and a gateway reading both (the
    archiver is started by the test, when it wants the game archived)."""
    server = redis_server_factory()
    db = fresh_database(postgres_server)
    engine = engine_factory(server.url, {"DATABASE_URL": db, "GAME_TTL_FINISHED_S": "3600"})
    app: Flask = create_app(gateway_config(engine.address, dead_target(), DATABASE_URL=db))
    try:
        yield server, engine, db, GatewayApi(app.test_client())
    finally:
        app.extensions["metro_archive"].close()
        app.extensions["metro_gateway"].backends.close()


def archived_lines(db: str, game_id: str) -> list[list[Any]]:
    found = rows(
        db,
        "SELECT c.lines FROM game_chats c JOIN games g ON g.no = c.game WHERE g.id = %s",
        (pack_id(game_id),),
    )
    return unpack_lines(found[0][0]) if found else []


def say(api: GatewayApi, game: str, token: str | None, text: str) -> str:
    status, body = api.post(f"/api/games/{game}/chat", {"text": text}, token=token)
    assert status == 200, body
    return str(body["lines"][-1]["id"])


def test_the_players_room_is_archived_for_those_who_sat(
    stack: tuple[Any, Any, str, GatewayApi], archiver_factory: Any
) -> None:
    server, engine, db, api = stack
    client = engine.client()
    ada, bob, cy = (new_player(client, n) for n in ("Ada", "Bob", "Cy"))
    game, tokens = start_rated_game(client, [ada, bob], rated=False)
    gl = say(api, game, tokens[0], "gl <b>hf</b>")
    say(api, game, None, "a spectator's line")  # the spectators' room: never archived
    client.stub.SetAway(
        engine_pb2.SetAwayRequest(game_id=game, resign=True), metadata=bearer(tokens[1]),
        timeout=10,
    )  # fmt: skip
    gg = say(api, game, tokens[1], "gg")  # after the end, before the archiver runs

    archiver_factory(server.url, db)
    wait_for("the chat archived with the game", lambda: len(archived_lines(db, game)) == 2)
    thanks = say(api, game, tokens[0], "thanks!")  # after the game was archived
    wait_for("the later line archived", lambda: len(archived_lines(db, game)) == 3)

    # The game leaves Redis (as expiry does): the chat now comes from the archive.
    store: Any = redis.Redis.from_url(server.url)
    store.delete(*store.keys(f"game:{{{game}}}*"))
    path = f"/api/games/{game}/chat"
    status, body = api.get(path, headers={"X-Player-Key": ada.device_key})
    assert status == 200, body
    assert body["room"] == "players"
    assert [(x["id"], x["seat"], x["name"], x.get("text")) for x in body["lines"]] == [
        (gl, 0, "Ada", "gl <b>hf</b>"), (gg, 1, "Bob", "gg"), (thanks, 0, "Ada", "thanks!"),
    ]  # fmt: skip
    assert all(x["at_ms"] > 0 for x in body["lines"])
    # Anyone who did not sit at the table: 403 with a clear error; no such game: 404.
    for headers in ({"X-Player-Key": cy.device_key}, {}):
        status, body = api.get(path, headers=headers)
        assert status == 403 and api_error(body)["code"] == "permission_denied", body
        assert "sat at" in api_error(body)["message"]
    other = game[:-1] + ("B" if game.endswith("A") else "A")  # an id of no game
    status, body = api.get(f"/api/games/{other}/chat")
    assert status == 404, body

    # Ada's export holds her own lines, not Bob's.
    status, export = api.get("/api/players/me/export", headers={"X-Player-Key": ada.device_key})
    assert status == 200, export
    assert [(x["game_id"], x["id"], x["text"]) for x in export["archive"]["chat"]] == [
        (game, gl, "gl <b>hf</b>"), (game, thanks, "thanks!"),
    ]  # fmt: skip

    # Bob deletes his account: his lines stay as deleted, their text gone, his name too.
    status, _ = api.call("DELETE", "/api/players/me", headers={"X-Player-Key": bob.device_key})
    assert status == 204
    status, body = api.get(path, headers={"X-Player-Key": ada.device_key})
    assert status == 200, body
    assert body["lines"][1] == {
        "id": gg, "seat": 1, "name": "deleted player", "at_ms": body["lines"][1]["at_ms"],
        "deleted": True,
    }  # fmt: skip
    assert "gg" not in str(archived_lines(db, game))
    assert [x.get("text") for x in body["lines"]] == ["gl <b>hf</b>", None, "thanks!"]
