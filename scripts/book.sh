#!/usr/bin/env bash
# Build the offline book (HTML) from the executed notebooks into book/_build/html.
#   bash scripts/book.sh             # open book/_build/html/index.html in a browser
#   bash scripts/book.sh --strict    # warnings are errors, as in CI
#   bash scripts/book.sh --clean     # rebuild from scratch
#   bash scripts/book.sh --pdf       # print it to book/_build/book.pdf with headless Chromium (offline)
# Nothing is executed (the book shows the notebooks' stored outputs). MathJax 3 and the widget manager (for the live 3-D views) are fetched once
# from the npm registry (needs npm) and copied into the site: the book reads offline.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="book"
[[ " $* " != *" --pdf "* ]] || extras="book,browser"  # the printer drives Debian's chromium with playwright
bash scripts/_setup.sh "$extras"
exec .venv/bin/python book/build.py "$@"
