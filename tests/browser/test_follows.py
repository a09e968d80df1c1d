"""Follow players in a real Chromium (issue 35 item 3): a spectator follows a player from their
name at a table (the name leads to the profile, which has Follow), the lobby's *Playing now*
shows that player's game, and *Watch* opens it. With notifications chosen, a game the followed
player starts later is announced (the Notification API, recorded by a stand-in)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from tests.browser.conftest import Tab, shot

TIMEOUT_S = 10

# A stand-in for the browser's Notification that grants permission and records what is shown.
NOTIFICATIONS_JS = """
window.__notes = [];
window.Notification = class {
  static permission = 'granted';
  static requestPermission() { return Promise.resolve('granted'); }
  constructor(title, options) { window.__notes.push([title, options && options.body]); }
  close() {}
};
"""


def new_player(url: str, name: str) -> dict[str, Any]:
    reply = requests.post(f"{url}/api/players", json={"name": name}, timeout=TIMEOUT_S)
    assert reply.status_code == 201, reply.text
    return dict(reply.json())


def game_against_ai(url: str, who: dict[str, Any]) -> str:
    """A public game of `who` against the AI, with `who` sat on seat 0: it is in play."""
    body = {
        "game": "metro",
        "rules": {"players": 2},
        "seats": [{"kind": "human", "name": who["name"]}, {"kind": "ai", "level": "random"}],
    }
    made = requests.post(f"{url}/api/games", json=body, timeout=TIMEOUT_S).json()
    sat = requests.post(
        f"{url}/api/games/{made['game_id']}/player",
        json={},
        headers={"Authorization": f"Bearer {made['token']}", "X-Player-Key": who["device_key"]},
        timeout=TIMEOUT_S,
    )
    assert sat.status_code == 200, sat.text
    return str(made["game_id"])


def test_follow_from_a_name_see_playing_now_and_watch(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    url = gateway_process
    bea = new_player(url, "Bea")
    first = game_against_ai(url, bea)

    tab = open_tab(f"{url}/#/game/{first}")
    tab.page.add_init_script(NOTIFICATIONS_JS)
    page = tab.page
    page.reload()
    # Bea's name at the table leads to her profile, which has Follow.
    page.click(f"#scores [data-seat='0'] a.player-link[href='#/player/{bea['player_id']}']")
    follow = page.locator("#profile-follow")
    follow.wait_for(state="visible")
    assert follow.get_attribute("aria-pressed") == "false"
    follow.click()
    page.wait_for_selector("#profile-follow[aria-pressed='true']")

    # The lobby: Playing now lists her game with a one-click Watch.
    page.evaluate("location.hash = '#/'")
    item = page.locator(f"#follows-card:not([hidden]) li[data-game='{first}']")
    item.wait_for(state="visible")
    assert "Bea" in item.inner_text()
    shot(page, artifacts, "follows-playing-now")

    # Notifications chosen; a game Bea starts later is announced once the lobby asks again.
    page.check("#follows-notify")
    second = game_against_ai(url, bea)
    page.evaluate(f"location.hash = '#/player/{bea['player_id']}'")
    page.wait_for_selector("#profile-follow[aria-pressed='true']")
    page.evaluate("location.hash = '#/'")
    page.locator(f"#follows-list li[data-game='{second}']").wait_for(state="visible")
    page.wait_for_function("window.__notes.length > 0")
    notes = page.evaluate("window.__notes")
    assert len(notes) == 1 and "Bea" in notes[0][0], notes

    page.click(f"#follows-list li[data-game='{first}'] .follow-watch")
    page.wait_for_url(f"**/#/game/{first}")
    page.wait_for_selector("#scores [data-seat='0'] a.player-link")
    tab.check_clean()
