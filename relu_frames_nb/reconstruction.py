r"""Duality and reconstruction for ReLU layers (Section "Duality and Reconstruction", App. C3/C4).

For an output :math:`z = C_\alpha x = \mathrm{ReLU}(\Phi x - \alpha)` the coordinates with
:math:`z_i > 0` are active, and on them :math:`\langle x, \phi_i\rangle = z_i + \alpha_i`.
If :math:`\Phi_J` is a frame for some :math:`J \subseteq I_x^\alpha`, any dual frame of
:math:`\Phi_J` recovers ``x`` through the ReLU-synthesis operator
:math:`\tilde D^\alpha_J z = \sum_{i \in J} (z_i + \alpha_i)\,\tilde\phi_i` (Thm "ReLU-dual I",
Cor. "ReLU-dual II"). This module provides

* :func:`relu_synthesis` and :func:`relu_dual` (Def. "ReLU-synthesis", Algorithm C3),
* :func:`reconstruct` (Algorithm C4 "Applying the ReLU-synthesis"), batched: one
  factorization per distinct active pattern,
* :class:`LeftInverseBank`: left inverses computed in advance for a list of index sets
  (most correlated bases, facets of the inscribing polytope), applied on demand,
* :func:`relu_frame_algorithm` (Prop. "ReLU frame algorithm"), batched,
* :class:`PReLULayer` and :func:`prelu_inverse` (the PReLU excursion).

What can be read from an output
-------------------------------
Reconstruction uses the *positive* coordinates :math:`\{i : z_i > 0\}`. An element with
:math:`\langle x, \phi_i\rangle = \alpha_i` exactly is active (:math:`i \in I_x^\alpha`) but
gives :math:`z_i = 0`, so it cannot be told apart from an inactive one; the paper assumes
this does not happen (App. C3). When the positive coordinates do not span, no left
inverse can be read from ``z`` and a :class:`~relu_frames_nb.errors.NotInjectiveError` is
raised: either the layer is not injective there or the input lies on such a hyperplane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from ._validation import as_count, as_nonnegative, as_positive, to_float_array
from .errors import DimensionMismatchError, InputError, NotAFrameError, NotInjectiveError
from .frames import DEFAULT_RANK_TOL, Frame, as_frame
from .layer import AffineLayer, ReLULayer, as_layer

__all__ = [
    "relu_synthesis",
    "relu_dual",
    "reconstruct",
    "LeftInverseBank",
    "relu_frame_algorithm",
    "FrameAlgorithmResult",
    "PReLULayer",
    "prelu_inverse",
]

#: The normal equations of an active pattern are solved only when
#: ``lambda_min / lambda_max`` of :math:`\Phi_J^T\Phi_J` exceeds this (relative error of order
#: ``1e6 * machine epsilon`` at worst); worse-conditioned patterns use an SVD.
_NORMAL_EQ_MIN_RATIO = 1e-6
#: Up to this many distinct active patterns, each gets its own SVD-based pseudo-inverse.
_EXACT_PATTERN_LIMIT = 64
#: Float64 elements per temporary block (32 MB).
_CHUNK_ELEMS = 1 << 22
#: A bank scans all of its sets for containment only when ``len(bank) * ceil(m / 64)`` is at
#: most this (beyond it the scan costs more per row than solving the row's own normal equations).
_SCAN_AUTO_LIMIT = 2048
#: Tolerance for checking that a user-supplied dual frame is one: ``||D Phi_J - I||_max``.
_DUAL_ATOL = 1e-8


# ---------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------


def _frame_of(obj: Any, name: str = "layer") -> Frame:
    if isinstance(obj, (ReLULayer, PReLULayer)):
        return obj.frame
    return as_frame(obj, name)


def _index_set(J: Any, m: int, name: str = "J") -> np.ndarray:
    """An index set as a 1-D int array (order kept) from indices or a bool mask of length m."""
    if isinstance(J, (set, frozenset)):
        J = sorted(J)
    if isinstance(J, (str, bytes)) or J is None:
        raise InputError(f"{name} must be a collection of indices or a boolean mask of length {m}; got {J!r}.")
    if hasattr(J, "detach") and hasattr(J, "cpu"):  # torch tensor
        J = J.detach().cpu().numpy()
    try:
        arr = np.asarray(J)
    except Exception as exc:
        raise InputError(f"{name} must be a collection of indices; got {type(J).__name__} ({exc}).") from None
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise InputError(f"{name} as a boolean mask must have shape ({m},); got shape {arr.shape}.")
        return np.flatnonzero(arr)
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.ndim != 1:
        raise InputError(
            f"{name} must be a 1-D collection of indices or a boolean mask of length {m}; got shape {arr.shape}."
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"{name} must contain integer indices; got dtype {arr.dtype}. Use e.g. np.flatnonzero(mask).")
    bad = arr[(arr < 0) | (arr >= m)]
    if bad.size:
        raise InputError(f"{name} must contain indices in [0, {m}); got {bad[:5].tolist()}.")
    if np.unique(arr).size != arr.size:
        raise InputError(f"{name} must not repeat an index; got {arr.tolist()[:20]}.")
    return arr.astype(np.intp)


def _as_rows(Z: Any, m: int, name: str) -> tuple[np.ndarray, bool]:
    """``(N, m)`` float array from ``(m,)`` or ``(N, m)`` plus the single-vector flag."""
    arr = to_float_array(Z, name)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise InputError(f"{name} must have shape ({m},) or (N, {m}); got shape {arr.shape}.")
    if arr.shape[1] != m:
        raise DimensionMismatchError(
            f"{name} must have {m} entries per row (one per frame element); got shape {arr.shape}. "
            "Rows are outputs; transpose if you stored them as columns."
        )
    return arr, single


def _as_outputs(Z: Any, m: int, name: str = "Z", zero_tol: float = 0.0) -> tuple[np.ndarray, bool]:
    """Outputs of a ReLU layer: like :func:`_as_rows`, and non-negative.

    With ``zero_tol > 0`` entries in ``[-zero_tol, zero_tol]`` are set to exactly 0 first (outputs
    that went through floating-point arithmetic, e.g. recovered by inverting a second layer).
    """
    arr, single = _as_rows(Z, m, name)
    if zero_tol > 0 and arr.size:
        small = np.abs(arr) <= zero_tol
        if small.any():
            arr = np.where(small, 0.0, arr)
    if arr.size and arr.min() < 0:
        r, i = np.unravel_index(int(np.argmin(arr)), arr.shape)
        raise InputError(
            f"{name} must be outputs of the layer (non-negative); got {arr[r, i]:.3g} in row {r}, entry {i}. "
            "Pass C_alpha(x) = ReLU(Phi x - alpha), not the pre-activation."
        )
    return arr, single


def _as_dual(dual: Any, n: int, k: int, phi_J: np.ndarray, *, check: bool, name: str = "dual") -> np.ndarray:
    """A synthesis matrix ``(n, k)`` from a Frame (rows = dual vectors) or an ``(n, k)`` array."""
    if isinstance(dual, Frame):
        D = np.array(dual.vectors).T
    else:
        D = to_float_array(dual, name)
    if D.shape != (n, k):
        raise DimensionMismatchError(
            f"{name} must be the ({n}, {k}) synthesis matrix (columns are the dual vectors, as returned by "
            f"relu_dual) or a Frame of {k} vectors in R^{n}; got shape {D.shape}."
        )
    if check:
        err = float(np.max(np.abs(D @ phi_J - np.eye(n)))) if k else np.inf
        if not err <= _DUAL_ATOL:
            raise InputError(
                f"{name} must be a dual frame of Phi_J (D @ Phi_J = I); got max |D @ Phi_J - I| = {err:.3g}. "
                "If you passed the dual vectors as rows, pass a Frame or the transpose; "
                "use check_dual=False to synthesize with a non-dual collection on purpose."
            )
    return D


# ---------------------------------------------------------------------------------
# linear algebra on active patterns
# ---------------------------------------------------------------------------------


def _words(mask: np.ndarray) -> np.ndarray:
    """The rows of a bool matrix packed into 64-bit words, shape ``(N, ceil(m / 64))``."""
    N = mask.shape[0]
    packed = np.packbits(mask, axis=1)
    width = packed.shape[1]
    W = max(8, -(-width // 8) * 8)
    buf = np.zeros((N, W), dtype=np.uint8)
    buf[:, :width] = packed
    return buf.view(np.uint64)


def _keys(mask: np.ndarray) -> np.ndarray:
    """One hashable, sortable key per row of a bool matrix (packed bits)."""
    words = _words(mask)
    if words.shape[1] == 1:
        return words.reshape(-1)
    return np.ascontiguousarray(words).view(np.dtype((np.void, 8 * words.shape[1]))).reshape(-1)


def _group_patterns(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row index of the first occurrence of each distinct row and, per row, its pattern number."""
    _, first, inverse = np.unique(_keys(mask), return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _outer_table(phi: np.ndarray) -> np.ndarray:
    """``(m, n*n)`` table of the rank-one operators phi_i phi_i^T, so S_J = mask @ table."""
    m, n = phi.shape
    return (phi[:, :, None] * phi[:, None, :]).reshape(m, n * n)


def _spans_rows(phi: np.ndarray, idx: np.ndarray, rank_tol: float) -> tuple[bool, int]:
    """Whether ``phi[idx]`` spans (relative singular-value test on unit rows, as in Frame) and its rank."""
    n = phi.shape[1]
    if idx.size == 0:
        return False, 0
    sub = phi[idx]
    unit = sub / np.linalg.norm(sub, axis=1, keepdims=True)
    sv = np.linalg.svd(unit, compute_uv=False)
    rank = int(np.sum(sv > rank_tol * sv[0]))
    return rank == n, rank


def _dual_matrix(phi: np.ndarray, idx: np.ndarray, rank_tol: float) -> np.ndarray | None:
    """Canonical dual synthesis matrix ``pinv(Phi_J)`` of shape ``(n, |J|)``, or None if Phi_J does not span."""
    if idx.size < phi.shape[1] or not _spans_rows(phi, idx, rank_tol)[0]:
        return None
    return np.linalg.pinv(phi[idx])


def _pattern_spectra(phi: np.ndarray, patterns: np.ndarray, w_in: float = 1.0, w_out: float = 0.0) -> np.ndarray:
    r"""Extreme eigenvalues of :math:`w_{in} S_J + w_{out} S_{I \setminus J}` per bool row ``J``: ``(U, 2)``."""
    m, n = phi.shape
    table = _outer_table(phi)
    full = phi.T @ phi
    out = np.empty((patterns.shape[0], 2))
    chunk = max(1, _CHUNK_ELEMS // (n * n))
    for c0 in range(0, patterns.shape[0], chunk):
        S = (patterns[c0 : c0 + chunk].astype(float) @ table).reshape(-1, n, n)
        if w_out != 0.0 or w_in != 1.0:
            S = (w_in - w_out) * S + w_out * full
        w = np.linalg.eigvalsh(S)
        out[c0 : c0 + chunk, 0] = w[:, 0]
        out[c0 : c0 + chunk, 1] = w[:, -1]
    return out


def _solve_active(
    phi: np.ndarray, alpha: np.ndarray, Z: np.ndarray, mask: np.ndarray, rank_tol: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""Rows :math:`x_r = \Phi_{J_r}^{+}(z_r + \alpha)_{J_r}`, ``J_r = mask[r]``; also the rows that failed.

    Rows are grouped by pattern. With few patterns each one gets an SVD pseudo-inverse;
    with many, the normal equations of every pattern are formed with one matrix product
    and solved in a batch, and the rare ill-conditioned patterns go through the SVD.
    """
    N, m = Z.shape
    n = phi.shape[1]
    X = np.zeros((N, n))
    if N == 0:
        return X, np.zeros(0, dtype=np.intp)
    first, inverse = _group_patterns(mask)
    U = first.size
    patterns = mask[first]
    sizes = patterns.sum(axis=1)
    order = np.argsort(inverse, kind="stable")
    starts = np.zeros(U + 1, dtype=np.intp)
    np.cumsum(np.bincount(inverse, minlength=U), out=starts[1:])
    failed = sizes < n
    exact = ~failed
    if U > _EXACT_PATTERN_LIMIT:
        table = _outer_table(phi)
        target = np.where(mask, Z + alpha, 0.0)
        chunk = max(1, _CHUNK_ELEMS // (n * n))
        exact[:] = False
        for p0 in range(0, U, chunk):
            p1 = min(U, p0 + chunk)
            S = (patterns[p0:p1].astype(float) @ table).reshape(-1, n, n)
            w = np.linalg.eigvalsh(S)
            good = (w[:, 0] > _NORMAL_EQ_MIN_RATIO * w[:, -1]) & ~failed[p0:p1]
            exact[p0:p1] = ~good & ~failed[p0:p1]
            rows = order[starts[p0] : starts[p1]]
            loc = inverse[rows] - p0
            keep = good[loc]
            rows, loc = rows[keep], loc[keep]
            for r0 in range(0, rows.size, chunk):
                rr, ll = rows[r0 : r0 + chunk], loc[r0 : r0 + chunk]
                X[rr] = np.linalg.solve(S[ll], (target[rr] @ phi)[:, :, None])[:, :, 0]
    for p in np.flatnonzero(exact):
        idx = np.flatnonzero(patterns[p])
        D = _dual_matrix(phi, idx, rank_tol)
        if D is None:
            failed[p] = True
            continue
        rows = order[starts[p] : starts[p + 1]]
        X[rows] = (Z[rows][:, idx] + alpha[idx]) @ D.T
    return X, np.flatnonzero(failed[inverse])


def _not_recoverable(phi: np.ndarray, mask: np.ndarray, failed: np.ndarray, N: int, rank_tol: float, name: str):
    r = int(failed[0])
    idx = np.flatnonzero(mask[r])
    rank = _spans_rows(phi, idx, rank_tol)[1]
    n = phi.shape[1]
    return NotInjectiveError(
        f"{name}: the positive coordinates J = {{i : z_i > 0}} do not span R^{n} in {failed.size} of {N} row(s); "
        f"first failing row {r} has |J| = {idx.size} (rank {rank}). These inputs cannot be recovered: either the "
        "layer is not injective there (the active sub-frame does not span) or the input lies exactly on a "
        "hyperplane <x, phi_i> = alpha_i, where an active element gives z_i = 0. No partial result is returned."
    )


# ---------------------------------------------------------------------------------
# ReLU-synthesis and ReLU-duals
# ---------------------------------------------------------------------------------


def relu_dual(layer: Any, J: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> np.ndarray:
    r"""The synthesis matrix of the canonical dual of :math:`\Phi_J` (Algorithm C3).

    Parameters
    ----------
    layer : ReLULayer, PReLULayer, Frame or array_like, shape (m, n)
        The layer (only its frame is used) or the frame itself.
    J : array_like of int, shape (k,), or bool mask, shape (m,)
        The index set; the order of the indices is the order of the columns.
    rank_tol : float, default 1e-10
        Relative singular-value tolerance for deciding that :math:`\Phi_J` spans (same
        test as :meth:`Frame.spans`).

    Returns
    -------
    ndarray, shape (n, k)
        :math:`\tilde D_J = S_J^{-1} C_J^T`, whose columns are the canonical dual vectors
        :math:`S_J^{-1}\phi_i`, ``i in J``. It equals the pseudo-inverse of :math:`C_J`
        and is computed with an SVD (more accurate than inverting :math:`S_J`).

    Raises
    ------
    NotAFrameError
        If :math:`\Phi_J` does not span :math:`\mathbb{R}^n` (then no left inverse exists).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.standard_basis(2), 0.0)
    >>> relu_dual(L, [1, 0]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    F = _frame_of(layer)
    rank_tol = as_positive(rank_tol, "rank_tol")
    idx = _index_set(J, F.m)
    D = _dual_matrix(F.vectors, idx, rank_tol)
    if D is None:
        rank = _spans_rows(F.vectors, idx, rank_tol)[1]
        raise NotAFrameError(
            f"Phi_J must span R^{F.n} to have a dual frame; got |J| = {idx.size} with rank {rank} for "
            f"J = {idx.tolist()[:20]}. Choose J inside an active set that spans (a basis or a facet)."
        )
    return D


def relu_synthesis(
    layer: ReLULayer, Z: Any, J: Any, *, dual: Any = None, check_dual: bool = True, rank_tol: float = DEFAULT_RANK_TOL
) -> np.ndarray:
    r"""The ReLU-synthesis operator :math:`\tilde D^\alpha_J` applied to ``Z`` (Def. "ReLU-synthesis").

    .. math:: \tilde D^\alpha_J(c) = \sum_{i \in J} (c_i + \alpha_i)\,\tilde\phi_i ,

    with :math:`(\tilde\phi_i)_{i \in J}` a dual frame of :math:`\Phi_J`. By Cor. "ReLU-dual II"
    this is a left inverse of the layer at every ``x`` with :math:`J \subseteq I_x^\alpha`.

    Parameters
    ----------
    layer : ReLULayer
        Gives :math:`\alpha` (and :math:`\Phi_J` for the default dual).
    Z : array_like, shape (m,) or (N, m)
        Coefficient vectors (the operator is defined on all of :math:`\mathbb{R}^m`; only
        the entries in ``J`` are used).
    J : array_like of int, shape (k,), or bool mask, shape (m,)
        The index set.
    dual : Frame or array_like, shape (n, k), optional
        A dual frame of :math:`\Phi_J`: a :class:`Frame` of ``k`` vectors (rows, in the
        order of ``J``) or the ``(n, k)`` synthesis matrix (columns), as returned by
        :func:`relu_dual`. Default: the canonical dual (pseudo-inverse).
    check_dual : bool, default True
        Check that ``dual`` is a dual frame (:math:`\tilde D\,C_J = I` up to ``1e-8``).
    rank_tol : float, default 1e-10
        Rank tolerance for the default dual.

    Returns
    -------
    ndarray, shape (n,) or (N, n)

    Raises
    ------
    NotAFrameError
        If ``dual`` is None and :math:`\Phi_J` does not span.
    InputError
        If ``dual`` is not a dual frame of :math:`\Phi_J` (with ``check_dual``).

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> x = np.array([0.3, -0.2])
    >>> np.allclose(relu_synthesis(L, L(x), [0, 1, 2]), x)
    True
    """
    L = as_layer(layer)
    phi, alpha = L.frame.vectors, L.alpha
    idx = _index_set(J, L.m)
    Zb, single = _as_rows(Z, L.m, "Z")
    if dual is None:
        D = relu_dual(L, idx, rank_tol=rank_tol)
    else:
        D = _as_dual(dual, L.n, idx.size, phi[idx], check=bool(check_dual))
    out = (Zb[:, idx] + alpha[idx]) @ D.T
    return out[0] if single else out


def reconstruct(
    layer: ReLULayer, Z: Any, *, bank: LeftInverseBank | None = None, rank_tol: float = DEFAULT_RANK_TOL,
    zero_tol: float = 0.0,
) -> np.ndarray:
    r"""Recover the inputs from outputs of a ReLU layer (Algorithm C4, batched).

    For each output ``z`` the index set :math:`J = \{i : z_i > 0\}` is read off, and
    :math:`x = \Phi_J^{+}(z_J + \alpha_J)` (the canonical ReLU-dual, Thm "ReLU-dual I" with
    the active set itself). Rows are grouped by their pattern ``J`` so that each distinct
    pattern costs one factorization; with many distinct patterns their normal equations are
    solved in one batch (ill-conditioned ones through an SVD). With a ``bank``, rows that
    contain one of its index sets use its precomputed dual instead (Cor. "ReLU-dual II").

    Parameters
    ----------
    layer : ReLULayer
    Z : array_like, shape (m,) or (N, m)
        Outputs :math:`C_\alpha x` (non-negative).
    bank : LeftInverseBank, optional
        Precomputed left inverses of the same layer.
    rank_tol : float, default 1e-10
        Relative singular-value tolerance for deciding that :math:`\Phi_J` spans.
    zero_tol : float, default 0
        Entries with :math:`|z_i| \le` ``zero_tol`` count as zero (inactive). Exact outputs of the
        layer need none; outputs recovered through floating-point arithmetic (for instance by
        inverting the next layer of a network) carry zeros as ``±1e-16``, which would otherwise be
        read as active coordinates or rejected as negative.

    Returns
    -------
    ndarray, shape (n,) or (N, n)

    Raises
    ------
    NotInjectiveError
        If for some row the positive coordinates do not span :math:`\mathbb{R}^n` (the
        message gives the number of such rows and the first one). An element with
        :math:`\langle x, \phi_i\rangle = \alpha_i` exactly is active but gives ``z_i = 0``:
        it cannot be read from the output, see the module notes. Nothing is returned then.
    InputError
        If ``Z`` has negative entries or the bank belongs to another layer.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> X = rf.Ball(2).sample(5, seed=0)
    >>> np.allclose(reconstruct(L, L(X)), X)
    True
    """
    L = as_layer(layer)
    rank_tol = as_positive(rank_tol, "rank_tol")
    zero_tol = as_nonnegative(zero_tol, "zero_tol")
    if bank is not None:
        if not isinstance(bank, LeftInverseBank):
            raise InputError(f"bank must be a LeftInverseBank; got {type(bank).__name__}.")
        bank._check_layer(L)
        return bank.reconstruct(Z, rank_tol=rank_tol, zero_tol=zero_tol)
    Zb, single = _as_outputs(Z, L.m, "Z", zero_tol)
    mask = Zb > 0
    X, failed = _solve_active(L.frame.vectors, L.alpha, Zb, mask, rank_tol)
    if failed.size:
        raise _not_recoverable(L.frame.vectors, mask, failed, Zb.shape[0], rank_tol, "Z")
    return X[0] if single else X


# ---------------------------------------------------------------------------------
# the bank of left inverses
# ---------------------------------------------------------------------------------


def _as_index_sets(index_sets: Any, m: int) -> list[np.ndarray]:
    """Sorted, de-duplicated index sets from a bool matrix, an int matrix or an iterable of sets."""
    if isinstance(index_sets, np.ndarray) or (hasattr(index_sets, "detach") and hasattr(index_sets, "cpu")):
        arr = np.asarray(index_sets.detach().cpu().numpy() if hasattr(index_sets, "detach") else index_sets)
        if arr.ndim == 2 and arr.dtype == bool:
            if arr.shape[1] != m:
                raise DimensionMismatchError(
                    f"index_sets as a boolean matrix must have {m} columns; got shape {arr.shape}."
                )
            rows = [np.flatnonzero(r) for r in np.unique(arr, axis=0)]
            return [r for r in rows]
        if arr.ndim == 2 and np.issubdtype(arr.dtype, np.integer):
            if arr.size and (arr.min() < 0 or arr.max() >= m):
                raise InputError(f"index_sets must contain indices in [0, {m}); got values in [{arr.min()}, {arr.max()}].")
            srt = np.sort(arr, axis=1)
            if srt.shape[1] > 1 and np.any(srt[:, 1:] == srt[:, :-1]):
                r = int(np.flatnonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1))[0])
                raise InputError(f"index_sets[{r}] must not repeat an index; got {arr[r].tolist()}.")
            return [r.astype(np.intp) for r in np.unique(srt, axis=0)]
        if arr.ndim != 1 or arr.dtype != object:
            raise InputError(
                f"index_sets must be a (K, m) bool matrix, a (K, s) int matrix or a list of index sets; "
                f"got an array of shape {arr.shape} and dtype {arr.dtype}."
            )
    if isinstance(index_sets, (str, bytes)) or not isinstance(index_sets, Iterable):
        raise InputError(f"index_sets must be a list of index sets; got {type(index_sets).__name__}.")
    seen: dict[tuple, np.ndarray] = {}
    for k, J in enumerate(index_sets):
        idx = np.sort(_index_set(J, m, f"index_sets[{k}]"))
        seen.setdefault(tuple(idx.tolist()), idx)
    return list(seen.values())


class LeftInverseBank:
    r"""Left inverses of a ReLU layer precomputed for a list of index sets (Cor. "ReLU-dual II").

    For every index set ``J`` with :math:`\Phi_J` a frame, the canonical dual synthesis
    matrix :math:`\tilde D_J` is computed once. An output ``z`` is then reconstructed with
    any ``J`` of the bank contained in :math:`\{i : z_i > 0\}`: exact by Cor. "ReLU-dual II",
    and only a small matrix-vector product per row. The paper suggests the most correlated
    bases :math:`J^*(x)` or the facets of the inscribing polytope as index sets
    (:meth:`from_most_correlated_bases`, :meth:`from_facets`).

    Parameters
    ----------
    layer : ReLULayer
    index_sets : list of index sets, or ndarray of shape (K, s) (int) or (K, m) (bool)
        Each set is a collection of indices or a bool mask of length ``m``. Duplicates
        are merged; every set must span.
    rank_tol : float, default 1e-10
        Relative singular-value tolerance for deciding that a set spans.

    Attributes
    ----------
    layer : ReLULayer
    index_sets : tuple of ndarray
        The sets (sorted indices), best conditioned first (largest lower frame bound).
    lower_bounds, upper_bounds : ndarray, shape (K,)
        Optimal frame bounds :math:`A_J, B_J` of each sub-frame; :math:`1/A_J` is the
        local stability constant of its reconstruction (Prop. "local stability").

    Raises
    ------
    NotAFrameError
        If an index set does not span :math:`\mathbb{R}^n` (the message names it).

    Notes
    -----
    Choosing a set for a row: first its own top-``n`` set (the ``n`` largest
    :math:`z_i + \alpha_i` among the positive coordinates, which is :math:`J^*(x)` for a
    full-spark frame whenever :math:`J^*(x) \subseteq I_x^\alpha`) is looked up by key in
    :math:`O(\log K)`; then, for a bank small enough (``K * ceil(m / 64) <= 2048`` by default),
    every set is tested for containment with bitwise operations and the best-conditioned
    covering set is used. Rows no set covers are solved with their own active set, as in
    :func:`reconstruct`.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> bank = LeftInverseBank(L, [[0, 1], [1, 2], [0, 2]])
    >>> len(bank)
    3
    >>> X = rf.Ball(2).sample(100, seed=1)
    >>> np.allclose(bank.reconstruct(L(X)), X)
    True
    """

    def __init__(self, layer: ReLULayer, index_sets: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> None:
        L = as_layer(layer)
        rank_tol = as_positive(rank_tol, "rank_tol")
        phi = L.frame.vectors
        m, n = phi.shape
        sets = _as_index_sets(index_sets, m)
        if not sets:
            raise InputError("index_sets must contain at least one index set; got none.")
        K = len(sets)
        sizes = np.array([s.size for s in sets], dtype=np.intp)
        smax = int(sizes.max())
        cols = np.zeros((K, smax), dtype=np.intp)
        duals = np.zeros((K, n, smax))
        lower = np.empty(K)
        upper = np.empty(K)
        normalized = L.frame.is_normalized()
        for size in np.unique(sizes):
            ks = np.flatnonzero(sizes == size)
            if size < n:
                k = int(ks[0])
                raise NotAFrameError(
                    f"index_sets[{k}] must span R^{n}; got {size} < {n} indices {sets[k].tolist()}."
                )
            idx = np.stack([sets[k] for k in ks])
            P = phi[idx]
            u, s, vt = np.linalg.svd(P, full_matrices=False)
            sv = s if normalized else np.linalg.svd(P / L.frame.norms[idx][..., None], compute_uv=False)
            bad = sv[:, -1] <= rank_tol * sv[:, 0]
            if np.any(bad):
                k = int(ks[np.flatnonzero(bad)[0]])
                rank = _spans_rows(phi, sets[k], rank_tol)[1]
                raise NotAFrameError(
                    f"index_sets[{k}] must span R^{n}; got rank {rank} for {sets[k].tolist()[:20]}. "
                    "Remove it or pass only bases/facets of the frame."
                )
            cols[ks, :size] = idx
            duals[ks, :, :size] = np.swapaxes(vt, 1, 2) @ (np.swapaxes(u, 1, 2) / s[:, :, None])
            lower[ks] = s[:, -1] ** 2
            upper[ks] = s[:, 0] ** 2
        perm = np.argsort(-lower, kind="stable")
        self._layer = L
        self._rank_tol = rank_tol
        self._sets = tuple(sets[k] for k in perm)
        self._sizes = sizes[perm]
        self._cols = cols[perm]
        self._duals = duals[perm]
        self._lower = lower[perm]
        self._upper = upper[perm]
        members = np.zeros((K, m), dtype=bool)
        np.put_along_axis(members, self._cols, True, axis=1)
        members[:, 0] = False
        members[self._cols[:, 0] == 0, 0] = True  # padding uses index 0; restore where 0 is a member
        self._members = members
        self._member_words = _words(members)
        basis = np.flatnonzero(self._sizes == n)
        keys = _keys(members[basis])
        order = np.argsort(keys, kind="stable")
        self._key_sorted = keys[order]
        self._key_bank = basis[order]
        for arr in (self._lower, self._upper):
            arr.setflags(write=False)

    # ----------------------------------------------------------- constructors
    @classmethod
    def from_most_correlated_bases(
        cls, layer: ReLULayer, X: Any, *, rank_tol: float = DEFAULT_RANK_TOL
    ) -> LeftInverseBank:
        r"""A bank of the distinct most correlated bases :math:`J^*(x)` over the samples ``X``.

        Parameters
        ----------
        layer : ReLULayer
        X : array_like, shape (N, n)
            Samples of the data domain; :func:`relu_frames_nb.bias.correlated.most_correlated_basis`
            gives each :math:`J^*(x)`.
        rank_tol : float, default 1e-10

        Returns
        -------
        LeftInverseBank
            With one set per distinct most correlated basis.

        Examples
        --------
        >>> import numpy as np, relu_frames_nb as rf
        >>> L = rf.ReLULayer(rf.zoo.random_sphere(12, 3, seed=0), 0.0)
        >>> X = rf.Sphere(3).sample(200, seed=1)
        >>> bank = LeftInverseBank.from_most_correlated_bases(L, X)
        >>> bool(np.all(bank.assign(L(X)) >= 0)), np.allclose(bank.reconstruct(L(X)), X)
        (True, True)
        """
        from .bias.correlated import most_correlated_basis  # lazy: optional sibling module

        L = as_layer(layer)
        J = most_correlated_basis(L.frame, X)
        J = np.asarray(J[0] if isinstance(J, tuple) else J)
        if J.ndim == 1:
            J = J[None, :]
        return cls(L, J.astype(np.intp), rank_tol=rank_tol)

    @classmethod
    def from_facets(cls, layer: ReLULayer, *, rank_tol: float = DEFAULT_RANK_TOL, **kwargs: Any) -> LeftInverseBank:
        r"""A bank of the facets :math:`I_F` of the inscribing polytope :math:`P_\Phi`.

        If :math:`\Phi` is omnidirectional, every ``x`` lies in the cone of some facet ``F``
        and :math:`\tilde D^\alpha_{I_F}` is a left inverse at ``x`` whenever
        :math:`I_F \subseteq I_x^\alpha` (Cor. after "ReLU-dual II"), e.g. for a bias from
        polytope bias estimation. Facets whose hyperplane passes through 0 (possible only
        when the frame is not omnidirectional) do not span and are left out; rows outside
        every facet set are solved with their own active set.

        Parameters
        ----------
        layer : ReLULayer
        rank_tol : float, default 1e-10
        **kwargs
            Passed to :func:`relu_frames_nb.bias.polytope.inscribing_polytope`
            (``facets="exact"`` or ``"simplices"``, ``max_facets``, ``tol``).

        Returns
        -------
        LeftInverseBank
            With one set per facet (the indices of its vertices).

        Examples
        --------
        >>> import numpy as np, relu_frames_nb as rf
        >>> L = rf.ReLULayer(rf.zoo.platonic("icosahedron"), 0.0)
        >>> bank = LeftInverseBank.from_facets(L)
        >>> len(bank)
        20
        >>> X = rf.Sphere(3).sample(50, seed=0)
        >>> bool(np.all(bank.assign(L(X)) >= 0)), np.allclose(bank.reconstruct(L(X)), X)
        (True, True)
        """
        from .bias.polytope import inscribing_polytope  # lazy: sibling module

        L = as_layer(layer)
        P = inscribing_polytope(L.frame, **kwargs)
        keep = np.abs(P.offsets) > P.tol
        sets = [f for f, k in zip(P.facets, keep) if k]
        if not sets:
            raise NotAFrameError("the facets of the inscribing polytope must include a spanning one; got none.")
        return cls(L, sets, rank_tol=rank_tol)

    # -------------------------------------------------------------- accessors
    @property
    def layer(self) -> ReLULayer:
        """The layer the left inverses belong to."""
        return self._layer

    @property
    def index_sets(self) -> tuple[np.ndarray, ...]:
        """The index sets, best conditioned first."""
        return self._sets

    @property
    def lower_bounds(self) -> np.ndarray:
        """Lower frame bounds :math:`A_J`, shape ``(K,)``."""
        return self._lower

    @property
    def upper_bounds(self) -> np.ndarray:
        """Upper frame bounds :math:`B_J`, shape ``(K,)``."""
        return self._upper

    def dual(self, k: int) -> np.ndarray:
        """The ``(n, |J_k|)`` synthesis matrix of the ``k``-th set (columns follow ``index_sets[k]``)."""
        k = as_count(k, "k", minimum=0)
        if k >= len(self):
            raise InputError(f"k must be < {len(self)} (the number of sets); got {k}.")
        return np.array(self._duals[k, :, : self._sizes[k]])

    def __len__(self) -> int:
        return len(self._sets)

    def __repr__(self) -> str:
        return f"LeftInverseBank({len(self)} sets, sizes {self._sizes.min()}..{self._sizes.max()}, layer={self._layer!r})"

    def _check_layer(self, L: ReLULayer) -> None:
        if L is self._layer:
            return
        if L.frame != self._layer.frame or not np.array_equal(L.alpha, self._layer.alpha):
            raise InputError(
                "bank must belong to the same layer (frame and bias); got a bank built for "
                f"{self._layer!r} and the layer {L!r}. Build the bank from this layer."
            )

    # ------------------------------------------------------------------- work
    def assign(self, Z: Any, *, scan: bool | None = None) -> np.ndarray:
        r"""For each output, the bank set used to reconstruct it.

        Parameters
        ----------
        Z : array_like, shape (m,) or (N, m)
            Outputs of the layer.
        scan : bool, optional
            Test every set for containment in :math:`\{i : z_i > 0\}` (bitwise, cost
            ``N * K * ceil(m / 64)``). Default: only when ``K * ceil(m / 64) <= 2048``. The key
            lookup of each row's own top-``n`` set is always done.

        Returns
        -------
        ndarray of int, shape (N,) (or an int for one output)
            Index into :attr:`index_sets` (best conditioned covering set), or ``-1`` where
            no set is contained in the positive coordinates.
        """
        L = self._layer
        Zb, single = _as_outputs(Z, L.m, "Z")
        choice = self._assign(Zb, Zb > 0, scan)
        return int(choice[0]) if single else choice

    def _assign(self, Zb: np.ndarray, mask: np.ndarray, scan: bool | None) -> np.ndarray:
        N, m = Zb.shape
        n = self._layer.n
        K = len(self)
        choice = np.full(N, -1, dtype=np.intp)
        if N == 0:
            return choice
        counts = mask.sum(axis=1)
        if self._key_sorted.size:
            rows = np.flatnonzero(counts >= n)
            chunk = max(1, _CHUNK_ELEMS // m)
            for r0 in range(0, rows.size, chunk):
                rr = rows[r0 : r0 + chunk]
                vals = np.where(mask[rr], Zb[rr] + self._layer.alpha, -np.inf)
                top = np.argpartition(-vals, n - 1, axis=1)[:, :n]
                cand = np.zeros((rr.size, m), dtype=bool)
                np.put_along_axis(cand, top, True, axis=1)
                keys = _keys(cand)
                pos = np.minimum(np.searchsorted(self._key_sorted, keys), self._key_sorted.size - 1)
                hit = self._key_sorted[pos] == keys
                choice[rr[hit]] = self._key_bank[pos[hit]]
        if scan is None:
            scan = K * self._member_words.shape[1] <= _SCAN_AUTO_LIMIT
        if scan:
            rows = np.flatnonzero((choice < 0) & (counts >= self._sizes.min()))
            off = ~_words(mask[rows])
            bank = self._member_words
            chunk = max(1, _CHUNK_ELEMS // K)
            for r0 in range(0, rows.size, chunk):
                missing = np.zeros((min(chunk, rows.size - r0), K), dtype=bool)
                for w in range(bank.shape[1]):
                    missing |= (off[r0 : r0 + chunk, w, None] & bank[None, :, w]) != 0
                covered = ~missing
                has = covered.any(axis=1)
                choice[rows[r0 : r0 + chunk][has]] = np.argmax(covered[has], axis=1)
        return choice

    def _apply(self, Zb: np.ndarray, choice: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        alpha = self._layer.alpha
        chunk = max(1, _CHUNK_ELEMS // (self._duals.shape[1] * self._duals.shape[2]))
        for r0 in range(0, rows.size, chunk):
            rr = rows[r0 : r0 + chunk]
            k = choice[rr]
            vals = np.take_along_axis(Zb[rr] + alpha, self._cols[k], axis=1)
            out[rr] = np.matmul(self._duals[k], vals[:, :, None])[:, :, 0]

    def reconstruct(self, Z: Any, *, scan: bool | None = None, rank_tol: float | None = None,
                    zero_tol: float = 0.0) -> np.ndarray:  # fmt: skip
        r"""Recover the inputs of the outputs ``Z`` with the bank's left inverses.

        Parameters
        ----------
        Z : array_like, shape (m,) or (N, m)
            Outputs :math:`C_\alpha x` of the bank's layer.
        scan : bool, optional
            See :meth:`assign`.
        rank_tol : float, optional
            Rank tolerance of the fall-back solve (default: the bank's).
        zero_tol : float, default 0
            Entries with absolute value at most this count as zero (see :func:`reconstruct`).

        Returns
        -------
        ndarray, shape (n,) or (N, n)

        Raises
        ------
        NotInjectiveError
            If a row is covered by no set and its positive coordinates do not span.
        """
        L = self._layer
        rank_tol = self._rank_tol if rank_tol is None else as_positive(rank_tol, "rank_tol")
        Zb, single = _as_outputs(Z, L.m, "Z", as_nonnegative(zero_tol, "zero_tol"))
        mask = Zb > 0
        choice = self._assign(Zb, mask, scan)
        X = np.empty((Zb.shape[0], L.n))
        self._apply(Zb, choice, np.flatnonzero(choice >= 0), X)
        rest = np.flatnonzero(choice < 0)
        if rest.size:
            Xr, failed = _solve_active(L.frame.vectors, L.alpha, Zb[rest], mask[rest], rank_tol)
            if failed.size:
                raise _not_recoverable(L.frame.vectors, mask, rest[failed], Zb.shape[0], rank_tol, "Z")
            X[rest] = Xr
        return X[0] if single else X


# ---------------------------------------------------------------------------------
# the ReLU frame algorithm
# ---------------------------------------------------------------------------------


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
    tol: float = 1e-12,
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
    tol : float, default 1e-12
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
    Zb, single = _as_outputs(z, m, "z")
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
    first, inverse = _group_patterns(mask) if N else (np.zeros(0, np.intp), np.zeros(0, np.intp))
    patterns = mask[first]
    spec = _pattern_spectra(phi, patterns)
    rho = _pattern_spectra(phi, patterns, lam, lam0)[:, 1]
    Ax = np.maximum(spec[:, 0], 0.0)
    span = spec[:, 0] > _NORMAL_EQ_MIN_RATIO * spec[:, 1]
    for p in np.flatnonzero(~span):
        span[p] = _spans_rows(phi, np.flatnonzero(patterns[p]), rank_tol)[0]
    failed = np.flatnonzero(~span[inverse])
    if failed.size:
        raise _not_recoverable(phi, mask, failed, N, rank_tol, "z")
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


# ---------------------------------------------------------------------------------
# PReLU
# ---------------------------------------------------------------------------------


def _as_gamma(gamma: Any, m: int) -> np.ndarray:
    g = to_float_array(gamma, "gamma")
    if g.ndim == 0:
        g = np.full(m, float(g))
    elif g.shape != (m,):
        raise DimensionMismatchError(f"gamma must be a scalar or a vector of length {m}; got shape {g.shape}.")
    bad = g[(g <= 0) | (g > 1)]
    if bad.size:
        raise InputError(
            f"gamma must lie in (0, 1] (PReLU_gamma(s) = max(gamma*s, s)); got {bad[0]:g}. "
            "gamma = 0 is the ReLU (use ReLULayer); the paper's PReLU needs 0 < gamma <= 1."
        )
    return g


class PReLULayer(AffineLayer):
    r"""The PReLU layer :math:`x \mapsto \max(\gamma s, s)`, :math:`s = \Phi x - \alpha` (PReLU excursion).

    The activation is injective, so the layer is injective iff :math:`\Phi` is a frame,
    which :class:`Frame` guarantees.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
    alpha : float or array_like, shape (m,), default 0
        The bias (subtracted, paper convention).
    gamma : float or array_like, shape (m,), default 0.25
        Slope for negative inputs, in ``(0, 1]`` (PyTorch's initial value is 0.25).

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> P = PReLULayer(rf.zoo.mercedes_benz(), 0.1, 0.5)
    >>> x = np.array([0.3, -0.2])
    >>> np.allclose(P.inverse(P(x)), x)
    True
    """

    __slots__ = ("_gamma", "_dual")

    def __init__(self, frame: Any, alpha: Any = 0.0, gamma: Any = 0.25) -> None:
        super().__init__(frame, alpha)
        g = _as_gamma(gamma, self._frame.m)
        g.setflags(write=False)
        self._gamma = g
        self._dual: np.ndarray | None = None

    @property
    def gamma(self) -> np.ndarray:
        """The negative slopes, shape ``(m,)`` (read-only)."""
        return self._gamma

    def __repr__(self) -> str:
        g = self._gamma
        gs = f"{g[0]:g}" if np.all(g == g[0]) else f"[{g.min():.3g}, {g.max():.3g}]"
        return f"PReLULayer(m={self.m}, n={self.n}, gamma={gs})"

    def __call__(self, X: Any) -> np.ndarray:
        """Batched forward pass ``max(gamma * s, s)``: shape ``(m,)`` or ``(N, m)``."""
        s = self.preactivation(X)
        return np.where(s >= 0, s, self._gamma * s)

    def inverse(self, Z: Any, *, dual: Any = None, check_dual: bool = True) -> np.ndarray:
        """The left inverse of the excursion; see :func:`prelu_inverse`."""
        return prelu_inverse(self, Z, dual=dual, check_dual=check_dual)

    def _canonical(self) -> np.ndarray:
        if self._dual is None:
            self._dual = np.linalg.pinv(self._frame.vectors)
        return self._dual


def prelu_inverse(layer: PReLULayer, Z: Any, *, dual: Any = None, check_dual: bool = True) -> np.ndarray:
    r"""Invert a PReLU layer with a dual frame of the whole frame (PReLU excursion).

    .. math::
        \tilde D^\alpha_\gamma(c) = \sum_{i \in I_x} (c_i + \alpha_i)\,\tilde\phi_i
        + \sum_{i \notin I_x} (\gamma_i^{-1} c_i + \alpha_i)\,\tilde\phi_i ,

    where :math:`I_x = \{i : c_i \ge 0\}` (the sign of ``c`` is that of the pre-activation).

    Parameters
    ----------
    layer : PReLULayer
    Z : array_like, shape (m,) or (N, m)
        Outputs of the layer.
    dual : Frame or array_like, shape (n, m), optional
        A dual frame of :math:`\Phi` (Frame of rows, or the ``(n, m)`` synthesis matrix);
        default the canonical dual.
    check_dual : bool, default True
        Check that ``dual`` is a dual frame.

    Returns
    -------
    ndarray, shape (n,) or (N, n)

    Notes
    -----
    Erratum: the paper prints :math:`\gamma^{-1}(c_i + \alpha_i)` for the inactive
    coefficients. Since :math:`c_i = \gamma(\langle x,\phi_i\rangle - \alpha_i)` there,
    :math:`\langle x, \phi_i\rangle = \gamma^{-1}c_i + \alpha_i`; the printed form is
    correct only for :math:`\alpha_i = 0` or :math:`\gamma = 1`.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> P = PReLULayer(rf.zoo.random_sphere(6, 3, seed=0), 0.2, 0.1)
    >>> X = rf.Ball(3).sample(4, seed=0)
    >>> np.allclose(prelu_inverse(P, P(X)), X)
    True
    """
    if not isinstance(layer, PReLULayer):
        raise InputError(
            f"layer must be a PReLULayer; got {type(layer).__name__}. Build one with PReLULayer(frame, alpha, gamma)."
        )
    Zb, single = _as_rows(Z, layer.m, "Z")
    if dual is None:
        D = layer._canonical()
    else:
        D = _as_dual(dual, layer.n, layer.m, layer.frame.vectors, check=bool(check_dual))
    coeff = np.where(Zb >= 0, Zb, Zb / layer.gamma) + layer.alpha
    out = coeff @ D.T
    return out[0] if single else out
