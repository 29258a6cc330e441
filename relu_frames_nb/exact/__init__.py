r"""Exact verdicts on injectivity: a certificate (MILP dual bound or one LP per hyperplane)
or a verified colliding pair. Use it through :func:`relu_frames_nb.check` (``method="exact"``),
which normalises the problem and checks every pair in the caller's coordinates.

Map of the subpackage (imports point down the list)
---------------------------------------------------
engine         :func:`solve_exact`: the stages in order, within a budget
_search        the stages: samples and greedy descent, the zero-bias certificate, hyperplane LPs,
               the MILP loop with its cuts
_cases         finite sets, reductions (degenerate boxes, hulls in a subspace, weights that do
               not span), zero bias (faces of the cube), R^n (homogenisation)
_state         the state of a run (:class:`Run`) and of one counting problem (:class:`Sub`)
_result        :class:`ExactResult`, what the engine returns
_milp          the counting MILP (``scipy.optimize.milp``, HiGHS, silenced; large models in a
               child process that dies with its parent)
_regions       the domain as the solver sees it: outer polytope, row bounds, cells, cuts
_witness       from a non-spanning point to a colliding pair; greedy descent
_hyperplanes   ``h``, the most frame vectors in one hyperplane (exact or assumed and checked)
"""

from ._hyperplanes import HyperplaneInfo, hyperplane_info
from ._milp import solve_model
from ._regions import RoundRegion
from ._result import ExactResult
from .engine import BOUNDARY_TOL, EPS, solve_exact

# the last three serve the network check's encoding of a layer's true input set (network.image)
__all__ = ["ExactResult", "solve_exact", "EPS", "BOUNDARY_TOL", "HyperplaneInfo", "hyperplane_info", "solve_model",
           "RoundRegion"]  # fmt: skip
