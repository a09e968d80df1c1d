#!/usr/bin/env bash
# Tools the test suite needs beyond Python packages: Chromium for the browser tests and
# docker-compose for linting docker-compose.yml. Installed with apt where missing and possible.
set -uo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium fonts-liberation)
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-prereqs: installing ${need[*]} with apt-get" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >/dev/null 2>&1 \
      || echo "test-prereqs: could not install ${need[*]}; the tests that need them will say so" >&2
  else
    echo "test-prereqs: ${need[*]} missing and apt-get is not usable here" >&2
  fi
fi
exit 0
