"""The daily puzzle's book on a real Redis (services/engine/daily/daily.py): a finished attempt
counts
once however often it is reported, one scored attempt per player and day, the secret is made once
and shared, the deal depends on the secret and the day, and streaks count days in a row."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis.asyncio as aioredis

import games
from games.metrox import maps
from games.metrox.state import MetroXState
from services.common.grpc_util import ServiceError
from services.engine.daily import daily
from services.engine.daily.daily import DailyBook
from tests.fixtures.redis import DIRECT_DB

DAY = dt.date(2026, 12, 3)


def direct(redis_url: str) -> str:
    return urlsplit(redis_url)._replace(path=f"/{DIRECT_DB}").geturl()


def run(redis_url: str, body: Any) -> Any:
    async def main() -> Any:
        client = aioredis.from_url(direct(redis_url), decode_responses=True)
        try:
            await client.flushdb()
            return await body(client)
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_a_result_counts_once_and_the_histogram_ranks_it(redis_url: str) -> None:
    async def body(client: Any) -> Any:
        book = DailyBook(client, "s")
        news = [await book.record("metrox", DAY, "p1", 40) for _ in range(3)]  # repeated hook
        news += [await book.record("metrox", DAY, "p2", 25)]
        news += [await book.record("metrox", DAY, "p3", 40)]
        news += [await book.record("metrox", DAY, "p2", 99)]  # a later report changes nothing
        return news, await book.histogram("metrox", DAY), await book.score("metrox", DAY, "p2")

    news, hist, p2 = run(redis_url, body)
    assert news == [True, False, False, True, True, False]
    assert hist == {40: 2, 25: 1} and p2 == 25
    doc = daily.results(hist, 25)
    assert doc["players"] == 3 and doc["best"] == 40 and doc["mean"] == 35.0
    assert doc["histogram"] == [{"score": 25, "count": 1}, {"score": 40, "count": 2}]
    assert doc["you"] == {"score": 25, "rank": 3, "percentile": 33, "top": 100}
    assert daily.results(hist, 40)["you"] == {"score": 40, "rank": 1, "percentile": 100, "top": 34}
    assert daily.results({}, None) == {
        "players": 0, "histogram": [], "best": None, "mean": None, "you": None
    }  # fmt: skip


def test_one_scored_attempt_a_day_and_a_failed_start_frees_it(redis_url: str) -> None:
    async def body(client: Any) -> Any:
        book = DailyBook(client, "s")
        first = await book.reserve("metrox", DAY, "p1", "game-a", 1234)
        second = await book.reserve("metrox", DAY, "p1", "game-b")
        markers = [await book.marker("game-a"), await book.marker("game-b")]
        await book.unreserve("metrox", DAY, "p1", "game-b")  # not its reservation: kept
        kept = await book.attempt("metrox", DAY, "p1")
        await book.unreserve("metrox", DAY, "p1", "game-a")
        freed = await book.attempt("metrox", DAY, "p1")
        other_day = await book.reserve("metrox", DAY - dt.timedelta(days=1), "p1", "game-c")
        return first, second, kept, freed, other_day, [*markers, await book.marker("game-a")]

    first, second, kept, freed, other_day, markers = run(redis_url, body)
    assert (first, second, kept, freed, other_day) == (None, "game-a", "game-a", None, None)
    # The claimed attempt's marker (when it was reserved too); the refused one's and, once
    # unreserved, the freed one's are gone: a refused start leaves nothing behind.
    assert markers == [
        {"kind": "metrox", "date": "2026-12-03", "player": "p1", "at_ms": 1234},
        None,
        None,
    ]


def test_the_secret_is_made_once_and_shared(redis_url: str) -> None:
    async def body(client: Any) -> Any:
        one, two = DailyBook(client), DailyBook(client)
        made = await one.secret()
        return made, await two.secret(), await DailyBook(client, "set").secret()

    made, seen, configured = run(redis_url, body)
    assert len(made) == 64 and seen == made and configured == "set"


def test_the_deal_depends_on_the_secret_and_the_day() -> None:
    def deck(secret: str, day: dt.date) -> tuple[str, ...]:
        rules, seed = daily.deal(secret, "metrox", day)
        assert rules["players"] == 1 and set(rules) == {"players", "map"}
        state = games.get("metrox").new_state(rules, seed)
        assert isinstance(state, MetroXState)
        return tuple(state.deck)

    assert deck("a", DAY) == deck("a", DAY)
    days = [DAY + dt.timedelta(days=i) for i in range(8)]
    assert len({deck("a", d) for d in days}) == 8
    assert all(deck("a", d) != deck("b", d) for d in days)
    month = [DAY + dt.timedelta(days=i) for i in range(31)]
    picked = {daily.deal("a", "metrox", d)[0]["map"] for d in month}
    assert picked <= set(maps.shipped()) and len(picked) >= 2  # the map changes too
    with pytest.raises(ValueError):
        daily.deal("a", "metro", DAY)  # Metro has no daily puzzle
    assert not daily.has_daily("metro") and daily.has_daily("metrox")


def test_days_are_parsed_strictly() -> None:
    now = DAY
    assert daily.parse_day("", now) == now
    assert daily.parse_day("2026-12-01", now) == dt.date(2026, 12, 1)
    for bad in ("2026-12-04", "2026-13-01", "12/03/2026", "2026-12-3", "2024-12-01"):
        with pytest.raises(ServiceError) as err:
            daily.parse_day(bad, now)
        assert err.value.field == "date", bad


def test_a_streak_is_days_in_a_row_up_to_today_or_yesterday() -> None:
    ords = {DAY.toordinal() - i for i in (0, 1, 2, 4)}
    assert daily.streak_of(ords, DAY) == 3
    assert daily.streak_of(ords, DAY + dt.timedelta(days=1)) == 3  # today still to play
    assert daily.streak_of(ords, DAY + dt.timedelta(days=2)) == 0  # a day missed
    assert daily.streak_of(set(), DAY) == 0
