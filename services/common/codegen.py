"""Generate the gRPC Python code from protos/ into gen/ when a .proto is newer than its output.

Run by `./dev` before anything starts, so the generated code always matches the contracts.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
GEN = ROOT / "gen"


def stale(protos: list[Path]) -> bool:
    """True when some .proto has no generated module or is newer than it."""
    for proto in protos:
        out = GEN / proto.relative_to(PROTOS).with_name(proto.stem + "_pb2.py")
        if not out.exists() or out.stat().st_mtime < proto.stat().st_mtime:
            return True
    return False


def generate() -> None:
    from grpc_tools import protoc  # imported here: only the set-up needs it

    protos = sorted(PROTOS.rglob("*.proto"))
    if not protos or not stale(protos):
        return
    GEN.mkdir(exist_ok=True)
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{Path(protoc.__file__).parent / '_proto'}",
        f"--python_out={GEN}",
        f"--pyi_out={GEN}",
        f"--grpc_python_out={GEN}",
        *map(str, protos),
    ]
    if protoc.main(args) != 0:
        sys.exit("codegen: protoc failed on protos/")


if __name__ == "__main__":
    generate()
