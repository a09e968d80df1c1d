"""Issue 19 (items 3, 7, 8 and 10, the layout's part): the board stays on the screen, the lobby
comes in the right order.

- At 1280x800 and 1366x768, in every game, pressing Hint leaves the board at least half on the
  screen and whose turn it is in view (the side panel scrolls by itself, its status line pinned).
- At 390x844 (a phone), a move waiting for its confirmation has its Confirm bar inside the
  viewport wherever the page is scrolled.
- The lobby: on a phone "New game" comes before the recovery code, "Game" is at most two Tabs
  from the page's start, the games of this browser and of the player's other devices are one
  list, each game once, and a language switch keeps the chosen game and the name.
- axe-core finds no serious or critical violation on the lobby and on every game's page, playing
  and finished, at each width.

Screenshots of each (test-artifacts/layout-*.png) are the ones a person looks at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NARROW, Tab, shot
from tests.browser.steps import create_game, page_stays, settled
from tests.browser.test_accessibility import play_out
from tests.browser.test_usability import (  # axe_source: the fixture, used by name
    axe_problems,
    axe_source,  # noqa: F401
    finished_metro,
    hold_seat,
    make_game,
    open_game,
    vs_ai,
)
from tests.fixtures.gateway import GatewayApi

GAMES = ["metro", "metrox", "underground"]
LAPTOPS = [{"width": 1280, "height": 800}, {"width": 1366, "height": 768}]

# Where an element is on the screen: its box, the viewport's height and width, the page's scroll.
BOX = """e => { const r = e.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
          vh: innerHeight, vw: innerWidth}; }"""


def box(page: Any, selector: str) -> dict[str, float]:
    return dict(page.locator(selector).first.evaluate(BOX))


def on_screen_share(b: dict[str, float]) -> float:
    """How much of the box's height lies inside the viewport (0..1)."""
    seen = max(0.0, min(b["bottom"], b["vh"]) - max(b["top"], 0.0))
    return seen / b["height"] if b["height"] else 0.0


def fully_on_screen(b: dict[str, float]) -> bool:
    return b["top"] >= 0 and b["bottom"] <= b["vh"] and b["left"] >= 0 and b["right"] <= b["vw"]


def uncovered(page: Any, selector: str) -> bool:
    """Whether the element's centre is the element itself (or inside it) for a pointer: nothing
    drawn over it."""
    return bool(
        page.locator(selector).first.evaluate(
            "e => { const r = e.getBoundingClientRect();"
            " const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            " return !!hit && (hit === e || e.contains(hit)); }"
        )
    )


def ask_hint(page: Any) -> None:
    """Press Hint (easy level) and wait until the suggestions are shown."""
    page.wait_for_selector("#hint-row:not([hidden]) #hint-button:not([disabled])", timeout=60_000)
    if page.locator("#hint-level option[value='easy']").count():
        page.select_option("#hint-level", "easy")
    page.click("#hint-button")
    page.wait_for_function(
        "() => document.getElementById('hint-meta').textContent !== ''", timeout=60_000
    )
    settled(page)  # anything the page scrolls into view has moved by now


def wait_to_play(page: Any, kind: str) -> None:
    """Until the viewer may move (the legal moves are in, the Hint button enabled)."""
    page.wait_for_selector("#status.mine", timeout=60_000)
    page.wait_for_selector("#hint-button:not([disabled])", timeout=60_000)


@pytest.mark.parametrize("kind", GAMES)
def test_after_a_hint_the_board_and_whose_turn_stay_on_screen(
    kind: str, api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    for viewport in LAPTOPS:
        tab = open_tab(base, viewport=viewport)
        page = tab.page
        # Four seats: a long score table, as in the Metro X and Underground tables.
        seats = [{"kind": "human", "name": "Ada"}] + [{"kind": "ai", "level": "easy"}] * 3
        game, tokens = make_game(api, kind, seats)
        hold_seat(page, game, 0, str(tokens[0]))
        open_game(tab, base, game)
        wait_to_play(page, kind)
        ask_hint(page)
        where = f"{kind} {viewport['width']}x{viewport['height']}"
        board = box(page, "#board-area")
        assert on_screen_share(board) >= 0.5, (where, board)
        assert page.evaluate("() => scrollY") == 0, f"{where}: the page scrolled"
        status = box(page, "#status")
        assert fully_on_screen(status), (where, status)
        assert uncovered(page, "#status"), f"{where}: the status line is covered"
        assert "Your" in page.inner_text("#status"), page.inner_text("#status")
        # The score table says whose turn it is in words too (the ◀ is for the eye only).
        notes = page.eval_on_selector_all(
            "#scores tbody tr.turn",
            "rows => rows.map(r => r.querySelector('.turn-note')?.textContent)",
        )
        assert notes and all(n and "to move" in n for n in notes), notes
        # Nothing sticks out sideways: the page, and the score table within the panel.
        assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), where
        assert page.evaluate(
            "() => { const t = document.getElementById('scores');"
            " const panel = t.closest('.panel').getBoundingClientRect();"
            " return t.getBoundingClientRect().right <= panel.right; }"
        ), f"{where}: the score table overflows the panel"
        # The hints themselves are reachable: the panel scrolls to them, the board stays.
        page.locator("#hint-meta").scroll_into_view_if_needed()
        assert on_screen_share(box(page, "#board-area")) >= 0.5, where
        assert fully_on_screen(box(page, "#status")), where
        size = f"{viewport['width']}x{viewport['height']}"
        page.screenshot(path=str(artifacts / f"layout-hint-{kind}-{size}.png"))
        tab.check_clean()


def tap_station(page: Any, which: str) -> None:
    """Tap the first station matching `which` that the map shows, at its place on the screen."""
    page.locator(".ug-scroll, .ug-map").first.scroll_into_view_if_needed()
    point = page.evaluate(
        """(which) => {
            const box = document.querySelector('.ug-scroll') || document.querySelector('.ug-map');
            const frame = box.getBoundingClientRect();
            for (const g of document.querySelectorAll(`.ug-map ${which}`)) {
              const r = (g.querySelector('.ug-hit') || g).getBoundingClientRect();
              const x = r.left + r.width / 2, y = r.top + r.height / 2;
              if (x > frame.left + 4 && x < frame.right - 4 && y > frame.top + 4
                  && y < frame.bottom - 4 && y > 0 && y < innerHeight) return [x, y];
            }
            return null;
        }""",
        which,
    )
    assert point, f"no {which} on the screen"
    page.touchscreen.tap(point[0], point[1])


def propose(page: Any, kind: str) -> str:
    """Make the viewer's move wait for confirmation; the selector of its Confirm button."""
    if kind == "metro":
        square = page.eval_on_selector("[data-legal]", "e => e.dataset.legal")
        page.locator(f'[data-square="{square}"]').tap(force=True)
        page.wait_for_selector("#confirm-box:not([hidden])")
        return "#confirm-button"
    if kind == "metrox":
        page.wait_for_selector(".mx-controls[data-phase='choose'][data-busy='false']")
        if page.locator(".mx-station-pick:not([hidden])").count():
            # A free card (the deck is secret, so it may come first): it lists no line; a
            # station is picked from the list (the map may show another part of the sheet).
            value = page.eval_on_selector(
                ".mx-station-select", "s => [...s.options].find(o => o.value)?.value"
            )
            page.select_option(".mx-station-select", value)
        else:
            page.locator(".mx-line-btn:not([disabled])").first.tap()
        page.wait_for_selector(".mx-confirm:not([disabled])")
        return ".mx-confirm"
    page.wait_for_selector(".ug-controls[data-phase='build'][data-busy='false']")
    # A line, a station to start from, a neighbour: with confirmation on, the rail waits.
    page.locator(".ug-colour-btn:not(:disabled)").first.click()
    page.wait_for_selector(".ug-colour-btn[aria-pressed='true']")
    tap_station(page, ".ug-station.startable")
    page.wait_for_selector(".ug-map .ug-station.from")
    tap_station(page, ".ug-station.target")
    page.wait_for_selector(".ug-confirm")
    return ".ug-confirm #confirm-button"


@pytest.mark.parametrize("kind", GAMES)
def test_on_a_phone_confirm_is_a_bar_inside_the_viewport(
    kind: str, api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    tab = open_tab(base, viewport=NARROW, has_touch=True, is_mobile=True)
    page = tab.page
    game, token = vs_ai(api, kind)
    hold_seat(page, game, 0, token)
    open_game(tab, base, game)
    wait_to_play(page, kind)
    confirm = propose(page, kind)
    # Wherever the page is scrolled, Confirm is on the screen and nothing covers it.
    height = "document.documentElement.scrollHeight"
    for scroll in ("0", f"{height} / 2", height):
        page.evaluate(f"() => scrollTo(0, {scroll})")
        settled(page)
        where = box(page, confirm)
        assert fully_on_screen(where), (kind, scroll, where)
        assert uncovered(page, confirm), (kind, scroll)
    shot_path = artifacts / f"layout-confirm-{kind}-390x844.png"
    page.screenshot(path=str(shot_path))
    # The bar covers no part of the page for good: at the page's end everything above it shows.
    last = page.evaluate(
        "() => { const els = [...document.querySelectorAll('.panel > :not([hidden])')];"
        " return els.length ? els[els.length - 1].getBoundingClientRect().bottom : 0; }"
    )
    bar_top = page.locator(confirm).evaluate(
        "e => e.closest('#confirm-box, .ug-confirm, .mx-actions').getBoundingClientRect().top"
    )
    assert last <= bar_top + 1, (kind, last, bar_top)
    page.tap(confirm)
    page.wait_for_function("() => !document.querySelector('#confirm-box, .ug-confirm')"
                           " || !!document.querySelector('#confirm-box[hidden]')"
                           " || document.querySelector('.mx-confirm')?.disabled")  # fmt: skip
    tab.check_clean()


# ---- the lobby ----------------------------------------------------------------------------------


def tabs_to(page: Any, selector: str) -> int:
    """How many Tabs from the page's start (just loaded) reach an element matching `selector`,
    up to 12."""
    for n in range(1, 13):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => !!document.activeElement?.matches({selector!r})"):
            return n
    return 99


def top_of(page: Any, selector: str) -> float:
    return float(page.locator(selector).evaluate("e => e.getBoundingClientRect().top + scrollY"))


def test_the_lobby_puts_new_game_first_with_one_list_of_my_games(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    tab = open_tab(base, viewport=NARROW)
    page = tab.page
    page.wait_for_selector("#open-list li")
    # A game made in the lobby makes the player; back in the lobby it is listed once, though both
    # this browser's seat and the player's games on the server name it.
    game = create_game(page, "Ada", [("ai", "easy")])
    page.wait_for_function("() => !!localStorage.getItem('player.code')")
    page.goto(f"{base}/#/")
    page.wait_for_selector(f"#my-games li[data-game='{game}']")
    page_stays(
        page,
        lambda: page.locator(f"#my-games li[data-game='{game}']").count() == 1,
        "one entry for the game in My games",
        0.5,
    )
    assert page.locator("#player-games").count() == 0, "a second list of the same games"
    # The order on a phone: New game, my games, then the player menu with the recovery code.
    tops = [top_of(page, f"#{card}") for card in ("create-form", "my-games-card", "player-card")]
    assert tops == sorted(tops), tops
    assert top_of(page, "#create-form") < 120
    # The recovery code is folded into the player menu until asked for.
    assert not page.locator("#player-code-button").is_visible()
    assert "Ada" in page.inner_text("#player-card summary")
    shot(page, artifacts, "layout-lobby")
    page.click("#player-card summary")
    page.click("#player-code-button")
    assert "-" in page.inner_text("#player-code")
    shot(page, artifacts, "layout-lobby-player-menu")
    # "Game" (the gallery's first game) is the second Tab stop from the page's start (the
    # language switch is the first).
    page.reload()
    page.wait_for_selector("#game-gallery .game-tile")
    assert tabs_to(page, "#game-gallery .game-tile") <= 2

    # Another device: the recovery code brings the game into its one list, once, and it opens as
    # the player's own seat.
    code = page.evaluate("localStorage.getItem('player.code')")
    other = open_tab(base)
    page2 = other.page
    page2.wait_for_selector("#player-card:not([hidden])")
    page2.click("#player-card summary")
    page2.fill("#recover-code", code)
    page2.click("#recover-button")
    page2.wait_for_selector(f"#my-games li[data-game='{game}']")
    page_stays(
        page2,
        lambda: page2.locator(f"#my-games li[data-game='{game}']").count() == 1,
        "one entry for the recovered game in My games",
        0.5,
    )
    shot(page2, artifacts, "layout-lobby-other-device")
    page2.click(f"#my-games li[data-game='{game}'] button")
    page2.wait_for_url(f"**/#/game/{game}")
    page2.wait_for_selector("#scores tr[data-seat='0'] .you")
    tab.check_clean()
    other.check_clean()


def test_a_language_switch_keeps_the_lobby_form(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    tab = open_tab(gateway_process)
    page = tab.page
    page.wait_for_selector("#game-pick option[value='metrox']", state="attached")
    page.select_option("#game-pick", "metrox")
    page.fill("#your-name", "Zoë")
    page.click("#add-seat")
    rows = page.locator("#seat-list > li").count()
    page.select_option("#lang-pick", "hu")
    page.wait_for_function("() => document.documentElement.lang === 'hu'")
    page.wait_for_selector("#game-pick option[value='metrox']", state="attached")
    page.wait_for_function("() => document.getElementById('game-pick').value === 'metrox'")
    assert page.input_value("#your-name") == "Zoë"
    assert page.locator("#seat-list > li").count() == rows
    assert page.locator("#opt-map").count() == 1 or page.locator("#options [data-option]").count()
    # Only that one reload: a later visit starts from the game's defaults again.
    page.reload()
    page.wait_for_selector("#game-pick option", state="attached")
    page_stays(
        page,
        lambda: page.input_value("#game-pick") == "metro",
        "the game's default pick after a second visit",
        0.3,
    )
    tab.check_clean()


# ---- axe-core -----------------------------------------------------------------------------------


def finished(api: GatewayApi, kind: str) -> tuple[str, str]:
    """A two-player game of `kind` played to its end with random legal moves: id, seat 0 token."""
    game, tokens = make_game(api, kind, [{"kind": "human", "name": "Ada"}, {"kind": "open"}])
    view = play_out(api, game, tokens, seed=19)
    assert view["status"] == "over", view["status"]
    return game, str(tokens[0])


def test_axe_finds_nothing_serious_at_each_width(
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    axe_source: str,  # noqa: F811
    artifacts: Path,
) -> None:
    base = gateway_process
    over = {kind: finished(api, kind) for kind in GAMES}
    found: dict[str, list[str]] = {}
    for viewport in [*LAPTOPS, NARROW]:
        size = f"{viewport['width']}x{viewport['height']}"
        tab = open_tab(base, viewport=viewport, bypass_csp=True)
        page = tab.page
        page.wait_for_selector("#open-list li")
        found[f"lobby {size}"] = axe_problems(page, axe_source)
        page.screenshot(path=str(artifacts / f"layout-lobby-{size}.png"))
        for kind in GAMES:
            game, token = vs_ai(api, kind)
            hold_seat(page, game, 0, token)
            open_game(tab, base, game)
            settled(page)
            found[f"{kind} playing {size}"] = axe_problems(page, axe_source)
            page.screenshot(path=str(artifacts / f"layout-{kind}-{size}.png"))
            game, token = over[kind]
            hold_seat(page, game, 0, token)
            open_game(tab, base, game)
            page.wait_for_selector("#after:not([hidden])")
            settled(page)
            found[f"{kind} finished {size}"] = axe_problems(page, axe_source)
            page.screenshot(path=str(artifacts / f"layout-{kind}-over-{size}.png"))
        tab.check_clean()
    bad = {where: problems for where, problems in found.items() if problems}
    assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)


# ---- the score table and the Metro badges (issue 19.10) ----------------------------------------

LONG = "Bartholomew Featherstone"  # 24 letters: the longest name the lobby takes


@pytest.mark.parametrize("kind", ["metrox", "underground"])
def test_the_score_table_fits_its_panel_with_a_clock_and_long_names(
    kind: str, api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    seats = [{"kind": "human", "name": LONG}, {"kind": "open"}, {"kind": "ai", "level": "medium"}]
    status, made = api.post(
        "/api/games",
        {
            "game": kind,
            "rules": {"players": len(seats)},
            "seats": seats,
            "clock": {"mode": "correspondence", "move_s": 86400, "on_timeout": "ai"},
        },
    )
    assert status == 201, made
    game = made["game_id"]
    status, joined = api.post(f"/api/games/{game}/join", {"name": LONG[::-1]})
    assert status == 200, joined
    for viewport in [*LAPTOPS, NARROW]:
        tab = open_tab(base, viewport=viewport)
        page = tab.page
        hold_seat(page, game, 0, made["token"])
        open_game(tab, base, game)
        page.wait_for_selector("#scores td.clock")
        size = f"{viewport['width']}x{viewport['height']}"
        fits = page.evaluate(
            """() => { const t = document.getElementById('scores');
                const p = t.closest('.panel'); const cs = getComputedStyle(p);
                const inner = p.getBoundingClientRect().right - parseFloat(cs.paddingRight);
                return [t.getBoundingClientRect().right, inner,
                        document.documentElement.scrollWidth, innerWidth]; }"""
        )
        page.locator("#scores").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"layout-scores-{kind}-{size}.png"))
        assert fits[0] <= fits[1] + 0.5, (size, fits)
        assert fits[2] <= fits[3], (size, fits)
        # The long name is cut with an ellipsis, the whole name in its tooltip.
        name = page.locator("#scores tr[data-seat='0'] .name")
        assert name.get_attribute("title") == LONG
        tab.check_clean()


def test_the_underground_breakdown_fits_its_box_in_every_language(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    seats = [{"kind": "human", "name": LONG}] + [{"kind": "ai", "level": "easy"}] * 4
    game, tokens = make_game(api, "underground", seats)
    for language in ("en", "hu", "fr", "es"):
        for viewport in (LAPTOPS[0], NARROW):
            tab = open_tab(base, viewport=viewport, locale=language)
            page = tab.page
            page.evaluate("(l) => localStorage.setItem('setting.language', l)", language)
            hold_seat(page, game, 0, str(tokens[0]))
            open_game(tab, base, game)
            page.wait_for_function(f"() => document.documentElement.lang === '{language}'")
            page.wait_for_selector(".ug-breakdown-table tbody tr")
            page.evaluate(
                "() => document.querySelector('.ug-breakdown-table')"
                ".scrollIntoView({block: 'center'})"
            )
            size = f"{viewport['width']}x{viewport['height']}"
            page.screenshot(path=str(artifacts / f"layout-breakdown-{language}-{size}.png"))
            widths = page.evaluate(
                "() => { const t = document.querySelector('.ug-breakdown-table');"
                " const box = t.parentElement; const cs = getComputedStyle(box);"
                " return [t.getBoundingClientRect().right,"
                " box.getBoundingClientRect().right - parseFloat(cs.paddingRight),"
                " box.scrollWidth, box.clientWidth]; }"
            )
            assert widths[0] <= widths[1] + 0.5, (language, size, widths)
            assert widths[2] <= widths[3], (language, size, widths)
            tab.check_clean()


def test_metro_point_badges_cover_no_station_number_and_stay_in_the_frame(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    game, tokens = finished_metro(api, seed=5)
    for viewport in (LAPTOPS[0], NARROW):
        tab = open_tab(base, viewport=viewport)
        page = tab.page
        hold_seat(page, game, 0, str(tokens[0]))
        open_game(tab, base, game)
        page.wait_for_selector("#board .points")
        clashes = page.evaluate(
            """() => {
                const box = (e) => e.getBoundingClientRect();
                const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
                  && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
                const frame = box(document.querySelector('#board .board-frame'));
                const nums = [...document.querySelectorAll('#board .station-num')].map(box);
                const out = [];
                for (const badge of document.querySelectorAll('#board .points')) {
                  const b = box(badge.querySelector('rect'));
                  if (nums.some((n) => meet(b, n))) out.push(['on a number', badge.textContent]);
                  if (b.left < frame.left - 0.5 || b.right > frame.right + 0.5
                      || b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5)
                    out.push(['outside the frame', badge.textContent]);
                }
                return [document.querySelectorAll('#board .points').length, out];
            }"""
        )
        size = f"{viewport['width']}x{viewport['height']}"
        page.locator("#board").screenshot(path=str(artifacts / f"layout-metro-badges-{size}.png"))
        count, problems = clashes
        assert count > 0 and not problems, (size, count, problems)
        tab.check_clean()


def test_the_metro_cursor_s_ghost_tile_leaves_with_the_focus(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    tab = open_tab(base)
    page = tab.page
    game, token = vs_ai(api, "metro")
    hold_seat(page, game, 0, token)
    open_game(tab, base, game)
    wait_to_play(page, "metro")
    page.focus("#board")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#board .layer-preview .ghost")
    page.keyboard.press("Tab")
    page.wait_for_function("() => document.activeElement?.id !== 'board'")
    page.mouse.move(1, 1)  # the pointer is off the board: no hover preview either
    page.wait_for_selector("#board .layer-preview .ghost", state="detached", timeout=3000)
    tab.check_clean()


def test_cannot_be_reached_goes_once_the_server_is_back(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    tab = open_tab(base)
    page = tab.page
    game, token = vs_ai(api, "metro")
    hold_seat(page, game, 0, token)
    open_game(tab, base, game)
    wait_to_play(page, "metro")
    # The stream open first: its opening clears a "cannot be reached" (the server is reached),
    # so one opening late on a loaded machine took the message away before it was seen.
    page.wait_for_selector("#conn.live")
    # The server cannot be reached: fetching the view fails (as the slow poll or an event's
    # refetch would find it), and the page says so beside "Your turn".
    view_url = f"**/api/games/{game}"
    page.route(view_url, lambda route: route.abort("connectionrefused"))
    refetch = "() => import('/app.js').then((m) => m.game.refresh())"
    page.evaluate(refetch)
    page.wait_for_selector("#message:not([hidden])")
    assert "reached" in page.inner_text("#message"), page.inner_text("#message")
    # Back: the next view that arrives takes the message away; whose turn it is stays.
    page.unroute(view_url)
    page.evaluate(refetch)
    page.wait_for_selector("#message", state="hidden", timeout=5000)
    assert "Your turn" in page.inner_text("#status")
    tab.check_clean()
