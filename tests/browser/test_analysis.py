"""Post-game analysis in the page: a finished Metro X game (played over HTTP, to be quick) is
opened, *Analyse this game* shows the progress and then the value graph, a click on a point of
the graph moves the replay to that move, the log labels every decision in words with a symbol,
and My games offers *Analyse* for the finished game."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from tests.browser.conftest import Tab, shot
from tests.browser.test_no_codes import PLACEMENT, TILE, card_patterns, codes_shown
from tests.fixtures.waits import wait_until

TIMEOUT_S = 10
LABEL_WORDS = {"best", "good", "inaccuracy", "mistake", "blunder"}
A_MOVE = "a move"  # analysis.a_move: the words of a move its page could not say


def move_texts(page: Any) -> list[str]:
    """The log's words for every move played and every best move."""
    return list(page.eval_on_selector_all(
        "#analysis-log .an-text, #analysis-log .an-best", "els => els.map(e => e.textContent)"
    ))  # fmt: skip


def finished_game(url: str, kind: str, seed: int, rules: dict[str, Any] | None = None) -> str:
    """A 2-player game of `kind` against the random AI, seat 0 choosing at random (from `seed`):
    its id."""
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "random"}]
    spec: dict[str, Any] = {"game": kind, "seats": seats}
    if rules is not None:
        spec["rules"] = rules
    made = requests.post(f"{url}/api/games", json=spec, timeout=TIMEOUT_S).json()
    game, token = str(made["game_id"]), made["token"]
    auth = {"Authorization": f"Bearer {token}"}
    rng = random.Random(seed)

    def over_or_moved() -> bool:
        """Whether the game is over; if not, and seat 0 is to move, its move."""
        view = requests.get(f"{url}/api/games/{game}", headers=auth, timeout=TIMEOUT_S).json()
        if view["status"] == "over":
            return True
        if 0 in view["to_move"]:
            legal = requests.get(f"{url}/api/games/{game}/legal", headers=auth, timeout=TIMEOUT_S)
            body = {**rng.choice(legal.json()["moves"]), "expected_version": view["version"]}
            reply = requests.post(f"{url}/api/games/{game}/moves", json=body, headers=auth,
                                  timeout=TIMEOUT_S)  # fmt: skip
            assert reply.status_code in (200, 409), reply.text
        return False

    wait_until(over_or_moved, f"game {game} to end", timeout=300, every=0.1)
    return game


def test_analyse_a_finished_game_graph_log_and_replay(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    url = gateway_process
    game = finished_game(url, "metrox", 5, {"players": 2})
    tab = open_tab(f"{url}/#/game/{game}")
    page = tab.page
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_selector("#analysis-run:not([hidden])")
    page.click("#analysis-run")
    # Progress while it runs (queued or running), then the graph.
    page.wait_for_function(
        "() => document.querySelector('#analysis-status').textContent.length > 0", timeout=30_000
    )
    page.wait_for_selector("#analysis-graph svg .an-point", timeout=300_000)
    assert page.is_hidden("#analysis-run")

    # Every decision is in the log, labelled in words with a symbol; the summary has both seats.
    items = page.locator("#analysis-log li")
    count = items.count()
    assert count >= 10
    assert page.locator("#analysis-graph .an-point").count() == count
    labels = page.eval_on_selector_all(
        "#analysis-log li .an-label", "els => els.map(e => e.textContent)"
    )
    assert set(labels) <= LABEL_WORDS and labels
    symbols = page.eval_on_selector_all(
        "#analysis-log li .an-symbol", "els => els.map(e => e.textContent)"
    )
    assert all(symbols)
    assert page.locator("#analysis-summary tbody tr").count() == 2
    # Each move in the game's words (issue 22.2): "Ada: line 3", "best was station Acorn ...",
    # never a card code, in the log, the graph's titles or the summary (issue 19).
    texts = move_texts(page)
    assert texts and all(re.search(r"\b(line|station|pass)\b", x) for x in texts), texts[:6]
    assert not any(A_MOVE in x for x in texts), texts[:6]
    assert not codes_shown(page, card_patterns())

    # A click on a point of the graph moves the replay to that move (after its turn).
    point = page.locator("#analysis-graph .an-point").nth(6)
    entry = int(point.get_attribute("data-entry") or "-1")
    point.dispatch_event("click")
    page.wait_for_function(
        f"() => document.querySelector('#replay-range').value === '{entry + 1}'", timeout=10_000
    )
    current = page.locator("#analysis-log li.an-current")
    assert current.count() == 2  # both seats' choices of that turn
    assert all(
        int(c) == entry for c in current.evaluate_all("els => els.map(e => e.dataset.entry)")
    )
    assert page.inner_text("#analysis-here")
    assert not codes_shown(page, card_patterns())
    # A turn where both seats missed the best choice: the shown sheet marks the best one.
    both = page.evaluate(
        "() => { const by = {}; for (const li of document.querySelectorAll('#analysis-log li')) {"
        " const k = li.dataset.entry; if (li.dataset.label !== 'best') by[k] = (by[k] || 0) + 1; }"
        " const e = Object.keys(by).find((k) => by[k] === 2); return e === undefined ? null : e; }"
    )
    if both is not None:
        page.locator(f"#analysis-log li[data-entry='{both}']").first.click()
        # attached, not "visible": a straight vertical line's box has no width
        page.wait_for_selector(".analysis-best", state="attached")
        shot(page, artifacts, "analysis-metrox-best")
    # The log goes there too (keyboard or click).
    first = page.locator("#analysis-log li").first
    first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#replay-range').value === '1'")
    shot(page, artifacts, "analysis")
    tab.check_clean()

    # Asked again (e.g. from My games), the done analysis is answered as it is.
    again = requests.post(f"{url}/api/games/{game}/analysis", timeout=TIMEOUT_S)
    assert again.status_code == 202 and again.json()["status"] == "done"


def test_metro_draws_the_best_placement_beside_the_one_played(
    open_tab: Callable[..., Tab], gateway_process: str, artifacts: Path
) -> None:
    url = gateway_process
    game = finished_game(url, "metro", 3)
    tab = open_tab(f"{url}/#/game/{game}")
    page = tab.page
    page.click("#analysis-run")
    page.wait_for_selector("#analysis-graph svg .an-point", timeout=300_000)
    # Every placement in words, the tile by its tracks and its square: never a tile code or a
    # placement (issue 19), in the log, the graph's titles or anywhere else on the page.
    texts = move_texts(page)
    said = [("row" in x and "column" in x) or "Draw a tile" in x for x in texts]
    assert texts and all(said), texts[:6]
    assert not any(A_MOVE in x for x in texts), texts[:6]
    assert not codes_shown(page, [TILE, PLACEMENT])
    # A placement that was not the best: its position shows the best one as a ghost tile (★).
    result = requests.get(f"{url}/api/games/{game}/analysis", timeout=TIMEOUT_S).json()
    shown = {m["entry"]: m for m in result["moves"] if m["best"]["action"] == "place"}
    decision = next(m for m in shown.values() if m["label"] != "best")
    entry = decision["entry"]
    page.locator(f"#analysis-log li[data-entry='{entry}']").last.click()
    best = decision["best"]["placement"]
    page.wait_for_selector(f"#board .hint[data-hint='{best}'], svg .hint[data-hint='{best}']")
    assert page.inner_text("#analysis-here")
    assert not codes_shown(page, [TILE, PLACEMENT])
    shot(page, artifacts, "analysis-metro")
    # At the start (no move played yet) no best move is drawn.
    page.click("#replay-first")
    assert page.locator("svg .hint").count() == 0
    tab.check_clean()
