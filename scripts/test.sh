#!/usr/bin/env bash
# Set everything up and run the whole test suite (lint, import contracts, unit tests, doctests, notebooks, browser tests).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "notebooks,test" || exit 1
PY=.venv/bin/python
$PY -m ruff check relu_frames_nb tests benchmarks scripts || exit 1
# imports point down: the contracts in pyproject.toml ([tool.importlinter])
.venv/bin/lint-imports --no-cache || exit 1
# unit tests, doctests, browser tests (tests/browser) and the notebook chain under nbval (strict)
$PY -m pytest relu_frames_nb tests notebooks \
  --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "pytest collected no tests: this counts as a failure"
  exit 1
fi
exit $rc
