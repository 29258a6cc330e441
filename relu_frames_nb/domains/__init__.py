"""Data domains K of R^n (see the submodules)."""

from .radial import *  # noqa: F401,F403
from .radial import _rng  # noqa: F401  (transitional)
