"""`python -m services.engine`: run the engine with the settings of the environment."""

from __future__ import annotations

import asyncio
import logging

from services.common.config import Settings
from services.engine.server import serve


def main() -> None:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(serve(Settings.from_env()))


if __name__ == "__main__":
    main()
