"""Is a service healthy? One probe for the gRPC services and the gateway.

Container healthchecks run `python -m services.common.healthcheck TARGET` (exit 0 healthy, 1 not,
with the reason on stderr); `metro up` calls the same functions while it waits for each part.
TARGET is `host:port` for a gRPC service (standard grpc.health.v1 Check) or an http(s) URL, which
is healthy when it answers 200.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request


def check_grpc(target: str, service: str = "", timeout: float = 3.0) -> str | None:
    """None when `target` reports SERVING for `service` ("" is the whole server), else why not."""
    import grpc  # imported here: the HTTP probe should not pay for gRPC
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
            return f"{target}: health check failed: {getattr(code, 'name', code)} {details}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return f"{target}: {status}"
    return None


def check_http(url: str, timeout: float = 3.0) -> str | None:
    """None when GET `url` answers 200, else why not."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            if reply.status == 200:
                return None
            return f"{url}: HTTP {reply.status}"
    except urllib.error.HTTPError as exc:
        body = exc.read(300).decode(errors="replace").strip()
        exc.close()
        return f"{url}: HTTP {exc.code} {body}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{url}: {getattr(exc, 'reason', exc)}"


def check(target: str, timeout: float = 3.0) -> str | None:
    """Dispatch on the form of `target`: a URL is probed over HTTP, anything else over gRPC."""
    if target.startswith(("http://", "https://")):
        return check_http(target, timeout)
    return check_grpc(target, timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python -m services.common.healthcheck HOST:PORT | URL", file=sys.stderr)
        return 2
    problem = check(args[0])
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
