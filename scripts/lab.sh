#!/usr/bin/env bash
# Set everything up and open the notebook kit in JupyterLab, at its index (notebooks/00_index.ipynb).
# RELU_FRAMES_FULL=1 bash scripts/lab.sh runs every experiment of the chain at the paper's sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "notebooks,test"
cd notebooks
extra=()
[ "$(id -u)" -ne 0 ] || extra+=(--allow-root)  # containers often run as root; Jupyter refuses that otherwise
exec ../.venv/bin/jupyter lab 00_index.ipynb "${extra[@]}" "$@"
