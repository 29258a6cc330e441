r"""Small linear-algebra helpers of the exact verdicts that import nothing else of the package but its tolerances.

* :func:`min_norm_point`: the point of smallest norm of a polyhedron :math:`\{x : A x \le b\}`
  (least distance programming, Lawson & Hanson, *Solving Least Squares Problems*, ch. 23),
  by one non-negative least squares problem;
* :func:`quiet`: silence file descriptors 1 and 2 around a call into HiGHS, which prints
  from C++ on some SciPy builds even with ``disp=False``;
* :func:`null_space`: an orthonormal basis of the directions orthogonal to some rows;
* :func:`nnls_solve`: SciPy's non-negative least squares for arrays known to be fit for it, without the
  argument checks that cost a tenth of a small solve (the searches of :mod:`relu_frames_nb.paper.depth` make
  hundreds of thousands).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings

import numpy as np

from .tolerances import (
    DIVISOR_FLOOR,
    LDP_DIVISOR_TOL,
    LDP_RESIDUAL_TOL,
    MEMBERSHIP_RTOL,
    NNLS_PROBE_ATOL,
    RANK_RTOL,
    VIOLATION_FLOOR,
)

__all__ = ["min_norm_point", "quiet", "null_space", "linprog_quiet", "nnls_solve"]

_LOCK = threading.Lock()
_NNLS: list = []  # the solver nnls_solve calls, chosen on first use


def _pick_nnls():
    """SciPy's compiled NNLS routine when it is there and agrees with the public function on a test
    problem (it is private: a SciPy that moves or changes it gets the public function instead).
    """
    from scipy.optimize import nnls

    def public(A, b, maxiter):
        x, rnorm = nnls(A, b, maxiter=maxiter)
        return x, rnorm, 1

    try:
        from scipy.optimize._slsqplib import nnls as raw

        A = np.array([[1.0, 0.0, 2.0], [1.0, 1.0, -1.0], [0.0, 1.0, 1.0]])
        b = np.array([2.0, -1.0, 1.0])
        x, rnorm, info = raw(A, b, 30)
        x0, r0 = nnls(A, b, maxiter=30)
        if info != 3 and np.allclose(x, x0, atol=NNLS_PROBE_ATOL) and abs(float(rnorm) - r0) <= NNLS_PROBE_ATOL:
            return raw
    except Exception:  # noqa: BLE001 - any change of the private routine: the public one
        pass
    return public


def nnls_solve(A: np.ndarray, b: np.ndarray, maxiter: int) -> tuple[np.ndarray, float]:
    """``scipy.optimize.nnls(A, b, maxiter=maxiter)`` for a C-ordered finite float64 ``A`` and ``b``.

    Raises ``RuntimeError`` when the iteration limit is reached, as SciPy's function does.
    """
    if not _NNLS:
        _NNLS.append(_pick_nnls())
    x, rnorm, info = _NNLS[0](A, b, maxiter)
    if info == 3:
        raise RuntimeError("Maximum number of iterations reached.")
    return x, float(rnorm)


@contextlib.contextmanager
def quiet():
    """Redirect the process's file descriptors 1 and 2 to ``/dev/null`` for the duration.

    Python's ``sys.stdout``/``sys.stderr`` are flushed first so nothing written before is
    lost, and both descriptors are restored in ``finally``. A lock serialises nested or
    concurrent use from threads (the descriptors are process-wide).
    """
    with _LOCK:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # pragma: no cover - closed or odd streams
                pass
        saved = []
        devnull = None
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            for fd in (1, 2):
                try:
                    saved.append((fd, os.dup(fd)))
                    os.dup2(devnull, fd)
                except OSError:  # pragma: no cover - fd not open (some embedded interpreters)
                    pass
        except OSError:  # pragma: no cover - no /dev/null
            pass
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            for fd, copy in saved:
                try:
                    os.dup2(copy, fd)
                finally:
                    os.close(copy)
            if devnull is not None:
                os.close(devnull)


def linprog_quiet(c, *, method: str = "highs", **kwargs):
    """:func:`scipy.optimize.linprog` with HiGHS (``highs``, ``highs-ds`` or ``highs-ipm``), silenced by :func:`quiet`."""
    from scipy.optimize import linprog

    with quiet():
        return linprog(c, method=method, **kwargs)


def null_space(rows: np.ndarray, n: int, *, rtol: float = RANK_RTOL, limit: int | None = None) -> np.ndarray:
    """Orthonormal vectors (columns) orthogonal to ``span(rows)``: all ``n - rank`` of them, or at most ``limit``.

    With ``limit`` (or when the complement is large) no ``n x n`` matrix is formed: the row space
    comes from a thin SVD and the vectors are seeded random directions projected off it, so the
    memory is ``O(n (rank + limit))`` (a 2 x 20000 weight matrix needs a few hundred kilobytes,
    not the 3.2 GB of a full SVD).
    """
    rows = np.asarray(rows, dtype=float).reshape(-1, n)
    k = rows.shape[0]
    if k == 0:
        return np.eye(n) if limit is None or limit >= n else np.eye(n)[:, :limit]
    if limit is None and n <= 2048:
        _, s, vt = np.linalg.svd(rows, full_matrices=True)
        rank = int(np.sum(s > rtol * max(s[0], DIVISOR_FLOOR)))
        return vt[rank:].T
    _, s, vt = np.linalg.svd(rows, full_matrices=False)
    rank = int(np.sum(s > rtol * max(s[0], DIVISOR_FLOOR)))
    want = min(n - rank, 16 if limit is None else limit)
    if want <= 0:
        return np.zeros((n, 0))
    R = vt[:rank]
    G = np.random.default_rng(0).standard_normal((n, want))
    for _ in range(2):  # project twice: orthogonal to the row space to working precision
        G -= R.T @ (R @ G)
    Q, _ = np.linalg.qr(G)
    return Q[:, :want]


def min_norm_point(A: np.ndarray, b: np.ndarray, *, tol: float = MEMBERSHIP_RTOL) -> np.ndarray | None:
    r"""The point of smallest Euclidean norm of :math:`\{x : A x \le b\}`, or None if empty.

    Least distance programming: with :math:`G = -A`, :math:`h = -b`, solve the NNLS problem
    :math:`\min_{u \ge 0} \|E u - f\|` with :math:`E = [G^T; h^T]`, :math:`f = e_{n+1}`; the
    residual :math:`r = E u - f` vanishes iff the system is infeasible, else
    :math:`x = -r_{1:n} / r_{n+1}`. The answer is checked against the constraints (relative
    tolerance ``tol``); a failed check returns None as well, so None means "no point found".
    """
    from scipy.optimize import nnls

    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    k, n = A.shape
    if k == 0:
        return np.zeros(n)
    scale = max(1.0, float(np.max(np.abs(b))))
    E = np.vstack([-A.T, -b[None, :] / scale])
    f = np.zeros(n + 1)
    f[-1] = 1.0
    try:
        u, _ = nnls(E, f, maxiter=50 * (n + k + 10))
    except RuntimeError:  # pragma: no cover - iteration limit
        return None
    r = E @ u - f
    if np.linalg.norm(r) < LDP_RESIDUAL_TOL or r[-1] >= -LDP_DIVISOR_TOL:
        return None
    x = -r[:n] / r[-1] * scale
    viol = A @ x - b
    if np.all(viol <= tol * scale * np.maximum(np.linalg.norm(A, axis=1), DIVISOR_FLOOR) + VIOLATION_FLOOR):
        return x
    return None
