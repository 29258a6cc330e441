#!/usr/bin/env bash
# Regenerate the committed notebooks: sync every notebooks/NN_slug.py to its .ipynb and execute it
# headlessly (as nbval does), printing each notebook's run time. Optional arguments select notebooks
# by number, e.g. `bash scripts/notebooks.sh 05 07`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "notebooks,test"
exec .venv/bin/python scripts/build_notebooks.py "$@"
