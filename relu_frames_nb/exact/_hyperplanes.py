r"""``h``: the largest number of frame vectors in one hyperplane through the origin.

An active set with more than ``h`` elements spans :math:`\mathbb{R}^n` (a non-spanning
set lies in a hyperplane), so "every point keeps more than ``h`` rows active" proves the
rectifying property. ``h = n - 1`` exactly when the frame has full spark.

Exact computation: a maximal set of frame vectors in a hyperplane spans that hyperplane
(the frame spans R^n, so a smaller span can be enlarged by another frame vector), so it
is enough to take the hyperplane spanned by every linearly independent (n-1)-subset and
count the frame vectors on it. This is done in batches (one batched SVD per batch) when
``C(m, n-1)`` is at most ``max_subsets``; the distinct maximal sets are kept, since they
also give an exact, MILP-free test (:mod:`relu_frames_nb.exact.verdict`, method
``"hyperplanes"``).

Otherwise ``h = n - 1`` is an **assumption** (general position), recorded in the result
together with the checks that were made: no two rows are parallel, and a random sample of
(n-1)-subsets each spans a hyperplane containing no further frame vector.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from .._util.format import count_text
from .._util.tolerances import COPLANAR_TOL, COSINE_ROUNDING, DIVISOR_FLOOR, KDTREE_RADIUS_PAD, UNIT_SV_TOL

__all__ = ["HyperplaneInfo", "hyperplane_info"]



@dataclass(frozen=True)
class HyperplaneInfo:
    """What is known about ``h``.

    Attributes
    ----------
    h : int
        The largest number of frame vectors in one hyperplane (or the assumed value).
    exact : bool
        True when ``h`` was computed by enumeration, False when assumed.
    method : str
        How it was obtained, for people.
    sets : tuple of ndarray or None
        The distinct maximal hyperplane sets (bool masks of length m) when enumerated.
    usable : bool
        Whether "more than ``h`` active rows" may be used as a proof (False when ``h`` is
        only a lower estimate).
    """

    h: int
    exact: bool
    method: str
    sets: tuple | None = None
    usable: bool = True


def _chunks(iterable, size):
    it = iter(iterable)
    while True:
        block = list(itertools.islice(it, size))
        if not block:
            return
        yield np.array(block, dtype=np.intp)


def hyperplane_info(
    Phi: np.ndarray,
    *,
    max_subsets: int = 200_000,
    n_checks: int = 2000,
    seed: int = 0,
    keep_sets: int = 50_000,
    budget: Any = None,
) -> HyperplaneInfo:
    """``h`` for the unit-norm rows ``Phi`` (shape ``(m, n)``, spanning R^n); see the module docstring.

    ``budget`` (a :class:`~relu_frames_nb._util.budget.Budget`) is checked between batches; its
    :class:`~relu_frames_nb._util.budget.BudgetExhausted` propagates to the caller.
    """
    check = (lambda: None) if budget is None else (lambda: budget.check("hyperplanes through frame vectors"))
    Phi = np.asarray(Phi, dtype=float)
    m, n = Phi.shape
    if n == 1:
        text = "exact: in R^1 the only hyperplane is {0}, which holds no frame vector"
        return HyperplaneInfo(0, True, text, (np.zeros(m, bool),))
    total = comb(m, n - 1)
    if total <= max_subsets and total * n**3 <= 2e8:  # a few seconds of batched SVDs at most
        return _enumerate(Phi, total, keep_sets, check)
    # general position assumed: record the cheap checks
    parallel = _parallel_rows(Phi, check)
    rng = np.random.default_rng(seed)
    k = int(min(n_checks, total, max(20, 5e6 // n**3)))  # a sample, with bounded work
    subsets = np.array([rng.choice(m, n - 1, replace=False) for _ in range(k)], dtype=np.intp)
    counts, ok = np.zeros(0, int), np.zeros(0, bool)
    step = max(1, min(4_000_000 // max(m, 1), int(2e8 // n**3)))  # batches of about 0.1 s: the budget is looked at often
    for s in range(0, k, step):
        check()
        c_, o_ = _counts(Phi, subsets[s : s + step])
        counts, ok = np.r_[counts, c_], np.r_[ok, o_]
    worst = int(counts[ok].max()) if np.any(ok) else n - 1
    if parallel or worst > n - 1:
        h = max(worst, n if parallel else n - 1)
        return HyperplaneInfo(
            h,
            False,
            f"unknown: C({m}, {n - 1}) = {count_text(total)} subsets are too many to enumerate and the frame is not in general "
            f"position ({'parallel rows; ' if parallel else ''}up to {worst} vectors in one hyperplane among {k} sampled "
            f"subsets): h >= {h}, no certificate by counting",
            usable=False,
        )
    return HyperplaneInfo(
        n - 1,
        False,
        f"assumed n - 1 = {n - 1} (general position): C({m}, {n - 1}) = {count_text(total)} subsets are too many to enumerate; "
        f"checked: no two rows parallel, {k} random (n-1)-subsets each span a hyperplane holding no other frame vector",
    )


def _parallel_rows(Phi: np.ndarray, check=lambda: None) -> bool:
    """Whether two unit rows are parallel (angle below about ``COPLANAR_TOL``), in bounded memory.

    In low dimension a k-d tree of the rows with a sign fixed per row (the first non-zero
    coordinate positive) finds the near-duplicates in ``O(m log m)``; otherwise the Gram
    matrix is formed in row blocks, checking the budget between blocks.
    """
    m, n = Phi.shape
    if n <= 12 and m > 2000:
        from scipy.spatial import cKDTree

        first = np.argmax(Phi != 0, axis=1)
        sign = np.sign(Phi[np.arange(m), first])
        P = Phi * sign[:, None]
        # unit rows at angle theta are at distance about theta: a radius a little above COPLANAR_TOL
        tree = cKDTree(P)
        check()
        pairs = tree.query_pairs(4 * COPLANAR_TOL + KDTREE_RADIUS_PAD, output_type="ndarray")
        if pairs.shape[0] == 0:
            return False
        cos = np.abs(np.einsum("ij,ij->i", Phi[pairs[:, 0]], Phi[pairs[:, 1]]))
        return bool(np.any(cos >= 1.0 - 0.5 * COPLANAR_TOL**2 - COSINE_ROUNDING))
    step = max(1, 4_000_000 // max(m, 1))
    for s in range(0, m, step):
        check()
        G = np.abs(Phi[s : s + step] @ Phi.T)
        G[np.arange(G.shape[0]), np.arange(s, s + G.shape[0])] = 0.0
        if np.any(G >= 1.0 - 0.5 * COPLANAR_TOL**2 - COSINE_ROUNDING):
            return True
    return False


def _counts(Phi: np.ndarray, subsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each subset (rows of indices, n-1 each): frame vectors on its hyperplane, and whether it spans one."""
    n = Phi.shape[1]
    stack = Phi[subsets]  # (k, n-1, n)
    if n <= 64:
        _, s, vt = np.linalg.svd(stack, full_matrices=True)
        normals = vt[:, -1, :]  # (k, n)
        ok = s[:, -1] > UNIT_SV_TOL if n > 1 else np.ones(len(subsets), bool)
    else:  # a complete QR of the transposes gives the normals at a quarter of the cost of an SVD in high dimension
        q, r = np.linalg.qr(stack.transpose(0, 2, 1), mode="complete")
        normals = q[:, :, -1]
        diag = np.abs(np.diagonal(r, axis1=1, axis2=2))
        ok = diag.min(axis=1) > UNIT_SV_TOL * np.maximum(diag.max(axis=1), DIVISOR_FLOOR)
    on = np.abs(normals @ Phi.T) <= COPLANAR_TOL
    return on.sum(axis=1), ok


def _enumerate(Phi: np.ndarray, total: int, keep_sets: int, check=lambda: None) -> HyperplaneInfo:
    m, n = Phi.shape
    h = 0
    seen: dict[bytes, np.ndarray] = {}
    overflow = False
    keep_sets = min(keep_sets, max(1, 200_000_000 // max(m, 1)))  # at most ~25 MB of packed masks
    for block in _chunks(itertools.combinations(range(m), n - 1), max(1, min(20_000, 4_000_000 // max(m, 1)))):
        check()
        stack = Phi[block]
        _, s, vt = np.linalg.svd(stack, full_matrices=True)
        normals = vt[:, -1, :]
        ok = s[:, -1] > UNIT_SV_TOL
        if not np.any(ok):
            continue
        on = np.abs(normals[ok] @ Phi.T) <= COPLANAR_TOL
        h = max(h, int(on.sum(axis=1).max()))
        if not overflow:
            for row in np.unique(on, axis=0):
                key = np.packbits(row).tobytes()
                if key not in seen:
                    seen[key] = row
                    if len(seen) > keep_sets:
                        overflow = True
                        seen.clear()
                        break
    sets = None if overflow else tuple(seen.values())
    extra = "full spark" if h == n - 1 else f"not full spark: {h} vectors share a hyperplane"
    return HyperplaneInfo(
        h, True, f"exact: enumerated all C({m}, {n - 1}) = {total} hyperplanes spanned by frame vectors ({extra})", sets
    )
