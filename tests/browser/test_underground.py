"""On the Underground in the browser, all by clicking: a two-player game (you and a random AI)
created in the lobby and played to the end: each turn a line is picked, a station clicked, then a
highlighted neighbour (one or two rails), the building ended, and a tied way for the passenger
picked when offered. The scores shown at the end must be the API's; the replay steps through the
record. Screenshots go to test-artifacts/underground-*.png at 1280x800 and at 390 px wide."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.steps import ai_unpaced, create_game, resized, settled

CONTROLS = ".ug-controls"


def both_widths(page: Any, artifacts: Path, name: str) -> None:
    shot(page, artifacts, name)
    resized(page, NARROW)
    shot(page, artifacts, name)
    resized(page, WIDE)


def api_view(base: str, game: str) -> Any:
    with urllib.request.urlopen(f"{base}/api/games/{game}", timeout=10) as reply:
        return json.load(reply)


def rules_query(base: str, query: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{base}/api/rules",
        data=json.dumps(query).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)


def candidates_show_previews(page: Any, base: str, game: str) -> None:
    """Each candidate rail on the map shows its legal move's preview points (the server's
    `preview`, issue 31.2): the page works out no score itself."""
    token = page.evaluate(
        "(id) => JSON.parse(sessionStorage.getItem(`seat.${id}`) || "
        "localStorage.getItem(`seat.${id}`)).token",
        game,
    )
    request = urllib.request.Request(
        f"{base}/api/games/{game}/legal", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        legal = json.load(reply)
    assert str(legal["version"]) == page.get_attribute(CONTROLS, "data-version")
    points = {
        (m["colour"], m["a"], m["b"]): m["preview"]["points"]
        for m in legal["moves"]
        if m["step"] == "rail"
    }
    shown = page.locator(".ug-cand").all()
    assert shown
    for cand in shown:
        key = tuple(str(cand.get_attribute(k)) for k in ("data-colour", "data-a", "data-b"))
        assert int(str(cand.get_attribute("data-points"))) == points[key], key


def wait_mine_or_over(page: Any, timeout_ms: int = 60_000) -> str:
    """Wait until the viewer must build or choose a way (and nothing is in flight), or the game
    is over; the phase."""
    page.wait_for_function(
        """() => {
             const c = document.querySelector('.ug-controls');
             if (!c || c.dataset.busy !== 'false') return false;
             return ['build', 'route', 'over'].includes(c.dataset.phase);
           }""",
        timeout=timeout_ms,
    )
    return str(page.get_attribute(CONTROLS, "data-phase"))


def wait_settled(page: Any, version_before: str) -> None:
    """The move was answered: a newer view is shown and nothing is in flight."""
    page.wait_for_function(
        """(v) => {
             const c = document.querySelector('.ug-controls');
             return c && c.dataset.busy === 'false' && c.dataset.version !== v;
           }""",
        arg=version_before,
    )


def lay_rail_by_clicking(page: Any) -> bool:
    """Pick a line that has candidate rails, click a station of one, then the highlighted
    neighbour; False when no rail can be laid."""
    colours = page.eval_on_selector_all(
        ".ug-colour-btn:not(:disabled)", "els => els.map(e => e.dataset.colour)"
    )
    if not colours:
        return False
    # The whole map in view: every station can be clicked where it is drawn.
    page.click(".ug-zoom-all")
    settled(page)
    colour = colours[0]
    page.click(f".ug-colour-btn[data-colour='{colour}']")
    page.wait_for_selector(f".ug-colour-btn[data-colour='{colour}'][aria-pressed='true']")
    page.wait_for_selector(
        f".ug-cand[data-colour='{colour}'], .ug-map .ug-station.startable", state="attached"
    )
    if not page.locator(".ug-cand").count():
        # A line with no rail yet: its rails show once a station is chosen.
        first = page.get_attribute(".ug-map .ug-station.startable", "data-station")
        page.locator(f".ug-station[data-station='{first}'] .ug-hit").click()
        page.wait_for_selector(f".ug-station.from[data-station='{first}']")
        page.wait_for_selector(f".ug-cand[data-colour='{colour}']", state="attached")
    # Prefer a rail that scores; else the first one offered.
    cands = page.eval_on_selector_all(
        f".ug-cand[data-colour='{colour}']",
        "els => els.map(e => [e.dataset.a, e.dataset.b, Number(e.dataset.points)])",
    )
    a, b, _ = max(cands, key=lambda c: c[2])
    chosen = (
        page.get_attribute(".ug-map .ug-station.from", "data-station")
        if page.locator(".ug-map .ug-station.from").count()
        else None
    )
    if chosen == b:
        a, b = b, a
    if chosen != a:
        page.locator(f".ug-station[data-station='{a}'] .ug-hit").click()
        page.wait_for_selector(f".ug-station.from[data-station='{a}']")
    page.wait_for_selector(f".ug-station.target[data-station='{b}']")
    version = str(page.get_attribute(CONTROLS, "data-version"))
    rails_before = int(page.get_attribute(".ug-map", "data-rails") or 0)
    page.locator(f".ug-station[data-station='{b}'] .ug-hit").click()
    wait_settled(page, version)
    assert int(page.get_attribute(".ug-map", "data-rails") or 0) == rails_before + 1
    return True


def test_an_underground_game_against_a_random_ai_played_to_the_end(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    ai_unpaced(page)  # a whole game: the AI's pace for people would add minutes
    page.wait_for_selector("#game-pick option[value='underground']", state="attached")
    page.select_option("#game-pick", "underground")
    game = create_game(page, "Ada", [("ai", "random")])
    page.wait_for_selector(".ug-map .ug-station")
    view = api_view(gateway_process, game)
    assert view["game"] == "underground"
    london = rules_query(gateway_process, {"op": "map", "game": "underground"})
    assert page.locator(".ug-map .ug-station").count() == len(london["stations"])
    assert page.locator(".ug-map .ug-token").count() == 8
    assert page.locator(".ug-map .ug-faceup").count() == 4
    assert page.locator(".ug-map .ug-passenger[data-station='euston']").count() == 1

    turns = 0
    routes = 0
    previews_checked = 0
    shots = set()
    while True:
        phase = wait_mine_or_over(page)
        if phase == "over":
            break
        if phase == "route":
            ways = page.locator(".ug-way:not(:disabled)")
            assert ways.count() >= 2
            if "route" not in shots:
                both_widths(page, artifacts, "underground-route")
                shots.add("route")
            version = str(page.get_attribute(CONTROLS, "data-version"))
            ways.first.click()
            wait_settled(page, version)
            routes += 1
            continue
        laid = int(page.get_attribute(CONTROLS, "data-laid") or 0)
        if laid == 0:
            turns += 1
            if turns == 1:
                both_widths(page, artifacts, "underground-start")
        if turns == 2 and laid == 0 and "hint" not in shots:
            # The AI's suggestions: drawn on the map and listed; the first one is played.
            page.click("#hint-button")
            page.wait_for_selector(".ug-hint-btn", timeout=60_000)
            both_widths(page, artifacts, "underground-hint")
            shots.add("hint")
            version = str(page.get_attribute(CONTROLS, "data-version"))
            page.locator(".ug-hint-btn").first.click()
            wait_settled(page, version)
            continue
        if laid and previews_checked < 3 and page.locator(".ug-cand").count():
            candidates_show_previews(page, gateway_process, game)
            previews_checked += 1
        # One rail a turn, two on every third turn (the second from where the first ended).
        want = 2 if turns % 3 == 0 else 1
        if laid < want and lay_rail_by_clicking(page):
            if turns == 3 and laid == 0:
                # The candidates from the new end, with their scores, before the second rail.
                page.wait_for_selector(".ug-station.from, .ug-colour-btn[aria-pressed='true']")
                both_widths(page, artifacts, "underground-building")
            continue
        assert page.locator(".ug-laid li").count() == laid
        version = str(page.get_attribute(CONTROLS, "data-version"))
        page.click(".ug-stop")
        wait_settled(page, version)
        if turns == 6:
            both_widths(page, artifacts, "underground-midgame")
            scale = float(page.get_attribute(".ug-map", "data-scale") or 0)
            page.click(".ug-zoom-in")
            page.wait_for_function(
                f"() => Number(document.querySelector('.ug-map').dataset.scale) > {scale * 1.5}"
            )
            settled(page)
            # Not full-page: a full-page shot resizes the viewport.
            page.screenshot(path=str(artifacts / "underground-zoomed-1280.png"))
            page.click(".ug-zoom-out")
            page.wait_for_function(
                f"() => Number(document.querySelector('.ug-map').dataset.scale) < {scale * 1.1}"
            )
    assert turns >= 8, f"only {turns} turns were played"
    assert previews_checked, "no candidate rails were shown after a rail was laid"

    # The final scores shown (the breakdown's totals and the shell's list) are the API's.
    page.wait_for_selector("#after:not([hidden])")
    view = api_view(gateway_process, game)
    assert view["status"] == "over"
    expected = {i: s["score"] for i, s in enumerate(view["seats"])}
    shown = {
        int(str(row.get_attribute("data-seat"))): int(row.locator(".total").inner_text())
        for row in page.locator(".ug-breakdown-table tbody tr").all()
    }
    assert shown == expected
    final = {
        int(str(li.get_attribute("data-seat"))): int(li.locator(".score").inner_text())
        for li in page.locator("#final-scores li").all()
    }
    assert final == expected
    # The breakdown's parts are the server's (the view's score_from), and add up to the totals.
    keys = ("start", "rail", "terminus", "symbol", "enclosed", "ride")
    for row in page.locator(".ug-breakdown-table tbody tr").all():
        seat = int(str(row.get_attribute("data-seat")))
        parts = [int(row.locator(f"td.{k}").inner_text()) for k in keys]
        assert parts == [view["seats"][seat]["score_from"][k] for k in keys]
        assert sum(parts) == int(row.locator(".total").inner_text())
    rails_final = len(view["rails"])
    assert int(page.get_attribute(".ug-map", "data-rails") or 0) == rails_final
    both_widths(page, artifacts, "underground-final")

    # The replay: from the empty map, turn by turn, back to the final position.
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#replay-first")
    page.wait_for_selector(".ug-replay-note")
    assert page.get_attribute(".ug-map", "data-rails") == "0"
    assert page.locator(".ug-passenger[data-station='euston']").count() == 1
    for _ in range(3):
        page.click("#replay-next")
    page.wait_for_function("() => Number(document.querySelector('.ug-map').dataset.rails) > 0")
    assert "Turn 3" in page.inner_text("#replay-move")
    both_widths(page, artifacts, "underground-replay")
    page.click("#replay-last")
    page.wait_for_selector(".ug-replay-note", state="detached")
    assert int(page.get_attribute(".ug-map", "data-rails") or 0) == rails_final
    tab.check_clean()
