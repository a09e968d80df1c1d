"""House rules of the code, checked: no Python file in games/ or services/ over 600 lines and no
JavaScript file of the page (web/, games/*/web/) over 500 (a file that long holds more than one
idea), and no import circle among their modules (a circle makes the import order matter and hides
which part depends on which).

Import edges are read with `ast` from each module's module-level statements: `import a.b`,
`from a import b` (to `a.b` when that is a module, else to `a`), relative imports (`from . import
x` included), and imports inside `if TYPE_CHECKING:` blocks too, since that is how a circle gets
hidden rather than removed. Imports inside functions are left out: they run late, on purpose.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("games", "services")
MAX_LINES = 600
JS_MAX_LINES = 500
# The page's JavaScript files over JS_MAX_LINES today, each with the size it may not grow past.
# The list only shrinks: a file split under the limit must leave it (the test says so).
JS_OVER_LIMIT: dict[str, int] = {}


def _python_files(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[Path]:
    return sorted(p for pkg in packages for p in (root / pkg).rglob("*.py"))


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Module-level imports, including those in `if`/`try` blocks (TYPE_CHECKING among them)."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If | ast.Try):
            todo.extend(node.body)
            todo.extend(node.orelse)
            if isinstance(node, ast.Try):
                todo.extend(node.finalbody)
                for handler in node.handlers:
                    todo.extend(handler.body)
    return found


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Each module of the packages (games/, services/) -> the modules of them it imports."""
    files = {_module_name(p, root): p for p in _python_files(root, packages)}
    packages = {name for name, p in files.items() if p.name == "__init__.py"}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        # The package a relative import counts from: the module's own for a package's __init__.
        here = name.split(".") if name in packages else name.split(".")[:-1]
        for node in _top_level_imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = here[: len(here) - (node.level - 1)]
                    stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
                else:
                    stem = node.module or ""
                # `from pkg import mod` imports the module pkg.mod when there is one.
                targets = [
                    f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in files else stem
                    for alias in node.names
                ]
            for target in targets:
                # `import a.b.c` runs a, a.b and a.b.c: the deepest known module stands for it.
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        # Iterative Tarjan: (node, iterator over its successors).
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles)


def test_no_python_file_in_games_or_services_is_over_600_lines() -> None:
    long: dict[str, int] = {}
    for p in _python_files():
        n = len(p.read_text().splitlines())
        if n > MAX_LINES:
            long[str(p.relative_to(ROOT))] = n
    assert not long, f"files over {MAX_LINES} lines: {long}"


def _js_files(root: Path = ROOT) -> list[Path]:
    """Every .js the page loads: web/ and each game's web/. None is vendored or minified, and
    none is pure data (the message catalogues are .json), so none is skipped."""
    dirs = [root / "web", *sorted((root / "games").glob("*/web"))]
    return sorted(p for d in dirs for p in d.rglob("*.js"))


def test_no_js_file_is_over_500_lines() -> None:
    """A file over the limit fails unless it is on JS_OVER_LIMIT, and a listed one may not grow
    past its listed size; a listed file already at or under the limit fails too, so that its
    entry is removed and the list only shrinks."""
    files = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in _js_files()}
    assert files, "no JavaScript files found under web/ or games/*/web/"
    long = {f: n for f, n in files.items() if n > JS_MAX_LINES and f not in JS_OVER_LIMIT}
    assert not long, f"JavaScript files over {JS_MAX_LINES} lines: {long}"
    grown = {f: (files[f], cap) for f, cap in JS_OVER_LIMIT.items() if files.get(f, 0) > cap}
    assert not grown, f"listed JavaScript files grew past their size (now, cap): {grown}"
    done = {f: files.get(f) for f in JS_OVER_LIMIT if files.get(f, 0) <= JS_MAX_LINES}
    assert not done, f"remove from JS_OVER_LIMIT, now within {JS_MAX_LINES} lines (or gone): {done}"


def test_no_import_circle_among_games_and_services() -> None:
    circles = import_circles(import_graph())
    assert not circles, "import circles (each a group of modules that import each other):\n" + (
        "\n".join(" <-> ".join(c) for c in circles)
    )


def test_the_checker_sees_a_circle_hidden_behind_type_checking(tmp_path: Path) -> None:
    """The checker itself, on a small package: a circle made only through `from . import x` one
    way and `if TYPE_CHECKING:` the other is found; imports inside functions and one-way imports
    make none."""
    pkg = tmp_path / "p"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.a import thing\n"
    )
    (pkg / "c.py").write_text("import p.a\n\ndef late():\n    from p import c\n")
    (pkg / "sub" / "d.py").write_text("from ..c import x\n\ndef late():\n    import p.sub.e\n")
    (pkg / "sub" / "e.py").write_text("from .d import y\n")
    graph = import_graph(tmp_path, ("p",))
    assert graph["p.a"] == {"p.b"}
    assert graph["p.b"] == {"p.a"}
    assert graph["p.c"] == {"p.a"}
    assert graph["p.sub.d"] == {"p.c"}
    assert graph["p.sub.e"] == {"p.sub.d"}
    assert import_circles(graph) == [["p.a", "p.b"]]
    assert import_circles({"x.a": {"x.b"}, "x.b": set()}) == []


# The engine's sub-packages by concern, lowest first: each may import those before it, never one
# after it (docs/engine.md, "Where the code is"). The process and the servicer sit above them all.
ENGINE_FLOORS = ("core", "players", "play", "bots", "daily")


def test_the_engine_packages_import_only_downwards() -> None:
    graph = import_graph()
    floor = {name: i for i, name in enumerate(ENGINE_FLOORS)}
    engine_dir = ROOT / "services" / "engine"
    packages = {p.name for p in engine_dir.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(ENGINE_FLOORS), f"an engine package is not on a floor: {packages}"
    flat = {p.stem for p in engine_dir.glob("*.py")}
    assert flat == {"__init__", "__main__", "server", "service"}, (
        f"engine modules outside the packages by concern: {flat}"
    )

    def floor_of(module: str) -> int | None:
        parts = module.split(".")
        if parts[:2] != ["services", "engine"] or len(parts) < 4:
            return None
        return floor[parts[2]]

    upward = sorted(
        f"{m} -> {d}"
        for m, deps in graph.items()
        if (here := floor_of(m)) is not None
        for d in deps
        if (there := floor_of(d)) is not None and there > here
    )
    assert not upward, "engine imports from a lower package to a higher one:\n" + "\n".join(upward)
    servicer = {d for d in graph["services.engine.service"] if d.startswith("services.engine.")}
    assert any(floor_of(d) == floor["daily"] for d in servicer)  # the checker sees the packages
