"""What a person does on the page, as functions the browser tests share: create a game in the
lobby, wait for a turn, click a square, read the board."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.fixtures.waits import assert_stays

GAME_URL = re.compile(r"#/game/([A-Za-z0-9_-]+)$")


# Every text node and labelling attribute of the page, hidden ones included: what a person (or a
# screen reader) could meet. Each item is [where, text].
PAGE_TEXTS_JS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const tag = n.parentElement?.tagName;
    if (tag === 'SCRIPT' || tag === 'STYLE') continue;
    if (n.textContent.trim()) out.push([tag, n.textContent.trim()]);
  }
  const attrs = ['aria-label', 'aria-description', 'aria-roledescription', 'title', 'placeholder',
                 'alt', 'aria-valuetext'];
  for (const el of document.querySelectorAll(attrs.map((a) => `[${a}]`).join(','))) {
    for (const a of attrs) {
      const v = el.getAttribute(a);
      if (v && v.trim()) out.push([`${el.tagName}@${a}`, v.trim()]);
    }
  }
  out.push(['title', document.title]);
  return out;
}"""


def page_texts(page: Any) -> list[tuple[str, str]]:
    """(where, text) for every text and label of the page now (PAGE_TEXTS_JS)."""
    return [(str(where), str(text)) for where, text in page.evaluate(PAGE_TEXTS_JS)]


def create_game(page: Any, name: str, others: list[tuple[str, str]]) -> str:
    """Fill the lobby form: you first, then (kind, level) per other seat; the new game's id."""
    page.fill("#your-name", name)
    rows = page.locator("#seat-list > li")
    while rows.count() > 2:
        rows.nth(rows.count() - 1).locator(".remove-seat").click()
    while rows.count() < 1 + len(others):
        page.click("#add-seat")
    for i, (kind, level) in enumerate(others, start=2):
        row = page.locator(f"#seat-list > li:nth-child({i})")
        row.locator(".seat-kind").select_option(kind)
        if kind == "ai":
            row.locator(".seat-level").select_option(level)
    page.click("#create-button")
    page.wait_for_url(GAME_URL)
    match = GAME_URL.search(page.url)
    assert match, page.url
    page.wait_for_selector("#scores tr")
    return match.group(1)


def wait_my_turn_or_end(page: Any, timeout_ms: int = 60_000) -> bool:
    """True when it is this page's turn (with legal squares shown), False when the game is over."""
    page.wait_for_function(
        """() => !document.getElementById('after').hidden ||
                 (document.getElementById('status').classList.contains('mine') &&
                  document.querySelector('[data-legal]') !== null)""",
        timeout=timeout_ms,
    )
    return bool(page.locator("#after").is_hidden())


def legal_squares(page: Any) -> list[str]:
    """The highlighted squares as "rc" strings."""
    found = page.eval_on_selector_all("[data-legal]", "els => els.map(e => e.dataset.legal)")
    return [str(s) for s in found]


def click_square(page: Any, square: str) -> None:
    # The square lies under the drawing layers (which let clicks through), so force the click.
    page.locator(f'[data-square="{square}"]').click(force=True)


def selected_code(page: Any) -> str:
    return str(page.get_attribute(".hand-tile[aria-pressed=true]", "data-shown"))


def board_tiles(page: Any) -> list[str]:
    found = page.eval_on_selector_all("[data-tile]", "els => els.map(e => e.dataset.tile)")
    return [str(t) for t in found]


def play_one_move(page: Any) -> str:
    """Click the first highlighted square; wait until the tile is on the board; its placement."""
    before = len(board_tiles(page))
    square = legal_squares(page)[0]
    placement = selected_code(page) + square
    click_square(page, square)
    page.wait_for_selector(f'[data-tile="{placement}"]')
    page.wait_for_function(f"() => document.querySelectorAll('[data-tile]').length > {before}")
    return placement


def message(page: Any) -> str:
    page.wait_for_selector("#message:not([hidden])")
    return str(page.inner_text("#message"))


# Machado, Oliveira & Fernandes (2009), deuteranopia at full severity, as an SVG colour matrix.
DEUTERANOPIA = "0.367 0.861 -0.228 0 0  0.280 0.673 0.047 0 0  -0.012 0.043 0.969 0 0  0 0 0 1 0"


def simulate_deuteranopia(page: Any) -> None:
    """Look at the page through a deuteranopia colour matrix (an SVG filter on <main>)."""
    page.evaluate(
        """(values) => {
            const ns = 'http://www.w3.org/2000/svg';
            const svg = document.createElementNS(ns, 'svg');
            svg.setAttribute('width', '0');
            svg.setAttribute('height', '0');
            svg.style.position = 'absolute';
            svg.innerHTML = `<filter id="x11-deutan" color-interpolation-filters="linearRGB">
              <feColorMatrix type="matrix" values="${values}"/></filter>`;
            document.body.appendChild(svg);
            document.querySelector('main').style.filter = 'url(#x11-deutan)';
        }""",
        DEUTERANOPIA,
    )
    settled(page)  # the filter is applied and drawn


# The page at rest: no DOM change (a MutationObserver counts them), the same layout (viewport,
# document size) and no finite animation running, for `frames` animation frames in a row. What
# "let it settle" pauses hoped for, as a condition: after a resize, a zoom, a first view.
QUIET_JS = """(frames) => {
  if (!window.__quiet) {
    const q = { changes: 0, still: 0, last: '' };
    window.__quiet = q;
    new MutationObserver((list) => { q.changes += list.length; })
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  const q = window.__quiet;
  const d = document.documentElement;
  const moving = document.getAnimations().some((a) => a.playState === 'running' &&
      a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  const sign = [innerWidth, innerHeight, d.scrollWidth, d.scrollHeight, scrollX, scrollY,
                q.changes].join();
  q.still = sign === q.last && !moving ? q.still + 1 : 0;
  q.last = sign;
  return q.still >= frames;
}"""


def settled(page: Any, frames: int = 5, timeout_ms: int = 60_000) -> None:
    """Wait until the page is at rest (QUIET_JS): laid out for the viewport it has now, the map
    camera still and its names placed, nothing animating."""
    page.wait_for_function(QUIET_JS, arg=frames, polling="raf", timeout=timeout_ms)


def resized(page: Any, size: dict[str, int]) -> None:
    """Set the viewport and wait until the page is laid out for it."""
    page.set_viewport_size(size)
    page.wait_for_function("(w) => innerWidth === w", arg=size["width"])
    settled(page)


def page_stays(page: Any, check: Callable[[], Any], what: str, seconds: float) -> None:
    """check() holds for `seconds` while the page runs (its events reach the test meanwhile):
    the one bounded wait, named, for a test that something does NOT happen."""
    assert_stays(check, what, seconds, every=0.1, pause=lambda s: page.wait_for_timeout(s * 1000))


PACE_LINE = "export const AI_PACE_MS = 900;"


def ai_unpaced(page: Any) -> None:
    """From now on this page shows the AI's moves as they come, without the 0.9 s pause between
    two (web/gamefeed.js AI_PACE_MS, which is for people: tests/browser/test_ai_pace.py checks
    it). For a test that plays a whole game against the AI to check something else; it reloads
    the page so that the module is fetched again through the route."""

    def serve(route: Any) -> None:
        reply = route.fetch()
        text = reply.text()
        assert PACE_LINE in text, "web/gamefeed.js no longer says " + PACE_LINE
        route.fulfill(response=reply, body=text.replace(PACE_LINE, "export const AI_PACE_MS = 0;"))

    gamefeed = re.compile(r"/gamefeed\.js(\?.*)?$")
    page.route(gamefeed, serve)
    # The shell imports gamefeed.js at every load (app.js -> game.js): a renamed module fails here
    # rather than leaving the test at the people's pace without a word.
    with page.expect_response(gamefeed):
        page.reload()
