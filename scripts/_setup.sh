#!/usr/bin/env bash
# Create .venv (once) and install the project with the extras given as arguments.
# Re-installs only when pyproject.toml or the extras change.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
extras="${1:-notebooks,test}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)-${extras//,/_}"
if [ ! -f "$stamp" ]; then
  echo "[setup] installing relu_frames_nb[$extras] into $VENV (about a minute on first run)"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -e ".[$extras]"
  touch "$stamp"
fi
