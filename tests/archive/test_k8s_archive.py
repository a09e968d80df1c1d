"""deploy/k8s/components/archive (issue 29): PostgreSQL as a StatefulSet and the archivers,
rendered on top of the in-cluster overlay and held to the same checks as the rest of deploy/k8s
(tests/deploy): valid against the Kubernetes schemas, probes and resources, unprivileged pods,
credentials only from the Secrets docs/kubernetes.md makes, pinned images, network policies."""

from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import pytest
from kubernetes_validate.utils import latest_version

from tests.deploy import facts
from tests.deploy.kustomize import Object, pod_containers, render

K8S = facts.ROOT / "deploy/k8s"
REACHABLE = {
    "metro-gateway": {"*"},
    "metro-engine": {"metro-gateway", "metro-ai"},
    "metro-ai": {"metro-gateway"},
    "metro-redis": {"metro-engine", "metro-gateway", "metro-archiver"},
    "metro-postgres": {"metro-gateway", "metro-archiver"},
}


@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> list[Object]:
    overlay = tmp_path_factory.mktemp("overlay")
    (overlay / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: metro\n"
        f"resources:\n  - {K8S / 'base'}\n"
        f"components:\n  - {K8S / 'components/redis'}\n  - {K8S / 'components/archive'}\n"
    )
    return render(overlay)


def test_the_archive_is_a_statefulset_on_a_volume_and_archivers_that_scale(
    objects: list[Object],
) -> None:
    postgres = facts.find(objects, "StatefulSet", "metro-postgres")
    assert postgres is not None
    claim = postgres["spec"]["volumeClaimTemplates"][0]["spec"]
    assert claim["accessModes"] == ["ReadWriteOnce"]
    archiver = facts.find(objects, "Deployment", "metro-archiver")
    assert archiver is not None and archiver["spec"]["replicas"] >= 2
    (container,) = pod_containers(archiver)
    assert container["command"] == ["python", "-m", "services.archive"]
    assert facts.find(objects, "PodDisruptionBudget", "metro-archiver") is not None
    service = facts.find(objects, "Service", "metro-postgres")
    assert service is not None and service["spec"]["clusterIP"] == "None"


@pytest.mark.parametrize("version", ["1.27", latest_version()])
def test_every_object_is_valid_against_the_kubernetes_schema(
    objects: list[Object], version: str
) -> None:
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)


def test_the_deploy_checks_hold(objects: list[Object]) -> None:
    assert facts.probe_and_resource_problems(objects) == []
    assert facts.security_problems(objects, facts.dockerfile_uid()) == []
    assert facts.secret_problems(objects) == []
    assert facts.image_problems(objects) == []
    assert facts.network_problems(objects, REACHABLE) == []


def test_database_url_comes_from_the_documented_secret(objects: list[Object]) -> None:
    text = (facts.ROOT / "docs/kubernetes.md").read_text().replace("\\\n", " ")
    documented: dict[str, set[str]] = {}
    for command in re.findall(r"create secret generic [^\n]*", text):
        documented.setdefault(command.split()[3], set()).update(
            re.findall(r"--from-literal=(\w+)=", command)
        )
    refs = set()
    for obj in objects:
        for c in pod_containers(obj):
            for item in c.get("env") or []:
                if item["name"] in ("DATABASE_URL", "POSTGRES_PASSWORD"):
                    ref = (item.get("valueFrom") or {}).get("secretKeyRef")
                    assert ref, f"{item['name']} must come from a Secret"
                    refs.add((ref["name"], ref["key"]))
    assert refs == {("metro-postgres", "DATABASE_URL"), ("metro-postgres", "POSTGRES_PASSWORD")}
    for name, key in refs:
        assert key in documented.get(name, set()), f"{name}/{key} is not in docs/kubernetes.md"


def test_no_credential_in_the_component_files() -> None:
    for path in sorted((K8S / "components/archive").glob("*")):
        assert facts.value_problems(path.read_text()) == [], path


def test_the_overlays_the_deploy_tests_check_are_unchanged() -> None:
    """The component is opt-in: the two overlays tests/deploy checks run no PostgreSQL."""
    for overlay in ("external-redis", "redis-in-cluster"):
        names = {o["metadata"]["name"] for o in render(K8S / "overlays" / overlay)}
        assert "metro-postgres" not in names and "metro-archiver" not in names, overlay
        assert Path(K8S / "overlays" / overlay).is_dir()
