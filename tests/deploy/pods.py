"""Run the pods of a rendered overlay here, as their manifests say, and try their probes.

`python -m tests.deploy.pods SPEC.json` is started by tests/deploy/test_pods.py inside fresh
mount, network and pid namespaces (`unshare`, as root), so nothing it does reaches the machine:
the fixed ports of the manifests are free, the Services' names resolve to this namespace's
loopback (a hosts file), the root file system is read-only, /tmp and /home are empty tmpfs
mounts (the pods' emptyDir volumes), and each container runs under its securityContext's uid
and gid with no capabilities and no_new_privs. What is not the same as a cluster: every pod
shares one loopback address, and the code is this checkout's, not an image's.

It prints one JSON line per step and exits 0 when every step passed; on a failure it prints
the failing step and the tail of every container's log, and exits 1.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from services.common.healthcheck import check_grpc
from tests.fixtures.waits import wait_until

LOGS = Path("/tmp/pod-logs")


class StepFailed(AssertionError):
    """A step of the run did not come out as the manifests promise."""


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True)


def isolate(
    hosts: list[str], read_only: list[str], expose: list[str], keep: tuple[str, ...] = ()
) -> None:
    """Loopback up, Service names on it, a read-only root, fresh tmpfs for the emptyDirs."""
    sh("ip", "link", "set", "lo", "up")
    sh("mount", "--make-rprivate", "/")
    for path in expose:
        # A directory inside one only root may enter (this machine's Python under /root): put
        # it alone inside an open tmpfs, as an image's interpreter is open to its user.
        parent = str(Path(path).parent)
        sh("mount", "--bind", path, "/mnt")
        sh("mount", "-t", "tmpfs", "-o", "mode=755,size=1m", "tmpfs", parent)
        Path(path).mkdir()
        sh("mount", "--move", "/mnt", path)
    hosts_file = Path(os.environ["POD_HOSTS_FILE"])
    hosts_file.write_text("127.0.0.1 localhost " + " ".join(hosts) + "\n")
    sh("mount", "--bind", str(hosts_file), "/etc/hosts")
    # The checkout itself may live under /tmp or /home (a CI clone in /tmp), which get a fresh
    # tmpfs below: hold it on /mnt (before the root turns read-only, whose flag a bind would
    # inherit) and put it back at the same path inside the tmpfs, with open parents.
    kept = [path for path in keep if path.startswith(("/tmp/", "/home/"))]
    if len(kept) > 1:
        raise StepFailed(f"only one folder under /tmp or /home can be kept, not {kept}")
    if kept:
        sh("mount", "--bind", kept[0], "/mnt")
    for path in read_only:
        sh("mount", "-o", "remount,bind,ro", path)
    for top in ("/tmp", "/home"):
        sh("mount", "-t", "tmpfs", "-o", "mode=1777,size=64m", "tmpfs", top)
    if kept:
        Path(kept[0]).mkdir(parents=True)
        sh("mount", "--no-mtab", "--move", "/mnt", kept[0])  # (no utab: /run is read-only)
    try:
        Path("/var/tmp/pods-read-only-check").touch()
    except OSError:
        pass
    else:
        raise StepFailed("the root file system is still writable")
    LOGS.mkdir()


class Pod:
    """One container, started as its spec says (argv, env, uid and gid, working directory)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.name: str = spec["name"]
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = LOGS / f"{self.name}.log"

    def start(self) -> None:
        for directory in self.spec.get("dirs", []):
            Path(directory).mkdir(parents=True, exist_ok=True)
            os.chown(directory, self.spec["uid"], self.spec["gid"])
        drop = [
            "setpriv", f"--reuid={self.spec['uid']}", f"--regid={self.spec['gid']}",
            "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        ]  # fmt: skip
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [*drop, *self.spec["argv"]], env=self.spec["env"], cwd=self.spec["cwd"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def exited(self) -> str | None:
        """Why the container is not running, or None while it runs."""
        if self.proc is None:
            return "not started"
        code = self.proc.poll()
        return None if code is None else f"exited with status {code}"

    def probe(self, kind: str) -> str | None:
        """None when the container's `kind` probe passes, else why not (as the kubelet would)."""
        probe = self.spec["probes"][kind]
        if "grpc" in probe:
            return check_grpc(f"127.0.0.1:{probe['grpc']['port']}", timeout=2.0)
        if "tcpSocket" in probe:
            try:
                socket.create_connection(("127.0.0.1", probe["tcpSocket"]["port"]), 2).close()
            except OSError as exc:
                return f"tcp: {exc}"
            return None
        if "httpGet" in probe:
            conn = http.client.HTTPConnection("127.0.0.1", probe["httpGet"]["port"], timeout=3)
            try:
                conn.request("GET", probe["httpGet"]["path"])
                status = conn.getresponse().status
            except OSError as exc:
                return f"http: {exc}"
            finally:
                conn.close()
            return None if 200 <= status < 400 else f"http: {status}"
        done = subprocess.run(
            probe["exec"]["command"], env=self.spec["env"], capture_output=True, timeout=10,
            check=False,
        )  # fmt: skip
        return None if done.returncode == 0 else f"exec: exit {done.returncode}"


def wait(what: str, test: Any, timeout: float = 90.0) -> None:
    """Poll `test` (None or a reason) until it passes; StepFailed with the last reason."""
    last: list[str | None] = ["never tried"]

    def passed() -> bool:
        last[0] = test()
        return last[0] is None

    try:
        wait_until(passed, what, timeout, every=0.25)
    except AssertionError:
        raise StepFailed(f"{what}: {last[0]}") from None


def call(port: int, method: str, path: str, body: Any = None, token: str = "") -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"null")
    finally:
        conn.close()


def step(name: str, **details: Any) -> None:
    print(json.dumps({"step": name, **details}), flush=True)


def run(spec: dict[str, Any]) -> None:
    pods = {p["name"]: Pod(p) for p in spec["pods"]}
    order = ["redis", "engine", "ai", "gateway"]
    try:
        for name in order:
            pod = pods[name]
            pod.start()
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                if kind in pod.spec["probes"]:
                    wait(f"{name} {kind}", lambda p=pod, k=kind: p.exited() or p.probe(k))
            step("ready", pod=name)
        play(spec["gateway_port"])
        redis_outage(pods, spec["gateway_port"])
        for name in order:
            if (why := pods[name].exited()) is not None:
                raise StepFailed(f"{name} {why}")
        forbidden = [
            (name, line)
            for name in order
            for line in pods[name].log.read_text(errors="replace").splitlines()
            if "Read-only file system" in line or "Permission denied" in line
        ]
        if forbidden:
            raise StepFailed(f"a container tried to write where it may not: {forbidden[:3]}")
        step("done")
    finally:
        for name in reversed(order):
            pods[name].stop()


def play(port: int) -> None:
    """A game with an AI seat to move first: the AI worker must play it through the engine
    (the credential and the gRPC targets work), and /healthz sees every backend."""
    status, health = call(port, "GET", "/healthz")
    if status != 200:
        raise StepFailed(f"/healthz: {status} {health}")
    _, meta = call(port, "GET", "/api/meta")
    kind = next(g for g in meta["games"] if g["players"][0] <= 2 <= g["players"][1])
    names = [level["name"] for level in kind["levels"]]
    level = "random" if "random" in names else names[0]
    status, made = call(port, "POST", "/api/games", {
        "game": kind["game"], "rules": {"players": 2},
        "seats": [{"kind": "ai", "level": level}, {"kind": "human", "name": "Ada"}],
    })  # fmt: skip
    if status != 201:
        raise StepFailed(f"create: {status} {made}")

    def bot_moved() -> str | None:
        _, view = call(port, "GET", f"/api/games/{made['game_id']}", token=made["token"])
        return None if made["seat"] in view.get("to_move", []) else f"to_move {view.get('to_move')}"

    wait("the AI seat moves", bot_moved, timeout=60)
    step("played", game=kind["game"])


def redis_outage(pods: dict[str, Pod], port: int) -> None:
    """Redis gone: the engine leaves readiness but stays alive, the gateway stays ready and
    answers JSON 503; Redis back (same data dir, AOF): the engine is ready again."""
    pods["redis"].stop()
    engine, gateway = pods["engine"], pods["gateway"]
    wait("engine unready without Redis", lambda: "ready" if engine.probe("readinessProbe") is None
         else None, timeout=30)  # fmt: skip
    for name, pod, kind in (("engine", engine, "livenessProbe"), ("gateway", gateway,
                            "readinessProbe"), ("gateway", gateway, "livenessProbe")):  # fmt: skip
        if (reason := pod.probe(kind)) is not None:
            raise StepFailed(f"{name} {kind} fails while Redis is down: {reason}")
    status, body = call(port, "GET", "/api/games?status=open")
    if status != 503 or "error" not in body:
        raise StepFailed(f"the API while Redis is down: {status} {body}")
    step("redis down", api=status, code=body["error"]["code"])
    pods["redis"].start()
    wait("redis ready again", lambda: pods["redis"].probe("readinessProbe"))
    wait("engine ready again", lambda: engine.probe("readinessProbe"), timeout=30)
    step("redis back")


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    isolate(spec["hosts"], spec["read_only"], spec.get("expose", []), tuple(spec.get("keep", ())))
    for shim, target in spec.get("shims", {}).items():
        Path(shim).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, shim)
    try:
        run(spec)
    except StepFailed as failure:
        step("failed", why=str(failure))
        for log in sorted(LOGS.glob("*.log")):
            print(f"---- {log.name}\n" + "\n".join(log.read_text(errors="replace")
                                                  .splitlines()[-25:]))  # fmt: skip
        return 1
    finally:
        shutil.rmtree(LOGS, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
