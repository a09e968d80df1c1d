"""`metro up` runs the production set-up: the gateway under gunicorn with deploy/gunicorn.conf.py
(the full stack runs in test_stack.py and test_faults.py), and its own Redis capped at
REDIS_MAXMEMORY with the noeviction policy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import redis

from services.cli import up
from services.common.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]


def test_the_gateway_runs_under_gunicorn_with_the_production_config() -> None:
    argv = up.gateway_argv(sys.executable)
    assert argv[:3] == [sys.executable, "-m", "gunicorn"]
    assert argv[argv.index("-c") + 1] == str(ROOT / "deploy" / "gunicorn.conf.py")
    assert argv[-1] == "services.gateway.live.asgi:create_asgi()"


def test_redis_maxmemory_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_MAXMEMORY", raising=False)
    assert up.redis_maxmemory() == "1gb"
    monkeypatch.setenv("REDIS_MAXMEMORY", "512MB")
    assert up.redis_maxmemory() == "512mb"
    monkeypatch.setenv("REDIS_MAXMEMORY", "lots")
    with pytest.raises(up.StartFailed, match="REDIS_MAXMEMORY must be a size"):
        up.redis_maxmemory()


def test_our_redis_is_capped_and_never_evicts(tmp_path: Path) -> None:
    with RedisServer(tmp_path / "redis", maxmemory="64mb") as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        try:
            config = client.config_get("maxmemory*")
        finally:
            client.close()
    assert config["maxmemory"] == str(64 * 1024 * 1024)
    assert config["maxmemory-policy"] == "noeviction"
