#!/usr/bin/env bash
# Rolling upgrade of the gateways under docker compose (issue 32), with no failed request:
#
#   docker compose build            # the new image (or pull it)
#   deploy/rolling-upgrade.sh       # replaces gateway-1, then gateway-2
#
# For each gateway, while the other serves:
# 1. drain: `stop` sends SIGTERM; the gateway answers 503 on /readyz for GATEWAY_DRAIN_S while
#    still serving, so the proxy (deploy/Caddyfile: a check every second) sends it nothing more;
#    then it stops listening, ends its requests under way and gives its live streams a few
#    seconds; browsers resume on the other one with Last-Event-ID and miss no event;
# 2. replace: a new container from the new image;
# 3. health gate: its own health check must pass, then the proxy's check must see it (SETTLE_S)
#    before the next gateway is drained. A gateway that does not come back stops the script:
#    the other one still serves.
# COMPOSE picks the command (default: `docker compose`, else Debian's `docker-compose`);
# GATEWAYS the services (default "gateway-1 gateway-2"); HEALTH_TIMEOUT_S the gate's patience
# (default 120).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi
GATEWAYS=${GATEWAYS:-"gateway-1 gateway-2"}
HEALTH_TIMEOUT_S=${HEALTH_TIMEOUT_S:-120}
STOP_GRACE_S=${STOP_GRACE_S:-30}  # the gateways' stop_grace_period (docker-compose.yml)
SETTLE_S=${SETTLE_S:-3}           # the proxy checks each gateway every second

say() { echo "rolling-upgrade: $*" >&2; }

wait_healthy() {
  local id=$1 waited=0 status
  while :; do
    status=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$id")
    [ "$status" = healthy ] && return 0
    if [ "$status" = unhealthy ] || [ "$waited" -ge "$HEALTH_TIMEOUT_S" ]; then
      say "new container ${id:0:12} is $status after ${waited}s; stopping here (the other gateway still serves)"
      docker logs --tail 30 "$id" >&2 || true
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

for service in $GATEWAYS; do
  old=$($COMPOSE ps -q "$service")
  [ -n "$old" ] || { say "$service is not running: start the stack first"; exit 1; }
  say "draining $service (${old:0:12})"
  $COMPOSE stop -t "$STOP_GRACE_S" "$service" >/dev/null
  $COMPOSE up -d --no-deps --force-recreate "$service" >/dev/null
  new=$($COMPOSE ps -q "$service")
  [ -n "$new" ] && [ "$new" != "$old" ] || { say "no new $service container started"; exit 1; }
  wait_healthy "$new"
  sleep "$SETTLE_S"
  say "$service replaced (${new:0:12}) and healthy"
done
say "done: every gateway is on the new image"
