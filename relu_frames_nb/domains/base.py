"""The :class:`Domain` base class: what every data domain K of R^n knows about itself.

A domain draws seeded samples, tests membership, and describes itself to people
(:meth:`Domain.describe`) and to the command line (:attr:`Domain.spec`, read back by
:func:`relu_frames_nb.domains.parse_domain`). It also states what the bias and verdict
code need of it, so that code asks the domain instead of testing its class:

* ``radius`` and ``inner_radius``: sup and inf of ``||x||`` over K (the polytope bias
  on the shell ``inner_radius <= ||x|| <= radius`` is valid on K);
* ``nonnegative``: K lies in the non-negative orthant (the positive-ball case);
* ``finite``: K is a finite data set (exact answers by enumeration);
* ``polyhedral``: K is given by linear inequalities (exact verdicts by a MILP);
* ``open_or_convex`` / ``open_or_strictly_convex``: which of Thm "Injectivity I/II" apply.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_count, as_points
from ..errors import DimensionMismatchError, InputError

__all__ = ["Domain", "as_domain"]


class Domain:
    """Base class of the data domains. Subclasses set ``n`` and implement the methods."""

    n: int
    #: whether the set is open or strictly convex (Thm "Injectivity II" applies)
    open_or_strictly_convex: bool = False
    #: whether the set is open or convex (Thm "Injectivity I" applies with alpha itself)
    open_or_convex: bool = False
    #: K is a finite set of points
    finite: bool = False
    #: K is a polyhedron given by linear (in)equalities
    polyhedral: bool = False
    #: K lies in the non-negative orthant R^n_+
    nonnegative: bool = False

    @property
    def radius(self) -> float:
        """Sup-norm radius ``M = sup ||x||`` (``inf`` if unbounded)."""
        raise NotImplementedError

    @property
    def inner_radius(self) -> float:
        """``inf ||x||`` over K (0 when K contains the origin)."""
        return 0.0

    @property
    def bounded(self) -> bool:
        """True when ``radius`` is finite."""
        return bool(np.isfinite(self.radius))

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` i.i.d. samples, shape ``(N, n)``."""
        raise NotImplementedError

    def contains(self, X: Any, *, tol: float = 1e-9) -> np.ndarray:
        """Membership of each point (bool array of shape ``(N,)``, or a bool for one point)."""
        pts, single = as_points(X, self.n, "X")
        out = self._contains(pts, tol)
        return bool(out[0]) if single else out

    def _contains(self, X: np.ndarray, tol: float) -> np.ndarray:
        raise NotImplementedError

    def describe(self) -> str:
        """The domain for people, e.g. ``"the ball B(r=1)"``."""
        return repr(self)

    @property
    def spec(self) -> str:
        """The command-line spelling (``ball:1``, ``shell:0.5,1``, ...), read back by :func:`parse_domain`."""
        raise InputError(f"{type(self).__name__} has no command-line spelling.")


def _dim(n: Any) -> int:
    return as_count(n, "n")


def as_domain(K: Any, n: int | None = None, name: str = "K") -> Domain:
    """A :class:`Domain` from a domain or from an ``(N, n)`` array of samples."""
    from .samples import Samples

    if isinstance(K, Domain):
        dom = K
    elif K is None:
        raise InputError(f"{name} must be a Domain (Ball, Sphere, ...) or an (N, n) array of samples; got None.")
    else:
        dom = Samples(K)
    if n is not None and dom.n != n:
        raise DimensionMismatchError(f"{name} must be a domain in R^{n} (the frame's dimension); got {dom!r}.")
    return dom
