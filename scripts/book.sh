#!/usr/bin/env bash
# Build the offline book (HTML) from the executed notebooks into book/_build/html.
#   bash scripts/book.sh             # open book/_build/html/index.html in a browser
#   bash scripts/book.sh --strict    # warnings are errors, as in CI
#   bash scripts/book.sh --clean     # rebuild from scratch
#   bash scripts/book.sh --pdf       # print it to book/_build/book.pdf with headless Chromium (offline)
#   bash scripts/book.sh --student   # the student build (no worked solutions) into book/_build/student-html;
#                                    # with --pdf: book/_build/book-student.pdf. The teacher's build keeps them, folded away.
# The repository and Binder buttons appear once pyproject.toml's [project.urls] Repository is set (or
# RFNB_REPOSITORY_URL for one build); while it is the placeholder the build says so on stderr.
# Nothing is executed (the book shows the notebooks' stored outputs). MathJax 3 and the widget manager (for the live 3-D views) are fetched once
# from the npm registry (needs npm) and copied into the site: the book reads offline.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="book"
[[ " $* " != *" --pdf "* ]] || extras="book,browser"  # the printer drives Debian's chromium with playwright
bash scripts/_setup.sh "$extras"
exec .venv/bin/python book/build.py "$@"
