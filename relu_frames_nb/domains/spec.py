"""One spelling for domains, shared by the command line, the explorers and the IPython extension.

Every domain class registers its name (``class Ball(Domain, spec="ball")``); the one parser is
:meth:`~relu_frames_nb.domains.Domain.from_spec`, and every domain's
:attr:`~relu_frames_nb.domains.Domain.spec` reads back through it. The spellings:
``ball[:r]``, ``sphere[:r]``, ``shell:s,r`` (alias ``donut``), ``positive-ball[:r]``,
``real-space``, ``exterior:s``, ``box:LO,HI`` (the same bounds for every coordinate) or
``box:FILE`` (rows ``lo`` and ``hi``), ``hull:FILE`` (the convex hull of the points of FILE),
``polytope:FILE.npz`` (arrays ``A`` and ``b``: ``{x : A x <= b}``) and ``samples:FILE``
(a finite data set).
"""

from __future__ import annotations

from typing import Any

from . import polyhedral, radial, samples  # noqa: F401  (the domain classes register themselves on import)
from .base import Domain, domain_specs

__all__ = ["parse_domain", "DOMAIN_SPECS"]

#: the spellings, for help texts
DOMAIN_SPECS = domain_specs()


def parse_domain(spec: Any, n: int, *, name: str = "domain") -> Domain:
    """The domain in R^n spelled by ``spec`` (see the module docstring and :meth:`Domain.from_spec`).

    Parameters
    ----------
    spec : str
        For example ``"ball:1"``, ``"shell:0.5,1"``, ``"box:0,1"``, ``"samples:data.npy"``.
    n : int
        The dimension (the layer's input dimension); data files must have ``n`` columns.
    name : str
        How the caller names the argument in error messages (``"--domain"`` on the command line).

    Returns
    -------
    Domain

    Examples
    --------
    >>> parse_domain("shell:0.5,1", 3)
    Shell(n=3, s=0.5, r=1)
    >>> parse_domain(parse_domain("ball:2", 4).spec, 4)
    Ball(n=4, r=2)
    >>> parse_domain("box:-0.5,0.5", 2)
    Box(lo=-0.5, hi=0.5, n=2)
    """
    return Domain.from_spec(spec, n, name=name)
