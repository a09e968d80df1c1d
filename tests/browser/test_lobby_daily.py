"""The lobby learns which games have a daily puzzle from the catalogue (GET /api/meta's `daily`),
not by asking every game's /api/daily/<kind>: each load asked /api/daily/metro and
/api/daily/underground for a 404 (issue 35 item 4). Today's card still shows the games that
have one."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable

from tests.browser.conftest import Tab


def test_the_lobby_asks_only_for_the_daily_puzzles_that_exist(
    open_tab: Callable[..., Tab], gateway_process: str
) -> None:
    base = gateway_process
    with urllib.request.urlopen(f"{base}/api/meta", timeout=20) as reply:
        catalogue = json.load(reply)["games"]
    daily = {g["game"] for g in catalogue if g["daily"] is True}
    others = {g["game"] for g in catalogue} - daily
    assert daily == {"metrox"} and others == {"metro", "underground"}, catalogue

    tab = open_tab(base)
    page = tab.page
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    for _ in range(2):  # the first load and a reload
        page.wait_for_selector("#daily-play-metrox")
        page.wait_for_load_state("networkidle")
        page.reload()
    asked = [u for u in tab.urls if "/api/daily/" in u]
    assert asked, tab.urls
    kinds = {u.split("/api/daily/", 1)[1].split("?")[0].split("/")[0] for u in asked}
    assert kinds == daily, asked
    assert not failed, failed
    tab.check_clean()
