#!/usr/bin/env bash
# Set everything up and open the notebook kit in JupyterLab.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "notebooks,test"
exec .venv/bin/jupyter lab notebooks/ "$@"
