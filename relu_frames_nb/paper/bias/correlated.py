r"""Approach A of the paper: most correlated bases and the maximal constant bias.

Notation: the rows of ``Phi`` are the frame vectors :math:`\phi_i` and ``G = X @ Phi.T`` are the
frame coefficients of the points ``X`` (rows). Everything works with the *unnormalized*
coefficients :math:`\langle x, \phi_i\rangle` of the frame as given.

Most correlated bases
    :math:`J^*(x)` maximizes :math:`\min_{j \in J}\langle x, \phi_j\rangle` over the bases
    :math:`\Phi_J` (Def. "most correlated basis"). The bases of a frame are the bases of a linear
    matroid, so the greedy rule is exact for *any* frame: sort the coefficients in decreasing
    order and keep :math:`\phi_i` whenever it raises the rank, until ``n`` are kept. For a
    full-spark frame this is the set of the ``n`` largest coefficients.

Maximal constant bias
    :math:`\alpha_c = \inf_{x\in K} \min_{j\in J^*(x)}\langle x, \phi_j\rangle`, the smallest
    entry of the sampling estimate.

Related modules, whose public names are re-exported here for compatibility:
:mod:`~relu_frames_nb.paper.bias.sampling` (the sampling-based bias estimation,
:func:`sampling_bias`, Thm "Sampling-based Bias Estimation", Algorithm 1 of App. C1) and
:mod:`~relu_frames_nb.paper.zero_bias` (the exact zero-bias test through the Tukey depth of the
origin: :func:`tukey_depth_origin`, :func:`zero_bias_injective`, :class:`TukeyDepth`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._util.tolerances import TIE_TOL
from ..._util.validation import as_nonnegative, as_points, as_positive
from ...errors import InputError, TooExpensiveError
from ...frames import DEFAULT_RANK_TOL, as_frame
from ..zero_bias import TukeyDepth, tukey_depth_origin, zero_bias_injective
from ._common import INIT_CHOICES, SPARK_CHECK_LIMIT, coefficients, mcb_core, spark_status, unit_rows
from .sampling import block_rows, sampling_bias

__all__ = [
    "most_correlated_basis",
    "max_constant_bias",
    "sampling_bias",
    "TukeyDepth",
    "tukey_depth_origin",
    "zero_bias_injective",
    "block_rows",
    "SPARK_CHECK_LIMIT",
]


# =====================================================================================
# most correlated bases
# =====================================================================================


def most_correlated_basis(
    frame: Any,
    X: Any,
    *,
    full_spark: bool | None = None,
    return_ties: bool = False,
    tie_tol: float = TIE_TOL,
    rank_tol: float = DEFAULT_RANK_TOL,
):
    r"""Indices of a most correlated basis :math:`J^*(x)` for each point (Def. "most correlated basis").

    :math:`J^*(x)` maximizes :math:`\min_{j\in J}\langle x, \phi_j\rangle` over all bases
    :math:`\Phi_J`. The result is exact for any frame: the bases of a frame form a matroid, so the
    greedy rule (sort the coefficients in decreasing order, keep :math:`\phi_i` when it raises the
    rank, stop at ``n``) finds a maximizer. Fast path: the ``n`` largest coefficients
    (``np.argpartition``), whose independence is checked per point unless the frame is known to be
    full spark; only the points that fail go through the greedy rule.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame (rows are the vectors :math:`\phi_i`, not necessarily normalized).
    X : array_like, shape (N, n) or (n,)
        Points.
    full_spark : bool, optional
        ``True`` skips the independence check (you assert the frame is full spark), ``False``
        checks every point. By default the spark is computed when ``C(m, n)`` is at most
        :data:`SPARK_CHECK_LIMIT` (the result is cached on the frame), otherwise every point is
        checked.
    return_ties : bool, default False
        Also return, per point, whether :math:`J^*(x)` is not unique.
    tie_tol : float, default TIE_TOL (1e-12)
        Absolute tolerance on coefficients for the tie test: :math:`J^*(x)` is reported as not
        unique when a coefficient outside it is ``>= min_{j in J*} <x, phi_j> - tie_tol``
        (then swapping that element in gives another maximizer; with repeated or parallel
        vectors this happens even when the ``n`` largest coefficients differ).
    rank_tol : float, default 1e-10
        A vector raises the rank when the norm of its unit vector's residual against the vectors
        kept so far exceeds ``rank_tol``.

    Returns
    -------
    J : ndarray of int, shape (N, n) or (n,)
        The indices of :math:`J^*(x)`, sorted by decreasing coefficient. Among equal coefficients
        the choice is arbitrary; use ``return_ties`` to detect it.
    ties : ndarray of bool, shape (N,) or bool
        Only with ``return_ties=True``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.paper.bias.correlated import most_correlated_basis
    >>> F = rf.zoo.mercedes_benz()
    >>> most_correlated_basis(F, [0.5, 0.8]).tolist()
    [0, 2]
    >>> J, tie = most_correlated_basis(rf.zoo.plus_minus_basis(2), [1.0, 0.0], return_ties=True)
    >>> J.tolist(), bool(tie)
    ([0, 1], True)
    """
    F = as_frame(frame)
    pts, single = as_points(X, F.n, "X")
    tie_tol = as_nonnegative(tie_tol, "tie_tol")
    rank_tol = as_positive(rank_tol, "rank_tol")
    if not isinstance(return_ties, (bool, np.bool_)):
        raise InputError(f"return_ties must be True or False; got {return_ties!r}.")
    if full_spark is None:
        try:
            fs = F.is_full_spark(max_subsets=SPARK_CHECK_LIMIT)
        except TooExpensiveError:
            fs = False  # check each point
    else:
        fs, _ = spark_status(F, full_spark, SPARK_CHECK_LIMIT)
    unit = unit_rows(F)
    G = coefficients(pts, F.vectors.T)
    J = mcb_core(G, unit, fs, rank_tol)
    if not return_ties:
        return J[0] if single else J
    r = np.arange(G.shape[0])
    vstar = G[r, J[:, -1]]
    if F.m > F.n:
        Gm = G.copy()
        Gm[r[:, None], J] = -np.inf
        ties = Gm.max(axis=1) >= vstar - tie_tol
    else:
        ties = np.zeros(G.shape[0], dtype=bool)
    if single:
        return J[0], bool(ties[0])
    return J, ties


# =====================================================================================
# maximal constant bias
# =====================================================================================


def max_constant_bias(
    frame: Any,
    K: Any,
    *,
    n_samples: int = 100_000,
    seed: Any = 0,
    init: Any = "none",
    full_spark: bool | None = None,
    tie_tol: float = TIE_TOL,
) -> float:
    r"""The maximal constant bias :math:`\alpha_c` (Prop. "maximal constant bias").

    .. math:: \alpha_c = \inf_{x\in K}\ \min_{j\in J^*(x)}\langle x, \phi_j\rangle,

    the largest ``r`` such that the frame is :math:`\mathbf{r}`-rectifying on ``K``. It equals
    the smallest entry of the sampling estimate, so it is computed by the same engine.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame (unnormalized coefficients are used).
    K : Domain or array_like, shape (N, n)
        A finite data set (exact value for that set) or a domain to sample from (the value is
        then an over-estimate that converges from above as ``n_samples`` grows).
    n_samples : int, default 100000
        Samples drawn from a domain.
    seed : int, SeedSequence, Generator or None, default 0
        Seed of the samples (see :func:`sampling_bias`).
    init : {"none", "auto", "frame"}, default "none"
        Extra points processed first, as in :func:`sampling_bias`.
    full_spark : bool, optional
        As in :func:`sampling_bias`.
    tie_tol : float, default TIE_TOL (1e-12)
        As in :func:`sampling_bias`.

    Returns
    -------
    float

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.paper.bias.correlated import max_constant_bias
    >>> a = max_constant_bias(rf.zoo.mercedes_benz(), rf.Sphere(2), n_samples=50_000)
    >>> -0.5 <= a < -0.499
    True
    >>> max_constant_bias(rf.zoo.mercedes_benz(), [[0.0, 1.0], [1.0, 0.0]])
    -0.5
    """
    if not isinstance(init, str) or init not in INIT_CHOICES:
        raise InputError(f"init must be one of {INIT_CHOICES}; got {init!r}.")
    est = sampling_bias(
        frame,
        K,
        n_samples=n_samples,
        seed=seed,
        init=init,
        full_spark=full_spark,
        tie_tol=tie_tol,
        progress=False,
    )
    return float(np.min(est.values))
