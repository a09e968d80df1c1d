"""docker-compose.yml is valid and has the shape deployment relies on.

No Docker engine runs here, so the file is checked with `docker-compose config` (Debian's
docker-compose, installed by deploy/test-prereqs.sh) and its resolved form is inspected.
"""

from __future__ import annotations

import functools
import json
import os
import re
import runpy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "token-for-compose-test"


@functools.cache
def compose_binary() -> str:
    path = shutil.which("docker-compose")
    if path is None:
        pytest.fail(
            "docker-compose is not on PATH, so docker-compose.yml cannot be checked: run "
            "`bash deploy/test-prereqs.sh` (it installs Debian's docker-compose with apt-get)"
        )
    return path


def compose(tmp_path: Path, *args: str, token: str | None = TOKEN) -> subprocess.CompletedProcess:
    """Run docker-compose on the repo's file with a clean environment and an empty env file, so
    neither the caller's shell nor a developer's .env decides the outcome."""
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "AI_SERVICE_TOKEN"}
    if token is not None:
        env["AI_SERVICE_TOKEN"] = token
    return subprocess.run(
        [compose_binary(), "--env-file", str(env_file), "-f", "docker-compose.yml", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def resolved(tmp_path: Path) -> dict[str, Any]:
    """The interpolated configuration as a dict. Compose v2 prints JSON itself; Debian's v1 is a
    Python program that prints YAML, and its own interpreter has the YAML parser to read it."""
    done = compose(tmp_path, "config", "--format", "json")
    if done.returncode == 0 and done.stdout.lstrip().startswith("{"):
        return json.loads(done.stdout)  # v1 answers the unknown option with its usage text
    done = compose(tmp_path, "config")
    assert done.returncode == 0, done.stderr
    shebang = Path(compose_binary()).read_text(errors="replace").splitlines()[0]
    assert shebang.startswith("#!"), f"cannot parse the output of {compose_binary()}"
    to_json = "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"
    converted = subprocess.run(
        [*shebang[2:].split(), "-c", to_json], input=done.stdout, capture_output=True, text=True
    )
    assert converted.returncode == 0, converted.stderr
    return json.loads(converted.stdout)


@pytest.fixture
def config(tmp_path: Path) -> dict[str, Any]:
    return resolved(tmp_path)


def test_compose_file_is_valid(tmp_path: Path) -> None:
    done = compose(tmp_path, "config", "-q")
    assert done.returncode == 0, done.stderr


def test_missing_service_token_fails_clearly(tmp_path: Path) -> None:
    for token in (None, ""):
        done = compose(tmp_path, "config", "-q", token=token)
        assert done.returncode != 0
        assert "set AI_SERVICE_TOKEN" in done.stderr


def test_services_and_healthchecks(config: dict[str, Any]) -> None:
    services = config["services"]
    assert set(services) == {"redis", "engine", "ai", "gateway"}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
        assert "container_name" not in service, f"{name}: a fixed name prevents scaling"
    probe = ["CMD", "python", "-m", "services.common.healthcheck"]
    assert services["engine"]["healthcheck"]["test"] == [*probe, "127.0.0.1:50051"]
    assert services["ai"]["healthcheck"]["test"] == [*probe, "127.0.0.1:50052"]
    assert services["gateway"]["healthcheck"]["test"] == [*probe, "http://127.0.0.1:8000/healthz"]
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_ports_and_addresses(config: dict[str, Any]) -> None:
    services = config["services"]
    # Only the gateway is reachable from outside; the AI has no host port, so --scale works.
    for name in ("redis", "engine", "ai"):
        assert "ports" not in services[name], f"{name} must not publish a host port"
    assert [str(p) for p in services["ai"]["expose"]] == ["50052"]
    published = services["gateway"]["ports"]
    assert len(published) == 1
    assert "8000" in json.dumps(published[0])
    env = {name: service.get("environment", {}) for name, service in services.items()}
    assert env["gateway"]["AI_TARGET"] == "dns:///ai:50052"
    assert env["gateway"]["ENGINE_TARGET"] == "dns:///engine:50051"
    assert env["ai"]["ENGINE_TARGET"] == "dns:///engine:50051"
    assert env["engine"]["REDIS_URL"] == "redis://redis:6379/0"
    assert env["ai"]["AI_PORT"] == "50052"
    assert env["engine"]["ENGINE_PORT"] == "50051"
    for name in ("engine", "ai", "gateway"):
        assert env[name]["AI_SERVICE_TOKEN"] == TOKEN, f"{name} must take the token from env"


def test_redis_persists_with_aof_on_a_volume(config: dict[str, Any]) -> None:
    redis = config["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    volumes = redis["volumes"]
    assert any(
        (v.get("target") if isinstance(v, dict) else v.split(":")[1]) == "/data" for v in volumes
    )
    assert "redis-data" in config["volumes"]


def test_redis_takes_the_networks_clients_and_never_evicts(config: dict[str, Any]) -> None:
    """Debian's redis-server (the image build-base-image.sh makes) starts in protected mode and
    refuses every client but loopback: found by running the stack for real. The official image
    turns it off in its entrypoint; the command says so for both."""
    command = config["services"]["redis"]["command"]
    assert command[command.index("--protected-mode") + 1] == "no"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert "ports" not in config["services"]["redis"]


def test_base_images_come_from_the_environment(tmp_path: Path, monkeypatch) -> None:
    """Without a registry the stack builds on local images (deploy/build-base-image.sh):
    BASE_IMAGE and REDIS_IMAGE pick them; unset, the official ones."""
    services = resolved(tmp_path)["services"]
    for name in ("engine", "ai", "gateway"):
        assert services[name]["build"]["args"]["BASE_IMAGE"] == "python:3.11-slim", name
    assert services["redis"]["image"] == "redis:7.4-alpine"
    monkeypatch.setenv("BASE_IMAGE", "metro-python:3.11-bookworm")
    monkeypatch.setenv("REDIS_IMAGE", "metro-redis:7-bookworm")
    services = resolved(tmp_path)["services"]
    for name in ("engine", "ai", "gateway"):
        assert services[name]["build"]["args"]["BASE_IMAGE"] == "metro-python:3.11-bookworm"
    assert services["redis"]["image"] == "metro-redis:7-bookworm"
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert dockerfile.index("ARG BASE_IMAGE=python:3.11-slim") < dockerfile.index("FROM")
    assert re.findall(r"^FROM (\S+) AS", dockerfile, re.MULTILINE) == ["${BASE_IMAGE}"] * 2


def test_base_image_script_parses_and_names_what_is_missing(tmp_path: Path) -> None:
    """The script itself needs root, debootstrap and Docker; here it is only parsed, and run
    where its tools are not on PATH, which it must refuse naming the first missing one."""
    script = ROOT / "deploy/build-base-image.sh"
    bash = shutil.which("bash")
    assert bash is not None
    parsed = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
    done = subprocess.run(
        [bash, str(script)],
        env={"PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert "build-base-image: debootstrap is missing" in done.stderr


def test_start_order_waits_for_health(config: dict[str, Any]) -> None:
    services = config["services"]
    assert services["engine"]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["ai"]["depends_on"]["engine"]["condition"] == "service_healthy"
    for dep in ("engine", "ai"):
        assert services["gateway"]["depends_on"][dep]["condition"] == "service_healthy"


def test_gateway_runs_gunicorn_gthread(config: dict[str, Any], monkeypatch) -> None:
    command = config["services"]["gateway"]["command"]
    assert command[:3] == ["gunicorn", "-c", "deploy/gunicorn.conf.py"]
    assert command[3] == "services.gateway.app:create_app()"
    monkeypatch.setenv("GATEWAY_PORT", "8123")
    settings = runpy.run_path(str(ROOT / "deploy/gunicorn.conf.py"))
    assert settings["worker_class"] == "gthread"
    assert settings["preload_app"] is False  # the gRPC channel must be made after the fork
    assert settings["bind"].endswith(":8123")
    monkeypatch.setenv("WEB_CONCURRENCY", "many")
    with pytest.raises(SystemExit, match="WEB_CONCURRENCY must be an integer"):
        runpy.run_path(str(ROOT / "deploy/gunicorn.conf.py"))


def test_image_generates_grpc_code_and_leaves_secrets_out() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert "python -m services.common.codegen" in dockerfile
    assert "ENV PYTHONPATH=/app/gen" in dockerfile
    ignored = (ROOT / ".dockerignore").read_text().split()
    for path in (".env", ".venv", "gen", ".git", ".run"):
        assert path in ignored
    # Every value given to AI_SERVICE_TOKEN is an interpolation, never a literal secret.
    values = re.findall(r"AI_SERVICE_TOKEN:\s*(\S+)", (ROOT / "docker-compose.yml").read_text())
    assert values and all(v.startswith("${AI_SERVICE_TOKEN:?") for v in values)


def test_healthchecks_are_quick(config: dict[str, Any]) -> None:
    """`up` to healthy in seconds: every check runs every 2-3 s, with a short start period; a
    check may take a few seconds (a Python start on a busy host), never so long that a hung
    service goes unnoticed for long."""
    for name, service in config["services"].items():
        check = service["healthcheck"]
        assert check["interval"] in ("2s", "3s"), f"{name}: {check['interval']}"
        assert _seconds(check["start_period"]) <= 15, name
        assert 3 <= _seconds(check["timeout"]) <= 5, name


def _seconds(text: str) -> float:
    assert text.endswith("s") and not text.endswith("ms"), text
    return float(text[:-1])


def test_missing_service_token_says_how_to_make_one(tmp_path: Path) -> None:
    done = compose(tmp_path, "ps", token=None)
    assert done.returncode != 0
    assert ".env" in done.stderr and "openssl rand" in done.stderr


def test_image_is_multi_stage_with_a_home_for_its_user() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)", dockerfile, re.MULTILINE)
    assert stages == ["build", "runtime"]
    runtime = dockerfile.split("AS runtime", 1)[1]
    # Code generation stays in the build stage; the runtime copies its output only.
    assert "grpcio-tools" not in runtime.replace("# ", "")
    assert "COPY --from=build /opt/venv" in runtime
    assert "COPY --from=build /app/gen" in runtime
    assert "constraints.txt" in dockerfile  # the same pins as set-up and CI
    # gunicorn keeps its control socket under $HOME: the user needs a writable home.
    assert "--create-home" in runtime and "--no-create-home" not in runtime
    assert "ENV HOME=/home/metro" in runtime
