#!/usr/bin/env bash
# Tools the test suite needs beyond Python packages: a C compiler for the compiled rules core,
# Chromium for the browser tests,
# docker-compose for linting docker-compose.yml, Caddy (the reverse proxy) and Node for the JavaScript example bot
# (tests/bots/; installed with apt where missing and possible),
# and axe-core for the browser tests' accessibility checks (with npm, into .venv/axe-core/).
set -uo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium fonts-liberation)
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
command -v node >/dev/null 2>&1 || need+=(nodejs)  # the Node example bot (tests/bots/)
command -v caddy >/dev/null 2>&1 || need+=(caddy)  # the proxy of `metro up --proxy` (tests/stack/)
# A C compiler and Python's headers: the suite runs the compiled rules core; games/native.py
# names the Debian packages for what this machine lacks (none when it can compile).
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
read -r -a native_needs <<<"$("$ROOT/.venv/bin/python" "$ROOT/games/native.py" needs)"
need+=("${native_needs[@]}")
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-prereqs: installing ${need[*]} with apt-get" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >/dev/null 2>&1 \
      || echo "test-prereqs: could not install ${need[*]}; the tests that need them will say so" >&2
  else
    echo "test-prereqs: ${need[*]} missing and apt-get is not usable here" >&2
  fi
fi
# axe-core (from npm) for the accessibility checks of the browser tests, cached under .venv/ where
# tests/browser/test_usability.py reads it; fetched once, with npm, where npm is usable.
AXE_VERSION=4.14.1
AXE_DIR="$(cd "$(dirname "$0")/.." && pwd)/.venv/axe-core"
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "test-prereqs: fetching axe-core@$AXE_VERSION with npm into $AXE_DIR" >&2
    mkdir -p "$AXE_DIR" && (cd "$AXE_DIR" && npm install --no-save --no-audit --no-fund --ignore-scripts \
      --prefix "$AXE_DIR" "axe-core@$AXE_VERSION") >/dev/null 2>&1 \
      || echo "test-prereqs: could not fetch axe-core; the accessibility tests will say so" >&2
  else
    echo "test-prereqs: npm is missing: the accessibility tests need axe-core (npm install axe-core)" >&2
  fi
fi
exit 0
