#!/usr/bin/env bash
# Rolling upgrade of the gateways under docker compose (issue 32), with no failed request:
#
#   docker compose build            # the new image (or pull it)
#   deploy/rolling-upgrade.sh       # replaces every gateway container, one at a time
#
# 1. start: one new gateway container (the new image) beside the running ones, and wait for its
#    health check (the gate); the proxy finds it by DNS within a second (deploy/Caddyfile);
# 2. drain: stop one old container with SIGTERM: it stops taking connections at once (the proxy
#    tries the request on another gateway), ends its requests under way, and gives its live
#    streams a few seconds; browsers resume elsewhere with Last-Event-ID and miss no event;
# 3. repeat until none of the old ones is left; the count stays what .env says
#    (GATEWAY_REPLICAS), so a later plain `up -d` changes nothing.
# COMPOSE picks the command (default: `docker compose`, else Debian's `docker-compose`);
# SERVICE the service (default gateway); HEALTH_TIMEOUT_S the gate's patience (default 120).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi
SERVICE=${SERVICE:-gateway}
HEALTH_TIMEOUT_S=${HEALTH_TIMEOUT_S:-120}
STOP_GRACE_S=${STOP_GRACE_S:-30}  # the gateway's graceful_timeout (deploy/gunicorn.conf.py) and more

say() { echo "rolling-upgrade: $*" >&2; }
ids() { $COMPOSE ps -q "$SERVICE" | sort; }

wait_healthy() {
  local id=$1 waited=0 status
  while :; do
    status=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$id")
    [ "$status" = healthy ] && return 0
    if [ "$status" = unhealthy ] || [ "$waited" -ge "$HEALTH_TIMEOUT_S" ]; then
      say "new container ${id:0:12} is $status after ${waited}s; stopping here (the old ones still serve)"
      docker logs --tail 30 "$id" >&2 || true
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

old=$(ids)
count=$(printf '%s\n' "$old" | grep -c . || true)
[ "$count" -ge 1 ] || { say "no running $SERVICE container: start the stack first"; exit 1; }
say "replacing $count $SERVICE container(s), one at a time"
for id in $old; do
  before=$(ids)
  $COMPOSE up -d --no-deps --no-recreate --scale "$SERVICE=$((count + 1))" "$SERVICE" >/dev/null
  new=$(comm -13 <(printf '%s\n' "$before") <(ids) | head -n 1)
  [ -n "$new" ] || { say "no new container started"; exit 1; }
  wait_healthy "$new"
  sleep 2  # the proxy looks the name up again each second
  say "new ${new:0:12} is healthy; draining old ${id:0:12}"
  docker stop -t "$STOP_GRACE_S" "$id" >/dev/null
  docker rm "$id" >/dev/null
done
say "done: $(ids | wc -l) $SERVICE container(s), all on the new image"
