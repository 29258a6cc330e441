r"""Polyhedral domains: boxes (e.g. pixel ranges), H-polytopes and the convex hull of data.

Each is a bounded convex :class:`~relu_frames_nb.domains.Domain` given by linear
constraints, so the exact stage of :func:`relu_frames_nb.check` decides
injectivity on it with one mixed-integer linear program. :meth:`linear_description`
returns those constraints over variables ``(x, w)``: ``w`` are extra variables (none for a
box or a polytope; the ``N`` convex weights ``lambda`` for a hull, ``x = X^T lambda``, so no
facet enumeration is needed and it works in high dimension).

* :class:`Box` ``prod_j [lo_j, hi_j]``; coordinates with ``lo_j == hi_j`` are allowed
  (the box then has empty interior: ``full_dimensional`` is False).
* :class:`Polytope` ``{x : A x <= b}``, checked bounded and non-empty with ``2 n`` LPs
  (they also give the bounding box); its Chebyshev centre and inradius come from one LP.
* :class:`Hull` ``conv(X)`` of the rows of ``X``.

The classes live in :mod:`.box`, :mod:`.polytope` and :mod:`.hull`; this module re-exports them.
"""

from .base import LinearDescription
from .box import Box
from .hull import Hull
from .polytope import Polytope

__all__ = ["LinearDescription", "Box", "Polytope", "Hull"]
