"""The compiled rules core (games/native.py): the suite runs what `./dev setup` compiled, and a
compiled module older than its source is refused, never run (an extension shadows its source).
tests/ai/test_search_pinned.py holds the compiled search to the answers the interpreted one gave.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from games import native


def test_the_suite_runs_the_compiled_core() -> None:
    assert native.status() == "compiled", (
        f"the rules core is {native.status()}: `./dev setup` compiles it (./dev test does)"
    )
    for source in native.SOURCES:
        module = importlib.import_module(source.removesuffix(".py").replace("/", "."))
        assert module.__file__ == str(native.compiled_file(source)), source


def _copy_of_native(root: Path) -> ModuleType:
    """games/native.py loaded from a scratch root holding a fake build of every source."""
    (root / "games").mkdir()
    shutil.copy(native.__file__, root / "games" / "native.py")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for source in native.SOURCES:
        path = root / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {source}\n")
        path.with_name(path.stem + suffix).write_bytes(b"")
    (root / f"metro_native_core__mypyc{suffix}").write_bytes(b"")  # the shared library
    spec = importlib.util.spec_from_file_location("native_copy", root / "games" / "native.py")
    assert spec and spec.loader
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    copy.MANIFEST.parent.mkdir()
    sources = {s: copy.digest(s) for s in copy.SOURCES}
    copy.MANIFEST.write_text(json.dumps({"sources": sources}))
    return copy


def test_a_source_changed_since_the_build_is_refused(tmp_path: Path) -> None:
    copy = _copy_of_native(tmp_path)
    assert copy.status() == "compiled"
    copy.check()
    changed = "games/metrox/position.py"
    (tmp_path / changed).write_text("# edited after the build\n")
    assert copy.status() == f"out of date: {changed} changed since the last build"
    with pytest.raises(ImportError, match=r"out of date: games/metrox/position\.py.*\./dev setup"):
        copy.check()


def test_a_partial_build_is_refused_and_no_build_runs_interpreted(tmp_path: Path) -> None:
    copy = _copy_of_native(tmp_path)
    lost = "services/ai/players/ismcts.py"
    found = copy.compiled_file(lost)
    assert found is not None
    found.unlink()
    assert copy.status() == f"partly compiled: no extension module for {lost}"
    with pytest.raises(ImportError, match="partly compiled"):
        copy.check()
    found.write_bytes(b"")
    shared = copy.shared_library()
    assert shared is not None and shared.parent == tmp_path
    shared.unlink()
    assert copy.status() == "partly compiled: no shared library metro_native_core__mypyc"
    copy.clean()
    assert copy.status() == "interpreted" and not copy.MANIFEST.exists()
    assert not list(tmp_path.rglob("*.so"))
    copy.check()  # a checkout never set up runs interpreted, and says so in the services' logs
