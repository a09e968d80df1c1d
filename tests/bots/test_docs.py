"""docs/bots.md's examples work: every code block marked `bash` or `python` is run, each on its
own, against the live gateway (`$METRO_URL`), from the repository root with .venv/bin on PATH
(issue 24.3: "every example in it is run by a test")."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.bots.conftest import ROOT, node_or_skip

DOC = ROOT / "docs" / "bots.md"
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```$", re.M | re.S)
HEADING = re.compile(r"^## (.+)$", re.M)


def blocks() -> list[tuple[str, str, str]]:
    """(test id, kind, code) of every runnable block; the id names the section it is in."""
    text = DOC.read_text(encoding="utf-8")
    found = []
    for i, m in enumerate(BLOCK.finditer(text)):
        headings = HEADING.findall(text, 0, m.start())
        section = re.sub(r"[^a-z0-9]+", "-", (headings or ["top"])[-1].lower()).strip("-")
        found.append((f"{i}-{section}", m.group(1), m.group(2)))
    return found


BLOCKS = blocks()


def test_the_guide_has_examples_and_is_linked_from_the_readme() -> None:
    kinds = [kind for _, kind, _ in BLOCKS]
    assert kinds.count("bash") >= 4 and kinds.count("python") >= 1, kinds
    assert "(docs/bots.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("kind", "code"), [b[1:] for b in BLOCKS], ids=[b[0] for b in BLOCKS])
def test_example(gateway_process: str, tmp_path: object, kind: str, code: str) -> None:
    if re.search(r"^node ", code, re.M):
        node_or_skip()
    if "curl " in code and shutil.which("curl") is None:
        pytest.skip("curl is not on PATH")
    env = {
        **os.environ,
        "METRO_URL": gateway_process,
        "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    command = ["bash", "-euo", "pipefail", "-c", code] if kind == "bash" else [sys.executable]
    done = subprocess.run(
        command,
        input=None if kind == "bash" else code,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    if "--vs-ai" in code or kind == "python":
        assert done.stdout.strip().splitlines()[-1].startswith("final scores:"), done.stdout
