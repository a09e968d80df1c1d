"""deploy/k8s/: every overlay renders, every object is valid against the Kubernetes schemas
(offline, with kubernetes-validate's bundled schemas), and the facts a schema cannot see hold:
probes, resources, no credential in a manifest, settings the services really read, ports, gRPC
targets, disruption budgets, network policies. Each fact check is also shown failing on a
manifest broken on purpose, and the probes that could be tried here are tried for real.
"""

from __future__ import annotations

import ast
import copy
import functools
import os
import re
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import SchemaNotFoundError, latest_version

from services.common.config import Settings
from services.common.redis_server import find_redis_server, free_port
from tests.deploy import facts
from tests.deploy.kustomize import Object, object_id, pod_containers, render
from tests.fixtures.waits import wait_until

ROOT = facts.ROOT
K8S = ROOT / "deploy/k8s"
DOCS = ROOT / "docs/kubernetes.md"
OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if p.is_dir())
NAMESPACE = "metro"
# The oldest release the manifests are for (gRPC probes are GA from 1.27) and the newest
# whose schemas the validator ships.
VERSIONS = ("1.27", latest_version())

# What each service cannot do without, beyond the defaults that suit one machine.
REQUIRED_ENV = {
    "engine": {"REDIS_URL", "AI_SERVICE_TOKEN", "ENGINE_HOST", "ENGINE_PORT"},
    "ai": {"AI_SERVICE_TOKEN", "ENGINE_TARGET", "AI_HOST", "AI_PORT"},
    # REDIS_URL: rate counts and hint slots shared by every gateway pod.
    "gateway": {"ENGINE_TARGET", "AI_TARGET", "GATEWAY_HOST", "GATEWAY_PORT", "REDIS_URL"},
}
# Who connects to whom (README "Architecture"); "*" is anyone.
REACHABLE = {
    "metro-gateway": {"*"},
    "metro-engine": {"metro-gateway", "metro-ai"},
    "metro-ai": {"metro-gateway"},
    "metro-redis": {"metro-engine", "metro-gateway"},
}


@functools.cache
def _rendered(overlay: str) -> list[Object]:
    return render(K8S / "overlays" / overlay)


@pytest.fixture(params=OVERLAYS)
def overlay(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def objects(overlay: str) -> list[Object]:
    """A fresh copy of the overlay's objects, so a test may change them."""
    return copy.deepcopy(_rendered(overlay))


def _one(objects: list[Object], kind: str, name: str) -> Object:
    found = facts.find(objects, kind, name)
    assert found is not None, f"no {kind}/{name}"
    return found


def _container(objects: list[Object], name: str) -> Object:
    return pod_containers(_one(objects, "Deployment", name))[0]


# ---- what the issue asks for -----------------------------------------------------------------


def test_overlays_are_the_two_ways_to_run_redis() -> None:
    assert OVERLAYS == ["external-redis", "redis-in-cluster"]


def test_each_overlay_has_the_platform(objects: list[Object], overlay: str) -> None:
    deployments = {o["metadata"]["name"] for o in facts.by_kind(objects, "Deployment")}
    assert deployments == {"metro-engine", "metro-ai", "metro-gateway"}
    hpa = _one(objects, "HorizontalPodAutoscaler", "metro-ai")
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1", "kind": "Deployment", "name": "metro-ai"
    }  # fmt: skip
    for name in ("metro-engine", "metro-ai"):
        assert _one(objects, "Service", name)["spec"]["clusterIP"] == "None"
    pdbs = {o["metadata"]["name"] for o in facts.by_kind(objects, "PodDisruptionBudget")}
    assert pdbs == deployments
    assert {o["metadata"].get("namespace") for o in objects} == {NAMESPACE}
    redis = facts.find(objects, "StatefulSet", "metro-redis")
    if overlay == "redis-in-cluster":
        assert redis is not None
        assert redis["spec"]["volumeClaimTemplates"][0]["spec"]["accessModes"] == ["ReadWriteOnce"]
    else:
        assert redis is None, "external-redis must not run a Redis of its own"
        assert not [o for o in objects if "redis" in o["metadata"]["name"]]


# ---- schemas ---------------------------------------------------------------------------------


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any connection attempt fails the test (even one a library catches): the schemas must
    come from the installed package."""
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        if args and isinstance(args[0], socket.socket):
            args[0].close()  # the refused socket is not left for the garbage collector
        attempts.append(repr(args[1:] if args and isinstance(args[0], socket.socket) else args))
        raise AssertionError(f"network access during validation: {attempts[-1]}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield
    assert not attempts, f"network access during validation: {attempts}"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.usefixtures("no_network")
def test_every_object_is_valid_against_the_kubernetes_schema(
    objects: list[Object], version: str
) -> None:
    errors = []
    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            path = ".".join(str(p) for p in err.path)
            errors.append(f"{obj['kind']}/{obj['metadata']['name']}: {path}: {err.message}")
        except SchemaNotFoundError as err:
            errors.append(err.message)
    assert not errors, "\n".join(errors)


@pytest.mark.usefixtures("no_network")
def test_the_schema_check_rejects_broken_objects(objects: list[Object]) -> None:
    """The validation above can fail: a misspelt field, a wrong type, an unknown kind."""
    engine = _container(objects, "metro-engine")
    engine["readinessProbe"]["grpc"]["prot"] = 50051
    with pytest.raises(kubernetes_validate.ValidationError, match="prot"):
        kubernetes_validate.validate(
            _one(objects, "Deployment", "metro-engine"), VERSIONS[0], strict=True
        )
    hpa = _one(objects, "HorizontalPodAutoscaler", "metro-ai")
    hpa["spec"]["minReplicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(hpa, VERSIONS[-1], strict=True)
    with pytest.raises(SchemaNotFoundError):
        kubernetes_validate.validate({**hpa, "kind": "HorizontalPodScaler"}, VERSIONS[-1])


def _kubectl() -> str | None:
    return shutil.which("kubectl")


@pytest.mark.skipif(_kubectl() is None, reason="kubectl is not on PATH: no kubectl kustomize")
def test_kubectl_kustomize_renders_what_the_tests_check(overlay: str) -> None:
    """The tests check tests/deploy/kustomize.py's rendering: it must be kubectl's own."""
    done = subprocess.run(
        [str(_kubectl()), "kustomize", str(K8S / "overlays" / overlay)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    theirs = {object_id(o): o for o in yaml.safe_load_all(done.stdout) if o}
    ours = {object_id(o): o for o in _rendered(overlay)}
    assert sorted(theirs) == sorted(ours)
    for key, obj in ours.items():
        assert theirs[key] == obj, key


@pytest.mark.skipif(_kubectl() is None, reason="kubectl is not on PATH: no kubectl kustomize")
def test_the_overlay_of_your_own_in_the_docs_works(tmp_path: Path) -> None:
    """docs/kubernetes.md's example overlay, beside a checkout named `metro` as it says, renders
    with its image and its REDIS_MIN_REPLICAS, and stays valid."""
    block = re.search(r"```yaml\n(# my-metro/kustomization.yaml\n.*?)```", DOCS.read_text(), re.S)
    assert block, "docs/kubernetes.md lost its example overlay"
    (tmp_path / "metro").symlink_to(ROOT)
    (tmp_path / "my-metro").mkdir()
    (tmp_path / "my-metro/kustomization.yaml").write_text(block[1])
    done = subprocess.run(
        [str(_kubectl()), "kustomize", str(tmp_path / "my-metro")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    objs = [o for o in yaml.safe_load_all(done.stdout) if o]
    assert _one(objs, "ConfigMap", "metro-engine-config")["data"]["REDIS_MIN_REPLICAS"] == "1"
    images = {c["image"] for o in objs for c in pod_containers(o)}
    assert images == {"registry.example.com/metro-platform:0.1.0"}
    for obj in objs:
        kubernetes_validate.validate(obj, VERSIONS[-1], strict=True)


# ---- facts -----------------------------------------------------------------------------------


def test_every_container_has_probes_requests_and_limits(objects: list[Object]) -> None:
    assert facts.probe_and_resource_problems(objects) == []


def test_every_pod_runs_unprivileged_as_the_images_user(objects: list[Object]) -> None:
    assert facts.security_problems(objects, facts.dockerfile_uid()) == []


def test_no_credential_in_any_manifest(objects: list[Object]) -> None:
    assert facts.secret_problems(objects) == []


def test_no_credential_in_any_file_under_deploy_k8s() -> None:
    """Comments and files no overlay uses too: a value pasted anywhere here is committed."""
    problems = []
    for path in sorted(K8S.rglob("*")):
        if path.is_file():
            problems += [f"{path.relative_to(ROOT)}: {p}" for p in
                         facts.value_problems(path.read_text())]  # fmt: skip
    assert problems == []


def test_credentials_come_from_the_documented_secrets(objects: list[Object]) -> None:
    """Every secretKeyRef names a Secret and key that docs/kubernetes.md's `kubectl create
    secret` commands make, and the gateway, which never uses the AI credential, lacks it."""
    documented: dict[str, set[str]] = {}
    text = DOCS.read_text().replace("\\\n", " ")  # shell line continuations
    for command in re.findall(r"create secret generic [^\n]*", text):
        name = command.split()[3]
        documented.setdefault(name, set()).update(re.findall(r"--from-literal=(\w+)=", command))
    refs = {
        (item["valueFrom"]["secretKeyRef"]["name"], item["valueFrom"]["secretKeyRef"]["key"])
        for obj in objects
        for c in pod_containers(obj)
        for item in c.get("env") or []
        if "secretKeyRef" in (item.get("valueFrom") or {})
    }
    for name, key in sorted(refs):
        assert key in documented.get(name, set()), f"{name}/{key} is not in {DOCS.name}"
    gateway_env = {item["name"] for item in _container(objects, "metro-gateway").get("env") or []}
    assert "AI_SERVICE_TOKEN" not in gateway_env, "the gateway never uses the AI credential"


def test_the_services_get_settings_they_read(objects: list[Object]) -> None:
    read = facts.env_names_read()
    assert {"REDIS_URL", "ENGINE_TARGET", "AI_TARGET"} <= read["gateway"]
    assert {"REDIS_MIN_REPLICAS", "REDIS_URL"} <= read["engine"]
    assert facts.env_problems(objects, read, REQUIRED_ENV) == []


def test_ports_agree_with_the_services_defaults(
    objects: list[Object], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ENGINE_PORT", "AI_PORT", "GATEWAY_PORT", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    defaults = {
        "engine": settings.engine_port, "ai": settings.ai_port, "gateway": settings.gateway_port,
    }  # fmt: skip
    assert set(defaults.values()) <= facts.dockerfile_exposed()
    assert facts.port_problems(objects, defaults) == []


def test_grpc_targets_are_headless_services_of_the_right_pods(objects: list[Object]) -> None:
    assert facts.target_problems(objects) == []


def test_disruption_budgets_and_the_autoscaler(objects: list[Object]) -> None:
    assert facts.availability_problems(objects) == []


def test_network_policies_let_through_exactly_who_connects(objects: list[Object]) -> None:
    assert facts.network_problems(objects, REACHABLE) == []


def test_images_are_pinned_and_run_what_exists(objects: list[Object]) -> None:
    assert facts.image_problems(objects) == []
    assert facts.command_problems(objects) == []


def test_a_stopping_gateway_has_time_to_end_its_streams(objects: list[Object]) -> None:
    """preStop's sleep, then gunicorn's graceful_timeout for open live streams, must end before
    the kubelet kills the pod, or browsers lose their streams without a clean end."""
    conf = ast.parse((ROOT / "deploy/gunicorn.conf.py").read_text())
    graceful = next(
        n.value.value
        for n in conf.body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "graceful_timeout"
        and isinstance(n.value, ast.Constant)
    )  # fmt: skip
    pod = _one(objects, "Deployment", "metro-gateway")["spec"]["template"]["spec"]
    sleep = pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"]
    assert sleep[0] == "sleep"
    assert int(sleep[1]) + float(str(graceful)) < pod["terminationGracePeriodSeconds"]


# ---- each check fails on a manifest broken on purpose --------------------------------------

Mutation = Callable[[list[Object]], None]


def _engine(objs: list[Object]) -> Object:
    return _container(objs, "metro-engine")


def _gateway(objs: list[Object]) -> Object:
    return _container(objs, "metro-gateway")


def _config(objs: list[Object]) -> dict[str, Any]:
    data: dict[str, Any] = _one(objs, "ConfigMap", "metro-config")["data"]
    return data


def _env(objs: list[Object], deployment: str, name: str) -> Object:
    return next(e for e in _container(objs, deployment)["env"] if e["name"] == name)


def _set(target: dict[str, Any], key: str, value: Any) -> None:
    target[key] = value


BROKEN: list[tuple[str, Mutation, Callable[[list[Object]], list[str]], str]] = [
    ("no readiness probe", lambda o: _engine(o).pop("readinessProbe"),
     facts.probe_and_resource_problems, "no readinessProbe"),
    ("no memory limit", lambda o: _gateway(o)["resources"]["limits"].pop("memory"),
     facts.probe_and_resource_problems, "no limits.memory"),
    ("runs as root", lambda o: _set(_engine(o)["securityContext"], "runAsUser", 0),
     lambda o: facts.security_problems(o, facts.dockerfile_uid()), "runAsUser"),
    ("writable root", lambda o: _engine(o)["securityContext"].pop("readOnlyRootFilesystem"),
     lambda o: facts.security_problems(o, facts.dockerfile_uid()), "writable"),
    ("a token in a value", lambda o: _env(o, "metro-engine", "AI_SERVICE_TOKEN").update(
        value="x" * 8, valueFrom=None),
     facts.secret_problems, "AI_SERVICE_TOKEN is not taken from a Secret"),
    ("a password in a URL", lambda o: _set(_config(o), "RATE_LIMIT_HOST",
                                           "redis://:hunter2@metro-redis:6379/0"),
     facts.secret_problems, "a URL with a password"),
    ("a generated token", lambda o: _set(_config(o), "NOTE", "a3" * 20),
     facts.secret_problems, "secret-looking"),
    ("a Secret object", lambda o: o.append({"apiVersion": "v1", "kind": "Secret",
                                            "metadata": {"name": "metro-ai-token"}}),
     facts.secret_problems, "Secret/metro-ai-token"),
    ("a misspelt setting", lambda o: _set(_config(o), "ENGINE_TARGT", "dns:///metro-engine:1"),
     lambda o: facts.env_problems(o, facts.env_names_read(), REQUIRED_ENV), "ENGINE_TARGT"),
    ("a missing setting", lambda o: _config(o).pop("AI_TARGET"),
     lambda o: facts.env_problems(o, facts.env_names_read(), REQUIRED_ENV), "AI_TARGET is not"),
    ("listens on loopback", lambda o: _set(_config(o), "ENGINE_HOST", "127.0.0.1"),
     lambda o: facts.env_problems(o, facts.env_names_read(), REQUIRED_ENV), "ENGINE_HOST"),
    ("another port", lambda o: _set(_config(o), "ENGINE_PORT", "50061"),
     lambda o: facts.port_problems(o, {"engine": 50051, "ai": 50052, "gateway": 8000}),
     "ENGINE_PORT=50061"),
    ("probe on another port", lambda o: _set(_engine(o)["readinessProbe"]["grpc"], "port", 50052),
     lambda o: facts.port_problems(o, {"engine": 50051, "ai": 50052, "gateway": 8000}),
     "readinessProbe port 50052"),
    ("a ClusterIP for the AI", lambda o: _one(o, "Service", "metro-ai")["spec"].pop("clusterIP"),
     facts.target_problems, "not headless"),
    ("no dns:/// scheme", lambda o: _set(_config(o), "AI_TARGET", "metro-ai:50052"),
     facts.target_problems, "not dns:///"),
    ("replicas beside the HPA", lambda o: _set(_one(o, "Deployment", "metro-ai")["spec"],
                                               "replicas", 3),
     facts.availability_problems, "fight its HPA"),
    ("a budget that blocks drains",
     lambda o: _set(_one(o, "PodDisruptionBudget", "metro-engine")["spec"], "maxUnavailable", 0),
     facts.availability_problems, "block draining"),
    ("the AI shut out of the engine",
     lambda o: _one(o, "NetworkPolicy", "metro-engine")["spec"]["ingress"][0]["from"].pop(),
     lambda o: facts.network_problems(o, REACHABLE), "metro-ai may not connect"),
    ("a latest tag", lambda o: _set(_engine(o), "image", "metro-platform:latest"),
     facts.image_problems, "not pinned"),
    ("a module that is not there", lambda o: _set(_engine(o), "command",
                                                  ["python", "-m", "services.engin"]),
     facts.command_problems, "no module"),
]  # fmt: skip


@pytest.mark.parametrize(("mutate", "check", "expected"), [b[1:] for b in BROKEN],
                         ids=[b[0] for b in BROKEN])  # fmt: skip
def test_each_check_finds_what_it_is_for(
    mutate: Mutation, check: Callable[[list[Object]], list[str]], expected: str
) -> None:
    objs = copy.deepcopy(_rendered("redis-in-cluster"))
    assert not [p for p in check(objs) if expected in p]
    mutate(objs)
    problems = check(objs)
    assert any(expected in p for p in problems), problems


# ---- probes tried for real ------------------------------------------------------------------


def _expand(text: str, env: dict[str, str]) -> str:
    """The kubelet's $(NAME) expansion of command and args; an unknown name stays as it is."""
    return re.sub(r"\$\((\w+)\)", lambda m: env.get(m[1], m[0]), text)


@pytest.fixture
def redis_as_in_the_manifest(tmp_path: Path) -> Iterator[tuple[dict[str, str], int, Object]]:
    """The StatefulSet's Redis command line, run here on a free port with its data in tmp_path;
    yields the PATH/env its probes run with (`redis-cli` found on PATH as in the image)."""
    objs = _rendered("redis-in-cluster")
    container = pod_containers(_one(objs, "StatefulSet", "metro-redis"))[0]
    password = "probe-" + os.urandom(6).hex()
    env = {"REDISCLI_AUTH": password}
    argv = [_expand(a, env) for a in [*container["command"], *container["args"]]]
    argv[argv.index("--dir") + 1] = str(tmp_path)
    port = free_port()
    server = find_redis_server()
    cli = Path(server).with_name(Path(server).name.replace("-server", "-cli"))
    assert cli.is_file(), f"no {cli.name} beside {server}"
    shims = tmp_path / "bin"
    shims.mkdir()
    # The probe says `redis-cli`, which in the pod talks to the default port: point it at ours.
    shim = shims / "redis-cli"
    shim.write_text(f'#!/bin/sh\nexec "{cli}" -p {port} "$@"\n')
    shim.chmod(0o755)
    proc = subprocess.Popen(
        [server, *argv[1:], "--port", str(port), "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )  # fmt: skip
    probe_env = {**os.environ, **env, "PATH": f"{shims}:{os.environ['PATH']}"}
    try:
        yield probe_env, proc.pid, container
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _probe(container: Object, kind: str, env: dict[str, str]) -> int:
    command = container[kind]["exec"]["command"]
    done = subprocess.run(command, env=env, capture_output=True, timeout=10, check=False)
    return done.returncode


def test_redis_probes_tell_ready_from_merely_alive(
    redis_as_in_the_manifest: tuple[dict[str, str], int, Object],
) -> None:
    """Ready only when Redis answers PONG to the Secret's password; alive while it answers at
    all (a wrong password or a loading AOF is an answer); neither once it is gone."""
    env, pid, container = redis_as_in_the_manifest
    wait_until(
        lambda: _probe(container, "readinessProbe", env) == 0,
        "Redis ready with the manifest's args",
        timeout=20,
        every=0.1,
    )
    assert _probe(container, "livenessProbe", env) == 0
    wrong = {**env, "REDISCLI_AUTH": "not-the-password"}
    assert _probe(container, "readinessProbe", wrong) != 0
    assert _probe(container, "livenessProbe", wrong) == 0
    os.kill(pid, 15)
    wait_until(
        lambda: _probe(container, "livenessProbe", env) != 0,
        "the liveness probe to fail with Redis gone",
        timeout=10,
        every=0.1,
    )
    assert _probe(container, "readinessProbe", env) != 0


def test_gateway_probes_answer_while_the_backends_are_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gateway's probes ask the pod alone: with no engine and no AI they still pass (the
    gateway keeps answering the API's JSON 503 itself), while /healthz reports the outage."""
    from services.gateway.app import create_app

    for name in ("REDIS_URL", "RATE_LIMIT_STORAGE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RATE_LIMIT_ENABLED", "0")
    closed = free_port()
    app = create_app({"ENGINE_TARGET": f"127.0.0.1:{closed}", "AI_TARGET": f"127.0.0.1:{closed}"})
    gateway = _container(_rendered("redis-in-cluster"), "metro-gateway")
    with app.test_client() as client:
        for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
            path = gateway[kind]["httpGet"]["path"]
            with client.get(path) as reply:
                assert reply.status_code == 200, (kind, path)
        with client.get("/api/games") as reply:
            assert reply.status_code == 503
            assert reply.get_json()["error"]["code"] == "unavailable", reply.get_json()
        with client.get("/healthz") as reply:
            assert reply.status_code == 503
            assert reply.get_json()["engine"].startswith("down")
