#!/usr/bin/env bash
# Write the student edition of the notebook chain (no worked solutions; exercises and checkers kept)
# into OUT (default: student-edition/), a folder a teacher can hand out.
#   bash scripts/student_edition.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "notebooks,test"
exec .venv/bin/python scripts/student_edition.py "$@"
