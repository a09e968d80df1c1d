"""The parts of uvicorn that are not its public API and that the gateway builds on, in this one
module, checked at import against the versions they were written for.

- `HttpToolsProtocol` (uvicorn.protocols.http.httptools_impl): protocol.py subclasses it and
  overrides its parser callbacks (`data_received`, `on_message_begin`, `on_url`, `on_header`,
  `on_headers_complete`) and `send_400_response`, and reads its `url`, `scope` and `transport`,
  to refuse an oversized request head while it arrives.
- `UvicornWorker` (the uvicorn-worker package): worker.py subclasses it, sets `CONFIG_KWARGS`
  and `config.timeout_notify`, and checks the loaded app in `load_wsgi`.

None of these is promised to stay: a new release may rename a callback and the head limits would
silently stop applying. So the versions are pinned in pyproject.toml and constraints.txt and
checked here; another version stops the gateway at start with a message saying what to do
(tests/gateway/test_uvicorn_pin.py keeps the three in step).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import version

# The versions these internals were read in. Upgrading: read the overrides above against the
# new source, then change this, pyproject.toml and constraints.txt together.
PINNED: Mapping[str, str] = {"uvicorn": "0.54.0", "uvicorn-worker": "0.4.0"}


def check_versions(found: Mapping[str, str] | None = None) -> None:
    """ImportError naming each package whose installed version is not the pinned one."""
    installed = found if found is not None else {name: version(name) for name in PINNED}
    wrong = [
        f"{name} {installed.get(name)} (the gateway is written for {name}=={pin})"
        for name, pin in PINNED.items()
        if installed.get(name) != pin
    ]
    if wrong:
        raise ImportError(
            "services/gateway/live/uvicorn_internals.py: the gateway subclasses uvicorn internals "
            f"and found {'; '.join(wrong)}. Install the pinned versions (./dev setup, which "
            "uses constraints.txt), or read the overrides in protocol.py and worker.py against "
            "the new release and then change PINNED, pyproject.toml and constraints.txt together."
        )


check_versions()

# After the check, on purpose: an unexpected version is named before any import of its insides.
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # noqa: E402
from uvicorn_worker import UvicornWorker  # noqa: E402

__all__ = ["PINNED", "HttpToolsProtocol", "UvicornWorker", "check_versions"]
