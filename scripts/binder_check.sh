#!/usr/bin/env bash
# The Binder environment check: build a fresh virtual environment from binder/ alone (the files
# repo2docker reads), then execute the whole notebook chain in it. A dependency that the notebooks
# need but binder/requirements.txt does not bring fails here, before it fails on mybinder.org.
#
#   bash scripts/binder_check.sh            # prints the run time of each notebook; exit 0 when all pass
#
# Jupyter, IPython and user site-packages are isolated, so nothing from .venv or ~/.local leaks in.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

want=$(sed -n 's/^python-\([0-9.]*\).*/\1/p' binder/runtime.txt)
py=""
for cand in "python$want" python3; do
  if command -v "$cand" >/dev/null 2>&1; then py=$(command -v "$cand"); break; fi
done
[ -n "$py" ] || { echo "binder_check: no python3 found" >&2; exit 2; }
have=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ "$have" != "$want" ]; then
  echo "binder_check: binder/runtime.txt asks for Python $want; checking with Python $have (closest available)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rfnb-binder.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PYTHONNOUSERSITE=1 JUPYTER_PATH="" JUPYTER_DATA_DIR="$work/jupyter-data" JUPYTER_CONFIG_DIR="$work/jupyter-config" \
       JUPYTER_RUNTIME_DIR="$work/jupyter-runtime" IPYTHONDIR="$work/ipython" MPLCONFIGDIR="$work/mpl"
unset PYTHONPATH VIRTUAL_ENV || true

echo "binder_check: fresh venv with Python $have from binder/requirements.txt"
"$py" -m venv "$work/venv"
pip_log="$work/pip.log"
if ! (cd "$root" && "$work/venv/bin/python" -m pip install --disable-pip-version-check --upgrade pip \
      && "$work/venv/bin/python" -m pip install --disable-pip-version-check -r binder/requirements.txt) >"$pip_log" 2>&1; then
  tail -40 "$pip_log" >&2
  echo "binder_check: pip could not install binder/requirements.txt (above: the end of its log)" >&2
  exit 1
fi

# the kernel the chain runs on must be the one of this environment: ask a kernel where it lives
"$work/venv/bin/python" - "$work/venv" <<'PY'
import sys
from pathlib import Path

import nbclient
import nbformat

nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import sys; print(sys.executable)")])
nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
exe = Path(nb.cells[0].outputs[0]["text"].strip())
venv = Path(sys.argv[1]).resolve()
assert venv in exe.resolve().parents or exe.parent.parent == venv, f"the python3 kernel runs {exe}, not the binder environment"
print("binder_check: the python3 kernel runs", exe)
PY
"$work/venv/bin/python" -c "import relu_frames_nb, matplotlib, ipywidgets, pythreejs, jupyterlab, voila; print('binder_check: relu_frames_nb', relu_frames_nb.__version__, 'installed from', relu_frames_nb.__file__)"

# run times are reported, not asserted: CI runners and Binder are shared machines
"$work/venv/bin/python" scripts/build_notebooks.py --out "$work/executed" --no-budget "$@"
echo "binder_check: the whole chain ran in the Binder environment"
