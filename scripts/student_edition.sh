#!/usr/bin/env bash
# Write the student edition of the notebook chain (no worked solutions; exercises and checkers kept)
# into OUT (default: student-edition/), a folder a teacher can hand out.
#   bash scripts/student_edition.sh [OUT] [--repository https://github.com/ORG/COURSE] [--no-wheel]
# It needs what the notebooks need (the `notebooks` extra: nbformat, and the checkers that write the answer key)
# and, for the library's wheel that goes into the folder, the build backend of pyproject.toml ([build-system]
# requires, installed into the venv when it is missing or too old: the wheel is built without network isolation).
# VENV (default .venv) names another virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$(realpath -m "${VENV:-.venv}")"
export VENV
bash scripts/_setup.sh "notebooks"
if [[ " $* " != *" --no-wheel "* ]]; then
  backend="$("$VENV/bin/python" - <<'PY'
import re
from importlib.metadata import PackageNotFoundError, version

# pyproject.toml's [build-system] requires names one package, "setuptools>=N"; print it when it is not satisfied
text = open("pyproject.toml", encoding="utf-8").read()
req = re.search(r'^requires\s*=\s*\["([^"]+)"\]', text.split("[build-system]", 1)[1], re.M).group(1)
name, _, least = req.partition(">=")
try:
    have = tuple(int(p) for p in version(name).split(".")[:2] if p.isdigit())
    print("" if have >= tuple(int(p) for p in least.split(".")) else req)
except PackageNotFoundError:
    print(req)
PY
)"
  if [ -n "$backend" ]; then
    echo "[student_edition] installing $backend into $VENV (to build the library's wheel for the edition)"
    "$VENV/bin/python" -m pip install --quiet "$backend"
  fi
fi
exec "$VENV/bin/python" scripts/student_edition.py "$@"
