r"""Exact verdicts on injectivity: a certificate (MILP dual bound or one LP per hyperplane)
or a verified colliding pair.

Map of the subpackage
---------------------
verdict        :func:`exact_verdict` and its result :class:`ExactVerdict`
_cases         finite sets, reductions (degenerate boxes, hulls in a subspace, weights that
               do not span), zero bias (faces of the cube), R^n (homogenisation)
_milp          the counting MILP (``scipy.optimize.milp``, HiGHS, silenced)
_regions       the domain as the solver sees it: outer polytope, row bounds, cells, cuts
_hyperplanes   ``h``, the most frame vectors in one hyperplane (exact or assumed and checked)
_witness       from a non-spanning point to a verified colliding pair; greedy descent
_search        the state of a run and its stages (samples, zero bias, hyperplanes, MILP loop)
_ldp           least distance programming (min-norm point of a polyhedron), output silencing
"""

from .verdict import PAIR_RTOL, ExactVerdict, exact_verdict

__all__ = ["ExactVerdict", "exact_verdict", "PAIR_RTOL"]
