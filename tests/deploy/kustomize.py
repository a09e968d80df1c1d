"""Render a kustomization the way `kubectl kustomize` does, for the parts our manifests use.

The tests must run where kubectl is not installed, so this reads kustomization.yaml itself:
`resources` (files or directories), `components`, `images` and `namespace`. Any other field is
refused with its name, so a patch added to deploy/k8s/ cannot be silently left out of what the
tests check; teach it here first. Where kubectl is on PATH, the tests also compare this
rendering with kubectl's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

Object = dict[str, Any]

SUPPORTED_FIELDS = {"apiVersion", "kind", "resources", "components", "images", "namespace"}

# Kinds that live in a namespace; a kind outside both lists stops the rendering, so that the
# namespace transformer is never guessed.
NAMESPACED = {
    "ConfigMap",
    "Deployment",
    "HorizontalPodAutoscaler",
    "Ingress",
    "NetworkPolicy",
    "PersistentVolumeClaim",
    "PodDisruptionBudget",
    "Secret",
    "Service",
    "ServiceAccount",
    "StatefulSet",
}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "StorageClass"}


class KustomizeError(ValueError):
    """The kustomization cannot be rendered; the message names the file and what is wrong."""


def object_id(obj: Object) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (obj["apiVersion"], obj["kind"], meta.get("namespace", ""), meta["name"])


def render(directory: Path) -> list[Object]:
    """Every object the kustomization in `directory` produces."""
    return _build(Path(directory), expect_kind="Kustomization", objects=[])


def _load_kustomization(directory: Path, expect_kind: str) -> dict[str, Any]:
    path = directory / "kustomization.yaml"
    if not path.is_file():
        raise KustomizeError(f"{directory}: no kustomization.yaml")
    spec = yaml.safe_load(path.read_text()) or {}
    if spec.get("kind", "Kustomization") != expect_kind:
        raise KustomizeError(f"{path}: kind must be {expect_kind}, got {spec.get('kind')!r}")
    unknown = sorted(set(spec) - SUPPORTED_FIELDS)
    if unknown:
        raise KustomizeError(
            f"{path}: field(s) {', '.join(unknown)} are not understood by the tests' renderer "
            f"(tests/deploy/kustomize.py handles {', '.join(sorted(SUPPORTED_FIELDS))})"
        )
    return spec


def _build(directory: Path, expect_kind: str, objects: list[Object]) -> list[Object]:
    """Add the kustomization's resources to `objects`, then its components, then transform.

    A Component transforms everything gathered before it (its parent's resources); a
    Kustomization starts from nothing and transforms only its own."""
    spec = _load_kustomization(directory, expect_kind)
    own = objects if expect_kind == "Component" else []
    for entry in spec.get("resources") or []:
        target = (directory / entry).resolve()
        if target.is_dir():
            own.extend(_build(target, "Kustomization", []))
        elif target.is_file():
            own.extend(_read_objects(target))
        else:
            raise KustomizeError(f"{directory / 'kustomization.yaml'}: no resource {entry!r}")
    for entry in spec.get("components") or []:
        _build((directory / entry).resolve(), "Component", own)
    _check_unique(own, directory)
    for image in spec.get("images") or []:
        _set_image(own, image, directory)
    if spec.get("namespace"):
        _set_namespace(own, spec["namespace"], directory)
    return own


def _read_objects(path: Path) -> list[Object]:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    for doc in docs:
        if not isinstance(doc, dict) or not {"apiVersion", "kind", "metadata"} <= set(doc):
            raise KustomizeError(f"{path}: every document needs apiVersion, kind and metadata")
    return docs


def _check_unique(objects: list[Object], directory: Path) -> None:
    seen: set[tuple[str, str, str, str]] = set()
    for obj in objects:
        key = object_id(obj)
        if key in seen:
            raise KustomizeError(f"{directory}: {key} is defined twice")
        seen.add(key)


def split_image(image: str) -> tuple[str, str, str]:
    """("registry/name", tag, digest) of an image reference; tag and digest may be ""."""
    name, _, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        return name[:colon], name[colon + 1 :], digest
    return name, "", digest


def pod_containers(obj: Object) -> list[Object]:
    """The containers and init containers of a workload's pod template ([] for other kinds)."""
    pod = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return [*(pod.get("initContainers") or []), *(pod.get("containers") or [])]


def _set_image(objects: list[Object], image: dict[str, str], directory: Path) -> None:
    if "name" not in image:
        raise KustomizeError(f"{directory}: an images entry has no name")
    for obj in objects:
        for container in pod_containers(obj):
            name, tag, digest = split_image(container["image"])
            if name != image["name"]:
                continue
            name = image.get("newName", name)
            if "digest" in image:
                tag, digest = "", image["digest"]
            elif "newTag" in image:
                tag, digest = str(image["newTag"]), ""
            suffix = (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
            container["image"] = name + suffix


def _set_namespace(objects: list[Object], namespace: str, directory: Path) -> None:
    for obj in objects:
        if obj["kind"] in CLUSTER_SCOPED:
            continue
        if obj["kind"] not in NAMESPACED:
            raise KustomizeError(
                f"{directory}: the renderer does not know whether {obj['kind']} is namespaced"
            )
        obj["metadata"]["namespace"] = namespace
