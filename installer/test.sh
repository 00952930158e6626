#!/usr/bin/env bash
# The project's checks, exactly as CI runs them (.ci/run): ruff, mypy over cosycore and app (the
# packages in pyproject.toml), the import-linter contracts, then the test suite on two pytest-xdist
# workers with one torch thread each (tests/conftest.py), the PortAudio tests in one group
# (tests/gui/conftest.py), and the 30 slowest tests listed.
#
#   bash installer/test.sh                 everything, after bash installer/setup.sh --dev
#   bash installer/test.sh -k voices -x    extra arguments go to pytest
#
# Environment: COSY_TEST_WORKERS (default 2; 0 runs the tests in this process), COSY_VENV (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${COSY_VENV:-.venv}
py=$venv/bin/python
[ -x "$py" ] || { echo "test.sh: no $py; run bash installer/setup.sh --dev first" >&2; exit 2; }

step() {
  local name=$1 start=$SECONDS
  shift
  printf '== %s\n' "$name"
  "$@"
  printf '== %s: done in %d s\n' "$name" $((SECONDS - start))
}

# The run's Python processes (two workers, the commands the tests start) share their byte code:
# each module is compiled once and its .pyc kept, also where the caller's environment says not to
# write them, and so is pytest's rewritten form of each test module (tests/__pycache__).
unset PYTHONDONTWRITEBYTECODE

step ruff "$venv/bin/ruff" check cosycore app bench tests main.py
# mypy's cache lives with the user's caches, like pip's, so a fresh clone does not re-analyse torch's
# and numpy's stubs every run (about 20 of its 26 s); MYPY_CACHE_DIR set by the caller wins.
export MYPY_CACHE_DIR=${MYPY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cosy-studio/mypy}
step mypy "$venv/bin/mypy"
step import-linter "$venv/bin/lint-imports"
step pytest "$py" -m pytest -n "${COSY_TEST_WORKERS:-2}" --dist loadgroup --durations=30 "$@"
