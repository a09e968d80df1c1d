"""The pods of overlays/redis-in-cluster, run here as their manifests say: each container's
command, the environment its ConfigMaps and Secrets give it, its uid and gid, no capabilities,
a read-only root file system with its emptyDir mounts, in namespaces of their own where the
Services' names resolve (tests/deploy/pods.py). Their probes must pass, an AI seat must be
played through the engine, and a Redis outage must take the engine out of readiness without
failing a liveness probe anywhere.

Needs root and util-linux's `unshare` and `setpriv` (skipped otherwise, with the reason); no
container runtime and no cluster. About 15 s on an idle machine.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from services.common.redis_server import find_redis_server
from tests.deploy import facts
from tests.deploy.kustomize import Object, pod_containers, render

ROOT = facts.ROOT
SHIMS = "/tmp/bin"  # inside the run's own /tmp
DATA = "/tmp/data"  # the Redis volume


def _why_not() -> str | None:
    """Why the pods cannot be run in namespaces here, or None when they can."""
    missing = [tool for tool in ("unshare", "setpriv", "ip", "mount") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not on PATH"
    if os.geteuid() != 0:
        return "not root: cannot make mount and network namespaces"
    tried = subprocess.run(
        ["unshare", "--mount", "--net", "--pid", "--fork", "true"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    if tried.returncode != 0:
        return f"namespaces are refused here: {tried.stderr.strip()[:200]}"
    return None


WHY_NOT = _why_not()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"pods not run: {WHY_NOT}")


def _expand(text: str, env: dict[str, str]) -> str:
    """The kubelet's $(NAME) expansion; an unknown name stays as it is."""
    return re.sub(r"\$\((\w+)\)", lambda m: env.get(m[1], m[0]), text)


def _port(container: Object, port: Any) -> int:
    for p in container.get("ports") or []:
        if port in (p["containerPort"], p.get("name")):
            return int(p["containerPort"])
    raise AssertionError(f"{container['name']}: no port {port}")


def _probes(container: Object) -> dict[str, Any]:
    probes = {}
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = dict(container.get(kind) or {})
        for handler in ("grpc", "tcpSocket", "httpGet"):
            if handler in probe:
                probe[handler] = {
                    **probe[handler],
                    "port": _port(container, probe[handler]["port"]),
                }
        if probe:
            probes[kind] = probe
    return probes


def _env(
    container: Object, objects: list[Object], secret: dict[str, dict[str, str]]
) -> dict[str, str]:
    env: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        config = facts.find(objects, "ConfigMap", source["configMapRef"]["name"])
        assert config is not None
        env.update(config["data"])
    for item in container.get("env") or []:
        ref = (item.get("valueFrom") or {}).get("secretKeyRef")
        env[item["name"]] = secret[ref["name"]][ref["key"]] if ref else _expand(item["value"], env)
    return env


def _closed_to_others(path: Path) -> list[str]:
    """The directory on `path` to open up for a non-root user: the child of the one ancestor
    that others may not enter (none, or /root/.pyenv for a pyenv Python)."""
    closed = [p for p in path.parents if not p.stat().st_mode & 0o001]
    if not closed:
        return []
    assert len(closed) == 1, f"more than one closed directory above {path}: {closed}"
    return [str(next(p for p in path.parents if p.parent == closed[0]))]


def _spec(objects: list[Object], tmp_path: Path) -> dict[str, Any]:
    password, token = secrets.token_hex(16), secrets.token_hex(32)
    secret = {  # as docs/kubernetes.md makes them
        "metro-ai-token": {"AI_SERVICE_TOKEN": token},
        "metro-redis": {
            "REDIS_PASSWORD": password,
            "REDIS_URL": f"redis://:{password}@metro-redis:6379/0",
        },
    }
    server = find_redis_server()
    cli = Path(server).with_name(Path(server).name.replace("-server", "-cli"))
    pods = []
    for obj in objects:
        if obj["kind"] not in facts.WORKLOADS:
            continue
        pod = obj["spec"]["template"]["spec"]
        (container,) = pod_containers(obj)
        ctx = {**pod["securityContext"], **container["securityContext"]}
        env = _env(container, objects, secret)
        service = facts.service_of(container)
        if service:  # deploy/Dockerfile's ENV, with this checkout as /app and .venv as /opt/venv
            env |= {
                "PATH": f"{ROOT / '.venv/bin'}:/usr/bin:/bin",
                "PYTHONPATH": f"{ROOT / 'gen'}:{ROOT}",
                "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONUNBUFFERED": "1",
                "HOME": "/home/metro",
            }
        else:
            env |= {"PATH": f"{SHIMS}:/usr/bin:/bin"}
        argv = [_expand(a, env) for a in [*container["command"], *(container.get("args") or [])]]
        if "--dir" in argv:
            argv[argv.index("--dir") + 1] = DATA
        mounts = [m["mountPath"] for m in container.get("volumeMounts") or []]
        pods.append({
            "name": service or "redis",
            "argv": argv,
            "env": env,
            "cwd": str(ROOT) if service else "/",
            "uid": ctx["runAsUser"],
            "gid": ctx["runAsGroup"],
            "dirs": [DATA if m == "/data" else m for m in mounts if m != "/tmp"],
            "probes": _probes(container),
        })  # fmt: skip
    assert sorted(p["name"] for p in pods) == ["ai", "engine", "gateway", "redis"]
    gateway = next(p for p in pods if p["name"] == "gateway")
    return {
        "expose": _closed_to_others(Path(os.path.realpath(ROOT / ".venv/bin/python"))),
        "pods": pods,
        "hosts": [s["metadata"]["name"] for s in facts.by_kind(objects, "Service")],
        "read_only": ["/"],
        "keep": [str(ROOT.resolve())],
        "shims": {f"{SHIMS}/redis-server": server, f"{SHIMS}/redis-cli": str(cli)},
        "gateway_port": int(gateway["env"]["GATEWAY_PORT"]),
    }


@pytest.mark.timeout(300)
def test_the_pods_run_and_their_probes_hold_as_the_manifests_say(tmp_path: Path) -> None:
    objects = render(ROOT / "deploy/k8s/overlays/redis-in-cluster")
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(_spec(objects, tmp_path)))
    done = subprocess.run(
        ["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child",
         sys.executable, "-m", "tests.deploy.pods", str(spec_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=280, check=False,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'gen'}:{ROOT}",
             "POD_HOSTS_FILE": str(tmp_path / "hosts")},
    )  # fmt: skip
    steps = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0, done.stdout + done.stderr
    assert [s["step"] for s in steps] == [
        "ready", "ready", "ready", "ready", "played", "redis down", "redis back", "done"
    ]  # fmt: skip
