#!/usr/bin/env bash
# The project's test command (README "Quick start", and what CI runs): sets up everything the tests need on a
# fresh machine — a virtual environment with fce and its test extras, redis-server for the real-server
# tests, Chromium with its chromedriver for the browser tests of `fce show`, and a C compiler for fce's compiled
# segmentation — then runs the suite. Extra
# arguments go to pytest (e.g. `bash scripts/test.sh -k store`).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${FCE_VENV:-.venv}"
if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing redis-server (apt-get)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null
  else
    echo "test.sh: redis-server is missing; install it (apt-get install redis-server) to run the Redis tests" >&2
  fi
fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing chromium and chromium-driver (apt-get)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null
  else
    echo "test.sh: chromium or chromedriver is missing; install them (apt-get install chromium chromium-driver)" \
      "to run the browser tests of fce show" >&2
  fi
fi
if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
  # the install compiles fce/_segment.pyx (the segmentation walk); the suite checks that it was built
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing a C compiler (apt-get install gcc)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc) >/dev/null
  else
    echo "test.sh: no C compiler; install gcc, or set FCE_NO_ACCEL=1 to test the pure-Python segmentation" >&2
  fi
fi
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q -e '.[test]'
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
