r"""Exact zero-bias injectivity: the Tukey (half-space) depth of the origin among the frame vectors.

The zero-bias layer :math:`\mathrm{ReLU}(\Phi x)` is injective on :math:`\mathbb{R}^n` iff its
active sub-frame spans at every ``x`` (Thm "Injectivity II"); for a full-spark frame that is
:math:`d \ge n` with :math:`d = \min_{x\ne 0}\#\{i : \langle x, \phi_i\rangle \ge 0\}`, the Tukey
depth of the origin. :func:`tukey_depth_origin` computes ``d`` exactly by enumerating the
rays of the hyperplane arrangement (vectorised for full-spark frames, an exact recursion
plus one LP per flat for the others); :func:`zero_bias_injective` is the verdict. This test
estimates no bias: it decides one bias, zero, on all of :math:`\mathbb{R}^n`.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from .._util.format import count_text
from .._util.tolerances import DIVISOR_FLOOR, RANK_RTOL, UNIT_ZERO_TOL
from .._util.validation import as_count, as_positive, as_time_limit
from ..errors import TooExpensiveError
from ..frames import as_frame
from ..pipeline.context import Context

__all__ = ["TukeyDepth", "tukey_depth_origin", "zero_bias_injective"]


@dataclass(frozen=True, eq=False)
class TukeyDepth:
    r"""Tukey (half-space) depth of the origin among the frame vectors, and what it implies.

    Attributes
    ----------
    depth : int
        :math:`\min_{x \ne 0} \#\{i : \langle x, \phi_i\rangle \ge 0\}`.
    injective : bool
        Whether the zero-bias layer :math:`\mathrm{ReLU}(\Phi x)` is injective on
        :math:`\mathbb{R}^n` (for a full-spark frame: ``depth >= n``). The object is truthy
        exactly when injective.
    witness : ndarray, shape (n,)
        A unit vector with exactly ``depth`` elements :math:`\langle x, \phi_i\rangle \ge 0`
        (or, for a frame that is not full spark and not injective although ``depth >= n``, a
        point whose active sub-frame does not span). When not injective, the active sub-frame
        at ``witness`` does not span.
    n : int
        Dimension.
    m : int
        Number of frame vectors.
    n_rays : int
        Number of candidate rays, ``2 * C(m, n - 1)``.
    full_spark : bool
        Whether the frame is full spark (then ``injective`` is ``depth >= n``).
    method : str
        ``"exact"``.
    """

    depth: int
    injective: bool
    witness: np.ndarray
    n: int
    m: int
    n_rays: int
    full_spark: bool = True
    method: str = "exact"

    def __bool__(self) -> bool:
        return bool(self.injective)

    def __repr__(self) -> str:
        return f"TukeyDepth(depth={self.depth}, n={self.n}, m={self.m}, injective={self.injective}, method={self.method!r})"


def _null_vectors(S: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit null vectors of a stack of ``(B, n-1, n)`` unit-row matrices, and independence flags."""
    B, k, n = S.shape
    Q = np.zeros((B, k, n))
    ok = np.ones(B, dtype=bool)
    for i in range(k):
        v = S[:, i].copy()
        for _ in range(2):
            if i:
                c = np.einsum("bjn,bn->bj", Q[:, :i], v)
                v -= np.einsum("bj,bjn->bn", c, Q[:, :i])
        nr = np.linalg.norm(v, axis=1)
        ok &= nr > tol
        Q[:, i] = v / np.where(nr > 0, nr, 1.0)[:, None]
    # the standard basis vector with the largest residual gives the complement direction
    P = np.eye(n)[None] - np.einsum("bkn,bkl->bnl", Q, Q)
    j = np.argmax(np.einsum("bnn->bn", P), axis=1)
    r = P[np.arange(B), :, j]
    for _ in range(2):
        c = np.einsum("bkn,bn->bk", Q, r)
        r = r - np.einsum("bk,bkn->bn", c, Q)
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    return r, ok


def _perturb_off_ray(V: np.ndarray, r: np.ndarray, w: np.ndarray, target: int, zero: np.ndarray) -> np.ndarray:
    """Return ``r + eps * w`` normalized, ``eps`` small enough to keep the signs off ``zero``.

    The elements not in ``zero`` (non-zero on ``r``) keep their sign; ``w`` decides the signs of
    the elements in ``zero``.
    """
    a = np.abs(V[~zero] @ r)
    b = np.abs(V[~zero] @ w)
    with np.errstate(divide="ignore", invalid="ignore"):
        lim = float(np.min(np.where(b > 0, a / b, np.inf))) if a.size else np.inf
    eps = min(0.5 * lim, 1.0 / max(float(np.linalg.norm(w)), DIVISOR_FLOOR))
    x = r
    for _ in range(80):
        x = r + eps * w
        x = x / np.linalg.norm(x)
        c = V @ x
        if int(np.count_nonzero(c >= 0)) == target and np.all(c != 0):
            return x
        eps *= 0.5
    return x  # pragma: no cover - numerically degenerate frames only


def _orth_complement(r: np.ndarray) -> np.ndarray:
    """An orthonormal basis (columns, shape (d, d-1)) of the hyperplane orthogonal to ``r``."""
    _, _, vt = np.linalg.svd(r[None, :])
    return vt[1:].T


def _depth_general(V: np.ndarray, tol: float, budget: list, deadline: float = math.inf) -> tuple[int, np.ndarray, list]:
    """Exact depth of the origin among the rows of ``V`` (a frame for R^d, any spark).

    Returns ``(depth, witness, flats)``: a unit witness in an open cell with exactly ``depth``
    elements ``>= 0``, and the distinct index sets ``H`` (rank d-1 flats) met at the top level.
    Rays whose zero set ``Z`` is larger than ``d - 1`` recurse into the arrangement of ``Z`` in the
    hyperplane orthogonal to the ray. ``budget`` is a one-element list counting subsets left.
    """
    k, d = V.shape
    if d == 1:
        pos = int(np.count_nonzero(V[:, 0] > 0))
        neg = k - pos
        return min(pos, neg), np.array([1.0 if pos <= neg else -1.0]), []
    best, best_x = k + 1, None
    seen: dict = {}
    for S in itertools.combinations(range(k), d - 1):
        budget[0] -= 1
        if budget[0] < 0:
            raise TooExpensiveError("budget")
        if budget[0] % 256 == 0 and time.perf_counter() > deadline:
            raise TooExpensiveError("time limit")
        US = V[list(S)]
        sv = np.linalg.svd(US, compute_uv=False)
        if sv[-1] <= tol * max(sv[0], 1.0):
            continue
        r = _orth_complement(US[0])[:, 0] if d == 2 else np.linalg.svd(US)[2][-1]
        D = V @ r
        zero = np.abs(D) <= tol
        key = tuple(np.flatnonzero(zero).tolist())
        if key in seen:
            continue
        Z = np.flatnonzero(zero)
        if Z.size == d - 1:
            sub, w = 0, -np.linalg.pinv(V[Z]) @ np.ones(d - 1)
        else:
            U = _orth_complement(r)
            sub, wz, _ = _depth_general(V[Z] @ U, tol, budget, deadline)
            w = U @ wz
        seen[key] = True
        for s in (1.0, -1.0):
            cnt = int(np.count_nonzero(s * D[~zero] > 0)) + sub
            if cnt < best:
                best, best_x = cnt, _perturb_off_ray(V, s * r, w, cnt, zero)
    return best, best_x, [np.array(key, dtype=np.intp) for key in seen]


def _outside_flat_negative(V: np.ndarray, H: np.ndarray) -> np.ndarray | None:
    """A point where every row of ``V`` outside the flat ``H`` is negative, or None (an LP)."""
    from scipy.optimize import linprog

    W = np.delete(V, H, axis=0)
    res = linprog(np.zeros(V.shape[1]), A_ub=W, b_ub=-np.ones(W.shape[0]), bounds=[(None, None)] * V.shape[1], method="highs")
    if res.status == 0:
        return res.x / np.linalg.norm(res.x)
    return None


def _null_vectors_fast(S: np.ndarray) -> np.ndarray:
    """Unit null vectors of ``(B, n-1, n)`` stacks: one batched solve, Gram-Schmidt where it fails."""
    B, k, n = S.shape
    try:
        y = np.linalg.solve(S[:, :, :-1], -S[:, :, -1:])[..., 0]
        r = np.concatenate([y, np.ones((B, 1))], axis=1)
        r /= np.linalg.norm(r, axis=1, keepdims=True)
        res = np.abs(np.einsum("bkn,bn->bk", S, r)).max(axis=1)
        bad = ~(res <= UNIT_ZERO_TOL)
    except np.linalg.LinAlgError:  # an exactly singular block: dependent vectors, redo all
        r = np.empty((B, n))
        bad = np.ones(B, dtype=bool)
    if bad.any():
        r[bad] = _null_vectors(S[bad], 0.0)[0]
    return r


def _tukey_fast(unit: np.ndarray, batch: int, tol: float, deadline: float = math.inf):
    """Vectorised enumeration for full-spark frames; returns None when the frame is not full spark.

    The vectors are first turned by a fixed random rotation (the depth is rotation invariant),
    so that dropping the last coordinate gives a solvable ``(n-1) x (n-1)`` system for every
    independent ``S``. A dependent ``S`` need not be detected itself: every frame that is not
    full spark has an independent ``S'`` of ``n - 1`` vectors with another frame vector in its
    span (extend a circuit minus one element), and that vector vanishes on ``r_{S'}``. All
    subsets are examined, so that is always found before a result is returned.
    """
    m, n = unit.shape
    rot = np.linalg.qr(np.random.default_rng(12345).standard_normal((n, n)))[0]
    V = unit @ rot  # v_i = rot^T phi_i, so <y, v_i> = <rot y, phi_i>
    best = m + 1
    best_S: tuple = ()
    best_r = None
    combos = itertools.combinations(range(m), n - 1)
    rest = m - (n - 1)
    while True:
        if time.perf_counter() > deadline:
            raise TooExpensiveError("the exact Tukey depth did not finish within its time limit")
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, batch)), dtype=np.intp)
        if flat.size == 0:
            break
        idx = flat.reshape(-1, n - 1)
        r = _null_vectors_fast(V[idx])
        D = r @ V.T
        D[np.arange(idx.shape[0])[:, None], idx] = np.nan
        if np.any(np.abs(D) <= tol):
            return None
        cp = np.count_nonzero(D > 0, axis=1)
        cm = rest - cp
        c = np.minimum(cp, cm)
        b = int(np.argmin(c))
        if c[b] < best:
            best = int(c[b])
            best_S = tuple(idx[b].tolist())
            best_r = rot @ (r[b] if cp[b] <= cm[b] else -r[b])
    zero = np.zeros(m, dtype=bool)
    zero[list(best_S)] = True
    w = -np.linalg.pinv(unit[list(best_S)]) @ np.ones(n - 1)
    return best, _perturb_off_ray(unit, best_r, w, best, zero)


def tukey_depth_origin(
    frame: Any,
    *,
    max_subsets: int = 2_000_000,
    batch: int = 8192,
    tol: float = RANK_RTOL,
    max_general: int = 20_000,
    time_limit: float | None = None,
    ctx: Any = None,
) -> TukeyDepth:
    r"""Exact Tukey (half-space) depth of the origin among the frame vectors, and zero-bias injectivity.

    The depth is :math:`d = \min_{x\ne 0}\#\{i : \langle x, \phi_i\rangle \ge 0\}`. The zero-bias
    layer :math:`\mathrm{ReLU}(\Phi x)` is injective on :math:`\mathbb{R}^n` iff the active
    sub-frame spans at every ``x`` (Thm "Injectivity II"); for a full-spark frame that is
    :math:`d \ge n`.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame. Full-spark frames take the fast vectorised path; other frames (the
        (+-) basis, repeated or parallel vectors) a slower exact path, see Notes.
    max_subsets : int, default 2000000
        Refuse when ``C(m, n - 1)`` exceeds this.
    batch : int, default 8192
        Subsets processed at once on the fast path.
    tol : float, default RANK_RTOL (1e-10)
        A unit vector whose distance to the span of ``n - 1`` others is at most ``tol`` counts as
        lying in it.
    max_general : int, default 20000
        Refuse frames that are not full spark when the slower exact path would examine more than
        this many subsets.
    time_limit : float, optional
        Seconds; past them the enumeration stops with :class:`TooExpensiveError`.
    ctx : relu_frames_nb.pipeline.Context, optional
        The context of a check: when given, its remaining time caps ``time_limit``.

    Returns
    -------
    TukeyDepth

    Raises
    ------
    TooExpensiveError
        If ``C(m, n - 1) > max_subsets``, or the frame is not full spark and the exact path for
        such frames exceeds ``max_general`` subsets, or the time limit passes.

    Notes
    -----
    The count is constant on the open cells of the arrangement of the hyperplanes
    :math:`\phi_i^\perp` and its minimum is attained on an open cell (on a face, elements that
    vanish count as active). The closure of each cell is a pointed cone whose extreme rays are
    :math:`\pm r_S`, the unit null vectors of ``n - 1`` independent frame vectors ``S``. For a
    full-spark frame, no other element vanishes on :math:`r_S` and a small perturbation makes
    all of ``S`` negative, hence

    .. math:: d = \min_{|S| = n-1}\ \min\big(\#\{i\notin S: \langle r_S,\phi_i\rangle>0\},
              \#\{i\notin S: \langle r_S,\phi_i\rangle<0\}\big),

    :math:`2\binom{m}{n-1}` rays in all. Independence of every ``S`` and non-vanishing of the
    other elements on :math:`r_S` is exactly the full-spark property, so it is verified on the
    way. Otherwise the elements ``Z`` vanishing on a ray contribute the depth of the origin
    among ``Z`` inside :math:`r_S^\perp` (a recursion in dimension ``n - 1``), and injectivity is
    decided by the criterion: not injective iff for some flat ``H`` of rank ``n - 1`` spanned by
    frame vectors all other frame vectors can be made negative at once (one LP per flat).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.paper.zero_bias import tukey_depth_origin
    >>> res = tukey_depth_origin(rf.zoo.regular_polygon(5))
    >>> res.depth, res.injective
    (2, True)
    >>> res = tukey_depth_origin(rf.zoo.plus_minus_basis(3))  # not full spark: exact slow path
    >>> res.depth, res.injective
    (3, True)
    """
    time_limit, _ = Context.for_tool(ctx, time_limit, None)
    F = as_frame(frame)
    max_subsets = as_count(max_subsets, "max_subsets")
    batch = as_count(batch, "batch")
    tol = as_positive(tol, "tol")
    max_general = as_count(max_general, "max_general")
    seconds = as_time_limit(time_limit)
    deadline = math.inf if seconds is None else time.perf_counter() + seconds
    m, n = F.m, F.n
    total = comb(m, n - 1)
    if total > max_subsets:
        raise TooExpensiveError(
            f"the exact Tukey depth checks C(m, n-1) = C({m}, {n - 1}) = {count_text(total)} subsets; "
            f"max_subsets is {count_text(max_subsets)}. Raise max_subsets, or use sampling_bias (an "
            "over-estimate in high dimension)."
        )
    unit = F.vectors / F.norms[:, None]
    if n == 1:
        depth, x, _ = _depth_general(unit, tol, [1])
        return TukeyDepth(depth, depth >= 1, x, n, m, 2, full_spark=True)
    fast = _tukey_fast(unit, batch, tol, deadline)
    if fast is not None:
        depth, x = fast
        return TukeyDepth(depth, depth >= n, x, n, m, 2 * total, full_spark=True)
    # ---- not full spark: exact recursion for the depth, one LP per flat for injectivity
    budget = [max_general]
    try:
        depth, x, flats = _depth_general(unit, tol, budget, deadline)
    except TooExpensiveError as exc:
        if str(exc) == "time limit":
            raise TooExpensiveError("the exact Tukey depth did not finish within its time limit") from None
        raise TooExpensiveError(
            f"frame is not full spark, and its exact Tukey depth needs more than max_general={max_general} "
            "subset checks. Raise max_general, or perturb the frame slightly to make it full spark."
        ) from None
    injective = depth >= n
    if injective:
        for H in flats:
            y = _outside_flat_negative(unit, H)
            if y is not None:
                injective, x = False, y
                break
    return TukeyDepth(depth, bool(injective), x, n, m, 2 * total, full_spark=False)


def zero_bias_injective(frame: Any, *, max_subsets: int = 2_000_000, time_limit: float | None = None,
                        ctx: Any = None) -> TukeyDepth:
    r"""Exact test that :math:`\mathrm{ReLU}(\Phi x)` (bias 0) is injective on :math:`\mathbb{R}^n`.

    For a full-spark frame: injective iff the Tukey depth of the origin among the frame vectors
    is at least ``n`` (see :func:`tukey_depth_origin`, which also handles other frames). The
    result is truthy exactly when the layer is injective; when it is not, ``witness`` is a point
    whose active sub-frame does not span.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame.
    max_subsets : int, default 2000000
        Refuse when ``C(m, n - 1)`` exceeds this.
    time_limit : float, optional
        Seconds (see :func:`tukey_depth_origin`).
    ctx : relu_frames_nb.pipeline.Context, optional
        The context of a check: when given, its remaining time caps ``time_limit``.

    Returns
    -------
    TukeyDepth

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.paper.zero_bias import zero_bias_injective
    >>> bool(zero_bias_injective(rf.zoo.regular_polygon(5)))
    True
    >>> res = zero_bias_injective(rf.zoo.mercedes_benz())
    >>> res.injective, res.depth
    (False, 1)
    """
    return tukey_depth_origin(frame, max_subsets=max_subsets, time_limit=time_limit, ctx=ctx)
