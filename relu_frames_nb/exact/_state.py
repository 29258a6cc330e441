r"""The state of one exact verdict: the layer in the domain's own coordinates, the budget, what was found.

* :class:`Sub`: one counting problem (rows, bias, region, how its points lift to ``K``);
* :class:`Run`: the layer ``(W, alpha)`` on ``K``, its reduced form ``Phi z - a`` (unit rows, the
  domain's affine coordinates ``x = c + U z``), the budget, the best upper bound and the verified pair.

A pair is kept only when it passes the package's one pair check
(:func:`relu_frames_nb._util.pairs.collides`) and both points are certainly in ``K``
(:meth:`~relu_frames_nb.domains.Domain.contains_certified`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._util.budget import Budget
from .._util.pairs import collides
from ..domains import Coordinates, Domain
from ._regions import Region
from ._witness import build_pair

__all__ = ["Sub", "Run", "lowest"]


@dataclass
class Sub:
    """One counting problem: rows ``Phi`` (same order as the base rows), bias ``a``, region."""

    name: str
    Phi: np.ndarray
    a: np.ndarray
    region: Region | None
    lift: Callable[[np.ndarray], np.ndarray | None]
    lower: int = -1
    certified: bool = False
    closed: bool = False
    bounds: tuple | None = None
    covers: list = field(default_factory=list)
    solves: int = 0


@dataclass
class Run:
    W: np.ndarray
    alpha: np.ndarray
    K: Domain
    Kr: Any
    coords: Coordinates
    Phi: np.ndarray
    a: np.ndarray
    center: np.ndarray | None
    budget: Budget
    eps: float
    tol: float = 0.0
    scale: float = 1.0
    notes: list = field(default_factory=list)
    n_solves: int = 0
    upper: int | None = None
    pair: tuple | None = None
    pair_info: tuple | None = None
    #: the rows and biases of Phi, a before the division by the row norms (exact rescalings of the caller's)
    rows: tuple | None = None

    def remaining(self) -> float:
        return self.budget.remaining()

    def report(self, stage: str, lower: Any = None) -> None:
        """Progress (stage and bounds) and the deadline (raises when it has passed)."""
        self.budget.check(stage, lower=lower, upper=self.upper)

    def to_x(self, z: np.ndarray) -> np.ndarray:
        return self.coords.point(z)

    def note_upper(self, count: int) -> None:
        self.upper = count if self.upper is None else min(self.upper, count)

    def try_witness(self, z: np.ndarray | None) -> bool:
        """Build and verify a pair from a point ``z`` of the reduced domain; True on success."""
        if z is None or self.pair is not None:
            return self.pair is not None
        built = build_pair(self.Phi, self.a, self.Kr, np.asarray(z, float), self.center, expired=self.budget.expired)
        return built is not None and self.try_pair(*built)

    def try_pair(self, z1: np.ndarray, z2: np.ndarray, n_act: int, rank: int) -> bool:
        """Verify a pair of the reduced domain in the caller's coordinates (the one pair check, membership proved)."""
        x, y = self.to_x(z1), self.to_x(z2)
        if collides(self.W, self.alpha, x, y) and self.K.contains_certified(x) and self.K.contains_certified(y):
            self.pair, self.pair_info = (x, y), (n_act, rank)
            self.note_upper(n_act)
            return True
        return False


def lowest(subs: list) -> int | None:
    """The lower bound over all subproblems (None while one has none)."""
    vals = [s.lower for s in subs]
    return None if any(v < 0 for v in vals) else min(vals)
