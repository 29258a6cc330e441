r"""A network of ReLU layers :math:`x \mapsto C_L(\dots C_2(C_1(x)))`, from (W, b) pairs, a PyTorch
state dict or a fitted scikit-learn MLP.

Layers are stored as raw weights in the PyTorch convention ``ReLU(W x + b)`` (the paper's
bias is ``alpha = -b``), so that weights the :class:`~relu_frames_nb.frames.Frame` class
refuses (zero rows, rank below the input dimension) can still be run and checked.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from .._validation import as_points, to_float_array
from ..errors import DimensionMismatchError, InputError
from ..layer import ReLULayer

__all__ = ["Network"]


def _as_weights(W: Any, b: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(W, b)`` as a read-only float ``(m, n)`` matrix and ``(m,)`` vector (``b=None``: zeros)."""
    W_arr = to_float_array(W, f"{name} weight")
    if W_arr.ndim != 2 or min(W_arr.shape) < 1:
        raise InputError(
            f"{name} weight must be a non-empty 2-D array of shape (outputs, inputs); got shape {W_arr.shape}."
        )
    if b is None:
        b_arr = np.zeros(W_arr.shape[0])
    else:
        b_arr = to_float_array(b, f"{name} bias")
        if b_arr.shape != (W_arr.shape[0],):
            raise DimensionMismatchError(
                f"{name} bias must be a vector of length {W_arr.shape[0]} (one per row of the weight); "
                f"got shape {b_arr.shape}."
            )
    W_arr, b_arr = np.array(W_arr), np.array(b_arr)
    W_arr.setflags(write=False)
    b_arr.setflags(write=False)
    return W_arr, b_arr


def _layer_weights(item: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    name = f"layer {k}"
    if isinstance(item, ReLULayer):
        return _as_weights(item.frame.vectors, -np.asarray(item.alpha), name)
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return _as_weights(item[0], item[1], name)
    raise InputError(
        f"{name} must be a (W, b) pair (PyTorch convention ReLU(W x + b)) or a ReLULayer; got {type(item).__name__}."
    )


class Network:
    r"""A feed-forward ReLU network :math:`x \mapsto \mathrm{ReLU}(W_L \cdots \mathrm{ReLU}(W_1 x + b_1) \cdots + b_L)`.

    Parameters
    ----------
    layers : sequence of (W, b) pairs or ReLULayer
        In order from the input. A pair is in the PyTorch convention ``ReLU(W x + b)`` with
        ``W`` of shape ``(m_k, m_{k-1})`` and ``b`` of shape ``(m_k,)`` or ``None``; a
        :class:`~relu_frames_nb.ReLULayer` (paper convention, ``b = -alpha``) is accepted too.
        Zero rows and rank-deficient weights are allowed (they are checked, not refused).
    note : str, optional
        What the network leaves out of the model it came from (e.g. an output layer), shown
        in the verdict.

    Raises
    ------
    InputError
        If there is no layer or a layer is not a pair of numeric arrays.
    DimensionMismatchError
        If a layer's input dimension differs from the previous layer's output dimension.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> from relu_frames_nb.network import Network
    >>> rng = np.random.default_rng(0)
    >>> net = Network([(rng.standard_normal((6, 2)), -np.ones(6)), (rng.standard_normal((9, 6)), None)])
    >>> net
    Network(2 -> 6 -> 9)
    >>> net(np.zeros((4, 2))).shape
    (4, 9)
    """

    def __init__(self, layers: Any, *, note: str = "") -> None:
        if isinstance(layers, Network):
            layers = list(layers)
        try:
            items = list(layers)
        except TypeError:
            raise InputError(f"layers must be a list of (W, b) pairs or ReLULayers; got {type(layers).__name__}.") from None
        if not items:
            raise InputError("layers must contain at least one layer; got an empty list.")
        weights = [_layer_weights(item, k + 1) for k, item in enumerate(items)]
        for k in range(1, len(weights)):
            prev, W = weights[k - 1][0], weights[k][0]
            if W.shape[1] != prev.shape[0]:
                raise DimensionMismatchError(
                    f"layer {k + 1} weight must have {prev.shape[0]} columns (layer {k} has {prev.shape[0]} outputs); "
                    f"got shape {W.shape}. Weights are (outputs, inputs) as in PyTorch; sklearn's coefs_ are transposed."
                )
        self._weights: tuple[tuple[np.ndarray, np.ndarray], ...] = tuple(weights)
        self.note = str(note)

    # -- loaders ---------------------------------------------------------------------------------
    @classmethod
    def from_state_dict(cls, state: Any) -> Network:
        """The linear layers of a PyTorch state dict, each followed by a ReLU.

        Linear layers are the 2-D entries whose name ends in ``.weight`` (or is ``weight``),
        in the dict's order, with the entry ``<prefix>.bias`` when present. Other entries
        (1-D weights of normalisation layers, running statistics, counters) are ignored and
        named in :attr:`note`; a weight of more than two dimensions (a convolution) is refused.
        No torch import is needed: tensors are read through ``.detach().cpu()``.

        The last linear layer of a classifier usually has no ReLU; slice it off with
        ``net[:-1]``. A certificate for the network with a ReLU after every layer also proves
        the network with an affine last layer injective (ReLU is a function), not conversely.

        Parameters
        ----------
        state : mapping of str to array_like
            As returned by ``torch.load(path, weights_only=True)`` or ``model.state_dict()``.

        Returns
        -------
        Network

        Examples
        --------
        >>> import numpy as np
        >>> state = {"0.weight": np.ones((4, 2)), "0.bias": np.zeros(4), "2.weight": np.ones((3, 4))}
        >>> Network.from_state_dict(state)
        Network(2 -> 4 -> 3)
        """
        if not hasattr(state, "items"):
            raise InputError(f"state must be a mapping of names to arrays (a state dict); got {type(state).__name__}.")
        state = dict(state.items())
        layers, used, ignored = [], set(), []
        for key, value in state.items():
            key = str(key)
            if not (key == "weight" or key.endswith(".weight")):
                continue
            ndim = getattr(value, "ndim", None)
            if ndim is None:
                ndim = np.ndim(value)
            if ndim != 2:
                if ndim > 2:
                    raise InputError(
                        f"state[{key!r}] must be the 2-D weight of a linear layer; got {ndim}-D shape "
                        f"{tuple(np.shape(value))} (a convolution?). Only fully connected networks are supported."
                    )
                continue
            prefix = key[: -len("weight")]
            bias_key = prefix + "bias"
            layers.append((value, state.get(bias_key)))
            used.update({key, bias_key})
        ignored = [str(k) for k in state if str(k) not in used]
        if not layers:
            raise InputError(
                f"state must contain at least one 2-D '*.weight' entry (a linear layer); got the keys {list(state)[:8]}."
            )
        try:
            net = cls(layers)
        except DimensionMismatchError as exc:
            names = [k for k in state if str(k) in used and str(k).endswith("weight")]
            raise DimensionMismatchError(f"{exc} (linear layers in order: {names})") from None
        if ignored:
            shown = ", ".join(ignored[:6]) + (", ..." if len(ignored) > 6 else "")
            net.note = f"state dict entries ignored (not linear layers): {shown}"
        return net

    @classmethod
    def from_sklearn(cls, model: Any, *, include_output: bool = False) -> Network:
        """The hidden ReLU layers of a fitted scikit-learn ``MLPClassifier`` or ``MLPRegressor``.

        Reads ``coefs_`` (matrices of shape ``(n_in, n_out)``, so ``W = coefs_[k].T``) and
        ``intercepts_``; scikit-learn is not imported. The model's last layer is its output
        layer (identity, logistic or softmax), not a ReLU layer: it is left out, which
        :attr:`note` says.

        Parameters
        ----------
        model : fitted MLPClassifier or MLPRegressor (anything with ``coefs_`` and ``intercepts_``)
        include_output : bool, default False
            Also take the output layer, followed by a ReLU. A certificate for that network
            proves the model's affine map before its output activation injective (ReLU is a
            function); a witness for it says nothing about the model.

        Returns
        -------
        Network

        Examples
        --------
        >>> import numpy as np
        >>> class Fitted:  # what a fitted MLPClassifier(hidden_layer_sizes=(5,)) holds
        ...     activation = "relu"
        ...     coefs_ = [np.ones((2, 5)), np.ones((5, 3))]
        ...     intercepts_ = [np.zeros(5), np.zeros(3)]
        >>> Network.from_sklearn(Fitted())
        Network(2 -> 5)
        """
        coefs = getattr(model, "coefs_", None)
        intercepts = getattr(model, "intercepts_", None)
        if coefs is None or intercepts is None:
            raise InputError(
                f"model must be a fitted scikit-learn MLPClassifier/MLPRegressor (with coefs_ and intercepts_); "
                f"got {type(model).__name__} without them. Call model.fit(X, y) first."
            )
        activation = getattr(model, "activation", "relu")
        if activation != "relu":
            raise InputError(f"model.activation must be 'relu'; got {activation!r}. Only ReLU networks are supported.")
        coefs, intercepts = list(coefs), list(intercepts)
        if len(coefs) != len(intercepts):
            raise InputError(
                f"model.intercepts_ must have one entry per entry of coefs_ ({len(coefs)}); got {len(intercepts)}."
            )
        keep = len(coefs) if include_output else len(coefs) - 1
        if keep < 1:
            raise InputError("model must have at least one hidden layer; got a model with none (a linear model).")
        layers = []
        for k in range(keep):
            C = to_float_array(coefs[k], f"model.coefs_[{k}]")
            if C.ndim != 2:
                raise InputError(f"model.coefs_[{k}] must be a 2-D array (n_in, n_out); got shape {C.shape}.")
            layers.append((C.T, intercepts[k]))
        out = getattr(model, "out_activation_", "identity/softmax")
        note = (
            f"the output layer ({out}) is checked as a ReLU layer: a certificate covers the model's last affine map"
            if include_output
            else f"the output layer ({out}, {np.shape(coefs[-1])[1]} units) is not a ReLU layer and is not checked"
        )
        return cls(layers, note=note)

    # -- the sequence of layers ------------------------------------------------------------------
    @property
    def weights(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """The layers as read-only ``(W, b)`` pairs (PyTorch convention)."""
        return self._weights

    @property
    def n(self) -> int:
        """Input dimension."""
        return self._weights[0][0].shape[1]

    @property
    def widths(self) -> tuple[int, ...]:
        """``(n, m_1, ..., m_L)``: the input dimension and every layer's output dimension."""
        return (self.n,) + tuple(W.shape[0] for W, _ in self._weights)

    def layer(self, k: int) -> ReLULayer:
        """Layer ``k`` (0-based) as a :class:`~relu_frames_nb.ReLULayer`.

        Raises
        ------
        NotAFrameError
            If its weights have a zero row or do not span the input space.
        """
        W, b = self._weights[k]
        return ReLULayer.from_weights(W, b)

    def __len__(self) -> int:
        return len(self._weights)

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        return iter(self._weights)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return Network(self._weights[k], note=self.note)
        return self._weights[k]

    def __repr__(self) -> str:
        return "Network(" + " -> ".join(str(w) for w in self.widths) + ")"

    # -- forward -----------------------------------------------------------------------------------
    def forward(self, X: Any, *, upto: int | None = None) -> np.ndarray:
        """The outputs of the first ``upto`` layers (all by default): shape ``(m,)`` or ``(N, m)``."""
        pts, single = as_points(X, self.n, "X")
        for W, b in self._weights[: len(self) if upto is None else upto]:
            pts = np.maximum(pts @ W.T + b, 0.0)
        return pts[0] if single else pts

    def __call__(self, X: Any) -> np.ndarray:
        """Batched forward pass through every layer: shape ``(m_L,)`` or ``(N, m_L)``."""
        return self.forward(X)

    def check(self, K: Any, *, time_limit: float = 60.0, progress: Any = None, tol: float = 1e-8, seed: Any = 0) -> Any:
        """Check injectivity on ``K`` layer by layer: see :func:`~relu_frames_nb.network.check_network`."""
        from .check import check_network

        return check_network(self, K, time_limit=time_limit, progress=progress, tol=tol, seed=seed)
