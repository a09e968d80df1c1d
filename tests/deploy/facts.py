"""Facts about rendered manifests that schemas cannot see; each check returns the problems found.

They are functions over plain objects, not assertions, so that a test can also show each one
failing on a manifest broken on purpose (tests/deploy/test_k8s.py, `BROKEN`).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.deploy.kustomize import Object, pod_containers, split_image

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = {"Deployment", "StatefulSet"}
SERVICES = ("engine", "ai", "gateway")
# Env names that carry a credential (or a URL that may embed one): only from a Secret.
SECRET_NAME = re.compile(r"TOKEN|PASSWORD|SECRET|AUTH|^REDIS_URL$|STORAGE_URL$")
# Long runs of hex or base64: what a generated token or password looks like.
SECRET_VALUE = re.compile(r"\b[0-9a-fA-F]{32,}\b|[A-Za-z0-9+/_-]{40,}={0,2}")
# The setting that says where each of our services listens.
SERVICE_PORT_ENV = {"engine": "ENGINE_PORT", "ai": "AI_PORT", "gateway": "GATEWAY_PORT"}


def by_kind(objects: list[Object], kind: str) -> list[Object]:
    return [o for o in objects if o["kind"] == kind]


def find(objects: list[Object], kind: str, name: str) -> Object | None:
    return next((o for o in by_kind(objects, kind) if o["metadata"]["name"] == name), None)


def where(obj: Object, container: Object) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}/{container['name']}"


def service_of(container: Object) -> str | None:
    """Which of our Python services a container runs ("engine", "ai", "gateway"), or None."""
    argv = [*(container.get("command") or []), *(container.get("args") or [])]
    if argv[:3] == ["python", "-m", "services.engine"]:
        return "engine"
    if argv[:3] == ["python", "-m", "services.ai"]:
        return "ai"
    if argv[:1] == ["gunicorn"] and "services.gateway.live.asgi:create_asgi()" in argv:
        return "gateway"
    return None


# ---- what the code reads -------------------------------------------------------------------


READERS = ("os.environ.get", "os.getenv", "_int", "_rate", "_redis_url", "_seconds")


def _env_names(tree: ast.AST) -> set[str]:
    """Names passed as a string to os.environ.get, os.getenv or one of config.py's readers."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        if ast.unparse(node.func) in READERS:
            names.add(first.value)
    return names


def _config_classes_used(service: str) -> set[str]:
    """The classes of services/common/config.py that services/<service>/ imports."""
    used: set[str] = set()
    for path in (ROOT / "services" / service).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "services.common.config":
                used.update(alias.name for alias in node.names)
    return used


@functools.cache
def env_names_read() -> dict[str, frozenset[str]]:
    """Per service, every variable its code reads: the config.py classes it imports, and for
    the gateway also deploy/gunicorn.conf.py (the gunicorn process reads that file)."""
    tree = ast.parse((ROOT / "services/common/config.py").read_text())
    per_class = {n.name: _env_names(n) for n in tree.body if isinstance(n, ast.ClassDef)}
    names: dict[str, set[str]] = {}
    for service in SERVICES:
        classes = _config_classes_used(service) & set(per_class)
        if "Settings" not in classes:
            raise AssertionError(f"services/{service} no longer imports config.Settings")
        names[service] = set().union(*(per_class[c] for c in classes))
    names["gateway"] |= _env_names(ast.parse((ROOT / "deploy/gunicorn.conf.py").read_text()))
    return {service: frozenset(read) for service, read in names.items()}


def dockerfile_uid() -> int:
    """The uid of the user the image runs as (deploy/Dockerfile's useradd --uid)."""
    match = re.search(r"useradd\b[^\n]*--uid (\d+)", (ROOT / "deploy/Dockerfile").read_text())
    if not match:
        raise AssertionError("deploy/Dockerfile creates no user with --uid")
    return int(match[1])


def dockerfile_exposed() -> set[int]:
    text = (ROOT / "deploy/Dockerfile").read_text()
    return {int(p) for line in re.findall(r"^EXPOSE (.+)$", text, re.M) for p in line.split()}


# ---- what a container gets -----------------------------------------------------------------


def container_env(container: Object, objects: list[Object]) -> dict[str, Any]:
    """Name -> value (a string, or the valueFrom mapping) of everything the container gets."""
    env: dict[str, Any] = {}
    for source in container.get("envFrom") or []:
        ref = source.get("configMapRef")
        if ref is None:
            raise AssertionError(f"{container['name']}: envFrom other than a ConfigMap: {source}")
        config = find(objects, "ConfigMap", ref["name"])
        if config is None:
            raise AssertionError(f"{container['name']}: no ConfigMap {ref['name']}")
        env.update(config.get("data") or {})
    for item in container.get("env") or []:
        env[item["name"]] = item.get("value", item.get("valueFrom"))
    return env


def _container_port(container: Object, port: Any) -> int | None:
    """The containerPort that `port` (a number or a port name) means in this container."""
    for p in container.get("ports") or []:
        if port in (p["containerPort"], p.get("name")):
            return int(p["containerPort"])
    return None


def _probe_port(probe: Object) -> Any:
    for kind in ("grpc", "httpGet", "tcpSocket"):
        if kind in probe:
            return probe[kind]["port"]
    return None  # an exec probe


def selected(objects: list[Object], selector: dict[str, str]) -> list[Object]:
    """The workloads whose pods carry every label of `selector`."""
    return [
        o
        for o in objects
        if o["kind"] in WORKLOADS
        and selector.items() <= (o["spec"]["template"]["metadata"].get("labels") or {}).items()
    ]


# ---- the checks ------------------------------------------------------------------------------


def probe_and_resource_problems(objects: list[Object]) -> list[str]:
    problems = []
    for obj in objects:
        for c in pod_containers(obj):
            for probe in ("readinessProbe", "livenessProbe"):
                if not c.get(probe):
                    problems.append(f"{where(obj, c)}: no {probe}")
            res = c.get("resources") or {}
            for part in ("requests", "limits"):
                for what in ("cpu", "memory"):
                    if what not in (res.get(part) or {}):
                        problems.append(f"{where(obj, c)}: no {part}.{what}")
    return problems


def security_problems(objects: list[Object], python_uid: int) -> list[str]:
    problems = []
    for obj in objects:
        if obj["kind"] not in WORKLOADS:
            continue
        pod = obj["spec"]["template"]["spec"]
        pod_ctx = pod.get("securityContext") or {}
        if pod.get("automountServiceAccountToken") is not False:
            problems.append(f"{obj['metadata']['name']}: mounts a service account token")
        for c in pod_containers(obj):
            ctx = {**pod_ctx, **(c.get("securityContext") or {})}
            if ctx.get("runAsNonRoot") is not True:
                problems.append(f"{where(obj, c)}: runAsNonRoot is not true")
            if not isinstance(ctx.get("runAsUser"), int) or ctx["runAsUser"] == 0:
                problems.append(f"{where(obj, c)}: no non-zero runAsUser")
            if ctx.get("allowPrivilegeEscalation") is not False:
                problems.append(f"{where(obj, c)}: allowPrivilegeEscalation is not false")
            if ctx.get("readOnlyRootFilesystem") is not True:
                problems.append(f"{where(obj, c)}: the root file system is writable")
            if "ALL" not in ((ctx.get("capabilities") or {}).get("drop") or []):
                problems.append(f"{where(obj, c)}: capabilities are not all dropped")
            if (ctx.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
                problems.append(f"{where(obj, c)}: no RuntimeDefault seccomp profile")
            if service_of(c) and ctx.get("runAsUser") != python_uid:
                problems.append(
                    f"{where(obj, c)}: runAsUser {ctx.get('runAsUser')} is not the image's user "
                    f"{python_uid} (deploy/Dockerfile)"
                )
    return problems


def secret_problems(objects: list[Object]) -> list[str]:
    """No Secret object, credentials only by secretKeyRef, no secret-looking value anywhere."""
    problems = [
        f"Secret/{o['metadata']['name']} is in the manifests" for o in by_kind(objects, "Secret")
    ]
    for obj in objects:
        for c in pod_containers(obj):
            for item in c.get("env") or []:
                ref = (item.get("valueFrom") or {}).get("secretKeyRef")
                if SECRET_NAME.search(item["name"]) and not ref:
                    problems.append(f"{where(obj, c)}: {item['name']} is not taken from a Secret")
        if obj["kind"] == "ConfigMap":
            for key, value in (obj.get("data") or {}).items():
                if SECRET_NAME.search(key) and value:
                    problems.append(f"ConfigMap/{obj['metadata']['name']}: {key} holds a value")
    for text in _all_strings(objects):
        problems.extend(value_problems(text))
    return problems


def value_problems(text: str) -> list[str]:
    """A string that looks like a token, or a URL that carries a password."""
    problems = []
    if SECRET_VALUE.search(text):
        problems.append(f"a secret-looking value: {text[:12]}…")
    for word in text.split():
        if "://" in word:
            parts = urlsplit(word.strip("\"'`,()"))
            try:
                password = parts.password
            except ValueError:
                password = None
            if password and not password.startswith(("$", "<")):
                problems.append(f"a URL with a password: {parts.scheme}://…@{parts.hostname}")
    return problems


def _all_strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _all_strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _all_strings(v)]
    return []


def env_problems(
    objects: list[Object], read: dict[str, frozenset[str]], required: dict[str, set[str]]
) -> list[str]:
    """Every variable a service gets is one its code reads (a misspelt name would be silently
    ignored), every `required` one is set, and listen hosts take every interface (the
    defaults, 127.0.0.1, would be unreachable from other pods)."""
    problems = []
    for obj in objects:
        for c in pod_containers(obj):
            service = service_of(c)
            if service is None:
                continue
            env = container_env(c, objects)
            for name in sorted(set(env) - read[service]):
                problems.append(f"{where(obj, c)}: sets {name}, which the {service} never reads")
            for name in sorted(required[service] - set(env)):
                problems.append(f"{where(obj, c)}: {name} is not set")
            for host in ("ENGINE_HOST", "AI_HOST", "GATEWAY_HOST"):
                if host in env and env[host] != "0.0.0.0":
                    problems.append(f"{where(obj, c)}: {host}={env[host]!r}, not 0.0.0.0")
    return problems


def port_problems(objects: list[Object], defaults: dict[str, int]) -> list[str]:
    """Probes, containers, Services and the services' own port settings agree, and those are
    the services' defaults (what compose, `metro up` and the image's EXPOSE use)."""
    problems = []
    for obj in objects:
        for c in pod_containers(obj):
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                port = _probe_port(c.get(kind) or {})
                if port is not None and _container_port(c, port) is None:
                    problems.append(f"{where(obj, c)}: {kind} port {port} is no container port")
            service = service_of(c)
            if service is None:
                continue
            setting = SERVICE_PORT_ENV[service]
            listen = int(container_env(c, objects).get(setting, defaults[service]))
            if listen != defaults[service]:
                problems.append(f"{where(obj, c)}: {setting}={listen}, default {defaults[service]}")
            if _container_port(c, listen) is None:
                problems.append(f"{where(obj, c)}: listens on {listen}, not a container port")
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                probed = _probe_port(c.get(kind) or {})
                if probed is not None and _container_port(c, probed) != listen:
                    problems.append(f"{where(obj, c)}: {kind} probes {probed}, listens on {listen}")
    for svc in by_kind(objects, "Service"):
        name = svc["metadata"]["name"]
        targets = selected(objects, svc["spec"].get("selector") or {})
        if len(targets) != 1:
            problems.append(f"Service/{name} selects {len(targets)} workloads, not 1")
            continue
        for p in svc["spec"]["ports"]:
            want = p.get("targetPort", p["port"])
            if not any(_container_port(c, want) for c in pod_containers(targets[0])):
                problems.append(f"Service/{name}: targetPort {want} is no container port")
    return problems


def target_problems(objects: list[Object]) -> list[str]:
    """ENGINE_TARGET and AI_TARGET are dns:/// names of headless Services with that port,
    selecting the engine and the AI workers: a headless name resolves to every ready pod, so
    the clients' round_robin spreads calls over all of them (a ClusterIP would be one
    address, and one long-lived HTTP/2 connection would pin every call to one pod)."""
    problems = []
    for obj in objects:
        for c in pod_containers(obj):
            if service_of(c) is None:
                continue
            env = container_env(c, objects)
            for var, want in (("ENGINE_TARGET", "engine"), ("AI_TARGET", "ai")):
                if var not in env:
                    continue
                target = str(env[var])
                match = re.fullmatch(r"dns:///([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)", target)
                if not match:
                    problems.append(f"{where(obj, c)}: {var}={target!r} is not dns:///NAME:PORT")
                    continue
                svc = find(objects, "Service", match[1])
                if svc is None:
                    problems.append(f"{where(obj, c)}: {var} names no Service {match[1]}")
                    continue
                if svc["spec"].get("clusterIP") != "None":
                    problems.append(f"{where(obj, c)}: {var}: Service {match[1]} is not headless")
                if int(match[2]) not in [p["port"] for p in svc["spec"]["ports"]]:
                    problems.append(f"{where(obj, c)}: {var}: {match[1]} has no port {match[2]}")
                picked = selected(objects, svc["spec"].get("selector") or {})
                if [service_of(x) for w in picked for x in pod_containers(w)] != [want]:
                    problems.append(f"{where(obj, c)}: {var}: {match[1]} is not the {want}")
    return problems


def availability_problems(objects: list[Object]) -> list[str]:
    """Each Deployment has a PodDisruptionBudget that lets a node drain, and at least two pods;
    the HPA drives a Deployment that does not set its own replica count (re-applying would
    reset the HPA's choice) and requests CPU (the HPA's utilisation is a share of it)."""
    problems = []
    hpa_driven = {
        h["spec"]["scaleTargetRef"]["name"] for h in by_kind(objects, "HorizontalPodAutoscaler")
    }
    for pdb in by_kind(objects, "PodDisruptionBudget"):
        spec = pdb["spec"]
        if spec.get("maxUnavailable", 1) in (0, "0%") or "minAvailable" in spec:
            problems.append(f"PDB/{pdb['metadata']['name']}: may block draining a node")
    covered = {
        w["metadata"]["name"]
        for pdb in by_kind(objects, "PodDisruptionBudget")
        for w in selected(objects, pdb["spec"]["selector"]["matchLabels"])
    }
    for dep in by_kind(objects, "Deployment"):
        name = dep["metadata"]["name"]
        if name not in covered:
            problems.append(f"Deployment/{name} has no PodDisruptionBudget")
        if name not in hpa_driven and dep["spec"].get("replicas", 1) < 2:
            problems.append(f"Deployment/{name}: fewer than 2 replicas")
    for hpa in by_kind(objects, "HorizontalPodAutoscaler"):
        ref = hpa["spec"]["scaleTargetRef"]
        scaled = find(objects, ref["kind"], ref["name"])
        if scaled is None:
            problems.append(f"HPA/{hpa['metadata']['name']}: no {ref['kind']}/{ref['name']}")
            continue
        if "replicas" in scaled["spec"]:
            problems.append(f"{ref['name']}: sets replicas, which would fight its HPA")
        if hpa["spec"].get("minReplicas", 1) < 2:
            problems.append(f"HPA/{hpa['metadata']['name']}: fewer than 2 replicas at least")
        for c in pod_containers(scaled):
            if "cpu" not in ((c.get("resources") or {}).get("requests") or {}):
                problems.append(f"{ref['name']}/{c['name']}: no CPU request for the HPA")
    return problems


def network_problems(objects: list[Object], reachable: dict[str, set[str]]) -> list[str]:
    """Every NetworkPolicy selects a workload and names its ports, and `reachable` (workload
    -> the workloads that must reach it) holds: a policy that shut out a real client would
    break the platform only once a cluster enforces it."""
    problems = []
    names = {o["metadata"]["name"]: o for o in objects if o["kind"] in WORKLOADS}
    allowed: dict[str, set[str]] = {}
    for pol in by_kind(objects, "NetworkPolicy"):
        pname = pol["metadata"]["name"]
        targets = selected(objects, pol["spec"]["podSelector"].get("matchLabels") or {})
        if not targets:
            problems.append(f"NetworkPolicy/{pname} selects no workload")
        for rule in pol["spec"].get("ingress") or []:
            for port in rule.get("ports") or []:
                for t in targets:
                    if not any(_container_port(c, port["port"]) for c in pod_containers(t)):
                        problems.append(f"NetworkPolicy/{pname}: {t['metadata']['name']} has "
                                        f"no port {port['port']}")  # fmt: skip
            peers = rule.get("from")
            for t in targets:
                got = allowed.setdefault(t["metadata"]["name"], set())
                if peers is None:
                    got.add("*")
                for peer in peers or []:
                    labels = (peer.get("podSelector") or {}).get("matchLabels") or {}
                    got.update(w["metadata"]["name"] for w in selected(objects, labels))
    for target, clients in reachable.items():
        if target not in names:
            continue
        if target not in allowed:
            problems.append(f"{target}: no NetworkPolicy")
            continue
        if "*" in clients and "*" not in allowed[target]:
            problems.append(f"{target}: not open to every client")
        for client in sorted(clients & set(names)):
            if not ({client, "*"} & allowed[target]):
                problems.append(f"{target}: {client} may not connect to it")
        for extra in sorted(allowed[target] - clients - {"*"}):
            problems.append(f"{target}: {extra} may connect, but has no reason to")
    return problems


def image_problems(objects: list[Object]) -> list[str]:
    """A pinned tag or digest everywhere, and one image for all of our Python services."""
    problems = []
    ours = set()
    for obj in objects:
        for c in pod_containers(obj):
            _, tag, digest = split_image(c["image"])
            if not (tag or digest) or tag == "latest":
                problems.append(f"{where(obj, c)}: image {c['image']} is not pinned")
            if service_of(c):
                ours.add(c["image"])
    if len(ours) > 1:
        problems.append(f"the Python services run different images: {sorted(ours)}")
    return problems


def command_problems(objects: list[Object]) -> list[str]:
    """What a Python container runs exists in the source tree (and so in the image)."""
    problems = []
    for obj in objects:
        for c in pod_containers(obj):
            argv = c.get("command") or []
            if argv[:2] == ["python", "-m"]:
                module = ROOT / argv[2].replace(".", "/")
                if not (module / "__main__.py").is_file():
                    problems.append(f"{where(obj, c)}: no module {argv[2]}")
            if argv[:1] == ["gunicorn"]:
                conf = argv[argv.index("-c") + 1] if "-c" in argv else ""
                if not (ROOT / conf).is_file():
                    problems.append(f"{where(obj, c)}: no gunicorn config {conf!r}")
                app = argv[-1].split(":")[0]
                if not (ROOT / (app.replace(".", "/") + ".py")).is_file():
                    problems.append(f"{where(obj, c)}: no module {app}")
    return problems
