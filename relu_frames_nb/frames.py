r"""Frames for :math:`\mathbb{R}^n`: a collection of ``m`` vectors that spans.

The rows of the matrix ``Phi`` are the frame vectors :math:`\phi_i`. The analysis
operator maps ``x`` to its frame coefficients ``Phi @ x``; for a batch of points stored
as rows of ``X`` this is ``X @ Phi.T``.
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any, Iterable

import numpy as np

from ._util.format import count_text
from ._util.tolerances import NORMALIZED_ATOL, RANK_RTOL, TIGHT_RTOL
from ._util.validation import as_bias, as_matrix, as_nonnegative, as_points
from .errors import InputError, NotAFrameError, TooExpensiveError

__all__ = ["Frame", "as_frame", "DEFAULT_RANK_TOL"]

#: Relative tolerance for rank decisions: a singular value below
#: ``DEFAULT_RANK_TOL * largest singular value`` counts as zero.
DEFAULT_RANK_TOL = RANK_RTOL  # the package's rank tolerance (relu_frames_nb._util.tolerances), 1e-10


def _row_norms(phi: np.ndarray) -> np.ndarray:
    """Euclidean row norms without overflow or underflow (rows of size 1e160 or 1e-200 are fine)."""
    scale = np.max(np.abs(phi), axis=1)
    safe = np.where(scale > 0, scale, 1.0)
    return scale * np.linalg.norm(phi / safe[:, None], axis=1)


def _rank_deficient(stack: np.ndarray, tol: float) -> np.ndarray:
    """For a stack of ``(k, n)`` matrices with unit-norm rows: True where rank < k."""
    sv = np.linalg.svd(stack, compute_uv=False)
    return sv[..., -1] <= tol * np.maximum(sv[..., 0], 1.0)


class Frame:
    r"""A frame :math:`\Phi = (\phi_i)_{i=1}^m` for :math:`\mathbb{R}^n`.

    Parameters
    ----------
    vectors : array_like, shape (m, n)
        The frame vectors as rows (any array-like: list, ndarray, torch tensor).
    rank_tol : float, optional
        Relative tolerance for deciding that the vectors span (default ``1e-10``).

    Raises
    ------
    NotAFrameError
        If a row is zero, ``m < n``, or the rows do not span :math:`\mathbb{R}^n`.
    InputError
        If the input is not a finite numeric 2-D array.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> F = rf.Frame([[1, 0], [0, 1], [-1, -1]])
    >>> F.m, F.n
    (3, 2)
    >>> bool(F.is_normalized())
    False
    """

    __slots__ = ("_vectors", "_norms", "_bounds", "_rank_tol", "_spark", "__weakref__")

    def __init__(self, vectors: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> None:
        if isinstance(vectors, Frame):
            vectors = vectors.vectors
        phi = as_matrix(vectors, "frame vectors")
        rank_tol = as_nonnegative(rank_tol, "rank_tol")
        if rank_tol >= 1:
            raise InputError(f"rank_tol must be a relative tolerance in [0, 1); got {rank_tol}.")
        m, n = phi.shape
        norms = _row_norms(phi)
        zero = np.flatnonzero(norms == 0)
        if zero.size:
            raise NotAFrameError(
                f"frame vectors must be non-zero; got zero row(s) at index {zero.tolist()[:10]}. Remove them, or check "
                f"weights that are not a frame as a layer all the same: rf.check(rf.ReLULayer(W, alpha), K) takes any weights."
            )
        if m < n:
            raise NotAFrameError(
                f"a frame for R^{n} needs at least {n} vectors; got {m}. "
                "Rows are frame vectors: transpose if you stored them as columns. Weights that are not a frame "
                "make a layer all the same: rf.check(rf.ReLULayer(W, alpha), K) takes any weights."
            )
        sv = np.linalg.svd(phi / norms[:, None], compute_uv=False)
        if sv[-1] <= rank_tol * sv[0]:
            rank = int(np.sum(sv > rank_tol * sv[0]))
            raise NotAFrameError(
                f"frame vectors must span R^{n}; got rank {rank} (smallest singular value {sv[-1]:.3g}). "
                "Add vectors in the missing directions, or check weights that are not a frame as a layer all the "
                "same: rf.check(rf.ReLULayer(W, alpha), K) takes any weights."
            )
        phi = phi.copy()
        phi.setflags(write=False)
        norms.setflags(write=False)
        self._vectors = phi
        self._norms = norms
        self._bounds: tuple[float, float] | None = None
        self._rank_tol = float(rank_tol)
        self._spark: int | None = None

    # ------------------------------------------------------------------ basics
    @property
    def vectors(self) -> np.ndarray:
        """The frame vectors as a read-only ``(m, n)`` array (rows)."""
        return self._vectors

    @property
    def m(self) -> int:
        """Number of frame vectors."""
        return self._vectors.shape[0]

    @property
    def n(self) -> int:
        """Dimension of the space."""
        return self._vectors.shape[1]

    @property
    def redundancy(self) -> float:
        """The ratio ``m / n``."""
        return self.m / self.n

    @property
    def norms(self) -> np.ndarray:
        """Euclidean norms of the frame vectors, shape ``(m,)``."""
        return self._norms

    def __len__(self) -> int:
        return self.m

    def __array__(self, dtype=None, copy=None):
        return np.array(self._vectors, dtype=dtype, copy=True)

    def __repr__(self) -> str:
        return f"Frame(m={self.m}, n={self.n}, normalized={bool(self.is_normalized())})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return self._vectors.shape == other._vectors.shape and bool(np.array_equal(self._vectors, other._vectors))

    def __hash__(self) -> int:
        return hash((self._vectors.shape, self._vectors.tobytes()))

    # --------------------------------------------------------------- operators
    def analysis(self, X: Any) -> np.ndarray:
        r"""Frame coefficients :math:`\\langle x, \\phi_i \\rangle`: shape ``(m,)`` or ``(N, m)``."""
        pts, single = as_points(X, self.n, "X")
        out = pts @ self._vectors.T
        return out[0] if single else out

    def synthesis(self, C: Any) -> np.ndarray:
        r""":math:`\\sum_i c_i \\phi_i` for coefficients of shape ``(m,)`` or ``(N, m)``."""
        pts, single = as_points(C, self.m, "coefficients")
        out = pts @ self._vectors
        return out[0] if single else out

    @property
    def frame_operator(self) -> np.ndarray:
        r""":math:`S = \\Phi^T \\Phi`, shape ``(n, n)``."""
        return self._vectors.T @ self._vectors

    @property
    def gram(self) -> np.ndarray:
        r"""Gram matrix :math:`(\\langle \\phi_i, \\phi_j \\rangle)_{ij}`, shape ``(m, m)``."""
        return self._vectors @ self._vectors.T

    @property
    def bounds(self) -> tuple[float, float]:
        """Optimal frame bounds ``(A, B)``: extreme eigenvalues of the frame operator."""
        if self._bounds is None:
            ev = np.linalg.eigvalsh(self.frame_operator)
            self._bounds = (float(ev[0]), float(ev[-1]))
        return self._bounds

    @property
    def lower_bound(self) -> float:
        """Optimal lower frame bound ``A``."""
        return self.bounds[0]

    @property
    def upper_bound(self) -> float:
        """Optimal upper frame bound ``B``."""
        return self.bounds[1]

    def is_tight(self, *, rtol: float = TIGHT_RTOL) -> bool:
        """True when ``A == B`` up to ``rtol`` (default ``TIGHT_RTOL``, 1e-9)."""
        a, b = self.bounds
        return bool(b - a <= rtol * b)

    def canonical_dual(self) -> Frame:
        r"""The canonical dual frame :math:`(S^{-1}\\phi_i)_i`."""
        return Frame(np.linalg.solve(self.frame_operator, self._vectors.T).T)

    # ------------------------------------------------------------ normalizing
    def is_normalized(self, *, atol: float = NORMALIZED_ATOL) -> bool:
        """True when every frame vector has unit norm (up to ``atol``, default ``NORMALIZED_ATOL``, 1e-12)."""
        return bool(np.all(np.abs(self._norms - 1.0) <= atol))

    def normalized(self) -> Frame:
        r"""The frame of unit vectors :math:`\\phi_i / \\|\\phi_i\\|` (the norms stay on ``self.norms``)."""
        return Frame(self._vectors / self._norms[:, None])

    def normalize_bias(self, alpha: Any) -> np.ndarray:
        r"""Bias for the normalized frame: :math:`\\alpha_i / \\|\\phi_i\\|` (Lemma on normalized frames)."""
        return as_bias(alpha, self.m) / self._norms

    def denormalize_bias(self, alpha: Any) -> np.ndarray:
        r"""Inverse of :meth:`normalize_bias`: :math:`\\alpha_i \\|\\phi_i\\|` (``inf`` stays ``inf``)."""
        a = np.asarray(alpha, dtype=float)
        if a.shape != (self.m,):
            raise InputError(f"alpha must have shape ({self.m},); got {a.shape}.")
        return a * self._norms

    # ------------------------------------------------------------- sub-frames
    def _index(self, J: Iterable[int] | np.ndarray) -> np.ndarray:
        idx = np.asarray(J)
        if idx.dtype == bool:
            if idx.shape != (self.m,):
                raise InputError(f"a boolean index set must have shape ({self.m},); got {idx.shape}.")
            return np.flatnonzero(idx)
        if idx.size == 0:
            return idx.astype(int).reshape(0)
        if not np.issubdtype(idx.dtype, np.integer):
            raise InputError(f"an index set must contain integers; got dtype {idx.dtype}.")
        idx = idx.reshape(-1)
        if idx.min() < -self.m or idx.max() >= self.m:
            raise InputError(f"indices must lie in [0, {self.m}); got {idx.tolist()}.")
        return idx % self.m

    def spans(self, J: Iterable[int] | np.ndarray) -> bool:
        r"""True when the sub-collection :math:`\\Phi_J` spans :math:`\\mathbb{R}^n`."""
        idx = self._index(J)
        if idx.size < self.n:
            return False
        unit = self._vectors[idx] / self._norms[idx, None]
        sv = np.linalg.svd(unit, compute_uv=False)
        return bool(sv[-1] > self._rank_tol * sv[0])

    def subframe(self, J: Iterable[int] | np.ndarray) -> Frame:
        r"""The sub-frame :math:`\\Phi_J`; raises :class:`NotAFrameError` when it does not span."""
        idx = self._index(J)
        return Frame(self._vectors[idx], rank_tol=self._rank_tol)

    # -------------------------------------------------------------- the spark
    def spark(self, *, max_subsets: int = 2_000_000, batch: int = 20_000) -> int:
        """The spark: the size of the smallest linearly dependent sub-collection.

        It lies in ``[2, n + 1]`` (``n + 1`` means full spark; a basis has spark ``n + 1``
        by convention, as it has no dependent sub-collection). The computation is exact
        up to ``rank_tol`` and checks every ``n``-subset, so it refuses when
        ``C(m, n) > max_subsets``.

        Raises
        ------
        TooExpensiveError
            If ``C(m, n)`` exceeds ``max_subsets``.
        """
        if self._spark is not None:
            return self._spark
        m, n = self.m, self.n
        total = comb(m, n)
        if total > max_subsets:
            raise TooExpensiveError(
                f"the exact spark checks C(m, n) = C({m}, {n}) = {count_text(total)} subsets; "
                f"max_subsets is {count_text(max_subsets)}. Raise max_subsets to compute it anyway, or rely on "
                "the fact that random frames are full spark with probability one."
            )
        unit = self._vectors / self._norms[:, None]
        # Full spark iff every n-subset is a basis; smaller dependent sets are found only if needed.
        if not self._any_dependent(unit, n, batch):
            self._spark = n + 1
            return self._spark
        for k in range(2, n + 1):
            if self._any_dependent(unit, k, batch):
                self._spark = k
                return k
        raise AssertionError("unreachable: some n-subset is dependent")  # pragma: no cover

    def _any_dependent(self, unit: np.ndarray, k: int, batch: int) -> bool:
        combos = itertools.combinations(range(self.m), k)
        while True:
            chunk = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, batch)), dtype=np.intp)
            if chunk.size == 0:
                return False
            stack = unit[chunk.reshape(-1, k)]
            if np.any(_rank_deficient(stack, self._rank_tol)):
                return True

    def is_full_spark(self, *, max_subsets: int = 2_000_000) -> bool:
        """True when every ``n`` frame vectors form a basis (spark ``n + 1``)."""
        return self.spark(max_subsets=max_subsets) == self.n + 1


def as_frame(F: Any, name: str = "frame") -> Frame:
    """Return ``F`` if it is a :class:`Frame`, else build one from an array-like."""
    if isinstance(F, Frame):
        return F
    if F is None:
        raise InputError(f"{name} must be a Frame or an (m, n) array of frame vectors; got None.")
    return Frame(F)

