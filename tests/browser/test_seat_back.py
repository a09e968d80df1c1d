"""Taking the seat back in a real Chromium (issue 35 item 4): the panel (which scrolls by itself on
a wide screen) was left scrolled down to the button, the player's own clock hidden above; after
*Take my seat back* the player's row with its clock is in the panel's sight."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.conftest import Tab
from tests.browser.steps import create_game, wait_my_turn_or_end
from tests.browser.test_clock import _join

MOVE_S = 60  # a real-time clock whose turn does not run out while a loaded machine loads the page

SHORT = {"width": 1280, "height": 600}  # the panel scrolls (a busier table does at 1280x800)

# Whether the row lies within the panel's visible part, under its pinned status line.
ROW_IN_SIGHT_JS = """(sel) => {
  const row = document.querySelector(sel);
  const panel = row.closest('.panel');
  const status = panel.querySelector(':scope > .status');
  const r = row.getBoundingClientRect();
  return {top: r.top - status.getBoundingClientRect().bottom,
          bottom: panel.getBoundingClientRect().bottom - r.bottom,
          scrollable: panel.scrollHeight > panel.clientHeight};
}"""


def test_after_taking_the_seat_back_the_own_clock_is_in_sight(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process, viewport=SHORT)
    page: Any = tab.page
    page.on("dialog", lambda dialog: dialog.accept())
    page.wait_for_selector("#create-form")
    page.select_option("#clock-mode", "realtime")
    page.select_option("#clock-move", str(MOVE_S))  # time enough that no turn runs out here
    page.select_option("#clock-bank", "0")
    page.select_option("#clock-timeout", "ai")
    page.select_option("#clock-level", "easy")
    game = create_game(page, "Ada", [("open", "")])
    _join(gateway_process, game)
    assert wait_my_turn_or_end(page)
    page.wait_for_selector("#scores tr[data-seat='0'] td.clock.running")

    page.click("#away-button")  # leave (the confirmation is accepted)
    page.wait_for_selector("#scores tr[data-seat='0'] .away-mark")
    page.wait_for_function(
        "() => document.querySelector('#away-button').classList.contains('take-back')"
    )
    # Scrolled down to the button, as a person reaching for it is.
    page.evaluate(
        "() => { const p = document.querySelector('#away-button').closest('.panel');"
        " p.scrollTop = p.scrollHeight; }"
    )
    page.click("#away-button")
    page.wait_for_selector("#scores tr[data-seat='0'] .away-mark", state="detached")
    where = page.evaluate(ROW_IN_SIGHT_JS, "#scores tr[data-seat='0']")
    assert where["scrollable"], "the panel does not scroll here: nothing to check"
    assert where["top"] >= -1 and where["bottom"] >= -1, f"own clock out of sight: {where}"
    tab.check_clean()
