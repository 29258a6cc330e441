#!/usr/bin/env bash
# Set everything up and run the whole test suite (lint, unit tests, doctests, notebooks, browser tests).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "notebooks,test" || exit 1
PY=.venv/bin/python
$PY -m ruff check relu_frames_nb tests benchmarks || exit 1
$PY -m pytest relu_frames_nb tests "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "pytest collected no tests: this counts as a failure"
  exit 1
fi
exit $rc
