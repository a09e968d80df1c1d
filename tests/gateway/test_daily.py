"""The daily puzzle over HTTP (issue 23): the real gateway, engine and Redis (tests/fixtures).

Every test plays today's real puzzle, so results of a day are shared by the whole session: the
checks on results compare what changed, never absolute counts."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import grpc
import pytest
from flask import Flask
from metro.v1 import engine_pb2, engine_pb2_grpc

import games
from games.metrox.state import MetroXState
from services.common.grpc_util import bearer
from services.engine.daily import daily
from tests.fixtures.engine import RunningEngine
from tests.fixtures.gateway import GatewayApi
from tests.fixtures.gateway import api_error as error
from tests.fixtures.waits import assert_stays, wait_until
from tests.live.sse import open_stream

_ADDRESSES = itertools.count(1)


@pytest.fixture
def api(gateway_app: Flask) -> GatewayApi:
    """The session's gateway from an address of this module's own (players are created per
    address at a limited rate)."""
    client = gateway_app.test_client()
    n = next(_ADDRESSES)
    client.environ_base["REMOTE_ADDR"] = f"10.88.{n // 250}.{n % 250 + 1}"
    return GatewayApi(client)


def player(api: GatewayApi, name: str) -> dict[str, str]:
    status, made = api.post("/api/players", {"name": name})
    assert status == 201, made
    return {"X-Player-Key": made["device_key"]}


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def play_out(api: GatewayApi, game_id: str, token: str, pick: int = 0) -> list[str]:
    """Play the solo game to its end (the `pick`-th legal move each turn, from either end);
    the cards in the order they were revealed, as the player saw them."""
    cards: list[str] = []
    for _ in range(200):
        status, view = api.get(f"/api/games/{game_id}", token=token)
        assert status == 200, view
        if view["status"] == "over":
            return cards
        cards.append(view["card"])
        status, legal = api.get(f"/api/games/{game_id}/legal", token=token)
        assert status == 200 and legal["moves"], legal
        move = legal["moves"][pick if pick >= 0 else len(legal["moves"]) + pick]
        status, moved = api.post(f"/api/games/{game_id}/moves", move, token)
        assert status == 200, moved
    raise AssertionError("a solo game of Metro X did not end in 200 turns")


def results(api: GatewayApi, headers: dict[str, str] | None = None, **args: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in args.items())
    status, body = api.get(f"/api/daily/metrox/results?{query}", headers=headers)
    assert status == 200, body
    return body


def results_when(api: GatewayApi, headers: dict[str, str], timeout: float = 60) -> Any:
    """The day's results once the caller's finished attempt is counted (as its game ends)."""
    return wait_until(
        lambda: (body := results(api, headers))["you"] is not None and body,
        "the caller's attempt in the day's results",
        timeout,
        every=0.1,
    )


def start(api: GatewayApi, headers: dict[str, str], date: str = "") -> tuple[int, Any]:
    suffix = f"?date={date}" if date else ""
    return api.post(f"/api/daily/metrox/games{suffix}", headers=headers)


def test_today_is_the_same_deck_for_two_players_and_counts_once_each(api: GatewayApi) -> None:
    ada, bob = player(api, "Ada"), player(api, "Bob")
    status, today = api.get("/api/daily/metrox", headers=ada)
    assert status == 200, today
    assert today["date"] == utc_today().isoformat() and today["game"] == "metrox"
    assert today["rules"]["players"] == 1 and set(today["rules"]) == {"players", "map"}
    assert (today["played"], today["game_id"]) == (False, None)
    before = results(api)

    status, first = start(api, ada)
    assert status == 201, first
    assert set(first) == {"game_id", "seat", "token", "date", "scored"}
    assert first["date"] == today["date"] and first["scored"] is True and first["seat"] == 0
    # A second scored attempt the same day: refused, naming the first.
    status, again = start(api, ada)
    assert status == 409, again
    assert error(again)["code"] == "already_played"
    assert again["error"]["game_id"] == first["game_id"]
    status, now = api.get("/api/daily/metrox", headers=ada)
    assert (now["played"], now["game_id"], now["finished"]) == (True, first["game_id"], False)

    status, second = start(api, bob)
    assert status == 201, second
    # The same cards in the same order, whatever each player chooses.
    cards_ada = play_out(api, first["game_id"], first["token"], pick=0)
    cards_bob = play_out(api, second["game_id"], second["token"], pick=-1)
    assert cards_ada == cards_bob and len(cards_ada) >= 10
    status, view = api.get(f"/api/games/{first['game_id']}", token=first["token"])
    assert view["rules"] == today["rules"]

    mine, theirs = results_when(api, ada), results_when(api, bob)
    score_ada = mine["you"]["score"]
    score_bob = theirs["you"]["score"]
    assert mine["players"] == before["players"] + 2
    counts = {h["score"]: h["count"] for h in mine["histogram"]}
    old = {h["score"]: h["count"] for h in before["histogram"]}
    for score in {score_ada, score_bob}:
        added = [score_ada, score_bob].count(score)
        assert counts[score] == old.get(score, 0) + added
    assert sum(counts.values()) == mine["players"]
    assert mine["best"] == max(counts) and mine["best"] >= max(score_ada, score_bob)
    total = sum(s * c for s, c in counts.items())
    assert mine["mean"] == round(total / mine["players"], 1)
    for you, score in ((mine["you"], score_ada), (theirs["you"], score_bob)):
        above = sum(c for s, c in counts.items() if s > score)
        assert you["rank"] == above + 1
        assert you["percentile"] == round(100 * (mine["players"] - above) / mine["players"])
        assert you["streak"] == 1
    assert results(api)["you"] is None  # no key: nobody's standing
    status, now = api.get("/api/daily/metrox", headers=ada)
    assert (now["finished"], now["score"], now["streak"]) == (True, score_ada, 1)
    # A finished attempt is still that one attempt.
    status, again = start(api, ada)
    assert status == 409 and again["error"]["game_id"] == first["game_id"]


def test_practice_on_an_earlier_day_is_unscored(api: GatewayApi) -> None:
    cleo = player(api, "Cleo")
    yesterday = (utc_today() - dt.timedelta(days=1)).isoformat()
    before = results(api, date=yesterday)
    status, practice = start(api, cleo, yesterday)
    assert status == 201, practice
    assert practice["scored"] is False and practice["date"] == yesterday
    status, other = start(api, cleo, yesterday)  # practice as often as you like
    assert status == 201 and other["game_id"] != practice["game_id"]
    cards = play_out(api, practice["game_id"], practice["token"])
    assert cards == play_out(api, other["game_id"], other["token"], pick=-1)

    def unchanged() -> bool:
        after = results(api, cleo, date=yesterday)
        return bool(after["players"] == before["players"] and after["you"] is None)

    # A scored attempt's result would be counted within this second: none may come.
    assert_stays(unchanged, "yesterday's results without the practice games", 1.0, every=0.2)
    status, today = api.get("/api/daily/metrox", headers=cleo)
    assert (today["played"], today["streak"]) == (False, 0)
    status, first = start(api, cleo)  # today's scored attempt is still to play
    assert status == 201 and first["scored"] is True


def test_tomorrows_deck_is_unknown_today(api: GatewayApi) -> None:
    """Nothing the API shows determines a day's deck: the rules name no seed, no endpoint takes
    a future day, and the deal depends on the server's secret."""
    dana = player(api, "Dana")
    tomorrow = (utc_today() + dt.timedelta(days=1)).isoformat()
    for path in ("/api/daily/metrox/games", "/api/daily/metrox/results"):
        method = api.post if path.endswith("games") else api.get
        status, body = method(f"{path}?date={tomorrow}", headers=dana)
        assert status == 400, body
        assert error(body)["field"] == "date" and "no puzzle" in body["error"]["message"]
    status, body = api.get(f"/api/daily/metrox?date={tomorrow}")
    assert status == 400 and error(body)["field"] == "date"
    for bad in ("2026-13-01", "yesterday", "2026-1-1"):
        status, body = start(api, dana, bad)
        assert status == 400 and error(body)["field"] == "date", (bad, body)
    old = (utc_today() - dt.timedelta(days=daily.PRACTICE_DAYS + 1)).isoformat()
    status, body = start(api, dana, old)
    assert status == 400 and error(body)["field"] == "date"

    # Two secrets deal two different decks on the same day (a deck is a function of the secret).
    day = utc_today() + dt.timedelta(days=1)
    decks = set()
    for secret in ("one secret", "another secret"):
        rules, seed = daily.deal(secret, "metrox", day)
        state = games.get("metrox").new_state(rules, seed)
        assert isinstance(state, MetroXState)
        decks.add(tuple(state.deck))
    assert len(decks) == 2

    # What the API shows of today's attempt holds no seed, and its game is nobody else's.
    status, made = start(api, dana)
    assert status == 201, made
    game_id, token = made["game_id"], made["token"]
    status, view = api.get(f"/api/games/{game_id}", token=token)
    assert "seed" not in str(view) and "daily" not in view["rules"]
    status, listed = api.get("/api/games?status=playing&limit=200")
    assert status == 200 and game_id not in {g["game_id"] for g in listed["games"]}
    play_out(api, game_id, token)
    status, listed = api.get("/api/games?status=over&limit=200")
    assert game_id not in {g["game_id"] for g in listed["games"]}
    status, body = api.get(f"/api/games/{game_id}/record")
    assert status == 403, body  # the day's deck: only its player may read it
    status, record = api.get(f"/api/games/{game_id}/record", token=token)
    assert status == 200 and "seed" not in str(record)


def test_errors_name_what_is_wrong(api: GatewayApi) -> None:
    for kind in ("metro", "underground", "nosuchgame"):
        for method, path in (
            (api.get, f"/api/daily/{kind}"),
            (api.post, f"/api/daily/{kind}/games"),
            (api.get, f"/api/daily/{kind}/results"),
        ):
            status, body = method(path)
            assert status == 404, (path, body)
            assert error(body)["code"] == "no_daily_puzzle"
    status, body = api.post("/api/daily/metrox/games")
    assert status == 403 and error(body)["code"] == "bad_player_key"
    assert "X-Player-Key" in body["error"]["message"]
    status, body = api.post("/api/daily/metrox/games", headers={"X-Player-Key": "nobody.xyz"})
    assert status == 403 and error(body)["code"] == "bad_player_key"


def test_the_openapi_document_has_the_daily_paths(api: GatewayApi) -> None:
    status, doc = api.get("/api/openapi.json")
    assert status == 200
    paths = doc["paths"]
    assert set(paths["/api/daily/{game}"]) >= {"get"}
    assert {"201", "400", "403", "404", "409"} <= set(
        paths["/api/daily/{game}/games"]["post"]["responses"]
    )
    assert "get" in paths["/api/daily/{game}/results"]


def test_a_scored_attempt_takes_no_hints_a_practice_game_does(api: GatewayApi) -> None:
    """A shared result must be the player's own play: the engine's view of a scored attempt says
    `"hints": false` and the AI service refuses its player's hints; practice keeps them."""
    erin = player(api, "Erin")
    status, scored = start(api, erin)
    assert status == 201, scored
    status, view = api.get(f"/api/games/{scored['game_id']}", token=scored["token"])
    assert status == 200 and view["hints"] is False, view
    status, body = api.post(
        f"/api/games/{scored['game_id']}/hint", {"level": "easy"}, scored["token"]
    )
    assert status == 403, body
    assert error(body)["code"] == "hints_off"
    assert "practice" in body["error"]["message"] and "suggestions" not in body

    yesterday = (utc_today() - dt.timedelta(days=1)).isoformat()
    status, practice = start(api, erin, yesterday)
    assert status == 201, practice
    status, view = api.get(f"/api/games/{practice['game_id']}", token=practice["token"])
    assert status == 200 and "hints" not in view
    status, hint = api.post(
        f"/api/games/{practice['game_id']}/hint", {"level": "easy"}, practice["token"]
    )
    assert status == 200, hint
    assert hint["suggestions"] and hint["seat"] == 0
    # Once the scored attempt is over it is the player's record, with no hint to ask for.
    play_out(api, scored["game_id"], scored["token"])
    status, doc = api.get("/api/openapi.json")
    forbidden = doc["paths"]["/api/games/{game_id}/hint"]["post"]["responses"]["403"]
    assert "hints_off" in forbidden["description"]


def test_an_attempt_the_ai_moved_in_is_not_a_result(api: GatewayApi) -> None:
    """The player leaves after one move, the AI plays a turn for them (`by: ai`), and they come
    back and finish: the attempt ends, but it is not the player's result: out of the histogram,
    the rank and the streak. (Coming back keeps the test short: the AI on an away seat plays at
    a person's pace, a minute before it may end the game: ai/test_away_pace.py.)"""
    finn = player(api, "Finn")
    before = results(api)
    status, made = start(api, finn)
    assert status == 201, made
    game_id, token = made["game_id"], made["token"]
    status, legal = api.get(f"/api/games/{game_id}/legal", token=token)
    assert status == 200 and legal["moves"], legal
    status, moved = api.post(f"/api/games/{game_id}/moves", legal["moves"][0], token)
    assert status == 200, moved
    status, left = api.post(f"/api/games/{game_id}/leave", None, token)
    assert status == 200, left
    wait_until(
        lambda: api.get(f"/api/games/{game_id}", token=token)[1]["turn_index"] >= 2,
        "the AI's turn on the away seat",
        timeout=120,
    )
    status, back = api.post(f"/api/games/{game_id}/return", None, token)
    assert status == 200, back
    play_out(api, game_id, token)

    def over() -> Any:
        """The seat's view once the game is over (the AI playing on may take a while here)."""
        status, view = api.get(f"/api/games/{game_id}", token=token)
        assert status == 200, view
        return view["status"] == "over" and view

    view = wait_until(over, f"{game_id} to be over", timeout=300, every=0.5)
    score = view["seats"][0]["score"]

    status, today = api.get("/api/daily/metrox", headers=finn)
    assert status == 200, today
    assert (today["finished"], today["score"], today["counted"]) == (True, score, False)
    assert today["streak"] == 0
    after = results(api, finn)
    assert after["you"] is None
    assert after["uncounted"] == {"score": score, "reason": "ai_moved"}
    assert after["players"] == before["players"]
    assert after["histogram"] == before["histogram"]
    status, again = start(api, finn)  # still the day's one attempt
    assert status == 409 and again["error"]["game_id"] == game_id
    # A player who played every move themselves is counted ("counted": true).
    gail = player(api, "Gail")
    status, own = start(api, gail)
    assert status == 201, own
    play_out(api, own["game_id"], own["token"])
    assert results_when(api, gail)["you"] is not None
    status, today = api.get("/api/daily/metrox", headers=gail)
    assert (today["counted"], today["streak"]) == (True, 1)
    assert "uncounted" not in results(api, gail)


def test_a_daily_attempt_s_analysis_is_its_player_s_only(api: GatewayApi) -> None:
    """An attempt's analysis names every card it judged, in order: the day's deck. Like its
    record, it is its seat's alone (another player could otherwise read today's cards)."""
    mine, other = player(api, "Dora"), player(api, "Eve")
    status, attempt = start(api, mine)
    assert status == 201, attempt
    game = attempt["game_id"]
    play_out(api, game, attempt["token"])
    status, practice = start(api, other, date=(utc_today() - dt.timedelta(days=1)).isoformat())
    assert status == 201, practice
    for token in (None, practice["token"]):
        for call in (api.post, api.get):
            status, body = call(f"/api/games/{game}/analysis", token=token)
            assert status == 403, (token, body)
            assert ("private" if token is None else "not valid") in error(body)["message"]
    status, body = api.post(f"/api/games/{game}/analysis", token=attempt["token"])
    assert status == 202 and body["status"] in ("queued", "running", "done"), body
    status, body = api.get(f"/api/games/{game}/analysis", token=attempt["token"])
    assert status == 200, body


def watch_refused(stub: engine_pb2_grpc.EngineStub, game_id: str, token: str | None) -> Any:
    """The engine's WatchGame of `game_id` with `token` (None: none): its error status."""
    call = stub.WatchGame(
        engine_pb2.WatchGameRequest(game_id=game_id, public_view=True),
        metadata=bearer(token) if token else None,
        timeout=30,
    )
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(call))
    return refused.value.code()


def test_a_daily_attempt_is_its_seat_s_alone(
    api: GatewayApi, engine: RunningEngine, gateway_server: str
) -> None:
    """Issue 30.1: one shared game id must not give the day's deck away. A scored attempt's view
    (its `revealed` cards), events (`resolve` with `card` and `next_card`), table, live stream
    (the gateway's and the engine's WatchGame) and lobby entries are its seat's alone; its own
    token (and a claimed one) reads them all."""
    mine, other = player(api, "Hana"), player(api, "Ivo")
    status, attempt = start(api, mine)
    assert status == 201, attempt
    game, token = attempt["game_id"], attempt["token"]
    status, legal = api.get(f"/api/games/{game}/legal", token=token)
    status, moved = api.post(f"/api/games/{game}/moves", legal["moves"][0], token)
    assert status == 200 and moved["revealed"], moved
    status, practice = start(api, other, date=(utc_today() - dt.timedelta(days=1)).isoformat())
    assert status == 201, practice
    stub = engine_pb2_grpc.EngineStub(engine.channel())
    for stranger in (None, practice["token"]):
        for path in (f"/api/games/{game}", f"/api/games/{game}/table"):
            status, body = api.get(path, token=stranger)
            assert status == 403, (path, stranger, body)
            assert error(body)["code"] == "permission_denied", body
            assert "revealed" not in body and "seats" not in body
        for query in ("", "?delta=1"):
            with open_stream(gateway_server, game, token=stranger, query=query) as stream:
                assert stream.status == 403, (query, stranger)
                assert error(stream.body())["code"] == "permission_denied"
        assert watch_refused(stub, game, stranger) == grpc.StatusCode.PERMISSION_DENIED
    for status_name in ("open", "playing", "over"):
        status, listed = api.get(f"/api/games?status={status_name}&limit=200")
        assert status == 200 and game not in {g["game_id"] for g in listed["games"]}

    # Its player reads all of it, on this device and on another (a claimed token).
    status, claimed = api.post(f"/api/games/{game}/claim", headers=mine)
    assert status == 200, claimed
    for own in (token, claimed["token"]):
        status, view = api.get(f"/api/games/{game}", token=own)
        assert status == 200 and view["seat"] == 0 and view["revealed"], view
        status, table = api.get(f"/api/games/{game}/table", token=own)
        assert status == 200 and table["seats"][0]["name"] == "Hana", table
        with open_stream(gateway_server, game, token=own, query="?delta=1") as stream:
            assert stream.status == 200, stream.body()
            assert stream.next().kind == "view"
            events = [stream.next_event(), stream.next_event()]
            assert [e.data["action"] for e in events] == ["create", "resolve"], events
            assert "card" in events[1].data
