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
  if [ -x "$VENV/bin/nbgrader" ]; then
    # nbgrader grades from the command line (scripts/grade.sh); its JupyterLab panels stay off in the course's
    # Lab (a teacher who wants the formgrader: jupyter server extension enable --sys-prefix nbgrader.server_extensions.formgrader,
    # and jupyter labextension enable @jupyter/nbgrader)
    "$VENV/bin/jupyter" labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null
    for ext in formgrader validate_assignment assignment_list course_list; do
      "$VENV/bin/jupyter" server extension disable --sys-prefix "nbgrader.server_extensions.$ext" >/dev/null 2>&1
    done
  fi
  touch "$stamp"
fi
