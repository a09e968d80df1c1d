#!/usr/bin/env bash
# Build the two base images the compose stack needs from Debian packages alone, for machines that
# cannot pull from a container registry (python:3.11-slim and redis:7.4-alpine are the defaults).
#
#   sudo deploy/build-base-image.sh            # needs root, debootstrap and a Docker daemon
#   echo "BASE_IMAGE=metro-python:3.11-bookworm" >> .env
#   echo "REDIS_IMAGE=metro-redis:7-bookworm"    >> .env
#   echo "POSTGRES_IMAGE=metro-postgres:15-bookworm" >> .env
#   docker compose up -d --build
#
# Images made:
#   $BASE_TAG  (metro-python:3.11-bookworm) a minimal Debian bookworm (debootstrap minbase) with
#              Debian's python3 (3.11), venv and pip wheels; deploy/Dockerfile's two stages
#              build on it (build argument BASE_IMAGE).
#   $REDIS_TAG (metro-redis:7-bookworm) the same system plus Debian's redis-server and
#              redis-cli (Redis 7.0), run as the user redis in /data (the compose volume).
#   $POSTGRES_TAG (metro-postgres:15-bookworm) the same system plus Debian's postgresql
#              (PostgreSQL 15) without a cluster, run as the user postgres; docker-compose.yml's
#              command makes the cluster in the volume (/var/lib/postgresql/data) on first start.
#
# No certificate of the build machine goes into an image unless asked: behind a TLS-intercepting
# proxy, pip in the image build must trust the proxy's authority, so EXTRA_CA_DIR (opt-in, e.g.
# EXTRA_CA_DIR=/usr/local/share/ca-certificates, where Debian keeps local ones) names a folder
# whose *.crt go into a separate build-only image, $BUILD_TAG (metro-python-build:3.11-bookworm,
# BUILD_IMAGE for deploy/Dockerfile's build stage), and PIP_CERT points pip at its store. The
# runtime base ($BASE_TAG), Redis and PostgreSQL images never hold them (issue 32).
# `deploy/build-base-image.sh --settings` prints what a build would use, and builds nothing.
#
# Reproducible: the package set is fixed here and comes from one suite; set DEBIAN_MIRROR to a
# snapshot (e.g. https://snapshot.debian.org/archive/debian/20261130T000000Z) to pin every
# version, and SOURCE_DATE_EPOCH fixes the files' times in the imported layers.
set -euo pipefail

SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE_TAG=${BASE_TAG:-metro-python:3.11-bookworm}
BUILD_TAG=${BUILD_TAG:-metro-python-build:3.11-bookworm}
REDIS_TAG=${REDIS_TAG:-metro-redis:7-bookworm}
POSTGRES_TAG=${POSTGRES_TAG:-metro-postgres:15-bookworm}
CADDY_TAG=${CADDY_TAG:-metro-caddy:2-bookworm}
PYTHON_PACKAGES=python3,python3-venv,python-is-python3,ca-certificates
EXTRA_CA_DIR=${EXTRA_CA_DIR:-}

if [ "${1:-}" = --settings ]; then
  printf 'suite=%s\nmirror=%s\nbase_tag=%s\nredis_tag=%s\npostgres_tag=%s\ncaddy_tag=%s\nextra_ca_dir=%s\n' \
    "$SUITE" "$MIRROR" "$BASE_TAG" "$REDIS_TAG" "$POSTGRES_TAG" "$CADDY_TAG" "${EXTRA_CA_DIR:-none}"
  exit 0
fi

for tool in debootstrap docker tar chroot mount numfmt; do
  command -v "$tool" >/dev/null || { echo "build-base-image: $tool is missing" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "build-base-image: debootstrap needs root" >&2; exit 1; }

EPOCH=${SOURCE_DATE_EPOCH:-$(date +%s)}

work=$(mktemp -d /tmp/metro-base.XXXXXX)
cleanup() {
  umount "$work/redis/proc" 2>/dev/null || true
  umount "$work/postgres/proc" 2>/dev/null || true
  umount "$work/caddy/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Trim what a container never uses: apt's lists and caches, docs, man pages, locales.
trim() {
  local root=$1
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
    "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/* "$root"/root/.cache
  find "$root"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name 'en*' -exec rm -rf {} + 2>/dev/null || true
  find "$root"/usr/lib/python3* -name __pycache__ -type d -prune -exec rm -rf {} + 2>/dev/null || true
}

# Import a root file system as an image, with fixed file times so the layer is reproducible.
import_rootfs() {
  local root=$1 tag=$2
  shift 2
  local changes=()
  for change in "$@"; do changes+=(--change "$change"); done
  tar -C "$root" --numeric-owner --sort=name --mtime="@$EPOCH" --clamp-mtime -c . \
    | docker import "${changes[@]}" - "$tag" >/dev/null
  echo "build-base-image: $tag $(docker image inspect -f '{{.Size}}' "$tag" | numfmt --to=iec)"
}

echo "build-base-image: debootstrap $SUITE from $MIRROR" >&2
debootstrap --variant=minbase --include="$PYTHON_PACKAGES" "$SUITE" "$work/python" "$MIRROR" \
  >"$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
# A service started by a package's install script has no place in an image.
printf '#!/bin/sh\nexit 101\n' >"$work/python/usr/sbin/policy-rc.d"
chmod +x "$work/python/usr/sbin/policy-rc.d"
# The Redis system is the same one plus redis-server, installed before the Python one is trimmed.
cp -a "$work/python" "$work/redis"
mount -t proc proc "$work/redis/proc"
chroot "$work/redis" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends redis-server redis-tools' >"$work/redis.log" 2>&1 \
  || { tail -30 "$work/redis.log" >&2; exit 1; }
umount "$work/redis/proc"
mkdir -p "$work/redis/data"
chroot "$work/redis" chown redis:redis /data

# The PostgreSQL system likewise: Debian's postgresql, without the cluster its package makes.
cp -a "$work/python" "$work/postgres"
mount -t proc proc "$work/postgres/proc"
chroot "$work/postgres" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends postgresql postgresql-client' \
  >"$work/postgres.log" 2>&1 || { tail -30 "$work/postgres.log" >&2; exit 1; }
umount "$work/postgres/proc"
rm -rf "$work/postgres"/var/lib/postgresql/*/main "$work/postgres"/etc/postgresql/*/main
mkdir -p "$work/postgres/var/lib/postgresql/data" "$work/postgres/var/run/postgresql"
chroot "$work/postgres" chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql

# The proxy's system likewise: Debian's caddy (2.6) and busybox's wget (the compose health
# check, as in the official caddy image). It runs as root with every capability dropped but
# NET_BIND_SERVICE (compose), like the official image; /data keeps its certificates and local
# CA (the caddy-data volume), /config its autosaved config (a memory file system in compose).
cp -a "$work/python" "$work/caddy"
mount -t proc proc "$work/caddy/proc"
chroot "$work/caddy" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends caddy busybox \
  && ln -s /bin/busybox /usr/local/bin/wget' >"$work/caddy.log" 2>&1 \
  || { tail -30 "$work/caddy.log" >&2; exit 1; }
umount "$work/caddy/proc"
rm -rf "$work/caddy"/etc/caddy/* && mkdir -p "$work/caddy/data" "$work/caddy/config"

# A build-only image that trusts the build machine's CAs (see above), made last from the clean one.
if [ -n "$EXTRA_CA_DIR" ]; then
  cp -a "$work/python" "$work/python-build"  # the only image that gets the CAs
  compgen -G "$EXTRA_CA_DIR/*.crt" >/dev/null \
    || { echo "build-base-image: EXTRA_CA_DIR=$EXTRA_CA_DIR holds no *.crt" >&2; exit 1; }
  cp "$EXTRA_CA_DIR"/*.crt "$work/python-build/usr/local/share/ca-certificates/"
  chroot "$work/python-build" update-ca-certificates >/dev/null
  echo "build-base-image: trusting $(ls "$EXTRA_CA_DIR"/*.crt | wc -l) local CA certificate(s) from $EXTRA_CA_DIR" >&2
fi

trim "$work/python"
[ -d "$work/python-build" ] && trim "$work/python-build"
trim "$work/redis"
trim "$work/postgres"
trim "$work/caddy"

PATH_ENV='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
import_rootfs "$work/python" "$BASE_TAG" "$PATH_ENV" 'ENV LANG=C.UTF-8' \
  'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' 'CMD ["python3"]'
if [ -d "$work/python-build" ]; then
  import_rootfs "$work/python-build" "$BUILD_TAG" "$PATH_ENV" 'ENV LANG=C.UTF-8' \
    'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' 'CMD ["python3"]'
fi
import_rootfs "$work/redis" "$REDIS_TAG" "$PATH_ENV" 'ENV LANG=C.UTF-8' 'WORKDIR /data' \
  'USER redis' 'EXPOSE 6379' 'VOLUME /data' 'CMD ["redis-server"]'
import_rootfs "$work/postgres" "$POSTGRES_TAG" "$PATH_ENV" 'ENV LANG=C.UTF-8' \
  'ENV PGDATA=/var/lib/postgresql/data' 'USER postgres' 'EXPOSE 5432' \
  'VOLUME /var/lib/postgresql/data' 'CMD ["bash"]'
import_rootfs "$work/caddy" "$CADDY_TAG" "$PATH_ENV" 'ENV LANG=C.UTF-8' \
  'ENV XDG_CONFIG_HOME=/config' 'ENV XDG_DATA_HOME=/data' 'EXPOSE 80 443' 'VOLUME /data' \
  'WORKDIR /srv' 'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]'
