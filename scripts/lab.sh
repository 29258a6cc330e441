#!/usr/bin/env bash
# Set up what the notebooks need and open the course in JupyterLab, at its index.
#   bash scripts/lab.sh            the student edition (no worked solutions; built once into student-edition/)
#   bash scripts/lab.sh --teacher  the teacher's notebooks (notebooks/, with the worked solutions)
# The set-up installs the `notebooks` extra only (no test tools, no deep-learning stack); a .venv that
# scripts/test.sh set up with more is used as it is. RELU_FRAMES_FULL=1 runs every experiment at the paper's sizes.
# The student edition is written once and then kept (it holds your work): to rebuild it from the notebooks,
# bash scripts/student_edition.sh (this empties student-edition/).
# VENV (default .venv) and EDITION (default student-edition) name other folders.
# The course's Lab asks nothing of the internet: scripts/lab-config (put first on JUPYTER_CONFIG_PATH, your own
# Jupyter configuration untouched) turns off JupyterLab's announcements (its news pop-up and update check).
set -euo pipefail
cd "$(dirname "$0")/.."
export JUPYTER_CONFIG_PATH="$PWD/scripts/lab-config${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
VENV="$(realpath -m "${VENV:-.venv}")"
EDITION="$(realpath -m "${EDITION:-student-edition}")"
export VENV
teacher=0
if [ "${1:-}" = "--teacher" ]; then
  teacher=1
  shift
fi
bash scripts/_setup.sh "notebooks"
if [ "$teacher" -eq 1 ]; then
  cd notebooks
else
  if [ ! -f "$EDITION/.student-edition" ]; then
    echo "[lab] writing the student edition into $EDITION (once)"
    "$VENV/bin/python" scripts/student_edition.py "$EDITION" --no-wheel
  fi
  cd "$EDITION"
fi
extra=()
[ "$(id -u)" -ne 0 ] || extra+=(--allow-root)  # containers often run as root; Jupyter refuses that otherwise
exec "$VENV"/bin/jupyter lab 00_index.ipynb "${extra[@]}" "$@"
