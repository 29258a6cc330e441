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
* :func:`prelu_inverse` (the PReLU excursion; the layer is :class:`~relu_frames_nb.layer.PReLULayer`).

Related modules (their public names are re-exported here):
:mod:`~relu_frames_nb.paper.left_inverse` (:class:`LeftInverseBank`: left inverses computed in advance
for a list of index sets, e.g. most correlated bases or facets of the inscribing polytope) and
:mod:`~relu_frames_nb.paper.frame_algorithm` (:func:`relu_frame_algorithm`, Prop. "ReLU frame algorithm").

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

from typing import Any

import numpy as np

from .._util.patterns import as_dual, dual_matrix, not_recoverable, solve_active, spans_rows
from .._util.validation import as_index_set, as_nonnegative, as_outputs, as_positive, as_rows
from ..errors import InputError, NotAFrameError
from ..frames import DEFAULT_RANK_TOL, Frame, as_frame
from ..layer import PReLULayer, ReLULayer, as_layer
from .frame_algorithm import FrameAlgorithmResult, relu_frame_algorithm
from .left_inverse import LeftInverseBank

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


# ---------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------


def _frame_of(obj: Any, name: str = "layer") -> Frame:
    if isinstance(obj, (ReLULayer, PReLULayer)):
        return obj.frame
    return as_frame(obj, name)



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
    idx = as_index_set(J, F.m)
    D = dual_matrix(F.vectors, idx, rank_tol)
    if D is None:
        rank = spans_rows(F.vectors, idx, rank_tol)[1]
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
    idx = as_index_set(J, L.m)
    Zb, single = as_rows(Z, L.m, "Z")
    if dual is None:
        D = relu_dual(L, idx, rank_tol=rank_tol)
    else:
        D = as_dual(dual, L.n, idx.size, phi[idx], check=bool(check_dual))
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
    Zb, single = as_outputs(Z, L.m, "Z", zero_tol)
    mask = Zb > 0
    X, failed = solve_active(L.frame.vectors, L.alpha, Zb, mask, rank_tol)
    if failed.size:
        raise not_recoverable(L.frame.vectors, mask, failed, Zb.shape[0], rank_tol, "Z")
    return X[0] if single else X



# ---------------------------------------------------------------------------------
# PReLU
# ---------------------------------------------------------------------------------


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
    return layer.inverse(Z, dual=dual, check_dual=check_dual)
