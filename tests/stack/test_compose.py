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
PASSWORD = "0123abcd" * 4
GATEWAYS = ("gateway-1", "gateway-2")  # two, named: the proxy checks each (deploy/Caddyfile)
PYTHON_SERVICES = ("engine", "ai", *GATEWAYS, "archiver")
PG_PASSWORD = "4567cdef" * 4


@functools.cache
def compose_binary() -> str:
    path = shutil.which("docker-compose")
    if path is None:
        pytest.fail(
            "docker-compose is not on PATH, so docker-compose.yml cannot be checked: run "
            "`bash deploy/test-prereqs.sh` (it installs Debian's docker-compose with apt-get)"
        )
    return path


def compose(
    tmp_path: Path,
    *args: str,
    token: str | None = TOKEN,
    password: str | None = PASSWORD,
    env_file_text: str = "",
    pg_password: str | None = PG_PASSWORD,
) -> subprocess.CompletedProcess:
    """Run docker-compose on the repo's file with a clean environment and an env file of the
    test's own (empty by default), so neither the caller's shell nor a developer's .env decides
    the outcome."""
    env_file = tmp_path / "test.env"
    env_file.write_text(env_file_text)
    secrets = ("AI_SERVICE_TOKEN", "REDIS_PASSWORD", "POSTGRES_PASSWORD")
    env = {k: v for k, v in os.environ.items() if k not in secrets}
    if token is not None:
        env["AI_SERVICE_TOKEN"] = token
    if password is not None:
        env["REDIS_PASSWORD"] = password
    if pg_password is not None:
        env["POSTGRES_PASSWORD"] = pg_password
    return subprocess.run(
        [compose_binary(), "--env-file", str(env_file), "-f", "docker-compose.yml", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def resolved(tmp_path: Path, env_file_text: str = "") -> dict[str, Any]:
    """The interpolated configuration as a dict. Compose v2 prints JSON itself; Debian's v1 is a
    Python program that prints YAML, and its own interpreter has the YAML parser to read it."""
    done = compose(tmp_path, "config", "--format", "json", env_file_text=env_file_text)
    if done.returncode == 0 and done.stdout.lstrip().startswith("{"):
        return json.loads(done.stdout)  # v1 answers the unknown option with its usage text
    done = compose(tmp_path, "config", env_file_text=env_file_text)
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
    """Every service has a check, and none starts an interpreter: each Python check was a new
    process importing grpc every 2 s (an idle stack spent ~40% of a core on them); now bash
    alone asks the service's own HTTP health answer."""
    services = config["services"]
    assert set(services) == {"redis", "engine", "ai", *GATEWAYS, "postgres", "archiver", "proxy"}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
        assert "container_name" not in service, f"{name}: a fixed name prevents scaling"
        test = service["healthcheck"]["test"]
        assert test[0] == "CMD" and test[1] in ("bash", "redis-cli", "pg_isready", "wget"), name
        assert "python" not in " ".join(test), f"{name}: a check must not start Python"
    ports = {"engine": "8081", "ai": "8082", "archiver": "8083"} | dict.fromkeys(GATEWAYS, "8000")
    for name, port in ports.items():
        assert f"/dev/tcp/127.0.0.1/{port}" in services[name]["healthcheck"]["test"][-1], name
        if name not in GATEWAYS:
            assert services[name]["environment"]["HEALTH_PORT"] == port, name
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_ports_and_addresses(config: dict[str, Any]) -> None:
    services = config["services"]
    # Only the proxy is reachable from outside; no other service has a host port, so the AI
    # workers and the gateways scale (issue 32: the gateways sit behind the proxy).
    for name in ("redis", "engine", "ai", "postgres", "archiver", *GATEWAYS):
        assert "ports" not in services[name], f"{name} must not publish a host port"
    assert [str(p) for p in services["ai"]["expose"]] == ["50052"]
    assert [str(p) for p in services["gateway-1"]["expose"]] == ["8000"]
    published = json.dumps(services["proxy"]["ports"])
    assert len(services["proxy"]["ports"]) == 2
    assert '"443"' in published or ":443" in published, published
    env = {name: service.get("environment", {}) for name, service in services.items()}
    assert env["gateway-1"]["AI_TARGET"] == "dns:///ai:50052"
    assert env["gateway-1"]["ENGINE_TARGET"] == "dns:///engine:50051"
    assert env["ai"]["ENGINE_TARGET"] == "dns:///engine:50051"
    assert env["engine"]["REDIS_URL"] == f"redis://:{PASSWORD}@redis:6379/0"
    assert env["gateway-1"]["RATE_LIMIT_STORAGE_URL"] == f"redis://:{PASSWORD}@redis:6379/0"
    assert env["ai"]["AI_PORT"] == "50052"
    assert env["engine"]["ENGINE_PORT"] == "50051"
    for name in ("engine", "ai"):
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
    assert services["engine"]["build"]["args"]["BASE_IMAGE"] == "python:3.11-slim"
    assert services["redis"]["image"] == "redis:7.4-alpine"
    monkeypatch.setenv("BASE_IMAGE", "metro-python:3.11-bookworm")
    monkeypatch.setenv("REDIS_IMAGE", "metro-redis:7-bookworm")
    services = resolved(tmp_path)["services"]
    assert services["engine"]["build"]["args"]["BASE_IMAGE"] == "metro-python:3.11-bookworm"
    assert services["redis"]["image"] == "metro-redis:7-bookworm"
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert dockerfile.index("ARG BASE_IMAGE=python:3.11-slim") < dockerfile.index("FROM")
    # The build stage may start from a CA-trusting image; the runtime stage never (issue 32).
    assert re.findall(r"^FROM (\S+) AS", dockerfile, re.MULTILINE) == [
        "${BUILD_IMAGE}",
        "${BASE_IMAGE}",
    ]


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


def test_postgres_keeps_the_archive_on_a_volume_behind_a_password(
    config: dict[str, Any], tmp_path: Path
) -> None:
    """The archive (issue 29): PostgreSQL on a volume, its password from .env, not published;
    the gateway and the archivers reach it by URL, the engine only knows it exists (it never
    waits on it: no depends_on), the AI workers never see it."""
    services = config["services"]
    postgres = services["postgres"]
    assert any(
        (v.get("target") if isinstance(v, dict) else v.split(":")[1]) == "/var/lib/postgresql/data"
        for v in postgres["volumes"]
    )
    assert "postgres-data" in config["volumes"]
    assert postgres["environment"]["POSTGRES_PASSWORD"] == PG_PASSWORD
    url = f"postgresql://postgres:{PG_PASSWORD}@postgres:5432/metro"
    for name in ("engine", *GATEWAYS, "archiver"):
        assert services[name]["environment"]["DATABASE_URL"] == url, name
    assert "DATABASE_URL" not in services["ai"]["environment"]
    assert "postgres" not in services["engine"].get("depends_on", {})
    assert services["archiver"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    done = compose(tmp_path, "config", "-q", pg_password=None)
    assert done.returncode != 0 and "set POSTGRES_PASSWORD" in done.stderr


def test_start_order_waits_for_health(config: dict[str, Any]) -> None:
    services = config["services"]
    assert services["engine"]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["ai"]["depends_on"]["engine"]["condition"] == "service_healthy"
    for dep in ("engine", "ai"):
        assert services["gateway-1"]["depends_on"][dep]["condition"] == "service_healthy"


def test_gateway_runs_gunicorn_with_uvicorn_workers(config: dict[str, Any], monkeypatch) -> None:
    command = config["services"]["gateway-1"]["command"]
    assert command[:3] == ["gunicorn", "-c", "deploy/gunicorn.conf.py"]
    assert command[3] == "services.gateway.live.asgi:create_asgi()"
    monkeypatch.setenv("GATEWAY_PORT", "8123")
    settings = runpy.run_path(str(ROOT / "deploy/gunicorn.conf.py"))
    # Live streams on each worker's event loop (issue 21), the Flask API in its threads.
    assert settings["worker_class"] == "services.gateway.live.worker.GatewayWorker"
    assert settings["preload_app"] is False  # the gRPC channel must be made after the fork
    assert settings["bind"].endswith(":8123")
    monkeypatch.setenv("WEB_CONCURRENCY", "many")
    with pytest.raises(SystemExit, match="WEB_CONCURRENCY must be an integer"):
        runpy.run_path(str(ROOT / "deploy/gunicorn.conf.py"))


def test_image_generates_grpc_code_and_leaves_secrets_out() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert "python -m services.common.codegen" in dockerfile
    assert "ENV PYTHONPATH=/app/gen" in dockerfile
    # An allow-list (issue 32): everything is left out but what is named; nothing secret or
    # generated is named back in.
    lines = [ln for ln in (ROOT / ".dockerignore").read_text().splitlines() if ln.strip()]
    rules = [ln for ln in lines if not ln.startswith("#")]
    assert rules[0] == "*", rules
    allowed = {ln[1:].rstrip("/") for ln in rules if ln.startswith("!")}
    assert allowed <= {"pyproject.toml", "constraints.txt", "protos", "services", "games", "web",
                       "deploy/gunicorn.conf.py"}, allowed  # fmt: skip
    for path in (".env", ".venv", "gen", ".git", ".run", "docs", "examples", ".ci", "tests"):
        assert path not in allowed
    # Every value given to AI_SERVICE_TOKEN is an interpolation, never a literal secret.
    values = re.findall(r"AI_SERVICE_TOKEN:\s*(\S+)", (ROOT / "docker-compose.yml").read_text())
    assert values and all(v.startswith("${AI_SERVICE_TOKEN:?") for v in values)


def test_healthchecks_are_cheap_and_patient(config: dict[str, Any]) -> None:
    """A check is a TCP exchange of a few milliseconds, so every 5 s costs nothing; a hung
    service is noticed within half a minute; a slow start is forgiven for 30 s."""
    for name, service in config["services"].items():
        check = service["healthcheck"]
        assert 3 <= _seconds(check["interval"]) <= 10, f"{name}: {check['interval']}"
        assert _seconds(check["start_period"]) <= 60, name
        assert 2 <= _seconds(check["timeout"]) <= 5, name


def _seconds(text: str) -> float:
    assert text.endswith("s") and not text.endswith("ms"), text
    return float(text[:-1])


def test_missing_service_token_says_how_to_make_one(tmp_path: Path) -> None:
    done = compose(tmp_path, "ps", token=None)
    assert done.returncode != 0
    assert ".env" in done.stderr and "openssl rand" in done.stderr


def test_image_is_multi_stage_with_a_home_for_its_user() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+) AS (\w+)", dockerfile, re.MULTILINE)
    assert [name for _, name in stages] == ["build", "runtime"]
    # The runtime stage never sees a CA the build trusted (issue 32): its own base image.
    assert stages == [("${BUILD_IMAGE}", "build"), ("${BASE_IMAGE}", "runtime")]
    runtime = dockerfile.split("AS runtime", 1)[1]
    # Code generation stays in the build stage; the runtime copies its output only.
    assert "grpcio-tools" not in runtime.replace("# ", "")
    assert "COPY --from=build /opt/venv" in runtime
    assert "COPY --from=build /app/gen" in runtime
    assert "constraints.txt" in dockerfile  # the same pins as set-up and CI
    # gunicorn keeps its control socket under $HOME: the user needs a writable home.
    assert "--create-home" in runtime and "--no-create-home" not in runtime
    assert "ENV HOME=/home/metro" in runtime
    # The image's user has the ids the pods and compose run with (uid and gid 10001).
    assert "--uid 10001 --gid 10001" in runtime and "groupadd --system --gid 10001" in runtime


# ---- An operator's settings reach the containers (docs/deploy.md's configuration table) -----

# Settings compose decides itself (addresses inside the network, URLs built from REDIS_PASSWORD):
# an operator's value for these is not passed, by design, and docs/deploy.md says so.
SET_BY_COMPOSE = {
    "REDIS_URL", "RATE_LIMIT_STORAGE_URL", "DATABASE_URL", "ENGINE_HOST", "ENGINE_PORT",
    "ENGINE_TARGET", "AI_PORT", "AI_TARGET", "GATEWAY_HOST", "GATEWAY_PORT", "HEALTH_PORT",
    "HEALTH_HOST",
}  # fmt: skip


def readme_settings() -> dict[str, set[str]]:
    """docs/deploy.md's configuration table: variable -> the compose services that read it."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    table = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    settings: dict[str, set[str]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        readers = cells[2].lower().replace("`metro up`", "")
        services = {
            s for s in ("engine", "ai", "gateway", "archiver") if re.search(rf"\b{s}\b", readers)
        }
        if "gunicorn" in readers:
            services.add("gateway")
        if "gateway" in services:
            services = (services - {"gateway"}) | set(GATEWAYS)
        for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[0]):
            settings[name] = services
    assert len(settings) > 20, "docs/deploy.md's configuration table was not found"
    return settings


def test_every_documented_setting_reaches_the_services_that_read_it(tmp_path: Path) -> None:
    """Each variable of the table, set in .env, arrives in every service that reads it and in
    no other (a setting in .env that compose did not pass was silently ignored before)."""
    settings = readme_settings()
    passed = {name: readers for name, readers in settings.items() if readers}
    passed = {n: r for n, r in passed.items() if n not in SET_BY_COMPOSE | {"AI_SERVICE_TOKEN"}}
    env_file = "".join(f"{name}=marker-{name.lower()}\n" for name in passed)
    env = {n: s.get("environment", {}) for n, s in resolved(tmp_path, env_file)["services"].items()}
    missing, extra = [], []
    for name, readers in sorted(passed.items()):
        for service in PYTHON_SERVICES:
            has = env[service].get(name) == f"marker-{name.lower()}"
            if service in readers and not has:
                missing.append(f"{name} -> {service}")
            if service not in readers and name in env[service]:
                extra.append(f"{name} -> {service}")
    assert not missing, f"set in .env but not passed to the service that reads it: {missing}"
    assert not extra, f"passed to a service that does not read it: {extra}"
    for name in SET_BY_COMPOSE & set(settings):
        for service in settings[name]:
            if name in env[service]:
                assert "marker" not in env[service][name], f"{name} must be set by compose"


def test_the_gateway_has_no_service_token_and_listens_on_loopback(tmp_path: Path) -> None:
    services = resolved(tmp_path)["services"]
    assert "AI_SERVICE_TOKEN" not in services["gateway-1"].get("environment", {})
    published = json.dumps(services["proxy"]["ports"])
    assert "127.0.0.1" in published and "0.0.0.0" not in published
    services = resolved(tmp_path, "PROXY_HTTPS_PUBLISH=0.0.0.0:443\n")["services"]
    published = json.dumps(services["proxy"]["ports"])
    assert "0.0.0.0" in published and "443" in published


def test_redis_asks_for_a_password_that_compose_requires(tmp_path: Path) -> None:
    services = resolved(tmp_path)["services"]
    # Never on a command line (issue 32: `docker inspect` showed it): the entrypoint reads it
    # from the environment into a config file.
    redis = services["redis"]
    assert PASSWORD not in json.dumps([redis["command"], redis["entrypoint"]])
    assert "requirepass" in " ".join(redis["entrypoint"])
    assert redis["environment"]["REDISCLI_AUTH"] == PASSWORD
    for password in (None, ""):
        done = compose(tmp_path, "config", "-q", password=password)
        assert done.returncode != 0
        assert "set REDIS_PASSWORD" in done.stderr and "openssl rand" in done.stderr


def test_one_image_is_built_once_for_every_python_service(config: dict[str, Any]) -> None:
    """Three `build:` sections built the same image three times (and left untagged copies)."""
    services = config["services"]
    built = [name for name, service in services.items() if "build" in service]
    assert built == ["engine"]
    images = {services[name]["image"] for name in PYTHON_SERVICES}
    assert images == {"metro-platform:latest"}
    for name in ("ai", *GATEWAYS):
        assert services[name].get("pull_policy") == "never", name
        assert "engine" in services[name]["depends_on"] or "ai" in services[name]["depends_on"]


def test_the_base_image_trusts_no_build_host_certificate_unless_asked() -> None:
    script = ROOT / "deploy/build-base-image.sh"
    env = {k: v for k, v in os.environ.items() if k != "EXTRA_CA_DIR"}
    done = subprocess.run(["bash", str(script), "--settings"], env=env, capture_output=True,
                          text=True, timeout=30)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "extra_ca_dir=none" in done.stdout.splitlines()
    env["EXTRA_CA_DIR"] = "/usr/local/share/ca-certificates"
    done = subprocess.run(["bash", str(script), "--settings"], env=env, capture_output=True,
                          text=True, timeout=30)  # fmt: skip
    assert "extra_ca_dir=/usr/local/share/ca-certificates" in done.stdout.splitlines()


def test_the_compose_probe_reads_the_services_own_health_answer(
    config: dict[str, Any], monkeypatch
) -> None:
    """The engine's probe, run by bash exactly as compose runs it, against the HTTP health
    answer a real RecordedHealth serves: 0 while SERVING, non-zero when not or when nobody
    listens."""
    import asyncio
    import socket

    from grpc_health.v1 import health_pb2

    from services.common.grpc_server import RecordedHealth, serve_health_http

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    probe = config["services"]["engine"]["healthcheck"]["test"][-1].replace("$$", "$")
    probe = probe.replace("/8081", f"/{port}")

    async def run_probe() -> int:
        proc = await asyncio.create_subprocess_exec("bash", "-c", probe)
        return await asyncio.wait_for(proc.wait(), timeout=20)

    async def scenario() -> list[int]:
        monkeypatch.setenv("HEALTH_PORT", str(port))
        health = RecordedHealth()
        server = await serve_health_http(health)
        assert server is not None
        codes = []
        await health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        codes.append(await run_probe())
        await health.set("", health_pb2.HealthCheckResponse.SERVING)
        codes.append(await run_probe())
        await health.enter_graceful_shutdown()
        codes.append(await run_probe())
        server.close()
        await server.wait_closed()
        codes.append(await run_probe())
        return codes

    not_serving, serving, shutting_down, closed = asyncio.run(scenario())
    assert serving == 0
    assert not_serving != 0 and shutting_down != 0 and closed != 0


def test_python_services_run_as_the_pods_do(config: dict[str, Any]) -> None:
    """The image's user, read-only root, no capabilities and tmpfs for /tmp and the home, as
    deploy/k8s's pods: the image's own file system then has to work without a write (a real
    `docker-compose up` of the built image, a game against the AI and `--scale ai=2` ran so)."""
    for name in PYTHON_SERVICES:
        service = config["services"][name]
        assert str(service["user"]) == "10001:10001", name
        assert service["read_only"] is True, name
        assert service["cap_drop"] == ["ALL"], name
        assert service["security_opt"] == ["no-new-privileges:true"], name
        # The mount points (the home's carries its owner: test_compose_host.py says why).
        assert {str(t).partition(":")[0] for t in service["tmpfs"]} == {"/tmp", "/home/metro"}, name
