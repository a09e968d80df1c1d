"""Metro X's panel at 1280x800 (issue 35 item 4): after confirming a line from the list at the
panel's foot, the next card is dealt in sight (the panel scrolls back to it), and Confirm stays
within the panel's visible part while the list runs below its fold."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import Tab, shot
from tests.browser.test_metrox import CONTROLS, new_metrox_game, wait_choose_or_over

# Where an element lies within the panel's visible part: [top, bottom] relative to the panel's
# inner box (the pinned status line's height excluded from the top).
IN_PANEL_JS = """(sel) => {
  const el = document.querySelector(sel);
  const panel = el.closest('.panel');
  const p = panel.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  const status = panel.querySelector(':scope > .status');
  const cover = status ? status.getBoundingClientRect().bottom : p.top;
  return {top: r.top - cover, bottom: p.bottom - r.bottom, scroll: panel.scrollTop,
          scrollable: panel.scrollHeight > panel.clientHeight};
}"""

SCROLL_PANEL_JS = """(top) => {
  document.querySelector('.mx-controls').closest('.panel').scrollTop = top;
}"""


def in_panel(page: Any, selector: str) -> dict[str, Any]:
    return dict(page.evaluate(IN_PANEL_JS, selector))


def test_the_next_card_is_dealt_in_sight_and_confirm_stays_above_the_fold(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    new_metrox_game(page, [("ai", "easy")])
    page.wait_for_selector(".mx-map .mx-station")
    checked = 0
    turn = -1
    while checked < 2 and wait_choose_or_over(page, turn) == "choose":
        turn = int(page.get_attribute(CONTROLS, "data-turn") or 0)
        card = page.get_attribute(CONTROLS, "data-card") or ""
        if card.startswith("f") or not page.locator(".mx-line-btn:not(:disabled)").count():
            page.locator(".mx-station.selectable").first.click(force=True)
            page.click(".mx-confirm:not([disabled])")
            continue
        # The list's first line, chosen with the panel at its top: Confirm is in sight.
        page.evaluate(SCROLL_PANEL_JS, 0)
        page.locator(".mx-line-btn:not(:disabled)").first.click()
        page.wait_for_selector(".mx-confirm:not([disabled])")
        where = in_panel(page, ".mx-confirm")
        assert where["scrollable"], "the panel does not scroll at 1280x800: nothing to check"
        assert where["bottom"] >= 0 and where["top"] >= 0, f"Confirm is out of sight: {where}"
        # Then the list's last line, scrolled down to as a person would, is the one confirmed.
        page.evaluate(SCROLL_PANEL_JS, 100_000)
        page.locator(".mx-line-btn:not(:disabled)").last.click()
        page.wait_for_selector(".mx-confirm:not([disabled])")
        page.click(".mx-confirm")
        phase = wait_choose_or_over(page, turn)
        if phase != "choose":
            break
        page.wait_for_function(  # the panel scrolls the card into sight (requestAnimationFrame)
            """(sel) => { const el = document.querySelector(sel);
                          const panel = el.closest('.panel');
                          const status = panel.querySelector(':scope > .status');
                          const r = el.getBoundingClientRect();
                          return r.top >= status.getBoundingClientRect().bottom - 1 &&
                                 r.bottom <= panel.getBoundingClientRect().bottom + 1; }""",
            arg=".mx-cardbox",
        )
        checked += 1
    assert checked == 2
    shot(page, artifacts, "metrox-panel-next-card")
    tab.check_clean()
