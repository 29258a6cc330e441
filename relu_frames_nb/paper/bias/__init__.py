"""Maximal bias estimation: most correlated bases and sampling (Approach A), polytope (Approach B).

:func:`verify_polytope_bias` compares a bias with the polytope bias in exact rational arithmetic
(small frames), for the biases that floating point cannot place on either side of the bound.
"""

from ._exact import verify_polytope_bias
from .estimate import BiasEstimate

__all__ = ["BiasEstimate", "verify_polytope_bias"]
