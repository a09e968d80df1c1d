"""A player's profile page (#/player/<id>, issue 29) in a real Chromium against a real gateway
process with a real PostgreSQL archive: reached from a player's name in another player's history,
it shows the rating graph (SVG with axes) and the history, whose filter and paging work."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from services.common.postgres_server import PostgresServer
from tests.browser.conftest import Tab, shot
from tests.browser.steps import page_stays
from tests.fixtures.gateway import RELAXED_RATES, check_http
from tests.fixtures.postgres import fresh_database
from tests.fixtures.processes import ServiceProcess, free_port, python_module
from tests.gateway.archive_rows import add_game, add_player, new_id, random_record


@pytest.fixture(scope="module")
def archive_db(postgres_server: PostgresServer) -> str:
    return fresh_database(postgres_server)


@pytest.fixture(scope="module")
def archive_gateway(
    engine: Any, ai: Any, archive_db: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """`python -m services.gateway` with the archive configured: its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = ServiceProcess(
        "gateway-archive",
        python_module("services.gateway"),
        log_dir=tmp_path_factory.mktemp("gateway-archive-logs"),
        env={
            "GATEWAY_HOST": "127.0.0.1",
            "GATEWAY_PORT": str(port),
            "ENGINE_TARGET": engine.address,
            "AI_TARGET": ai.target,
            "DATABASE_URL": archive_db,
            **RELAXED_RATES,
        },
        port=port,
        ready=lambda: check_http(url + "/", timeout=2.0) is None,
        timeout=60.0,
    )
    with process:
        yield url


def test_a_profile_is_reached_from_a_name_and_shows_the_graph_and_filtered_history(
    open_tab: Callable[..., Tab], archive_gateway: str, archive_db: str, artifacts: Path
) -> None:
    ada, bob = new_id(12), new_id(12)
    add_player(archive_db, ada, "Ada Lovelace")
    add_player(archive_db, bob, "Bob")
    for i in range(25):  # Ada: 25 rated games against Bob, every third lost
        result = "l" if i % 3 == 0 else "w"
        seats = [
            {"player_id": ada, "score": 30, "result": result,
             "rating_before": 500 + 40 * i, "rating_after": 540 + 40 * i},
            {"player_id": bob, "score": 20, "result": "w" if result == "l" else "l"},
        ]  # fmt: skip
        add_game(archive_db, random_record(i), seats)

    tab = open_tab(f"{archive_gateway}/#/player/{bob}")
    page = tab.page
    page.wait_for_selector("#profile-name:text('Bob')")
    # Ada's name in Bob's history leads to her profile.
    page.locator("#profile-games a.player-link", has_text="Ada Lovelace").first.click()
    page.wait_for_selector("#profile-name:text('Ada Lovelace')")
    assert page.url.endswith(f"#/player/{ada}")
    stats = page.locator("#profile-stats tbody tr")
    assert stats.count() == 1
    assert stats.first.locator("td").nth(1).inner_text() == "25"
    # The rating graph: axes, ticks, one point per rated game, a caption in words.
    graph = page.locator("#profile-graph")
    assert graph.locator("line.axis").count() == 2
    assert graph.locator("circle.rating-dot").count() == 25
    assert graph.locator("text.tick").count() >= 4
    assert "25" in page.locator("#profile-graph-caption").inner_text()
    # The history: 20 rows, then "more" brings the last 5; the filter keeps the losses.
    rows = page.locator("#profile-games tbody tr")
    count = "() => document.querySelectorAll('#profile-games tbody tr').length === "
    page.wait_for_function(count + "20")
    page.click("#profile-more")
    page.wait_for_function(count + "25")
    assert page.locator("#profile-more").is_hidden()
    page.select_option("#profile-filter-result", "loss")
    page.wait_for_function(count + "9")
    assert all(r == "result-loss" for r in rows.evaluate_all("rs => rs.map(r => r.className)"))
    shot(page, artifacts, "profile")
    # A game of the history opens on the game page, from the archive: over, its final scores.
    first = rows.first.get_attribute("data-game")
    rows.first.locator("a").first.click()
    page.wait_for_url(f"**#/game/{first}")
    page.wait_for_selector("#final-scores li")
    # Its players' names lead to their profiles (the table comes from the archive too).
    page.wait_for_selector(f"#final-scores a.player-link[href='#/player/{ada}']")
    # Nothing to follow live: no "reconnecting", no "no longer exists", no rematch offer.
    page.wait_for_function(  # the stream was refused (404) and the view read again after it
        "() => performance.getEntriesByType('resource').filter(e => e.name.includes('/events'))"
        ".length >= 1 && document.getElementById('conn').textContent === ''"
    )
    events = len(tab.event_requests)
    page_stays(  # longer than the page's 3 s retry: none may come
        page,
        lambda: len(tab.event_requests) == events,
        "no second /events request for an archived game",
        3.5,
    )
    assert page.locator("#conn").inner_text() == ""
    assert page.locator("#rematch-row").is_hidden()
    shot(page, artifacts, "profile-archived-game")
    tab.check_clean()
