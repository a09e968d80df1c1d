"""Playwright driving Debian's Chromium (never a downloaded browser) against a real gateway.

Where /usr/bin/chromium is missing the browser tests are skipped with the reason, except under
CI (CI=true), where deploy/test-prereqs.sh must have installed it and its absence is a failure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDE = {"width": 1280, "height": 800}
NARROW = {"width": 390, "height": 844}
EVENTS = re.compile(r"/events(\?|$)")


# One browser per test module, not per session: Playwright's sync API keeps an asyncio loop
# running in this thread while it lives, and tests elsewhere (asyncio.run) need none running.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing (deploy/test-prereqs.sh installs it with apt)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@dataclass
class Tab:
    """A page with what it logged, its failures and every URL it requested."""

    page: Any
    errors: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    event_requests: list[Any] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # every console message, "type: text"

    def check_clean(self) -> None:
        assert not self.errors, f"the page reported errors: {self.errors}"


@pytest.fixture
def open_tab(browser: Any) -> Iterator[Callable[..., Tab]]:
    """open_tab(url, viewport=WIDE) -> Tab in a fresh browser context (its own storage)."""
    contexts: list[Any] = []

    def open_(url: str, viewport: dict[str, int] | None = None, **context_args: Any) -> Tab:
        context = browser.new_context(viewport=viewport or WIDE, **context_args)
        # A deadline, not a pause: a wait returns the moment its condition holds. 60 s because
        # a fresh-clone run on two workers of a loaded 2-core machine once took over 20 s to
        # show a lobby (a page and a second worker's processes sharing two cores).
        context.set_default_timeout(60_000)
        contexts.append(context)
        page = context.new_page()
        tab = Tab(page)
        page.on("pageerror", lambda exc: tab.errors.append(str(exc)))
        # Console errors too (a Content-Security-Policy violation shows only there); a refused
        # request's "Failed to load resource" is expected: the page shows its message instead.
        page.on(
            "console",
            lambda msg: (
                tab.errors.append(msg.text)
                if msg.type == "error" and not msg.text.startswith("Failed to load resource")
                else None
            ),
        )
        page.on("console", lambda msg: tab.console.append(f"{msg.type}: {msg.text}"))
        page.on("request", lambda req: tab.urls.append(req.url))
        page.on(
            "request",
            lambda req: tab.event_requests.append(req) if EVENTS.search(req.url) else None,
        )
        page.goto(url)
        return tab

    yield open_
    for context in contexts:
        context.close()


def shot(page: Any, artifacts: Path, name: str) -> None:
    """A screenshot under test-artifacts/, named for what it shows and the viewport width."""
    width = page.viewport_size["width"]
    page.screenshot(path=str(artifacts / f"{name}-{width}.png"), full_page=True)
