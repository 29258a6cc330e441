"""The result type shared by every bias estimation method."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._util.validation import as_bias

__all__ = ["BiasEstimate", "GUARANTEED", "ON_SAMPLES", "ESTIMATE"]

#: the values make the frame rectifying on the whole domain (a proof)
GUARANTEED = "guaranteed"
#: the values make the frame rectifying on the sample set only
ON_SAMPLES = "on-samples"
#: the values are a heuristic estimate for the domain (no proof)
ESTIMATE = "estimate"


@dataclass(frozen=True, eq=False)
class BiasEstimate:
    r"""A bias vector for which a frame is (or is estimated to be) rectifying on a domain.

    Attributes
    ----------
    values : ndarray, shape (m,)
        The bias; ``+inf`` marks an irrelevant element (any bias works for it).
    method : str
        How it was computed: ``"sampling"`` (:func:`~relu_frames_nb.paper.bias.sampling.sampling_bias`)
        or ``"polytope"`` (:func:`~relu_frames_nb.paper.bias.polytope.polytope_bias` and
        :func:`~relu_frames_nb.paper.bias.polytope.polytope_bias_exterior`; the domain case is in
        ``info["case"]``). The maximal constant bias is a float, not an estimate.
    domain : Domain or None
        The domain it refers to.
    guarantee : str
        ``"guaranteed"`` (rectifying on all of the domain, proven), ``"on-samples"``
        (rectifying on the samples used) or ``"estimate"`` (heuristic for the domain).
    n_samples : int
        Number of samples used (0 for the polytope estimation, which uses none).
    correction : float
        The covering-radius correction subtracted (times the frame norms).
    correction_kind : str
        ``"none"``, ``"guaranteed"`` (true covering radius bound) or ``"heuristic"``.
    history : ndarray or None, shape (k, m)
        Snapshots of the estimate while it was computed (sampling with ``history``; for convergence plots).
    history_steps : ndarray or None, shape (k,)
        Number of samples processed at each snapshot.
    argmin : ndarray or None, shape (m, n)
        A point of the domain where each value is attained (NaN where irrelevant).
    facets : ndarray or None, shape (m,)
        For polytope estimates, the index of the facet where each minimum is attained.
    converged : bool or None
        Whether an early stop criterion was met.
    info : dict
        Further method-specific details.
    """

    values: np.ndarray
    method: str
    domain: Any = None
    guarantee: str = ESTIMATE
    n_samples: int = 0
    correction: float = 0.0
    correction_kind: str = "none"
    history: np.ndarray | None = None
    history_steps: np.ndarray | None = None
    argmin: np.ndarray | None = None
    facets: np.ndarray | None = None
    converged: bool | None = None
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        v = np.array(self.values, dtype=float)
        if v.ndim != 1 or np.any(np.isnan(v)):
            raise ValueError(f"values must be a 1-D array without NaN; got shape {v.shape}.")
        v.setflags(write=False)
        object.__setattr__(self, "values", v)

    @property
    def m(self) -> int:
        """Number of frame elements."""
        return self.values.shape[0]

    @property
    def irrelevant(self) -> np.ndarray:
        """Mask of elements whose bias can be anything (``+inf``)."""
        return np.isinf(self.values) & (self.values > 0)

    @property
    def is_guarantee(self) -> bool:
        """True when the values are proven to work on the whole domain."""
        return self.guarantee == GUARANTEED

    def finite(self, fill: float | None = None) -> np.ndarray:
        """The values with irrelevant entries replaced by ``fill`` (default: the largest finite value)."""
        v = np.array(self.values)
        if fill is None:
            finite = v[np.isfinite(v)]
            fill = float(finite.max()) if finite.size else 0.0
        v[self.irrelevant] = fill
        return v

    def admits(self, alpha: Any) -> np.ndarray:
        """Per element, whether ``alpha_i <= values_i``."""
        return as_bias(alpha, self.m) <= self.values

    def margin(self, alpha: Any) -> float:
        """``min_i (values_i - alpha_i)``: positive when ``alpha`` is strictly below the estimate."""
        diff = self.values - as_bias(alpha, self.m)
        return float(np.min(diff))

    def __repr__(self) -> str:
        fin = self.values[np.isfinite(self.values)]
        rng = f"[{fin.min():.4g}, {fin.max():.4g}]" if fin.size else "[]"
        return (
            f"BiasEstimate(method={self.method!r}, m={self.m}, values in {rng}, "
            f"irrelevant={int(self.irrelevant.sum())}, guarantee={self.guarantee!r}, domain={self.domain!r})"
        )
