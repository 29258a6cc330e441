#!/usr/bin/env bash
# Create .venv (once) and install the project with the extras given as arguments (comma-separated).
# Re-installs only when pyproject.toml changes or when no earlier install holds every extra asked for:
# an install stamp names its extras, and a venv set up with more (e.g. "notebooks,test" by scripts/test.sh)
# serves a lighter request (e.g. "notebooks" by scripts/lab.sh) as it is. A lighter request never removes anything.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
extras="${1:-notebooks,test}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
fi
hash="$(sha256sum pyproject.toml | cut -c1-16)"
stamp="$VENV/.installed-$hash-${extras//,/_}"
covered=0
for s in "$VENV"/.installed-"$hash"-*; do  # an install of these sources with a superset of the extras asked for
  [ -f "$s" ] || continue
  have="_${s##*/.installed-"$hash"-}_"
  all=1
  IFS=',' read -ra want <<<"$extras"
  for e in "${want[@]}"; do
    case "$have" in *"_${e}_"*) ;; *) all=0 ;; esac
  done
  if [ "$all" -eq 1 ]; then covered=1; break; fi
done
if [ "$covered" -eq 0 ]; then
  echo "[setup] installing relu_frames_nb[$extras] into $VENV (notebooks only: about 2 minutes and 0.7 GB; with the test tools: longer)"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -e ".[$extras]"
  if [ -x "$VENV/bin/nbgrader" ]; then
    # nbgrader's JupyterLab panels stay off in the course's Lab (scripts/grade.sh grades from the command line)
    "$VENV/bin/jupyter" labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null 2>&1 || true
    for ext in formgrader validate_assignment assignment_list course_list; do
      "$VENV/bin/jupyter" server extension disable --sys-prefix "nbgrader.server_extensions.$ext" >/dev/null 2>&1 || true
    done
  fi
  if "$VENV/bin/python" -c "import numba" >/dev/null 2>&1; then
    # numba compiles at first use and keeps the result on disk: do it here, not inside the first check's time limit
    echo "[setup] compiling the exact search with numba (once per install: about 20 s)"
    "$VENV/bin/python" -c "from relu_frames_nb.paper.depth import compile_search; compile_search()" || {
      echo "[setup] numba could not compile the depth search (above); RELU_FRAMES_NO_NUMBA=1 runs the kit without it" >&2
      exit 1
    }
  fi
  touch "$stamp"
fi
