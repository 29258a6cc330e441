"""nbval glue for the notebook chain.

Run the notebooks with (from the repository root)::

    .venv/bin/python -m pytest --nbval --nbval-current-env \
        --nbval-sanitize-with notebooks/nbval_sanitize.cfg notebooks/

* The committed outputs are produced by headless execution (``jupyter nbconvert --execute
  --inplace`` / nbclient), the way nbval runs them, never saved from a browser.
* Widget views (``application/vnd.jupyter.widget-view+json``: random model ids) and images
  (png, jpeg, svg, pdf: renderer- and font-dependent bytes) are never compared, even with
  ``--nbdime`` (which would otherwise re-enable image comparison). Text outputs are.
* Float noise: every float printed with 7 or more decimals is *rounded* (not truncated) to
  6 significant digits before comparison, so ``0.30000000000000004`` and
  ``0.29999999999999993`` both read ``0.3`` (a regex can only truncate, which keeps them
  apart). ``nbval_sanitize.cfg`` then masks ``-0.0``, memory addresses, widget model ids
  and timings.
* The py:percent twins (``NN_slug.py``) are sources, not test modules: they are not collected
  (the project's ``--doctest-modules`` would otherwise import, i.e. run, them).
"""

from __future__ import annotations

import re

#: output keys nbval must not compare, on top of its own list
NBVAL_SKIP_COMPARE = (
    "application/vnd.jupyter.widget-view+json",
    "image/png",
    "image/jpeg",
    "image/svg+xml",
    "application/pdf",
)

collect_ignore_glob = ["*.py"]

_LONG_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{7,}(?:[eE][-+]?\d+)?(?![\w.])")


def _round_float(match: re.Match) -> str:
    text = f"{float(match.group(0)):.6g}"
    return "0" if text == "-0" else text


def round_long_floats(text):
    """Round every float literal with 7+ decimals to 6 significant digits."""
    return _LONG_FLOAT.sub(_round_float, text) if isinstance(text, str) else text


def pytest_collectstart(collector):
    # nbval's notebook collector (IPyNbFile) keeps the keys it skips in `skip_compare`;
    # its cells read them from their parent when they compare outputs.
    skip = getattr(collector, "skip_compare", None)
    if isinstance(skip, tuple) and collector.path.suffix == ".ipynb":
        collector.skip_compare = skip + tuple(k for k in NBVAL_SKIP_COMPARE if k not in skip)


def pytest_itemcollected(item):
    # round float noise before nbval's own regex sanitizing, in stored and fresh outputs alike
    sanitize = getattr(item, "sanitize", None)
    if callable(sanitize) and item.path.suffix == ".ipynb":
        item.sanitize = lambda text, _sanitize=sanitize: _sanitize(round_long_floats(text))
