"""The gateway's blueprints are leaves: none imports another blueprint's module, and no gateway
module reaches into another's private (`_name`) helpers. What they share lives under public
names in services/gateway/http_kit.py (and party_create.py), so a blueprint can be changed or
removed without reading the others.

Read with `ast` from the source (the import graph of tests/test_house.py), so the check costs
nothing at run time and sees imports a test run might not reach.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_house import ROOT, import_graph

GATEWAY = ROOT / "services" / "gateway"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def blueprint_modules() -> set[str]:
    """The gateway modules that make a Flask Blueprint (`Blueprint(` called at module level)."""
    found = set()
    for path in GATEWAY.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in tree.body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == "Blueprint"
            ):
                found.add(_module(path))
    return found


def test_the_blueprints_are_found() -> None:
    """The check below is only as good as this list: the API's main blueprints are in it."""
    found = blueprint_modules()
    for name in ("games_api", "players_api", "bots_api", "party_api", "daily_api"):
        assert f"services.gateway.{name}" in found, found


def test_no_blueprint_imports_another_blueprint() -> None:
    blueprints = blueprint_modules()
    graph = import_graph()
    crossing = {
        name: sorted(graph[name] & (blueprints - {name}))
        for name in sorted(blueprints)
        if graph[name] & (blueprints - {name})
    }
    assert not crossing, f"blueprints importing other blueprints (share via http_kit): {crossing}"


def test_no_gateway_module_imports_another_modules_private_name() -> None:
    private = []
    for path in sorted(GATEWAY.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("services."):
                private += [
                    f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_")
                ]
    assert not private, "private names imported across modules:\n" + "\n".join(private)
