"""One shape per game: the same modules for the same jobs in every game's package (games.base
says which), no module of the rules core over 600 lines, and imports inside games/ that run one
way (no import circle, counting every import statement: those inside functions and those only
for type checking too, as a circle hidden there is still a circle)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import games

ROOT = Path(games.__file__).parent
# Every game's modules, one per job (games.base, "One shape per game").
SHAPE = (
    "__init__",  # the Game: ties the modules, registers; view and record are the game's
    "rules",  # the option table
    "moves",  # the move values and their one parser
    "position",  # the position and the fast door
    "state",  # the checked door, retirement, the stored form
    "view",  # the only projection of hidden information
    "view_schema",  # the view's JSON Schema
    "record",  # records and replay
    "chance",  # sampled worlds
    "evaluate",  # the AI's heuristic
    "queries",  # `metro rules`
)
MAX_LINES = 600


@pytest.mark.parametrize("kind", games.kinds())
def test_every_game_has_the_same_modules_for_the_same_jobs(kind: str) -> None:
    package = ROOT / kind
    have = {p.stem for p in package.glob("*.py")}
    assert set(SHAPE) <= have, f"{kind} lacks {sorted(set(SHAPE) - have)}"


def test_no_module_of_the_rules_core_is_over_600_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def module_name(path: Path, root: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that `path` imports anywhere (`from a import b` counts as
    importing a.b when that is a module, else a)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in modules else base)
    return (out & modules) - {name}


def import_circles(root: Path) -> list[list[str]]:
    """Every import circle among the modules of the package at `root`, as a path of names."""
    paths = {module_name(p, root): p for p in root.rglob("*.py")}
    graph = {m: imports(p, root, set(paths)) for m, p in paths.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    circles: list[list[str]] = []

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                circles.append([*trail[trail.index(n) :], n])
            elif n not in state:
                visit(n, [*trail, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return circles


def test_no_import_circle_inside_games() -> None:
    assert import_circles(ROOT) == []


def test_a_circle_through_a_function_or_type_checking_import_counts(tmp_path: Path) -> None:
    pkg = tmp_path / "games"
    (pkg / "g").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "g" / "__init__.py").write_text("from games.g.state import State\n")
    (pkg / "g" / "state.py").write_text("def view():\n    from games.g.view import view\n")
    (pkg / "g" / "view.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .state import State\n"
    )
    (pkg / "g" / "record.py").write_text("from games.g import state\n")
    assert import_circles(pkg) == [["games.g.state", "games.g.view", "games.g.state"]]
