"""Which size the notebooks and experiments run at: the fast default or the paper's scale.

The notebook chain reads ``RELU_FRAMES_FULL`` through :func:`full_size`: unset, empty, ``0``,
``false``, ``no`` or ``off`` select the default size (every notebook well under a minute on two
cores); ``1``, ``true``, ``yes`` or ``on`` select the sizes of the paper. Anything else is an
error, so a typo cannot silently fall back to the small run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..errors import InputError

ENV_VAR = "RELU_FRAMES_FULL"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def full_size(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``RELU_FRAMES_FULL`` asks for the paper's sizes.

    Parameters
    ----------
    environ : mapping, optional
        Where to read the variable; ``os.environ`` by default.

    Returns
    -------
    bool
        ``True`` for the paper's sizes, ``False`` for the fast default.

    Raises
    ------
    InputError
        If the variable holds something other than a yes/no word.

    Examples
    --------
    >>> full_size({})
    False
    >>> full_size({"RELU_FRAMES_FULL": "1"})
    True
    """
    env = os.environ if environ is None else environ
    raw = env.get(ENV_VAR, "")
    if not isinstance(raw, str):
        raise InputError(f"{ENV_VAR} must be a string, got {type(raw).__name__}")
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise InputError(f"{ENV_VAR}={raw!r} is not understood: use 1 (paper's sizes) or 0 / unset (fast default)")
