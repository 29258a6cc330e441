r"""ReLU layers :math:`C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)`, and the PReLU layer of the excursion.

The paper subtracts the bias; PyTorch's ``nn.Linear`` adds it. :meth:`ReLULayer.from_weights`
converts: ``alpha = -b``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._util.patterns import as_dual
from ._util.validation import as_bias, as_matrix, as_points, as_rows, refuse_bool_bias, to_float_array
from .errors import DimensionMismatchError, InputError, NotAFrameError
from .frames import Frame, as_frame

__all__ = ["AffineLayer", "ReLULayer", "PReLULayer", "as_layer", "as_weights", "CONVENTION_HELP"]


class AffineLayer:
    r"""What every layer :math:`x \mapsto \sigma(\Phi x - \alpha)` shares: weights, bias, shapes.

    Subclasses define the activation in ``__call__``. Extra constructor arguments of a
    subclass (e.g. PReLU's ``gamma``) pass through :meth:`from_weights`.
    """

    __slots__ = ("_weights", "_frame", "_not_frame", "_alpha")

    #: whether the layer is only defined for a frame (PReLU: its inverse needs one)
    _needs_frame = False

    def __init__(self, frame: Any, alpha: Any = 0.0) -> None:
        if frame is None:
            raise InputError("frame must be a Frame or an (m, n) array of weights; got None.")
        weights = frame.vectors if isinstance(frame, Frame) else as_matrix(frame, "weights")
        self._frame: Frame | None = None
        self._not_frame = ""
        try:
            self._frame = as_frame(frame)
        except NotAFrameError as exc:
            if self._needs_frame:
                raise
            self._not_frame = str(exc).split(". ", 1)[0]
        if self._frame is not None:
            weights = self._frame.vectors
        else:
            weights = np.array(weights)
            weights.setflags(write=False)
        self._weights = weights
        a = as_bias(alpha, weights.shape[0], "alpha")
        a.setflags(write=False)
        self._alpha = a

    @classmethod
    def from_weights(cls, W: Any, b: Any = None, *args: Any, **kwargs: Any):
        """A layer from PyTorch-convention weights ``sigma(W x + b)``: ``alpha = -b``.

        ``W`` may have any shape and rank (a trained layer); see :attr:`is_frame`.
        """
        W_arr = W.vectors if isinstance(W, Frame) else as_matrix(W, "W")
        if b is None:
            return cls(W, 0.0, *args, **kwargs)
        refuse_bool_bias(b, "b")
        b_arr = to_float_array(b, "b")
        m = W_arr.shape[0]
        if b_arr.ndim != 1 or b_arr.shape[0] != m:
            raise DimensionMismatchError(f"b must be a vector of length {m} (one per row of W); got shape {b_arr.shape}.")
        return cls(W, -b_arr, *args, **kwargs)

    def to_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """``(W, b)`` in the PyTorch convention (``b = -alpha``)."""
        return np.array(self._weights), -np.array(self._alpha)

    @property
    def weights(self) -> np.ndarray:
        """The weights as a read-only ``(m, n)`` array (rows), a frame or not."""
        return self._weights

    @property
    def is_frame(self) -> bool:
        r"""Whether the rows are a frame: non-zero and spanning :math:`\mathbb{R}^n`.

        Any weights make a layer (a trained layer may have fewer rows than inputs, dead units
        or a rank deficiency), and :func:`~relu_frames_nb.check` answers for any of them. What
        is stated for frames (reconstruction formulas, bias estimates, the frame bounds) asks
        for :attr:`frame`, which raises :class:`~relu_frames_nb.errors.NotAFrameError` when it is
        called on weights that are not one.
        """
        return self._frame is not None

    @property
    def frame(self) -> Frame:
        """The frame (weights); raises :class:`NotAFrameError` when the weights are not a frame."""
        if self._frame is None:
            raise NotAFrameError(
                f"this layer's weights ({self.m} x {self.n}) are not a frame: {self._not_frame}. Reconstruction "
                "formulas and bias estimates need a frame; rf.check(layer, K) answers for any weights (and "
                "rf.local_invertibility(layer, X) says where the active rows span the data)."
            )
        return self._frame

    @property
    def alpha(self) -> np.ndarray:
        """The bias (paper convention, read-only)."""
        return self._alpha

    @property
    def m(self) -> int:
        """Output dimension (number of rows of the weights)."""
        return int(self._weights.shape[0])

    @property
    def n(self) -> int:
        """Input dimension."""
        return int(self._weights.shape[1])

    def preactivation(self, X: Any) -> np.ndarray:
        r""":math:`\langle x, \phi_i\rangle - \alpha_i`, shape ``(m,)`` or ``(N, m)``."""
        pts, single = as_points(X, self.n, "X")
        out = pts @ self._weights.T - self._alpha
        return out[0] if single else out


class ReLULayer(AffineLayer):
    r"""The map :math:`x \mapsto (\max(0, \langle x, \phi_i\rangle - \alpha_i))_{i=1}^m`.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The weights; rows are the frame vectors.
    alpha : float or array_like, shape (m,)
        The bias, subtracted (paper convention). A scalar gives a constant bias.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    >>> L([0.0, 1.0]).tolist()
    [1.0, 0.0, 0.0]
    """

    __slots__ = ()

    def __repr__(self) -> str:
        a = self._alpha
        bias = f"{a[0]:g} (constant)" if np.all(a == a[0]) else f"[{a.min():.3g}, {a.max():.3g}]"
        kind = "" if self.is_frame else ", not a frame"
        return f"ReLULayer(m={self.m}, n={self.n}, alpha={bias}{kind})"

    def with_bias(self, alpha: Any) -> ReLULayer:
        """The same weights with another bias."""
        return ReLULayer(self._weights if self._frame is None else self._frame, alpha)

    def __call__(self, X: Any) -> np.ndarray:
        """Batched forward pass: shape ``(m,)`` for one point, ``(N, m)`` for ``N`` points."""
        return np.maximum(self.preactivation(X), 0.0)

    def active_set(self, X: Any, *, tol: float = 0.0) -> np.ndarray:
        r"""Active sets :math:`I_x^\alpha = \{i : \langle x, \phi_i\rangle \ge \alpha_i - tol\}` as a bool mask."""
        if tol < 0:
            raise InputError(f"tol must be non-negative; got {tol}.")
        return self.preactivation(X) >= -tol

    def normalized(self) -> ReLULayer:
        r"""The equivalent layer with a unit-norm frame and bias :math:`\alpha_i / \|\phi_i\|` (Lemma "normalized")."""
        return ReLULayer(self.frame.normalized(), self.frame.normalize_bias(self._alpha))


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

    _needs_frame = True

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
        """The left inverse of the excursion (with the erratum; see :func:`~relu_frames_nb.paper.reconstruction.prelu_inverse`).

        ``dual`` is a dual frame of the whole frame (a :class:`Frame` of its vectors or the
        ``(n, m)`` synthesis matrix; default the canonical dual), checked unless ``check_dual=False``.
        """
        Zb, single = as_rows(Z, self.m, "Z")
        D = self._canonical() if dual is None else as_dual(dual, self.n, self.m, self._frame.vectors, check=bool(check_dual))
        coeff = np.where(Zb >= 0, Zb, Zb / self._gamma) + self._alpha
        out = coeff @ D.T
        return out[0] if single else out

    def _canonical(self) -> np.ndarray:
        if self._dual is None:
            self._dual = np.linalg.pinv(self._frame.vectors)
        return self._dual



def as_layer(L: Any, name: str = "layer") -> ReLULayer:
    """Return ``L`` if it is a :class:`ReLULayer`; refuse anything else with a clear message."""
    if isinstance(L, ReLULayer):
        return L
    raise InputError(
        f"{name} must be a ReLULayer; got {type(L).__name__}. Build one with rf.ReLULayer(frame, alpha) "
        "or rf.ReLULayer.from_weights(W, b)."
    )


#: what to say when a raw pair arrives where its bias convention would have to be guessed
CONVENTION_HELP = (
    "a raw (W, bias) pair does not say whether the bias is added (PyTorch: ReLU(W x + b)) or subtracted (the paper: "
    "ReLU(W x - alpha)); build rf.ReLULayer(W, alpha) for the paper's convention or rf.ReLULayer.from_weights(W, b) "
    "for PyTorch's, and rf.Network.from_weights([(W1, b1), ...]) for a network of PyTorch-convention pairs"
)


def as_weights(layer: Any, name: str = "layer") -> tuple[np.ndarray, np.ndarray]:
    """``(W, alpha)`` (paper convention) of a :class:`ReLULayer` or of a one-layer network.

    A one-layer :class:`~relu_frames_nb.Network` (``rf.Network.from_weights([(W, b)])``) may
    have weights whose rows do not span (a rank-deficient trained layer). A raw pair is
    refused: its bias convention would have to be guessed.
    """
    if isinstance(layer, ReLULayer):
        return np.array(layer.weights), np.array(layer.alpha)
    weights = getattr(layer, "weights", None)
    if isinstance(weights, tuple) and len(weights) == 1 and len(weights[0]) == 2:
        W, b = weights[0]
        return np.array(W, dtype=float), -np.array(b, dtype=float)
    if isinstance(layer, (tuple, list)) and len(layer) == 2:
        raise InputError(f"{name} must be a ReLULayer or a one-layer Network; got a {type(layer).__name__} of two "
                         f"arrays: {CONVENTION_HELP}.")  # fmt: skip
    as_layer(layer, name)  # raises the standard message
    raise AssertionError  # pragma: no cover
