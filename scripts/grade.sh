#!/usr/bin/env bash
# Grade a class: every submitted notebook runs in a sandbox of its own (bubblewrap when installed, else a
# separate process with its own copy), only its answers leave it (as JSON), and the teacher's checkers score
# them in a clean process. Writes gradebook.csv, feedback.csv, lms.csv and gradebook.html into OUT (default grading/).
#   bash scripts/grade.sh SUBMISSIONS [--out OUT] [--timeout SECONDS] [--memory MB] [--sandbox auto|bwrap|process]
# SUBMISSIONS holds one folder per student with the student-edition notebooks they worked in;
# relative paths are read from the folder you run this in. What each sandbox guarantees: scripts/grade.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/grade.sh SUBMISSIONS [--out OUT] [--timeout SECONDS] [--memory MB] [--sandbox auto|bwrap|process]" >&2
  exit 2
fi
bash "$root/scripts/_setup.sh" "notebooks,course"
exec "$root/.venv/bin/python" "$root/scripts/grade.py" "$@"
