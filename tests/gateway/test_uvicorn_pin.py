"""The uvicorn internals the gateway subclasses live in one module with a version pin
(services/gateway/live/uvicorn_internals.py): pyproject.toml, constraints.txt and the module's
PINNED say the same versions, the installed ones match, another version is refused at import
with a message that names it, and no other module reaches into uvicorn's insides.
"""

from __future__ import annotations

import ast
import re
import tomllib

import pytest

from services.gateway.live import uvicorn_internals
from services.gateway.live.uvicorn_internals import PINNED, check_versions
from tests.test_house import ROOT

# uvicorn's public API (what its docs show): anything else under uvicorn.* is an internal.
PUBLIC = {"uvicorn"}


def test_pyproject_and_constraints_pin_the_versions_the_module_checks() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {}
    for line in project["dependencies"]:
        name, _, rest = line.partition("==")
        pins[name.strip().lower()] = rest.strip() if rest else line
    constraints = dict(
        re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (ROOT / "constraints.txt").read_text(), re.M)
    )
    for name, pin in PINNED.items():
        assert pins.get(name) == pin, f"pyproject.toml must say {name}=={pin}: {pins.get(name)}"
        assert constraints.get(name) == pin, f"constraints.txt must say {name}=={pin}"


def test_the_installed_versions_are_the_pinned_ones() -> None:
    check_versions()  # the module did at import too; here the answer is a test's, not a crash


def test_another_version_is_refused_with_a_message_that_says_what_to_do() -> None:
    found = {**PINNED, "uvicorn": "0.99.0"}
    with pytest.raises(ImportError) as refused:
        check_versions(found)
    message = str(refused.value)
    assert "uvicorn 0.99.0" in message and f"uvicorn=={PINNED['uvicorn']}" in message, message
    assert "constraints.txt" in message and "uvicorn-worker" not in message, message


def test_only_the_one_module_imports_uvicorn_internals() -> None:
    """Every `uvicorn.*` submodule and uvicorn_worker is imported in uvicorn_internals.py only."""
    own = ROOT / "services" / "gateway" / "live" / "uvicorn_internals.py"
    assert uvicorn_internals.__file__ == str(own)
    reaching = []
    for path in sorted((ROOT / "services").rglob("*.py")):
        if path == own:
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            reaching += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in names
                if name.startswith(("uvicorn.", "uvicorn_worker"))
                or (name.startswith("uvicorn") and name not in PUBLIC)
            ]
    assert not reaching, "uvicorn internals imported outside uvicorn_internals.py:\n" + "\n".join(
        reaching
    )
