"""The page as a new player meets it (issue 11, the shell's part): bad game addresses lead to a
"No such game" page, refusals are plain sentences that name players, hints say what their values
mean, "My games" finds a game again with a your-turn alert, spectators and invitees are told what
they are, one level-one heading, column headers and a "How to play" per game, and axe-core (from
npm, injected into the page) finds no serious or critical violation on the lobby, game pages and a
finished game's page.

axe-core comes from npm: deploy/test-prereqs.sh installs it into .venv/axe-core/ (this test tries
the same once where it is missing); without it the axe tests are skipped, or fail under CI.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NARROW, WIDE, Tab, shot
from tests.browser.steps import (
    click_square,
    legal_squares,
    message,
    page_stays,
    resized,
    settled,
    wait_my_turn_or_end,
)
from tests.fixtures.gateway import GatewayApi

ROOT = Path(__file__).resolve().parents[2]
AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / ".venv" / "axe-core"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
GAMES = ["metro", "metrox", "underground"]
SEAT_WORDS = re.compile(r"\bseat \d", re.IGNORECASE)


# ---- helpers -----------------------------------------------------------------------------------


def make_game(
    api: GatewayApi, kind: str, seats: list[dict[str, Any]], **rules: Any
) -> tuple[str, list[str | None]]:
    """A game of `kind` with `seats` (a human creator first); open seats are joined as P1, P2...
    Its id and each seat's token (None for an AI)."""
    status, made = api.post(
        "/api/games",
        {"game": kind, "rules": {"players": len(seats), **rules}, "seats": seats},
    )
    assert status == 201, made
    tokens: list[str | None] = [None] * len(seats)
    tokens[made["seat"]] = made["token"]
    for i, seat in enumerate(seats):
        if seat["kind"] == "open":
            status, joined = api.post(f"/api/games/{made['game_id']}/join", {"name": f"P{i}"})
            assert status == 200, joined
            tokens[joined["seat"]] = joined["token"]
    return made["game_id"], tokens


def vs_ai(api: GatewayApi, kind: str) -> tuple[str, str]:
    """Ada against an easy AI in a game of `kind`: its id and Ada's token."""
    game, tokens = make_game(
        api, kind, [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}]
    )
    assert tokens[0]
    return game, tokens[0]


def finished_metro(api: GatewayApi, seed: int = 7) -> tuple[str, list[str | None]]:
    """A two-player Metro game played to the end with random legal placements."""
    rng = random.Random(seed)
    game, tokens = make_game(api, "metro", [{"kind": "human", "name": "Ada"}, {"kind": "open"}])
    _, view = api.get(f"/api/games/{game}", token=tokens[0])
    while view["status"] == "playing":
        token = tokens[view["turn"]]
        _, legal = api.get(f"/api/games/{game}/legal", token=token)
        move = rng.choice([m for m in legal["moves"] if m["action"] == "place"])
        status, view = api.post(
            f"/api/games/{game}/moves", {**move, "expected_version": view["version"]}, token=token
        )
        assert status == 200, view
    return game, tokens


def hold_seat(page: Any, game: str, seat: int, token: str, saved: int = 0) -> None:
    """Put a seat into this browser's storage, as api.js keeps it."""
    raw = json.dumps({"seat": seat, "token": token, "saved": saved or 1})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"seat.{game}", raw])


def open_game(tab: Tab, base: str, game: str) -> None:
    tab.page.goto(f"{base}/#/game/{game}")
    tab.page.wait_for_function(
        "() => { const s = document.getElementById('status').textContent;"
        " return !!s && s !== 'Loading…' && !document.getElementById('game').hidden; }"
    )


def shown_h1(page: Any) -> list[str]:
    """The level-one headings that are part of the page now (not under a hidden section)."""
    found = page.evaluate(
        "() => [...document.querySelectorAll('h1')]"
        ".filter(h => h.offsetParent !== null).map(h => h.textContent.trim())"
    )
    return [str(t) for t in found]


def missing_shown(page: Any) -> None:
    page.wait_for_selector("#missing:not([hidden])")
    assert page.locator("#game").is_hidden()
    assert page.locator("#lobby").is_hidden()
    assert shown_h1(page) == ["No such game"]
    back = page.locator("#missing-back")
    assert back.is_visible() and back.get_attribute("href") == "#/"


def game_requests(tab: Tab, game: str) -> list[str]:
    return [u for u in tab.urls if f"/api/games/{game}" in u]


# ---- 4. bad game addresses ---------------------------------------------------------------------


def test_bad_addresses_show_no_such_game_with_a_way_back(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    # Fresh: one request for the view, then nothing more (no stream, no retry every 3 s).
    tab = open_tab(f"{base}/#/game/doesnotexist")
    page = tab.page
    missing_shown(page)
    page_stays(  # longer than the page's 3 s retry: no second look, no stream
        page,
        lambda: (
            len(game_requests(tab, "doesnotexist")) == 1
            and not [u for u in tab.urls if "/events" in u]
        ),
        "one request for a game that does not exist",
        4.0,
    )
    asked = game_requests(tab, "doesnotexist")
    assert len(asked) == 1, asked
    assert not [u for u in tab.urls if "/events" in u]
    shot(page, artifacts, "no-such-game")
    resized(page, NARROW)
    shot(page, artifacts, "no-such-game")
    page.set_viewport_size(WIDE)
    # The way back leads to the lobby.
    page.click("#missing-back")
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.locator("#missing").is_hidden()
    tab.check_clean()

    # After a real game: the old board goes, the page says there is no such game.
    game, token = vs_ai(api, "metro")
    tab = open_tab(base)
    hold_seat(tab.page, game, 0, token)
    open_game(tab, base, game)
    page = tab.page
    page.wait_for_selector("#board-area svg")
    page.evaluate("location.hash = '#/game/doesnotexist'")
    missing_shown(page)
    assert page.locator("#board-area > *").count() == 0
    assert page.inner_text("#scores") == "" or page.locator("#scores").is_hidden()
    # ...and back to the real game works.
    page.go_back()
    page.wait_for_selector("#game:not([hidden]) #scores tr[data-seat]")
    assert page.locator("#missing").is_hidden()
    tab.check_clean()

    # Not even text (a malformed escape) and a 300-character id: no request, no raw message.
    for bad in ["%00%ff", "x" * 300, "a%2Fb"]:
        tab = open_tab(f"{base}/#/game/{bad}")
        missing_shown(tab.page)
        page_stays(
            tab.page,
            lambda urls=tab.urls: not [u for u in urls if "/api/games/" in u],
            f"no request for the bad address {bad!r}",
            0.3,
        )
        assert not [u for u in tab.urls if "/api/games/" in u], tab.urls
        text = tab.page.inner_text("body")
        assert "URI" not in text and "must" not in text and "match" not in text, text
        tab.check_clean()


# ---- 6. messages for players -------------------------------------------------------------------


def test_refusals_are_plain_sentences_naming_players(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    game, tokens = make_game(api, "metro", [{"kind": "human", "name": "Ada"}, {"kind": "open"}])
    ada = open_tab(base)
    bob = open_tab(base)
    hold_seat(ada.page, game, 0, str(tokens[0]))
    hold_seat(bob.page, game, 1, str(tokens[1]))
    open_game(ada, base, game)
    open_game(bob, base, game)
    assert wait_my_turn_or_end(ada.page)
    bob.page.wait_for_selector("#status:has-text('Ada to play')")

    # Out of turn: the page refuses itself, names the player whose turn it is, sends nothing.
    moves_before = [u for u in bob.urls if "/moves" in u]
    click_square(bob.page, legal_squares(ada.page)[0])
    said = message(bob.page)
    assert said == "It is Ada's turn, not yours.", said
    assert [u for u in bob.urls if "/moves" in u] == moves_before

    # A square the rules forbid: the server's reason, without the rule file, seats by name.
    click_square(ada.page, "22")
    said = message(ada.page)
    assert "RULES" not in said and not SEAT_WORDS.search(said), said
    assert said[0].isupper() and said.endswith("."), said
    assert "RULES.md" in str(ada.page.get_attribute("#message", "title"))

    # The server's own not-your-turn sentence ("it is seat 0's turn, not seat 1's (RULES.md §5)"):
    # Ada's move sent with Bob's token.
    def as_bob(route: Any) -> None:
        headers = {**route.request.headers, "authorization": f"Bearer {tokens[1]}"}
        route.continue_(headers=headers)

    ada.page.route("**/moves*", as_bob)
    click_square(ada.page, legal_squares(ada.page)[0])
    ada.page.wait_for_function(
        "() => !document.getElementById('message').hidden && "
        "document.getElementById('message').dataset.code === 'not_your_turn'"
    )
    said = message(ada.page)
    assert "RULES" not in said and not SEAT_WORDS.search(said), said
    ada.page.unroute("**/moves*")

    # A version conflict: "Someone moved first — the board is updated.", and the view refetched.
    def stale(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        body["expected_version"] = int(body["expected_version"]) - 1
        route.continue_(post_data=json.dumps(body))

    ada.page.route("**/moves*", stale)
    views_before = len([u for u in ada.urls if u.endswith(f"/api/games/{game}")])
    click_square(ada.page, legal_squares(ada.page)[0])
    ada.page.wait_for_function(
        "() => document.getElementById('message').textContent === "
        "'Someone moved first — the board is updated.'"
    )
    ada.page.wait_for_function(
        f"() => performance.getEntriesByType('resource').filter(e => "
        f"e.name.endsWith('/api/games/{game}')).length > {views_before}"
    )
    ada.page.unroute("**/moves*")

    # The translation itself, for every game's rule files and the engine's seat numbers.
    view = {"status": "playing", "to_move": [1], "seats": [{"name": "Ada"}, {"name": "Bob"}]}
    cases = [
        (
            {"code": "illegal_move", "message": "it is seat 1's turn, not seat 0's (RULES.md §5)"},
            "It is Bob's turn, not yours.",
        ),
        (
            {"code": "illegal_move", "message": "rail blocked (RULES-UNDERGROUND.md §3(b))"},
            "Rail blocked.",
        ),
        (
            {"code": "illegal_move", "message": "line L2 has no empty window", "rule": "X.md"},
            "Line L2 has no empty window.",
        ),
        ({"code": "version_conflict", "message": "game g is at version 6, not 5: ..."}, None),
    ]
    for err, want in cases:
        text, tip = ada.page.evaluate(
            "([e, v]) => import('/panel.js').then(m => m.plainError(e, v, 0))", [err, view]
        )
        assert "RULES" not in text and not SEAT_WORDS.search(text) and "version" not in text, text
        if want:
            assert text == want, text
        else:
            assert text == "Someone moved first — the board is updated.", text
        assert not tip or "RULES" in tip or "X.md" in tip, tip
    ada.check_clean()
    bob.check_clean()


def test_the_page_never_sends_a_move_out_of_turn(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    """host.send itself refuses while the viewer may not move, for every game's module."""
    base = gateway_process
    for kind in GAMES:
        game, tokens = make_game(api, kind, [{"kind": "human", "name": "Ada"}, {"kind": "open"}])
        tab = open_tab(base)
        # Seat 1 (P1): not to move in the turn games; in Metro X, after its choice it still may
        # change it, so only the turn-based games are checked with a seat, all three as spectator.
        hold_seat(tab.page, game, 1, str(tokens[1]))
        open_game(tab, base, game)
        sent = "() => import('/app.js').then(m => m.game.host.send({pass: true}))"
        if kind != "metrox":
            assert tab.page.evaluate(sent) is False
            said = message(tab.page)
            assert said == "It is Ada's turn, not yours.", (kind, said)
        assert not [u for u in tab.urls if "/moves" in u], kind
        spectator = open_tab(f"{base}/#/game/{game}")
        spectator.page.wait_for_selector("#scores tr[data-seat]")
        assert spectator.page.evaluate(sent) is False
        assert "watching" in message(spectator.page)
        assert not [u for u in spectator.urls if "/moves" in u], kind
        tab.check_clean()
        spectator.check_clean()


# ---- 7. hints explained, their level remembered ------------------------------------------------


def test_hints_say_what_their_value_means_and_the_level_is_remembered(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    game, token = vs_ai(api, "metro")
    tab = open_tab(base)
    page = tab.page
    hold_seat(page, game, 0, token)
    open_game(tab, base, game)
    assert wait_my_turn_or_end(page)
    assert page.input_value("#hint-level") == "medium"
    page.click("#hint-button")
    page.wait_for_selector("#hint-explain:not([hidden])")
    explained = page.inner_text("#hint-explain")
    assert "the AI (medium) expects you to finish" in explained, explained
    assert re.search(r"(ahead of|behind|level with) your best opponent", explained), explained
    assert "medium" in page.inner_text("#hint-meta")
    # The level picked is kept for the next game and the next visit.
    page.select_option("#hint-level", "easy")
    page.reload()
    page.wait_for_selector("#hint-level option", state="attached")
    assert page.input_value("#hint-level") == "easy"
    tab.check_clean()


# ---- 8. my games, the your-turn alert ----------------------------------------------------------


def test_my_games_lists_the_seats_this_browser_holds(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    base = gateway_process
    two = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    mine_to_move, t1 = make_game(api, "metro", two)
    theirs, t2 = make_game(api, "underground", two)
    mx, t3 = make_game(api, "metrox", two)
    over, t4 = finished_metro(api)
    tab = open_tab(base)
    page = tab.page
    hold_seat(page, mine_to_move, 0, str(t1[0]), saved=4)
    hold_seat(page, theirs, 1, str(t2[1]), saved=3)  # as P1, while it is Ada's turn
    hold_seat(page, mx, 0, str(t3[0]), saved=2)
    hold_seat(page, over, 0, str(t4[0]), saved=1)
    hold_seat(page, "gone-long-ago", 0, "x" * 40, saved=5)
    page.reload()
    page.wait_for_selector("#my-games li")
    page.wait_for_function("() => document.querySelectorAll('#my-games li').length === 4")
    rows = page.eval_on_selector_all(
        "#my-games li",
        "els => els.map(e => [e.dataset.game, e.dataset.state, e.innerText])",
    )
    by_game = {g: (state, text) for g, state, text in rows}
    assert set(by_game) == {mine_to_move, theirs, mx, over}
    # Your turn first; the game that is gone is dropped, and forgotten.
    assert rows[0][1] == "your-turn"
    state, text = by_game[mine_to_move]
    assert state == "your-turn" and "Your turn" in text and "Metro" in text
    assert "Ada (you)" in text and "P1" in text
    state, text = by_game[theirs]
    assert state == "playing" and "Ada to play" in text and "On the Underground" in text
    assert "P1 (you)" in text
    state, text = by_game[mx]
    assert "Metro X" in text and state in ("your-turn", "playing")
    state, text = by_game[over]
    assert state == "over" and "Finished" in text
    assert page.evaluate("localStorage.getItem('seat.gone-long-ago')") is None
    shot(page, artifacts, "lobby-my-games")
    resized(page, NARROW)
    shot(page, artifacts, "lobby-my-games")
    page.set_viewport_size(WIDE)
    # Its button opens the game.
    page.click(f"#my-games li[data-game='{mine_to_move}'] button")
    page.wait_for_url(re.compile(f"#/game/{mine_to_move}$"))
    page.wait_for_selector("#scores tr[data-seat]")
    tab.check_clean()


def test_the_tab_title_says_your_turn_and_the_sound_setting_is_kept(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    game, tokens = make_game(api, "metro", [{"kind": "human", "name": "Ada"}, {"kind": "open"}])
    tab = open_tab(base)
    page = tab.page
    hold_seat(page, game, 0, str(tokens[0]))
    open_game(tab, base, game)
    assert wait_my_turn_or_end(page)
    page.wait_for_function("() => document.title.startsWith('● Your turn — Metro')")
    # The sound is off until asked for; asked for, it is remembered.
    assert page.locator("#sound-toggle").is_visible()
    assert not page.is_checked("#sound-toggle")
    page.check("#sound-toggle")
    # Ada moves: Bob's turn, no alert in the title.
    squares = legal_squares(page)
    click_square(page, squares[0])
    page.wait_for_function("() => document.title === 'Metro — game'")
    page.reload()
    page.wait_for_selector("#scores tr[data-seat]")
    assert page.is_checked("#sound-toggle")
    assert page.evaluate("localStorage.getItem('setting.turn.sound')") == "on"
    tab.check_clean()


# ---- 10. spectators and invitees ---------------------------------------------------------------


def test_spectators_are_told_and_only_the_creator_is_asked_to_share(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    from tests.browser.steps import create_game

    base = gateway_process
    ada = open_tab(base)
    ada.page.select_option("#game-pick", "metro")
    game = create_game(ada.page, "Ada", [("open", ""), ("open", "")])
    ada.page.wait_for_selector("#status:has-text('share the invite link')")
    assert ada.page.locator("#watching").is_hidden()

    bob = open_tab(f"{base}/#/game/{game}")
    bob.page.wait_for_selector("#join-box:not([hidden])")
    assert bob.page.locator("#watching").is_visible()
    bob.page.fill("#join-name", "Bob")
    bob.page.click("#join-button")
    bob.page.wait_for_selector("#scores tr[data-seat='1'] .name:has-text('Bob (you)')")
    assert message(bob.page) == "You joined the game as Bob."
    status = bob.page.inner_text("#status")
    assert "Waiting for 1 more player" in status
    assert "share" not in status and "invite" not in status
    assert bob.page.locator("#watching").is_hidden()

    carol = open_tab(f"{base}/#/game/{game}")
    carol.page.wait_for_selector("#watching:not([hidden])")
    assert "You are watching" in carol.page.inner_text("#watching")
    assert "share" not in carol.page.inner_text("#status")
    for tab in (ada, bob, carol):
        tab.check_clean()


# ---- 11. headings, column headers, how to play, the "(you) ◀" marker ---------------------------


@pytest.mark.parametrize("kind", GAMES)
def test_one_heading_column_headers_and_how_to_play(
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    artifacts: Path,
    kind: str,
) -> None:
    base = gateway_process
    _, meta = api.get("/api/meta")
    entry = next(g for g in meta["games"] if g["game"] == kind)
    lobby = open_tab(base)
    lobby.page.wait_for_selector("#game-pick option", state="attached")
    assert shown_h1(lobby.page) == ["Board games"]

    game, token = vs_ai(api, kind)
    tab = open_tab(base)
    page = tab.page
    hold_seat(page, game, 0, token)
    page.set_viewport_size({"width": 1280, "height": 800})
    open_game(tab, base, game)
    page.wait_for_function(
        "n => document.getElementById('game-title').textContent === n", arg=entry["name"]
    )
    assert shown_h1(page) == [entry["name"]]
    headers = page.eval_on_selector_all(
        "#scores thead th", "els => els.map(e => [e.getAttribute('scope'), e.textContent])"
    )
    assert headers[0][1] == "Player" and headers[-1][1] == "Score"
    assert all(scope == "col" for scope, _ in headers)
    how = page.locator("#how-to-play")
    assert how.is_visible() and "How to play" in page.inner_text("#how-to-play summary")
    page.click("#how-to-play summary")
    text = page.inner_text("#how-text").strip()
    assert text, kind
    if not page.evaluate(
        f"() => import('/games/{kind}/page.js').then(m => typeof m.howToPlay === 'function')"
    ):
        assert text == entry["description"]
    # "(you)" and the turn marker stay on the name's line at 1280 px.
    name = page.locator("#scores tr[data-seat='0'] .name")
    assert "(you)" in name.inner_text()
    if kind != "metrox":  # Metro X's seats choose at once: no one is marked to play
        page.wait_for_selector("#scores tr[data-seat='0'] .turn-mark")
    shot(page, artifacts, f"game-page-{kind}")
    lines = name.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e);"
        " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
    )
    assert lines == 1, lines
    assert name.evaluate("e => e.scrollWidth <= e.clientWidth")
    label = page.locator("#scores tr[data-seat='0'] .name .label")
    assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), "a short name is not cut"
    tab.check_clean()
    lobby.check_clean()


# ---- axe-core ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe.min.js from npm, cached under .venv/axe-core/ (deploy/test-prereqs.sh fetches it)."""
    if not AXE_JS.exists() and shutil.which("npm"):
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
             "--prefix", str(AXE_DIR), f"axe-core@{AXE_VERSION}"],
            cwd=AXE_DIR, capture_output=True, timeout=180, check=False,
        )  # fmt: skip
    if not AXE_JS.exists():
        why = f"{AXE_JS} is missing (deploy/test-prereqs.sh fetches axe-core with npm)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return AXE_JS.read_text(encoding="utf-8")


# The parts of a game page its page module fills (games/<kind>/web/), not the shell.


def axe_problems(page: Any, source: str, exclude: list[list[str]] | None = None) -> list[str]:
    """The serious and critical violations axe finds on the page as it is now (outside
    `exclude`)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=source)
    result = page.evaluate(
        "(exclude) => axe.run({include: [['html']], exclude}, {resultTypes: ['violations']})"
        ".then(r => r.violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => `${v.impact} ${v.id}: ${v.help} — ` + "
        "v.nodes.slice(0, 4).map(n => n.target.join(' ')).join(', ')))",
        exclude or [],
    )
    return [str(r) for r in result]


def test_axe_finds_no_serious_violation(
    api: GatewayApi,
    open_tab: Callable[..., Tab],
    gateway_process: str,
    axe_source: str,
) -> None:
    base = gateway_process
    found: dict[str, list[str]] = {}
    for viewport in (WIDE, NARROW):
        # The page's Content-Security-Policy allows no inline script: let axe's in, for the test.
        tab = open_tab(base, viewport=viewport, bypass_csp=True)
        page = tab.page
        game, token = vs_ai(api, "metro")
        hold_seat(page, game, 0, token)
        page.reload()
        page.wait_for_selector("#my-games li")
        page.wait_for_selector("#open-list li")
        found[f"lobby {viewport['width']}"] = axe_problems(page, axe_source)
        for kind in GAMES:
            game, token = vs_ai(api, kind)
            hold_seat(page, game, 0, token)
            open_game(tab, base, game)
            settled(page)
            found[f"{kind} {viewport['width']}"] = axe_problems(page, axe_source)
        over, tokens = finished_metro(api)
        hold_seat(page, over, 0, str(tokens[0]))
        open_game(tab, base, over)
        page.wait_for_selector("#after:not([hidden])")
        page.wait_for_selector("#replay:not([hidden])")
        found[f"finished {viewport['width']}"] = axe_problems(page, axe_source)
        page.goto(f"{base}/#/game/doesnotexist")
        page.wait_for_selector("#missing:not([hidden])")
        found[f"missing {viewport['width']}"] = axe_problems(page, axe_source)
        tab.check_clean()
    bad = {where: problems for where, problems in found.items() if problems}
    assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)


def test_axe_finds_no_serious_violation_in_metro_x_board(
    api: GatewayApi, open_tab: Callable[..., Tab], gateway_process: str, axe_source: str
) -> None:
    base = gateway_process
    tab = open_tab(base, bypass_csp=True)
    game, token = vs_ai(api, "metrox")
    hold_seat(tab.page, game, 0, token)
    open_game(tab, base, game)
    settled(tab.page)
    problems = axe_problems(tab.page, axe_source)
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)
