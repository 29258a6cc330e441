"""What the exact engine returns (the front door turns it into a :class:`~relu_frames_nb.verdict.Verdict`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..domains import Domain
from ..verdict import Status
from ._hyperplanes import HyperplaneInfo

__all__ = ["ExactResult", "make_result", "short_vec"]


@dataclass(frozen=True)
class ExactResult:
    r"""Outcome of :func:`~relu_frames_nb.exact.solve_exact`.

    Attributes
    ----------
    status : Status
    lower_bound, upper_bound : int or None
        Bounds on the fewest active rows over ``K`` (in the domain's own coordinates).
        ``lower_bound > h`` is the certificate; ``upper_bound`` comes from actual points of ``K``.
    h : int
        The largest number of frame vectors in one hyperplane (see ``h_method``).
    h_method : str
    pair : tuple of two ndarrays or None
        Two distinct points of ``K`` with the same output (verified).
    n_active, rank : int or None
        Active rows at the first point of the pair and their rank.
    seconds : float
    n_solves : int
    domain : Domain
    method : str
        ``"milp"``, ``"hyperplanes"``, ``"zero bias"``, ``"null space"``, ``"finite set"``, ``"single point"`` or ``""``.
    notes : tuple of str
    text : str
        For people; coordinates in it are the engine's (the normal form): callers that scaled the
        problem describe the pair themselves.
    dim : int or None
        The dimension of the domain's affine hull (what an active set must span), for pairs.
    """

    status: Status
    lower_bound: int | None
    upper_bound: int | None
    h: int
    h_method: str
    pair: tuple | None
    n_active: int | None
    rank: int | None
    seconds: float
    n_solves: int
    domain: Domain
    method: str = ""
    notes: tuple = ()
    text: str = ""
    dim: int | None = None

    @property
    def decided(self) -> bool:
        """True for ``"injective"`` and ``"not injective"``."""
        return self.status != Status.UNDETERMINED


def make_result(K, status, lower, upper, info: HyperplaneInfo, pair, seconds, n_solves, method, notes, text="",
                n_act=None, rank=None, dim=None) -> ExactResult:  # fmt: skip
    """An :class:`ExactResult` (bounds as plain ints, the pair copied)."""
    if not text:
        text = f"{status} on {K.describe()} — " + ("; ".join(notes) if notes else "")
    return ExactResult(
        status=Status(status),
        lower_bound=None if lower is None or lower < 0 else int(min(lower, 10**9)),
        upper_bound=None if upper is None else int(upper),
        h=int(info.h),
        h_method=info.method,
        pair=None if pair is None else (np.array(pair[0]), np.array(pair[1])),
        n_active=n_act,
        rank=rank,
        seconds=float(seconds),
        n_solves=int(n_solves),
        domain=K,
        method=method,
        notes=tuple(notes),
        text=text,
        dim=dim,
    )


def short_vec(v: np.ndarray, k: int = 4) -> str:
    """``(a, b, c, d, …)``: the first ``k`` coordinates of a vector."""
    v = np.asarray(v).ravel()
    body = ", ".join(f"{c:.3g}" for c in v[:k])
    return f"({body}{', …' if v.size > k else ''})"
