"""Shared fixtures live in tests/fixtures/, one module per part of the stack.

The hook below is how the whole suite shares two workers (`./dev test`, docs/testing.md)."""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

pytest_plugins = [
    "tests.fixtures.processes",
    "tests.fixtures.redis",
    "tests.fixtures.postgres",
    "tests.fixtures.engine",
    "tests.fixtures.ai",
    "tests.fixtures.gateway",
]

# Folders whose tests all run on one worker, one test at a time: at most one headless Chromium
# at once (three at once made page tests miss their waits on a loaded 2-core machine).
ONE_AT_A_TIME = ("tests/browser/",)


class FileOrFolderScheduling(LoadScopeScheduling):
    """`--dist loadfile`, except that a folder of ONE_AT_A_TIME is one work unit. (xdist's own
    `loadgroup` renames a test's node id to group it, which pytest 9 no longer lets it do.)
    The largest unit is handed out first, so the page tests start at once on one worker while
    the other takes the files one by one."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return next((folder for folder in ONE_AT_A_TIME if path.startswith(folder)), path)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadfile":
        return None
    return FileOrFolderScheduling(config, log)
