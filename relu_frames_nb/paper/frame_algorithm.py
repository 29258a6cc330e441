r"""The ReLU frame algorithm (Prop. "ReLU frame algorithm", App. C4), batched.

:func:`relu_frame_algorithm` reconstructs the inputs of a ReLU layer iteratively from its
outputs, with a proven per-step contraction; :class:`FrameAlgorithmResult` holds the iterates,
errors and rates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.patterns import NORMAL_EQ_MIN_RATIO, group_patterns, not_recoverable, pattern_spectra, spans_rows
from .._util.tolerances import FRAME_ALGORITHM_TOL
from .._util.validation import as_count, as_nonnegative, as_outputs, as_positive, to_float_array
from ..errors import DimensionMismatchError, InputError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer, as_layer

__all__ = ["relu_frame_algorithm", "FrameAlgorithmResult"]


@dataclass(frozen=True, eq=False)
class FrameAlgorithmResult:
    r"""Outcome of :func:`relu_frame_algorithm`.

    Attributes
    ----------
    x : ndarray, shape (n,) or (N, n)
        The final iterate(s).
    iterates : ndarray, shape (k+1, n) or (k+1, N, n), or None
        :math:`y_0 = 0, y_1, \dots, y_k` (None for a batch unless ``history=True``).
    errors : ndarray, shape (k+1,)
        :math:`\|y_j - x_{true}\|` when ``x_true`` was given (``error_kind="error"``), else
        the residual :math:`\|C_\alpha(y_j) - z\|` (``error_kind="residual"``). For a batch,
        the largest value over the rows.
    final_errors : ndarray, shape () or (N,)
        The same quantity for the last iterate, per row.
    n_iter : int
        Number of iterations done (``k``).
    converged : bool or ndarray of bool, shape (N,)
        Whether the final error is at most ``tol`` times the scale (``||x_true||`` or ``||z||``).
    error_kind : str
        ``"error"`` or ``"residual"``.
    rate_bound : float or ndarray, shape (N,)
        Proven per-step contraction :math:`\|x - y_{j+1}\| \le \kappa \|x - y_j\|` (see Notes
        of :func:`relu_frame_algorithm`); for ``lam0 = 0`` and ``lam = 2/(A+B)`` it is the
        paper's :math:`\kappa_\lambda = 1 - 2A_x/(A+B)`.
    active_lower_bound : float or ndarray, shape (N,)
        :math:`A_x`, the lower frame bound of :math:`\Phi_{I_x}` (``I_x = {z_i > 0}``).
    lam, lam0 : float
        The step sizes used.
    """

    x: np.ndarray
    iterates: np.ndarray | None
    errors: np.ndarray
    final_errors: np.ndarray
    n_iter: int
    converged: Any
    error_kind: str
    rate_bound: Any
    active_lower_bound: Any
    lam: float
    lam0: float


def relu_frame_algorithm(
    layer: ReLULayer,
    z: Any,
    *,
    n_iter: int = 1000,
    lam: float | None = None,
    lam0: float | None = None,
    x_true: Any = None,
    tol: float = FRAME_ALGORITHM_TOL,
    check_step: bool = True,
    history: bool | None = None,
    rank_tol: float = DEFAULT_RANK_TOL,
) -> FrameAlgorithmResult:
    r"""Reconstruct with the ReLU frame algorithm (Prop. "ReLU frame algorithm", App. C4).

    .. math::
        y_{k+1} = y_k + \lambda \sum_{i \in I_x} (\langle x, \phi_i\rangle - \langle y_k, \phi_i\rangle)\phi_i
        + \lambda_0 \sum_{i \in I_{y_k} \setminus I_x} (\alpha_i - \langle y_k, \phi_i\rangle)\phi_i ,

    with :math:`y_0 = 0`, :math:`I_x = \{i : z_i > 0\}` and
    :math:`\langle x, \phi_i\rangle = z_i + \alpha_i` on :math:`I_x`.

    Parameters
    ----------
    layer : ReLULayer
    z : array_like, shape (m,) or (N, m)
        Output(s) of the layer; a 2-D array runs all rows at once.
    n_iter : int, default 1000
        Maximal number of iterations; a row stops (its iterate is frozen) once it has
        converged, and the run stops when every row has.
    lam, lam0 : float, optional
        Step sizes; default :math:`2/(A+B)` with ``A, B`` the optimal frame bounds of the
        whole frame (the paper's choice). ``lam0 = 0`` is the plain frame algorithm on the
        active sub-frame.
    x_true : array_like, shape (n,) or (N, n), optional
        The true input(s): then ``errors`` are distances to it.
    tol : float, default FRAME_ALGORITHM_TOL (1e-12)
        Relative tolerance of the stopping rule ``error <= tol * scale``, scale
        :math:`\|x_{true}\|` or :math:`\|z\|`.
    check_step : bool, default True
        Refuse step sizes for which convergence is not guaranteed (see Notes). Pass False to
        run them anyway, e.g. to show the divergence of the printed rule.
    history : bool, optional
        Keep all iterates (default: True for one output, False for a batch).
    rank_tol : float, default 1e-10
        Tolerance for deciding that :math:`\Phi_{I_x}` spans.

    Returns
    -------
    FrameAlgorithmResult

    Raises
    ------
    NotInjectiveError
        If :math:`\{i : z_i > 0\}` does not span for some row (``x`` is not determined).
    InputError
        If ``check_step`` and the step sizes do not guarantee convergence.

    Notes
    -----
    Write :math:`e_k = x - y_k`. For :math:`i \in I_{y_k} \setminus I_x`,
    :math:`\alpha_i - \langle y_k,\phi_i\rangle = \gamma_i \langle e_k, \phi_i\rangle` with
    :math:`\gamma_i \in [0, 1]` (proof of the Prop.), so
    :math:`e_{k+1} = (I - M_k) e_k` with :math:`M_k = \lambda S_{I_x} + \lambda_0 \sum \gamma_i
    \phi_i\phi_i^T` and :math:`\lambda A_x I \preceq M_k \preceq \lambda S_{I_x} + \lambda_0
    S_{I \setminus I_x} =: M`. Hence
    :math:`\|e_{k+1}\| \le \kappa \|e_k\|` with :math:`\kappa = \max(|1 - \lambda A_x|,
    |1 - \rho|)`, :math:`\rho = \lambda_{\max}(M)`, and convergence is guaranteed iff
    :math:`\lambda > 0`, :math:`A_x > 0` and :math:`\rho < 2` -- this is what ``check_step``
    tests. For :math:`\lambda_0 = 0` it reads :math:`0 < \lambda < 2/B_x`, which is also
    necessary (the error component along the top eigenvector of :math:`S_{I_x}` is
    multiplied by :math:`1 - \lambda B_x`); for :math:`\lambda = \lambda_0` a sufficient
    condition is :math:`\lambda < 2/B`. The paper prints :math:`0 < \lambda < B/2`
    (erratum): with ``B > 2`` that admits divergent steps. For :math:`\lambda = 2/(A+B)`,
    :math:`\kappa = 1 - 2A_x/(A+B)` for both choices of :math:`\lambda_0` in the paper.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> x = np.array([0.3, -0.2])
    >>> res = relu_frame_algorithm(L, L(x), x_true=x)
    >>> bool(res.converged), bool(np.allclose(res.x, x))
    (True, True)
    """
    L = as_layer(layer)
    phi, alpha = L.frame.vectors, L.alpha
    m, n = phi.shape
    Zb, single = as_outputs(z, m, "z")
    N = Zb.shape[0]
    n_iter = as_count(n_iter, "n_iter", minimum=0)
    tol = as_nonnegative(tol, "tol")
    rank_tol = as_positive(rank_tol, "rank_tol")
    A, B = L.frame.bounds
    lam = 2.0 / (A + B) if lam is None else as_positive(lam, "lam")
    lam0 = 2.0 / (A + B) if lam0 is None else as_nonnegative(lam0, "lam0")
    if history is None:
        history = single
    xt = None
    if x_true is not None:
        xt = to_float_array(x_true, "x_true")
        xt = xt[None, :] if xt.ndim == 1 else xt
        if xt.shape != (N, n):
            raise DimensionMismatchError(f"x_true must have shape {(n,) if single else (N, n)}; got {xt.shape}.")

    mask = Zb > 0
    first, inverse = group_patterns(mask) if N else (np.zeros(0, np.intp), np.zeros(0, np.intp))
    patterns = mask[first]
    spec = pattern_spectra(phi, patterns)
    rho = pattern_spectra(phi, patterns, lam, lam0)[:, 1]
    Ax = np.maximum(spec[:, 0], 0.0)
    span = spec[:, 0] > NORMAL_EQ_MIN_RATIO * spec[:, 1]
    for p in np.flatnonzero(~span):
        span[p] = spans_rows(phi, np.flatnonzero(patterns[p]), rank_tol)[0]
    failed = np.flatnonzero(~span[inverse])
    if failed.size:
        raise not_recoverable(phi, mask, failed, N, rank_tol, "z")
    if check_step and np.any(rho >= 2.0):
        p = int(np.argmax(rho))
        r = int(np.flatnonzero(inverse == p)[0])
        Bx = spec[p, 1]
        raise InputError(
            f"lam and lam0 must guarantee convergence: the largest eigenvalue of lam*S_Ix + lam0*S_rest must be < 2; "
            f"got {rho[p]:.4g} for lam={lam:.4g}, lam0={lam0:.4g} (row {r}). With lam0 = 0 this means "
            f"0 < lam < 2/B_x = {2.0 / Bx:.4g}; with lam = lam0 it holds when lam < 2/B = {2.0 / B:.4g} "
            f"(the paper prints B/2: erratum). Pass check_step=False to run it anyway."
        )
    rate_p = np.maximum(np.abs(1.0 - lam * Ax), np.abs(1.0 - rho))
    rate, Ax_rows = rate_p[inverse], Ax[inverse]

    target = np.where(mask, Zb + alpha, 0.0)
    if xt is not None:
        scale = np.linalg.norm(xt, axis=1)
    else:
        scale = np.linalg.norm(Zb, axis=1)
    Y = np.zeros((N, n))
    iterates = [Y.copy()] if history else None
    errs = []

    def measure(Yr: np.ndarray, Gr: np.ndarray, Zr: np.ndarray, Xr: np.ndarray | None) -> np.ndarray:
        if Xr is not None:
            return np.linalg.norm(Yr - Xr, axis=1)
        return np.linalg.norm(np.maximum(Gr - alpha, 0.0) - Zr, axis=1)

    G = Y @ phi.T
    e = measure(Y, G, Zb, xt)
    errs.append(e.max(initial=0.0))
    run = np.flatnonzero(~(e <= tol * scale))
    # work on compact copies of the rows still running; converged rows are frozen
    Yr, Gr, Mr, Tr, Zr, Sr = Y[run], G[run], mask[run], target[run], Zb[run], scale[run]
    Xr = None if xt is None else xt[run]
    k = 0
    while k < n_iter and run.size:
        upd = lam * np.where(Mr, Tr - Gr, 0.0)
        if lam0:
            upd += lam0 * np.where(~Mr & (Gr >= alpha), alpha - Gr, 0.0)
        Yr = Yr + upd @ phi
        Gr = Yr @ phi.T
        er = measure(Yr, Gr, Zr, Xr)
        k += 1
        e[run] = er
        errs.append(e.max(initial=0.0))
        if history:
            Y[run] = Yr
            iterates.append(Y.copy())
        done = er <= tol * Sr
        if np.any(done):
            Y[run[done]] = Yr[done]
            keep = ~done
            run, Yr, Gr, Mr, Tr, Zr, Sr = run[keep], Yr[keep], Gr[keep], Mr[keep], Tr[keep], Zr[keep], Sr[keep]
            Xr = None if Xr is None else Xr[keep]
    Y[run] = Yr
    converged = e <= tol * scale
    it = None
    if history:
        it = np.stack(iterates)
        it = it[:, 0, :] if single else it
    return FrameAlgorithmResult(
        x=Y[0] if single else Y,
        iterates=it,
        errors=np.array(errs),
        final_errors=np.array(e[0]) if single else e,
        n_iter=k,
        converged=bool(converged[0]) if single else converged,
        error_kind="residual" if xt is None else "error",
        rate_bound=float(rate[0]) if single else rate,
        active_lower_bound=float(Ax_rows[0]) if single else Ax_rows,
        lam=float(lam),
        lam0=float(lam0),
    )
