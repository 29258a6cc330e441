"""Maximal bias estimation: most correlated bases and sampling (Approach A), polytope (Approach B)."""

from .estimate import BiasEstimate

__all__ = ["BiasEstimate"]
