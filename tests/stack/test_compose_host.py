"""docker-compose.yml fits any Docker host and is hardened (issue 32), checked on the rendered
file (`docker-compose config`), no Docker engine needed: the gateway's open-files limit is a
setting whose default a daemon allowing 20000 accepts; the AI worker count lives in .env (a
plain `up -d` keeps it) and two named gateways sit behind the proxy, which checks each one
alone; every optional setting left empty is read as its default; every service has memory and
process caps; Redis runs as its own user with a read-only root, no capabilities and its
password on no command line; the proxy alone is published and serves TLS with HSTS."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from services.common.config import (
    AiWorkerSettings,
    BotSettings,
    Durability,
    GatewayLimits,
    LiveLimits,
    Settings,
)
from services.gateway.drain import drain_seconds
from services.gateway.live.protocol import HeadLimits
from tests.stack.test_compose import PASSWORD, PYTHON_SERVICES, ROOT, resolved

GATEWAYS = ("gateway-1", "gateway-2")

DAEMON_NOFILE = 20000  # the open-files limit of the daemon the issue met


def test_the_gateways_open_files_limit_is_a_setting_with_a_safe_default(tmp_path: Path) -> None:
    for gateway in GATEWAYS:
        nofile = resolved(tmp_path)["services"][gateway]["ulimits"]["nofile"]
        assert int(nofile["soft"]) == int(nofile["hard"]) <= DAEMON_NOFILE, nofile
        raised = resolved(tmp_path, "GATEWAY_NOFILE=65536\n")["services"][gateway]["ulimits"]
        assert int(raised["nofile"]["soft"]) == int(raised["nofile"]["hard"]) == 65536


def test_the_worker_count_lives_in_the_env_file(tmp_path: Path) -> None:
    services = resolved(tmp_path)["services"]
    assert int(services["ai"]["scale"]) == 1
    services = resolved(tmp_path, "AI_WORKERS=4\n")["services"]
    assert int(services["ai"]["scale"]) == 4


def test_two_named_gateways_behind_a_proxy_that_checks_each_alone(tmp_path: Path) -> None:
    """Static upstreams, because Caddy keeps health for those only: a draining or starting
    gateway is out of the rotation before a request meets it (deploy/rolling-upgrade.sh). The
    check is /readyz (this gateway alone), never /healthz, which an engine outage fails on
    every gateway at once. A stop gives the drain and the streams' grace time."""
    services = resolved(tmp_path)["services"]
    assert not any(name == "gateway" for name in services)
    assert services["gateway-1"] == services["gateway-2"]  # one definition (x-gateway)
    for gateway in GATEWAYS:
        assert int(services[gateway].get("scale", 1)) == 1
        assert float(services[gateway]["environment"]["GATEWAY_DRAIN_S"]) >= 2  # checks: 1 s
        assert services[gateway]["stop_grace_period"] == "30s"
        assert services["proxy"]["depends_on"][gateway]["condition"] == "service_healthy"
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy gateway-1:8000 gateway-2:8000 {" in caddyfile
    assert "health_uri /readyz" in caddyfile and "dynamic a" not in caddyfile
    script = (ROOT / "deploy" / "rolling-upgrade.sh").read_text()
    assert 'GATEWAYS=${GATEWAYS:-"gateway-1 gateway-2"}' in script


def test_every_optional_setting_left_empty_is_read_as_its_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compose passes an unset optional setting on as an empty string (`${X:-}`): every
    service's settings read that as the default. CLOCK_CATCH_UP_S='' once stopped the engine at
    every start (`float('')`), seen only when the stack ran on a real Docker engine."""
    services = resolved(tmp_path)["services"]
    for name in PYTHON_SERVICES:
        environment = {
            k: "" if v is None else str(v) for k, v in services[name]["environment"].items()
        }
        assert any(v == "" for v in environment.values()), name  # the case under test is there
        for key in list(os.environ):
            monkeypatch.delenv(key)
        for key, value in environment.items():
            monkeypatch.setenv(key, value)
        for settings in (Settings, GatewayLimits, LiveLimits, AiWorkerSettings, BotSettings,
                         Durability, HeadLimits):  # fmt: skip
            settings.from_env()  # no exception: every value is read
        assert drain_seconds() >= 0


def test_every_service_has_memory_and_process_limits(tmp_path: Path) -> None:
    for name, service in resolved(tmp_path)["services"].items():
        assert service.get("mem_limit"), f"{name} has no memory limit"
        assert 0 < int(service.get("pids_limit", 0)) <= 4096, f"{name} has no process limit"


def test_redis_is_hardened_and_its_password_is_on_no_command_line(tmp_path: Path) -> None:
    redis = resolved(tmp_path)["services"]["redis"]
    assert redis["read_only"] is True
    assert redis["cap_drop"] == ["ALL"] and not redis.get("cap_add")
    assert "no-new-privileges:true" in redis["security_opt"]
    assert redis["user"] == "redis"
    assert PASSWORD not in json.dumps([redis["entrypoint"], redis["command"]])
    assert any(str(t).startswith("/tmp") for t in redis["tmpfs"])  # where the config is written


def test_the_proxy_serves_tls_with_hsts_and_trusted_forwarding(tmp_path: Path) -> None:
    services = resolved(tmp_path)["services"]
    proxy = services["proxy"]
    assert proxy["environment"]["SITE_ADDRESS"] == "https://localhost"  # the local CA
    domain = resolved(tmp_path, "PUBLIC_URL=https://play.example.org\n")["services"]["proxy"]
    assert domain["environment"]["SITE_ADDRESS"] == "https://play.example.org"  # ACME
    assert all(services[g]["environment"]["GATEWAY_PROXIES"] == "1" for g in GATEWAYS)
    assert proxy["read_only"] is True and proxy["cap_drop"] == ["ALL"]
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "Strict-Transport-Security" in caddyfile
    assert "lb_try_duration" in caddyfile and "flush_interval -1" in caddyfile
    assert "keepalive off" in caddyfile
    assert "skip_install_trust" in caddyfile  # no failed trust-store write at each start
    # a POST retried after a refused dial keeps its body (Caddy 2.6 sent a closed one: 502)
    assert "buffer_requests" in caddyfile and "max_buffer_size 65536" in caddyfile


def test_compose_v1_gets_the_process_caps_as_numbers(tmp_path: Path) -> None:
    """Found by `docker-compose up` (v1.29) on Docker 20.10: an interpolated pids_limit stays a
    string in v1, and its Docker client refuses the container ("Invalid type for pids_limit
    param: expected int"), so nothing started. The caps are literal numbers."""
    for name, service in resolved(tmp_path)["services"].items():
        assert isinstance(service["pids_limit"], int), (name, service["pids_limit"])


def test_the_python_services_home_is_a_tmpfs_they_own(tmp_path: Path) -> None:
    """Docker mounts a tmpfs as root's (mode 0755) whatever the image's folder, so gunicorn
    (uid 10001) could not make its control socket there: "Control server error: Permission
    denied: '/home/metro/.gunicorn'" at every gateway start, seen on a real Docker 20.10."""
    services = resolved(tmp_path)["services"]
    for name in PYTHON_SERVICES:
        service = services[name]
        assert service["user"] == "10001:10001"
        homes = [str(t) for t in service["tmpfs"] if str(t).startswith("/home/metro")]
        assert len(homes) == 1, (name, service["tmpfs"])
        options = set(homes[0].partition(":")[2].split(","))
        assert {"uid=10001", "gid=10001"} <= options, (name, homes[0])


def test_the_base_image_script_also_makes_the_proxy_image() -> None:
    """Without a registry the stack could not start: caddy:2 cannot be pulled and the script
    made no proxy image (found running compose for real). It makes one from Debian's caddy."""
    script = ROOT / "deploy" / "build-base-image.sh"
    done = subprocess.run(["bash", str(script), "--settings"], capture_output=True, text=True,
                          timeout=30)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "caddy_tag=metro-caddy:2-bookworm" in done.stdout.splitlines()
    text = script.read_text()
    assert "apt-get install -y -qq --no-install-recommends caddy busybox" in text
