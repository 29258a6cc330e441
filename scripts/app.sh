#!/usr/bin/env bash
# The playground as an app for a class: Voilà shows notebooks/12_playground with its code hidden
# (voila.json hides the checks and the exercises), on http://localhost:8866 by default.
#   bash scripts/app.sh [VOILA OPTIONS]
# It uses the kit's Voilà template (share/jupyter/voila/templates/relu-frames), which serves Font
# Awesome itself: the app makes no request outside the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/_setup.sh "app"
.venv/bin/python scripts/app.py >/dev/null
export JUPYTER_PATH="$PWD/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
exec .venv/bin/voila notebooks/12_playground.ipynb --template=relu-frames "$@"
