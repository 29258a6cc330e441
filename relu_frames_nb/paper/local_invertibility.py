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

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.patterns import group_patterns
from .._util.validation import as_matrix, as_nonnegative, as_points, as_rng, as_time_limit
from ..frames import DEFAULT_RANK_TOL
from ..layer import as_weights

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
    tested : ndarray of bool, shape (N,), or None
        Per data point: whether its pattern was tested before the time limit (None: all were).
        An untested point counts as not invertible in ``invertible``.
    """

    invertible: np.ndarray
    span_dim: int
    n: int
    n_patterns: int
    tested: np.ndarray | None = None

    @property
    def n_tested(self) -> int:
        """Data points whose pattern was tested."""
        return int(self.invertible.size if self.tested is None else self.tested.sum())

    @property
    def fraction(self) -> float:
        """Share of the tested data points where the layer is locally invertible (all points unless time ran out)."""
        if self.n_tested == 0:
            return float("nan")
        return float(np.sum(self.invertible)) / self.n_tested

    @property
    def failing(self) -> np.ndarray:
        """Indices of the tested data points where it is not."""
        tested = np.ones(self.invertible.size, dtype=bool) if self.tested is None else self.tested
        return np.flatnonzero(~self.invertible & tested)

    @property
    def text(self) -> str:
        """One line for people."""
        where = f"R^{self.n}" if self.span_dim == self.n else f"the data's {self.span_dim}-dimensional span in R^{self.n}"
        text = (f"locally invertible at {int(self.invertible.sum())} of {self.n_tested} data points "
                f"({100 * self.fraction:.1f}%): the active frame vectors span {where} there")  # fmt: skip
        if self.n_tested < self.invertible.size:
            text += (f" (time limit: {self.n_tested} of the {self.invertible.size} points tested, the most common "
                     "patterns first, the others in random order)")  # fmt: skip
        return text


def data_span(X: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> np.ndarray:
    """An orthonormal basis of the span of the rows of ``X``, shape ``(n, d)`` (columns)."""
    X = as_matrix(X, "X")
    rank_tol = as_nonnegative(rank_tol, "rank_tol")
    _, s, Vt = np.linalg.svd(X, full_matrices=False)
    d = int(np.sum(s > rank_tol * s[0])) if s.size and s[0] > 0 else 0
    return Vt[:d].T


def local_invertibility(layer: Any, X: Any, *, rank_tol: float = DEFAULT_RANK_TOL,
                        time_limit: float | None = None, seed: Any = 0) -> LocalInvertibility:  # fmt: skip
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
    time_limit : float or None
        Seconds for the rank tests (one per distinct active pattern, the most common first; a
        pattern with fewer active rows than the span's dimension fails without one). Patterns
        not reached are reported in :attr:`LocalInvertibility.tested`. None: no limit.
    seed : int, None or numpy Generator, default 0
        Order of the patterns that are equally common (which ones a time limit reaches first).

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
    time_limit = as_time_limit(time_limit)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    B = data_span(X, rank_tol=rank_tol)
    d = B.shape[1]
    active = X @ W.T >= alpha
    first, inverse = group_patterns(active)
    WB = W @ B
    norms = np.linalg.norm(WB, axis=1)
    ok_pattern = np.zeros(first.size, dtype=bool)
    done = np.zeros(first.size, dtype=bool)
    counts = np.bincount(inverse, minlength=first.size)
    # the most common patterns first; among equally common ones a fixed random order (an unbiased sample)
    shuffled = as_rng(seed).permutation(first.size)
    for k in shuffled[np.argsort(-counts[shuffled], kind="stable")]:
        rows = active[first[k]] & (norms > 0)
        if d == 0:
            ok_pattern[k] = True
        elif int(rows.sum()) >= d:
            if deadline is not None and time.perf_counter() > deadline:
                continue  # no time for a rank test: left untested (the count tests above still run)
            sv = np.linalg.svd(WB[rows] / norms[rows, None], compute_uv=False)
            ok_pattern[k] = bool(sv[-1] > rank_tol * max(sv[0], 1.0)) if sv.size >= d else False
        done[k] = True
    tested = None if done.all() else done[inverse]
    return LocalInvertibility(ok_pattern[inverse], d, W.shape[1], int(first.size), tested)
