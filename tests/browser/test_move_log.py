"""A table that lives (issue 19, items 5, 6 and 9) in a real browser against a real stack: the move
log holds the whole game (more than 8 entries, collapsible) and reads the same after a reload;
Metro X logs one entry per turn even when several turns arrive at once, and names the AI for the
moves it made for a player who left, also after a reload; Leave asks first and "Take my seat
back" is the page's main action while away; a rated table says so; turn notifications are
opt-in and, once the browser allows them, one is shown when the turn comes."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import Tab, shot
from tests.browser.steps import create_game, page_stays, play_one_move, wait_my_turn_or_end
from tests.fixtures.waits import wait_until

LOG_ITEMS = ".move-log-list li"
TURN_ENTRIES_AT_LEAST = f"""(n) => [...document.querySelectorAll('{LOG_ITEMS}')]
    .filter((li) => /Turn \\d/.test(li.textContent)).length >= n"""


def api_view(base: str, game: str) -> Any:
    with urllib.request.urlopen(f"{base}/api/games/{game}", timeout=10) as reply:
        return json.load(reply)


def log_texts(page: Any) -> list[str]:
    """Each entry's words, white space folded: a line break where the layout wraps a part onto
    its own line (before or after the stylesheet has applied) is not a different word."""
    return [" ".join(str(t).split()) for t in page.locator(LOG_ITEMS).all_inner_texts()]


def leave_seat(page: Any) -> str:
    """Click Leave and accept its question; the question's text."""
    asked: list[str] = []

    def accept(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.click("#away-button")
    page.wait_for_selector("#away-button.take-back")
    return asked[0]


def test_metro_log_holds_the_whole_game_collapses_and_survives_a_reload(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#open-list li")
    create_game(page, "Ada", [("ai", "easy")])
    for _ in range(5):
        assert wait_my_turn_or_end(page)
        play_one_move(page)
    assert wait_my_turn_or_end(page)
    page.wait_for_function(f"() => document.querySelectorAll('{LOG_ITEMS}').length >= 10")
    before = log_texts(page)
    assert len(before) >= 10 and len(set(before)) == len(before), before
    assert sum("You placed" in t for t in before) == 5, before
    assert f"({len(before)})" in page.inner_text(".move-log summary")  # the count in its heading
    shot(page, artifacts, "move-log-metro")

    # Collapsible: a click on its heading shuts it, another opens it; the choice is kept.
    page.click(".move-log summary")
    assert not page.locator(".move-log-list").is_visible()
    page.click(".move-log summary")
    assert page.locator(".move-log-list").is_visible()

    page.reload()
    page.wait_for_function(
        f"(n) => document.querySelectorAll('{LOG_ITEMS}').length >= n", arg=len(before)
    )
    assert log_texts(page) == before  # nothing happened since: the same log, word for word
    tab.check_clean()


def test_metrox_log_one_entry_per_turn_names_the_ai_for_an_away_player(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#game-pick option[value='metrox']", state="attached")
    page.select_option("#game-pick", "metrox")
    page.wait_for_selector("#opt-map")
    page.select_option("#opt-map", label="Lakeside")
    game = create_game(page, "Ada", [("ai", "easy")])
    page.wait_for_selector("#away-button:not([hidden])")

    # Leave asks first: dismissed, nothing happens.
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#away-button")
    assert asked, "Leave did not ask first"
    page_stays(
        page,
        lambda: page.locator("#away-button.take-back").count() == 0,
        "the seat kept after Leave was dismissed",
        0.3,
    )
    question = leave_seat(page)
    assert "AI" in question, question
    # While away, taking the seat back is the main action, with a line saying why.
    assert page.inner_text("#away-button") == "Take my seat back"
    assert "primary" in (page.get_attribute("#away-button", "class") or "")
    assert page.locator("#away-note").is_visible()

    # The AI plays both seats (at a person's pace for mine): several turns come in.
    wait_until(
        lambda: api_view(gateway_process, game)["turn_index"] >= 3,
        "the AI to play three turns",
        timeout=40,
        every=0.5,
    )
    turns = api_view(gateway_process, game)["turn_index"]
    page.wait_for_function(TURN_ENTRIES_AT_LEAST, arg=turns)
    entries = [t for t in log_texts(page) if re.search(r"Turn \d", t)]
    numbers = sorted(int(re.search(r"Turn (\d+)", t).group(1)) for t in entries)  # type: ignore[union-attr]
    assert numbers == list(range(1, len(entries) + 1)), entries  # one entry per turn
    assert all("The AI (for you)" in t for t in entries), entries
    assert page.locator(f"{LOG_ITEMS}[data-by='ai']").count() >= len(entries)
    assert any("You left" in t for t in log_texts(page)), log_texts(page)
    shot(page, artifacts, "move-log-metrox-away")

    page.click("#away-button")  # take the seat back: no question asked
    page.wait_for_selector("#away-button.take-back", state="detached")
    assert not page.locator("#away-note").is_visible()

    # After a reload the AI's turns for me still say so.
    shown = [t for t in log_texts(page) if re.search(r"Turn \d", t)]
    page.reload()
    page.wait_for_function(TURN_ENTRIES_AT_LEAST, arg=len(shown))
    again = [t for t in log_texts(page) if re.search(r"Turn \d", t)]
    assert again[-len(shown) :] == shown  # newest first: the old turns are at the end
    assert sum("The AI (for you)" in t for t in again) >= len(entries)
    tab.check_clean()


def test_a_rated_table_says_so(open_tab: Callable[..., Tab], gateway_process: str) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#open-list li")
    page.check("#rated-pick")
    create_game(page, "Ada", [("ai", "easy")])
    page.wait_for_selector("#rated-note:not([hidden])")
    assert page.inner_text("#rated-note") == "Rated game"
    assert "AI" in (page.get_attribute("#rated-note", "title") or "")
    tab.check_clean()


# Counts every Notification the page creates (the browser's own, so permission still applies);
# the page looks elsewhere (another window has the focus), as a notification is for then.
WATCH_NOTIFICATIONS = """
  window.__notes = [];
  const Native = window.Notification;
  window.Notification = class extends Native {
    constructor(title, options) { super(title, options); window.__notes.push(title); }
  };
  document.hasFocus = () => false;
"""


def test_turn_notifications_are_opt_in_and_shown_on_my_turn(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process, permissions=["notifications"])
    page = tab.page
    page.add_init_script(WATCH_NOTIFICATIONS)
    page.reload()
    page.wait_for_selector("#open-list li")
    game = create_game(page, "Ada", [("open", "")])
    page.wait_for_selector("#notify-row:not([hidden])")
    assert not page.is_checked("#notify-toggle")  # opt-in: off until chosen
    page.check("#notify-toggle")
    page.wait_for_function("() => Notification.permission === 'granted'")
    assert page.is_checked("#notify-toggle")

    # Bo joins and it is my move (seat 0 moves first): a notification says so.
    joined = urllib.request.Request(
        f"{gateway_process}/api/games/{game}/join",
        data=json.dumps({"name": "Bo"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(joined, timeout=10) as reply:
        assert json.load(reply)["seat"] == 1
    page.wait_for_function("() => window.__notes.length >= 1")
    assert page.evaluate("window.__notes")[0] == "Your turn"
    tab.check_clean()


def test_a_clocked_table_beeps_by_default_and_warns_when_time_runs_low(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process, permissions=["notifications"])
    page = tab.page
    page.add_init_script(WATCH_NOTIFICATIONS)
    page.reload()
    page.wait_for_selector("#open-list li")
    page.select_option("#clock-mode", "realtime")
    page.select_option("#clock-move", "15")
    page.select_option("#clock-bank", "0")
    game = create_game(page, "Ada", [("open", "")])
    page.wait_for_selector("#notify-row:not([hidden])")
    assert page.is_checked("#sound-toggle")  # on by default where a clock runs
    page.check("#notify-toggle")
    joined = urllib.request.Request(
        f"{gateway_process}/api/games/{game}/join",
        data=json.dumps({"name": "Bo"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    urllib.request.urlopen(joined, timeout=10).close()
    # My move, 15 s on the clock: the turn's notification, then at 10 s left the warning.
    page.wait_for_function("() => window.__notes.includes('Your turn')")
    page.wait_for_function(
        "() => window.__notes.includes('Your time is running out')", timeout=15_000
    )
    left = page.inner_text("#scores tr[data-seat='0'] td.clock")
    assert left.startswith("0:"), left
    tab.check_clean()
