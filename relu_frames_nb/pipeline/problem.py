r"""The problem a check answers, in normal form, built once at the front door and never changed.

:class:`Problem` holds the caller's weights, bias and domain (for the last checks in the caller's
own coordinates), their normal form (:mod:`relu_frames_nb.pipeline.normal`: every row and the domain
scaled by exact powers of two, zero rows left out) and, for a layer of a network, which input set
the layer is checked on. Every stage reads the same object; its arrays are read-only views.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..domains import Domain
from .normal import Normalised, normalise

__all__ = ["Problem"]


def _frozen(a: np.ndarray) -> np.ndarray:
    view = np.asarray(a, dtype=float).view()
    view.setflags(write=False)
    return view


@dataclass(frozen=True)
class Problem:
    """Is ``ReLU(W x - alpha)`` injective on ``K``? (the paper's convention: the bias is subtracted).

    Attributes
    ----------
    W : ndarray, shape (m, n)
        The caller's weights (read-only view).
    alpha : ndarray, shape (m,)
        The caller's bias.
    K : Domain
        The caller's domain.
    normal : Normalised
        The same problem in normal form; every tolerance is relative to it.
    input_set : str
        What ``K`` is for a layer of a network: ``"K"`` (the network's domain), ``"box"`` (a box
        enclosing the image of the layers before) or ``"image"``.
    """

    W: np.ndarray
    alpha: np.ndarray
    K: Domain
    normal: Normalised
    input_set: str = "K"
    #: derived objects that the stages build from the problem once (e.g. the layer in normal form), by name
    derived: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, W: np.ndarray, alpha: np.ndarray, K: Domain, *, input_set: str = "K") -> Problem:
        """The problem and its normal form (the caller validated ``W``, ``alpha`` and ``K``)."""
        W, alpha = _frozen(W), _frozen(alpha)
        return cls(W, alpha, K, normalise(W, alpha, K), input_set)

    @property
    def n(self) -> int:
        """The input dimension."""
        return int(self.W.shape[1])

    @property
    def m(self) -> int:
        """The number of rows (zero rows included)."""
        return int(self.W.shape[0])

    @cached_property
    def where(self) -> str:
        """The caller's domain, described for people."""
        return self.K.describe()

    def to_user(self, x: np.ndarray) -> np.ndarray:
        """A point of the normal form in the caller's coordinates (exact)."""
        return self.normal.to_user(x)
