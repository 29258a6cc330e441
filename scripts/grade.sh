#!/usr/bin/env bash
# Grade a class: run every submitted notebook under nbgrader's autograder with the exercises' own
# checkers and write the gradebook (gradebook.csv, feedback.csv, gradebook.html) into OUT (default grading/).
#   bash scripts/grade.sh SUBMISSIONS [--out OUT] [--timeout SECONDS]
# SUBMISSIONS holds one folder per student with the student-edition notebooks they worked in;
# relative paths are read from the folder you run this in.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/grade.sh SUBMISSIONS [--out OUT] [--timeout SECONDS]" >&2
  exit 2
fi
bash "$root/scripts/_setup.sh" "notebooks,course"
exec "$root/.venv/bin/python" "$root/scripts/grade.py" "$@"
