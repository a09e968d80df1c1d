"""`python -m services.ai`: the Ai gRPC service and its bot workers, with the environment's
settings (services/ai/server.py lists them)."""

from __future__ import annotations

import logging
import os

import uvloop

from services.ai.server import serve
from services.common.config import Settings


def main() -> None:
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s %(name)s[{os.getpid()}]: %(message)s",
    )
    # On uvloop, as the engine (services/engine/__main__.py says why).
    uvloop.run(serve(Settings.from_env()))


if __name__ == "__main__":
    main()
