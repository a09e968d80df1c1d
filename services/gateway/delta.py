"""View deltas (docs/api-deltas.md): what changed between two versions of one seat's view, as a
JSON Patch (RFC 6902) that turns the older view into the newer one.

A client that asks for a delta (`?since=<version>`) names the version it holds. This process
remembers the last view it sent of each game and seat (`ViewMemory`); when that is the version
the client names, the answer is the patch, else the full view (a client that missed a version
gets the view, never a patch against a view it does not have). Nothing here knows a game: the
patch is made from the JSON alone.

The patch uses three operations: `replace` (a value changed), `add` (a new key, or an item
appended with the path's last segment `-`) and `remove` (a key gone, or the last items of a
list, highest index first). A patch holds only values of the newer view, never an old value.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import orjson

REMEMBERED = 4096  # views kept per process: the newest of each (game, seat) seen lately


def _pointer(path: str, key: str) -> str:
    """`path` extended by one key, escaped as RFC 6901 says ('~' -> '~0', '/' -> '~1')."""
    if "~" in key or "/" in key:
        key = key.replace("~", "~0").replace("/", "~1")
    return f"{path}/{key}"


def diff(old: Any, new: Any) -> list[dict[str, Any]]:
    """The JSON Patch that turns `old` into `new` (both decoded JSON)."""
    ops: list[dict[str, Any]] = []
    _diff(old, new, "", ops)
    return ops


def _equal(a: Any, b: Any) -> bool:
    """Equal as JSON: == alone takes true for 1 and 1 for 1.0, the JSON text never does (and
    == settles most unequal pairs before any text is made)."""
    return bool(a == b) and orjson.dumps(a) == orjson.dumps(b)


def _diff(old: Any, new: Any, path: str, ops: list[dict[str, Any]]) -> None:
    kind = type(old)
    if kind is not type(new) or (kind is not dict and kind is not list):
        if kind is not type(new) or old != new:
            ops.append({"op": "replace", "path": path, "value": new})
        return
    if _equal(old, new):
        return
    if kind is dict:
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": _pointer(path, key)})
        for key, value in new.items():
            if key in old:
                _diff(old[key], value, _pointer(path, key), ops)
            else:
                ops.append({"op": "add", "path": _pointer(path, key), "value": value})
        return
    common = min(len(old), len(new))  # two lists
    if not _equal(old[:common], new[:common]):
        for i in range(common):
            _diff(old[i], new[i], f"{path}/{i}", ops)
    for value in new[common:]:
        ops.append({"op": "add", "path": f"{path}/-", "value": value})
    for i in range(len(old) - 1, common - 1, -1):
        ops.append({"op": "remove", "path": f"{path}/{i}"})


def apply(doc: Any, patch: list[dict[str, Any]]) -> Any:
    """`doc` with `patch` applied (a new value; `doc` is left as it was). For tests and Python
    clients; ValueError for an operation this module never makes or a path that is not there."""
    root = orjson.loads(orjson.dumps(doc))
    for op in patch:
        kind, path = op.get("op"), op.get("path")
        if not isinstance(path, str) or (path and not path.startswith("/")):
            raise ValueError(f"bad path {path!r}")
        keys = [k.replace("~1", "/").replace("~0", "~") for k in path.split("/")[1:]]
        if not keys:
            if kind != "replace":
                raise ValueError(f"{kind!r} of the whole document")
            root = op["value"]
            continue
        parent = root
        for key in keys[:-1]:
            parent = parent[int(key)] if isinstance(parent, list) else parent[key]
        last = keys[-1]
        if isinstance(parent, list):
            if kind == "add" and last == "-":
                parent.append(op["value"])
            elif kind == "replace":
                parent[int(last)] = op["value"]
            elif kind == "remove" and int(last) == len(parent) - 1:
                parent.pop()
            else:
                raise ValueError(f"unsupported {kind!r} at {path!r}")
        elif kind in ("add", "replace"):
            if kind == "replace" and last not in parent:
                raise ValueError(f"replace of a missing key at {path!r}")
            parent[last] = op["value"]
        elif kind == "remove":
            del parent[last]
        else:
            raise ValueError(f"unsupported operation {kind!r}")
    return root


class ViewMemory:
    """The last view this process sent of each (game, seat), as its JSON text. Bounded, and
    shared by the process's threads."""

    def __init__(self, size: int = REMEMBERED) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._views: OrderedDict[tuple[str, int | None], tuple[int, str]] = OrderedDict()

    def get(self, game_id: str, seat: int | None, version: int) -> str | None:
        with self._lock:
            got = self._views.get((game_id, seat))
        return got[1] if got is not None and got[0] == version else None

    def put(self, game_id: str, seat: int | None, version: int, text: str) -> None:
        key = (game_id, seat)
        with self._lock:
            known = self._views.get(key)
            if known is not None and known[0] > version:
                return  # an older answer finishing late: keep the newer view
            self._views[key] = (version, text)
            self._views.move_to_end(key)
            while len(self._views) > self.size:
                self._views.popitem(last=False)


def delta_json(game_id: str, since: int, version: int, old_text: str, new_text: str) -> bytes:
    """The delta answer: `{"game_id", "since", "version", "patch"}`."""
    patch = diff(orjson.loads(old_text), orjson.loads(new_text))
    return orjson.dumps({"game_id": game_id, "since": since, "version": version, "patch": patch})
