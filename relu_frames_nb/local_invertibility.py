r"""Local invertibility of a layer on a data set: where does the active sub-frame span the data's span?

On a finite data set :math:`X` the injectivity question has an exact answer (no two points
share an output), but it says nothing about points *near* the data. The local question is
whether the layer is invertible around each data point *within the data's span*
:math:`V = \operatorname{span}\{x_1, \dots, x_N\}`: at :math:`x` with active set :math:`I_x`
this holds iff :math:`\Phi_{I_x}` restricted to :math:`V` is injective, i.e.
:math:`\operatorname{rank}(\Phi_{I_x} B) = \dim V` for an orthonormal basis :math:`B` of
:math:`V`. When the data span all of :math:`\mathbb{R}^n` this is the
:math:`\alpha`-rectifying test at the data points (Thm "Injectivity II" makes it necessary on
open or strictly convex domains); weights that do not span :math:`\mathbb{R}^n` (a rank-deficient
trained layer) are fine as long as they span on :math:`V`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._patterns import group_patterns
from ._validation import as_matrix, as_nonnegative, as_points
from .frames import DEFAULT_RANK_TOL
from .layer import as_weights

__all__ = ["LocalInvertibility", "local_invertibility", "data_span"]


@dataclass(frozen=True)
class LocalInvertibility:
    """Result of :func:`local_invertibility`.

    Attributes
    ----------
    invertible : ndarray of bool, shape (N,)
        Per data point: the active sub-frame is injective on the data's span.
    span_dim : int
        Dimension of the data's (linear) span.
    n : int
        Dimension of the input space.
    n_patterns : int
        Distinct active patterns (one rank test each).
    """

    invertible: np.ndarray
    span_dim: int
    n: int
    n_patterns: int

    @property
    def fraction(self) -> float:
        """Share of the data points where the layer is locally invertible."""
        return float(np.mean(self.invertible)) if self.invertible.size else float("nan")

    @property
    def failing(self) -> np.ndarray:
        """Indices of the data points where it is not."""
        return np.flatnonzero(~self.invertible)

    @property
    def text(self) -> str:
        """One line for people."""
        where = f"R^{self.n}" if self.span_dim == self.n else f"the data's {self.span_dim}-dimensional span in R^{self.n}"
        return (f"locally invertible at {int(self.invertible.sum())} of {self.invertible.size} data points "
                f"({100 * self.fraction:.1f}%): the active frame vectors span {where} there")  # fmt: skip


def data_span(X: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> np.ndarray:
    """An orthonormal basis of the span of the rows of ``X``, shape ``(n, d)`` (columns)."""
    X = as_matrix(X, "X")
    rank_tol = as_nonnegative(rank_tol, "rank_tol")
    _, s, Vt = np.linalg.svd(X, full_matrices=False)
    d = int(np.sum(s > rank_tol * s[0])) if s.size and s[0] > 0 else 0
    return Vt[:d].T


def local_invertibility(layer: Any, X: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> LocalInvertibility:
    r"""Per data point, whether the layer is invertible near it within the data's span.

    Parameters
    ----------
    layer : ReLULayer or Network with one layer
        The layer :math:`x \mapsto \mathrm{ReLU}(W x - \alpha)`; a one-layer network
        (``rf.Network.from_weights([(W, b)])``, PyTorch's convention) may have weights that do
        not span :math:`\mathbb{R}^n`. A raw pair is refused (its bias convention is not known).
    X : array_like, shape (N, n)
        The data points (rows).
    rank_tol : float
        Relative singular-value tolerance of the rank tests (as in :class:`~relu_frames_nb.Frame`).

    Returns
    -------
    LocalInvertibility

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> rf.local_invertibility(L, rf.Ball(2).sample(200, seed=0)).fraction
    1.0
    """
    W, alpha = as_weights(layer)
    X, _ = as_points(X, W.shape[1], "X")
    B = data_span(X, rank_tol=rank_tol)
    d = B.shape[1]
    active = X @ W.T >= alpha
    first, inverse = group_patterns(active)
    WB = W @ B
    norms = np.linalg.norm(WB, axis=1)
    ok_pattern = np.zeros(first.size, dtype=bool)
    for k, i in enumerate(first):
        rows = active[i] & (norms > 0)
        if d == 0:
            ok_pattern[k] = True
        elif int(rows.sum()) >= d:
            sv = np.linalg.svd(WB[rows] / norms[rows, None], compute_uv=False)
            ok_pattern[k] = bool(sv[-1] > rank_tol * max(sv[0], 1.0)) if sv.size >= d else False
    return LocalInvertibility(ok_pattern[inverse], d, W.shape[1], int(first.size))
