"""Playing finished games through the real engine and reading what the archive holds of them."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
from metro.v1 import engine_pb2

from services.archive.ids import pack_id
from tests.engine.helpers import play_out
from tests.fixtures.engine import EngineClient, doc, metro_seats
from tests.fixtures.waits import wait_until

TIMEOUT = 10.0


def md(key: str, token: str = "") -> tuple[tuple[str, str], ...]:
    out = [("x-client-id", uuid.uuid4().hex), ("x-player-key", key)]
    if token:
        out.append(("authorization", f"Bearer {token}"))
    return tuple(out)


def new_player(client: EngineClient, name: str) -> engine_pb2.PlayerCredentials:
    return client.stub.CreatePlayer(
        engine_pb2.CreatePlayerRequest(name=name),
        metadata=(("x-client-id", uuid.uuid4().hex),), timeout=TIMEOUT,
    )  # fmt: skip


def start_rated_game(
    client: EngineClient, players: list[engine_pb2.PlayerCredentials], *, rated: bool = True
) -> tuple[str, list[str]]:
    """A 2-player Metro game with both seats held by players (a rated table when `rated`)."""
    created = client.create({"players": 2}, metro_seats("human", "open"))
    joined = client.join(created.game_id, "Other")
    tokens = [created.token, joined.token]
    for seat, player in enumerate(players):
        client.stub.SitPlayer(
            engine_pb2.SitPlayerRequest(game_id=created.game_id, rated=rated and seat == 0),
            metadata=md(player.device_key, tokens[seat]), timeout=TIMEOUT,
        )  # fmt: skip
    return created.game_id, tokens


def finish(client: EngineClient, game_id: str, tokens: list[str], seed: int) -> dict[str, Any]:
    """Play the game to its end; the final public view (JSON)."""
    final = play_out(client, game_id, tokens, random.Random(seed))
    assert final.status == "over"
    return dict(doc(final))


def wait_for(what: str, check: Callable[[], Any], timeout: float = 60.0) -> Any:
    """Poll until check() is truthy (its value), else fail saying what was awaited."""
    return wait_until(check, what, timeout, every=0.1)


def rows(url: str, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return list(conn.execute(sql, args).fetchall())


def archived_count(url: str, game_id: str) -> tuple[int, int]:
    """(games rows, seats rows) the archive holds for the game."""
    found = rows(
        url,
        "SELECT count(DISTINCT g.no), count(s.seat) FROM games g"
        " LEFT JOIN seats s ON s.game = g.no WHERE g.id = %s",
        (pack_id(game_id),),
    )
    return int(found[0][0]), int(found[0][1])
