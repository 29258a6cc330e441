r"""Every tolerance of the package in one place, each with a name and what it bounds.

The options of a check (:class:`Tolerances`) are **relative to the normal form** of the problem
(:mod:`relu_frames_nb.pipeline.normal`: rows of norm in ``[1/2, 1)``, a domain of size in ``[1/2, 1)``), so
they mean the same thing whatever units the caller's weights and data are in. A verdict's certificate lists
the ones its proof relied on (:meth:`Tolerances.used`). The numerical guards below them are fixed constants
of the algorithms (not options); each says what it bounds and relative to what, and :func:`guard_table`
lists them all (the book's page "How a check runs" shows that table). A last section holds the tolerances
of the drawings, which decide nothing.

The rule they serve: **a comparison that lies within a rounding bound is never a proof**. A
floating-point margin proves something only when it clears the bound on the rounding of the
computation that produced it; inside that bound an exact computation decides, or nothing does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["Tolerances", "DEFAULT_TOLERANCES", "TOLERANCE_DOCS", "GUARD_DOCS", "guard_table", "MILP_FEASIBILITY",
           "DUAL_BOUND_SLACK", "WITNESS_MARGIN_RTOL", "RADIUS_RTOL", "DIVISOR_FLOOR"]  # and every other name of GUARD_DOCS

#: one sentence per tolerance: what it bounds (read by the book's page "How a check runs")
TOLERANCE_DOCS = {
    "bias_proof_margin": "how far (relative) the bias must lie below the floating-point polytope bias for that comparison "
    "to prove injectivity; the rounding of the polytope bias itself (products, NNLS projections) stays far below it, and "
    "a bias closer to the bound is decided by exact rational arithmetic or not by this test",
    "certificate_eps": "how much the MILP and LP certificates raise the bias before solving, so that the solvers' "
    "feasibility tolerances (1e-6 to 1e-7 in HiGHS) cannot make a certificate claim too much (a larger bias only shrinks "
    "active sets)",
    "boundary_tol": "how far below the bias a failed certificate is retried; success there is reported as 'on the "
    "threshold', never as a proof",
    "rank_rtol": "a set of unit rows is rank deficient when its smallest singular value is below this times its largest",
    "dead_input_rtol": "a column of the weights counts as never read below this fraction of the largest column",
    "switch_rtol": "a sample point whose pre-activation lies within this (relative to |W||x| + |alpha|) of zero is too "
    "close to a switching hyperplane to judge in the certificate's consistency check",
}


@dataclass(frozen=True)
class Tolerances:
    """The named tolerances of a check (see :data:`TOLERANCE_DOCS`); immutable, one per :class:`Context`."""

    bias_proof_margin: float = 1e-9
    certificate_eps: float = 1e-6
    boundary_tol: float = 1e-6
    rank_rtol: float = 1e-10
    dead_input_rtol: float = 1e-10
    switch_rtol: float = 1e-9

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, (int, float)) or not (0.0 <= float(value) < 1.0):
                raise ValueError(f"tolerance {f.name} must be a number in [0, 1); got {value!r}.")

    def used(self, *names: str) -> dict[str, float]:
        """The named tolerances as a dict, for a certificate's ``tolerances``."""
        return {name: float(getattr(self, name)) for name in names}

    @staticmethod
    def table() -> list[tuple[str, float, str]]:
        """``(name, default, what it bounds)`` for every tolerance."""
        default = Tolerances()
        return [(f.name, float(getattr(default, f.name)), TOLERANCE_DOCS[f.name]) for f in fields(default)]


#: the tolerances every check uses unless told otherwise
DEFAULT_TOLERANCES = Tolerances()


# ---------------------------------------------------------------------------------------------------
# numerical guards: fixed constants of the algorithms (not options of a check), each with what it bounds
# ---------------------------------------------------------------------------------------------------

#: feasibility tolerance HiGHS runs with (primal and MIP); the certificates' margin ``certificate_eps`` is a
#: thousand times larger, so a solution inside the solver's tolerance cannot change what a certificate claims
MILP_FEASIBILITY = 1e-9
#: subtracted from a MILP's dual bound on a count before it is rounded up to an integer: a bound of 6.9999999
#: proves 7 rows, never 8 (the bound is a float from the solver's own tolerances)
DUAL_BOUND_SLACK = 1e-6
#: a candidate witness point whose margin to the domain's facets or to its cell is below this times the
#: problem's scale counts as having none (it would not survive the rounding of its own verification)
WITNESS_MARGIN_RTOL = 1e-12
#: a point within this relative distance of a round domain's radius counts as on its surface, for witness
#: candidates only (every pair is verified in the user's coordinates before it is reported)
RADIUS_RTOL = 1e-9
#: the least divisor in a ratio of norms or singular values (keeps 0 / 0 out of rank and step computations)
DIVISOR_FLOOR = 1e-300

# ---- rank, norms and zeros (shared by the paper's tools, the exact engine, the domains and the frames) ----

#: a singular value below this times the largest counts as zero: the package's rank decisions (a frame spans,
#: a pattern's rows span, a hull's affine dimension, a null space)
RANK_RTOL = 1e-10
#: a rank decision that a proof relies on needs the smallest singular value of the unit rows above this times the
#: largest: ten thousand times the rank tolerance, and never below 1e-6 (a clear gap, not a rounding accident)
SPAN_GAP = max(1e-6, 1e4 * RANK_RTOL)
#: a singular value (or QR diagonal) of a few unit or orthonormal rows counts as nonzero above this (absolute for
#: unit rows, relative to the largest for the QR): the subsets whose normals or reflections are used
UNIT_SV_TOL = 1e-8
#: a vector (a norm, a dot product, a weight) below this times the size of what it was computed from counts as zero
NORM_RTOL = 1e-12
#: an absolute zero for numbers of order one: residuals, weights, homogeneous coordinates and LP optima of
#: problems scaled to unit size
UNIT_ZERO_TOL = 1e-12
#: an eigenvalue of a Gram matrix below this times the largest is dropped (its square root, a singular value, is
#: then below 1e-7 of the largest)
GRAM_EIG_RTOL = 1e-14
#: a point counts as inside a domain or as satisfying a linear constraint when its violation is below this,
#: relative to the size of the constraint and of the point (``Domain.contains``, ``min_norm_point``)
MEMBERSHIP_RTOL = 1e-9
#: a margin, depth or shrink factor of a point inside a ball or a cell: a point counts as strictly inside only
#: beyond this (relative) distance from the boundary, and is moved that far in
INTERIOR_RTOL = 1e-9
#: a constraint whose slack is below this times the problem's scale counts as tight (near active) at a point
NEAR_ACTIVE_RTOL = 1e-7
#: a weight of a conic or convex combination below this times the largest is outside its support
SUPPORT_RTOL = 1e-9

# ---- private helpers (_util) ----

#: outputs of a pair agree up to ``PAIR_RTOL (n + 2)`` times the size of the terms (a few roundings)
PAIR_RTOL = 8 * 2.0**-53
#: the two points of a pair are at least this far apart, relative to ``max(|x|, |y|)``
PAIR_MIN_SEPARATION = 1e-6
#: the normal equations of an active pattern are solved only when ``lambda_min / lambda_max`` of
#: :math:`\Phi_J^T\Phi_J` exceeds this (relative error of order ``1e6`` machine epsilons at worst); worse
#: conditioned patterns use an SVD
NORMAL_EQ_MIN_RATIO = 1e-6
#: a user's dual frame ``D`` is accepted when ``max |D Phi_J - I| <= DUAL_ATOL``
DUAL_ATOL = 1e-8
#: a sub-frame ``J`` of unit rows certifies that every active set containing it spans when
#: ``lambda_min(U_J^T U_J) > CERT_RATIO * |J|``: far above the rounding of forming and factorising the Gram matrix
CERT_RATIO = 1e-8
#: SciPy's private NNLS routine is used only when it agrees with the public one to this on a small test problem
NNLS_PROBE_ATOL = 1e-12
#: ``min_norm_point``: a least-distance residual of norm below this means the system is infeasible
LDP_RESIDUAL_TOL = 1e-12
#: ``min_norm_point``: the last residual coordinate, the divisor of the answer, must be below minus this
LDP_DIVISOR_TOL = 1e-14
#: ``min_norm_point``: the least violation always allowed (so an all-zero constraint row with ``b = 0`` passes)
VIOLATION_FLOOR = 1e-300

# ---- domains and frames ----

#: the end of a covering grid's ticks is padded by this so that ``np.arange`` keeps the last tick
GRID_END_PAD = 1e-12
#: a hull's facets are moved out by this (relative to the size of the data and of the facet's row) past the
#: farthest point, so that every data point satisfies every facet after rounding
FACET_MARGIN_RTOL = 1e-12
#: a hull's fibre direction shorter than this times the extent of the data counts as none
DIRECTION_MIN_RTOL = 1e-9
#: a polytope's bounding box is widened by this times the row's norm and the radius (the LP solver's tolerance)
BOUNDING_PAD_RTOL = 1e-7
#: a frame is tight when its frame bounds agree to this relative tolerance
TIGHT_RTOL = 1e-9
#: a frame is normalised when every row norm is one to this absolute tolerance
NORMALIZED_ATOL = 1e-12

# ---- the exact engine ----

#: rows within this (sine of the) angle of a hyperplane count as lying in it: far above the rounding of
#: structured frames (1e-16), far below the chance near-coincidences of random ones (1e-10 happens)
COPLANAR_TOL = 1e-12
#: added to the k-d tree's search radius for near-parallel unit rows, so that pairs at exactly that radius are kept
KDTREE_RADIUS_PAD = 1e-15
#: the rounding of a cosine of two unit rows, subtracted before comparing it with its bound (two units in the last place)
COSINE_ROUNDING = 4e-16
#: two unit rows are candidate antiparallel pairs when their projections on a random direction are this close
#: to opposite (a filter; every candidate is then tested)
ANTIPARALLEL_PROJECTION_TOL = 1e-8
#: two unit rows are antiparallel when their cosine is below ``-1`` plus this
ANTIPARALLEL_COS_TOL = 1e-9
#: the first margin tried for a point inside a cell, relative to the problem's scale (it grows from there)
CELL_MARGIN_START_RTOL = 1e-10
#: a rotation direction of a witness shorter than this (its rows are unit vectors) counts as none
WITNESS_DIRECTION_MIN = 1e-6

# ---- the paper's tools ----

#: a bias short of a region's float bound by more than this (relative to the bias and the radius) is not
#: retried in exact arithmetic
SHORTFALL_RTOL = 1e-9
#: the multipliers of the batched active-set NNLS of the polytope bias: negative beyond this (relative) is
#: infeasible (for the first pass, which hands the hard ones to SciPy's NNLS)
ACTIVE_SET_RTOL = 1e-12
#: the optimality (KKT) conditions of that NNLS answer: sign and complementarity within this, relative to its scale
KKT_RTOL = 1e-9
#: the tolerance of the inscribing polytope: coplanar facets, 0 inside it, an omnidirectional frame (relative to
#: the unit rows)
INSCRIBING_TOL = 1e-10
#: the feasibility tolerances HiGHS runs with in the omnidirectionality LP of the inscribing polytope
INSCRIBING_LP_FEASIBILITY = 1e-10
#: two coefficients within this of each other tie in the correlated and sampling biases
TIE_TOL = 1e-12
#: the floating-point depth test refutes a point only when its lower bound is below minus this (clearly outside)
DEPTH_REFUTE_TOL = 1e-6
#: the residual of a circuit search (NNLS) above this means no circuit there
CIRCUIT_RESIDUAL_TOL = 1e-9
#: the default margin of the depth search's points inside the cells (relative to the unit ball)
DEPTH_MARGIN = 1e-7
#: the wide margin tried first for the depth search's witness point, so that it does not sit on a boundary
DEPTH_WIDE_MARGIN = 1e-3
#: the middle margin tried next for that witness point
DEPTH_MID_MARGIN = 1e-5
#: the stopping rule of the frame algorithm: error at most this times the scale
FRAME_ALGORITHM_TOL = 1e-12
#: the optimal slack ``t*`` of the admissibility LP of the reference implementation must exceed this to be positive
ADMISSIBLE_TOL = 1e-9
#: the step from a vertex of the arrangement to a point on each of its faces (reference implementation)
FACE_POINT_STEP = 1e-6
#: the function tolerance of SLSQP in the reference implementation's searches
SLSQP_FTOL = 1e-12
#: the rectifying test stops looking for a better pair once one is separated by this fraction of its size
WELL_SEPARATED_PAIR = 1e-2

# ---- networks: the pieces, the two copies, the image MILP, the readers ----

#: the pieces search: a determinant counts as non-zero above this, relative to the product of its rows' norms
PIECES_DET_MARGIN = 1e-9
#: the pieces search: r units whose pulled-back rows' determinant is below this (relative) count as dependent
PIECES_DEPENDENT = 1e-10
#: the pieces search: a row is active throughout a cell when its LP minimum less this (relative) is positive
PIECES_ACTIVE_MARGIN = 1e-9
#: the pieces search: a cell's LP feasibility is tested with its constraints relaxed by this (normalised)
PIECES_CELL_SLACK = 1e-9
#: the pieces search: a singular value below this times the largest counts as zero in a cell's rank
PIECES_RANK_RTOL = 1e-13
#: the two copies: a minor counts as non-zero above this, relative to the product of its rows' norms
TWO_COPY_DET_MARGIN = 1e-9
#: the two copies: an output row is strictly active throughout a cell when its lower bound exceeds this
TWO_COPY_ON_MARGIN = 1e-9
#: the two copies: LP bounds over a cell are widened by this, relative to the objective's size
TWO_COPY_LP_MARGIN = 1e-9
#: a unit counts as stable on a set when its pre-activation keeps its sign with this relative margin
STABLE_MARGIN = 1e-6
#: the image MILP's counting threshold, relative to the normalised problem (absorbs the solver's tolerances)
IMAGE_EPS = 1e-6
#: the image MILP's witness margin: inactive rows below minus this, earlier units this far from their kink
IMAGE_MARGIN = 1e-4
#: interval bounds of the network encodings are widened by this (relative, at least absolute) before use
BOUND_WIDEN_RTOL = 1e-9
#: one LP-tightened bound of a network encoding is moved outwards by this (relative) before use
BOUND_WIDEN_ONE_RTOL = 1e-7
#: a coordinate of a direction below this times its largest does not move (a network's first look)
DIRECTION_MOVING_RTOL = 1e-12
#: two outputs of a network agree when they differ by at most this, relative to the larger
OUTPUT_MATCH_RTOL = 1e-9
#: outputs are rounded to this fraction of their scale to group equal ones (candidates only, each verified)
OUTPUT_KEY_QUANTUM = 1e-9
#: an output coordinate below this times the largest is a zero when a layer's input is reconstructed
RECONSTRUCT_ZERO_RTOL = 1e-12
#: a row of norm below this times the largest is a zero row (the image MILP leaves it out)
ROW_ZERO_RTOL = 1e-12
#: the fractions by which sample points are pulled towards the centre before a local pair is sought there
LOCAL_PAIR_SHRINKS = (1e-6, 1e-4, 1e-2, 0.0)
#: the largest relative difference between a compiled ONNX network and the graph's own forward
REDUCTION_RTOL = 1e-9
#: the largest relative difference between a traced network's forward and the module's own float64 forward
FORWARD_RTOL = 1e-9
#: (file format) the epsilon of an ONNX BatchNormalization node that states none: the operator's default
ONNX_BN_DEFAULT_EPSILON = 1e-5

# ---- the exact engine's searches and the experiments ----

#: the LP relaxation of a region's count asks each row for at least this margin (times the region's scale and the row's norm)
RELAXATION_MARGIN_RTOL = 1e-6
#: and shifts the bias of a row it drops by this (times the region's scale and the row's norm), so the reweighted LP moves
RELAXATION_SHIFT_RTOL = 1e-3
#: a counting candidate that leans on the solver's tolerance is retried with the bias lowered by at least this (times the scale)
COUNT_RETRY_RTOL = 1e-6
#: the radius of a ball holding a box is rounded up by this factor beyond the floating-point bound, so the ball surely holds it
BALL_ROUNDING_PAD = 1e-12
#: the convergence experiment: sampling estimates of the maximal bias count as at or above it within this
SAMPLING_ABOVE_TOL = 1e-12
#: the convergence experiment's tetrahedron check: its polytope bias equals the known value within this
KNOWN_VALUE_ATOL = 1e-9
#: the injectivity experiment's non-injectivity witness: a coefficient counts as active from this times the largest on
NONRECTIFYING_ACTIVE_RTOL = 1e-9
#: the threshold's logistic fit: a ridge of this size keeps the Newton step finite for (almost) separated classes
LOGISTIC_RIDGE = 1e-6
#: the threshold's logistic fit stops when no Newton step component exceeds this
LOGISTIC_STEP_TOL = 1e-10

# ---- numbers that are not tolerances but small constants of a schedule ----

#: the least time a timed block of the rectifying test is taken to have lasted (seconds; sizes the next block)
MIN_TIMED_SECONDS = 1e-4
#: the seconds one floating-point operation is estimated to take, for the progress bar's time estimate
SECONDS_PER_FLOP = 1e-10

# ---- drawing (viz): these decide what is drawn, never a verdict ----

#: a direction component below this: the line is drawn parallel to that axis
DRAW_PARALLEL_TOL = 1e-15
#: consecutive corners of a drawn polygon closer than this are one corner
DRAW_DUPLICATE_TOL = 1e-14
#: a drawn length, scale or angle gap below this counts as zero (labels, a full circle, a moving row)
DRAW_ZERO = 1e-12
#: a grid point of a 2-d picture is drawn inside a domain within this relative tolerance
DRAW_INSIDE_RTOL = 1e-9
#: a label's offset direction shorter than this is replaced by a fixed one
DRAW_DIRECTION_MIN = 1e-9
#: the floor of the logarithmic error axis of the playground
DRAW_LOG_FLOOR = 1e-17
#: the least height of the playground's linear axis
DRAW_AXIS_MIN = 1e-3

#: one sentence per numerical guard (the book's page "How a check runs" lists them beside the tolerances); drawing
#: tolerances say "(drawing)"
GUARD_DOCS = {
    "MILP_FEASIBILITY": "feasibility tolerance HiGHS runs with; the certificate margin is a thousand times larger",
    "DUAL_BOUND_SLACK": "subtracted from a MILP's dual bound on a count before rounding it up to an integer",
    "WITNESS_MARGIN_RTOL": "a witness candidate with a smaller margin (relative to the problem's scale) counts as having none",
    "RADIUS_RTOL": "a witness candidate this close (relative) to a round domain's radius counts as on its surface",
    "DIVISOR_FLOOR": "the least divisor in ratios of norms or singular values",
    "RANK_RTOL": "a singular value below this times the largest counts as zero: the package's rank decisions (a frame spans, "
    "a pattern's rows span, a hull's affine dimension, a null space)",
    "SPAN_GAP": "a rank decision that a proof relies on needs the smallest singular value of the unit rows above this times "
    "the largest: ten thousand times the rank tolerance, and never below 1e-6 (a clear gap, not a rounding accident)",
    "UNIT_SV_TOL": "a singular value (or QR diagonal) of a few unit or orthonormal rows counts as nonzero above this "
    "(absolute for unit rows, relative to the largest for the QR): the subsets whose normals or reflections are used",
    "NORM_RTOL": "a vector (a norm, a dot product, a weight) below this times the size of what it was computed from counts "
    "as zero",
    "UNIT_ZERO_TOL": "an absolute zero for numbers of order one: residuals, weights, homogeneous coordinates and LP optima "
    "of problems scaled to unit size",
    "GRAM_EIG_RTOL": "an eigenvalue of a Gram matrix below this times the largest is dropped (its square root, a singular "
    "value, is then below 1e-7 of the largest)",
    "MEMBERSHIP_RTOL": "a point counts as inside a domain or as satisfying a linear constraint when its violation is below "
    "this, relative to the size of the constraint and of the point (`Domain.contains`, `min_norm_point`)",
    "INTERIOR_RTOL": "a margin, depth or shrink factor of a point inside a ball or a cell: a point counts as strictly inside "
    "only beyond this (relative) distance from the boundary, and is moved that far in",
    "NEAR_ACTIVE_RTOL": "a constraint whose slack is below this times the problem's scale counts as tight (near active) at a "
    "point",
    "SUPPORT_RTOL": "a weight of a conic or convex combination below this times the largest is outside its support",
    "PAIR_RTOL": "outputs of a pair agree up to `PAIR_RTOL (n + 2)` times the size of the terms (a few roundings)",
    "PAIR_MIN_SEPARATION": "the two points of a pair are at least this far apart, relative to the larger of their norms",
    "NORMAL_EQ_MIN_RATIO": "the normal equations of an active pattern are solved only when the ratio of the extreme eigenvalues "
    "of its Gram matrix exceeds this; worse conditioned patterns use an SVD",
    "DUAL_ATOL": "a user's dual frame D is accepted when the largest entry of D Phi_J - I is at most this",
    "CERT_RATIO": "a sub-frame J of unit rows certifies that every active set containing it spans when the least "
    "eigenvalue of its Gram matrix exceeds this times the size of J",
    "NNLS_PROBE_ATOL": "SciPy's private NNLS routine is used only when it agrees with the public one to this on a small test "
    "problem",
    "LDP_RESIDUAL_TOL": "`min_norm_point`: a least-distance residual of norm below this means the system is infeasible",
    "LDP_DIVISOR_TOL": "`min_norm_point`: the last residual coordinate, the divisor of the answer, must be below minus "
    "this",
    "VIOLATION_FLOOR": "`min_norm_point`: the least violation always allowed (so an all-zero constraint row with `b = 0` "
    "passes)",
    "GRID_END_PAD": "the end of a covering grid's ticks is padded by this so that `np.arange` keeps the last tick",
    "FACET_MARGIN_RTOL": "a hull's facets are moved out by this (relative to the size of the data and of the facet's row) "
    "past the farthest point, so that every data point satisfies every facet after rounding",
    "DIRECTION_MIN_RTOL": "a hull's fibre direction shorter than this times the extent of the data counts as none",
    "BOUNDING_PAD_RTOL": "a polytope's bounding box is widened by this times the row's norm and the radius (the LP solver's "
    "tolerance)",
    "TIGHT_RTOL": "a frame is tight when its frame bounds agree to this relative tolerance",
    "NORMALIZED_ATOL": "a frame is normalised when every row norm is one to this absolute tolerance",
    "COPLANAR_TOL": "rows within this (sine of the) angle of a hyperplane count as lying in it: far above the rounding of "
    "structured frames (1e-16), far below the chance near-coincidences of random ones (1e-10 happens)",
    "KDTREE_RADIUS_PAD": "added to the k-d tree's search radius for near-parallel unit rows, so that pairs at exactly that "
    "radius are kept",
    "COSINE_ROUNDING": "the rounding of a cosine of two unit rows, subtracted before comparing it with its bound (two units "
    "in the last place)",
    "ANTIPARALLEL_PROJECTION_TOL": "two unit rows are candidate antiparallel pairs when their projections on a random "
    "direction are this close to opposite (a filter; every candidate is then tested)",
    "ANTIPARALLEL_COS_TOL": "two unit rows are antiparallel when their cosine is below `-1` plus this",
    "CELL_MARGIN_START_RTOL": "the first margin tried for a point inside a cell, relative to the problem's scale (it grows "
    "from there)",
    "WITNESS_DIRECTION_MIN": "a rotation direction of a witness shorter than this (its rows are unit vectors) counts as none",
    "SHORTFALL_RTOL": "a bias short of a region's float bound by more than this (relative to the bias and the radius) is not "
    "retried in exact arithmetic",
    "ACTIVE_SET_RTOL": "the multipliers of the batched active-set NNLS of the polytope bias: negative beyond this (relative) "
    "is infeasible (for the first pass, which hands the hard ones to SciPy's NNLS)",
    "KKT_RTOL": "the optimality (KKT) conditions of that NNLS answer: sign and complementarity within this, relative to its "
    "scale",
    "INSCRIBING_TOL": "the tolerance of the inscribing polytope: coplanar facets, 0 inside it, an omnidirectional frame "
    "(relative to the unit rows)",
    "INSCRIBING_LP_FEASIBILITY": "the feasibility tolerances HiGHS runs with in the omnidirectionality LP of the inscribing "
    "polytope",
    "TIE_TOL": "two coefficients within this of each other tie in the correlated and sampling biases",
    "DEPTH_REFUTE_TOL": "the floating-point depth test refutes a point only when its lower bound is below minus this "
    "(clearly outside)",
    "CIRCUIT_RESIDUAL_TOL": "the residual of a circuit search (NNLS) above this means no circuit there",
    "DEPTH_MARGIN": "the default margin of the depth search's points inside the cells (relative to the unit ball)",
    "DEPTH_WIDE_MARGIN": "the wide margin tried first for the depth search's witness point, so that it does not sit on a "
    "boundary",
    "DEPTH_MID_MARGIN": "the middle margin tried next for that witness point",
    "FRAME_ALGORITHM_TOL": "the stopping rule of the frame algorithm: error at most this times the scale",
    "ADMISSIBLE_TOL": "the optimal slack `t*` of the admissibility LP of the reference implementation must exceed this to "
    "be positive",
    "FACE_POINT_STEP": "the step from a vertex of the arrangement to a point on each of its faces (reference implementation)",
    "SLSQP_FTOL": "the function tolerance of SLSQP in the reference implementation's searches",
    "WELL_SEPARATED_PAIR": "the rectifying test stops looking for a better pair once one is separated by this fraction of "
    "its size",
    "PIECES_DET_MARGIN": "the pieces search: a determinant counts as non-zero above this, relative to the product of its "
    "rows' norms",
    "PIECES_DEPENDENT": "the pieces search: r units whose pulled-back rows' determinant is below this (relative) count as "
    "dependent",
    "PIECES_ACTIVE_MARGIN": "the pieces search: a row is active throughout a cell when its LP minimum less this (relative) "
    "is positive",
    "PIECES_CELL_SLACK": "the pieces search: a cell's LP feasibility is tested with its constraints relaxed by this (normalised)",
    "PIECES_RANK_RTOL": "the pieces search: a singular value below this times the largest counts as zero in a cell's rank",
    "TWO_COPY_DET_MARGIN": "the two copies: a minor counts as non-zero above this, relative to the product of its rows' norms",
    "TWO_COPY_ON_MARGIN": "the two copies: an output row is strictly active throughout a cell when its lower bound exceeds this",
    "TWO_COPY_LP_MARGIN": "the two copies: LP bounds over a cell are widened by this, relative to the objective's size",
    "STABLE_MARGIN": "a unit counts as stable on a set when its pre-activation keeps its sign with this relative margin",
    "IMAGE_EPS": "the image MILP's counting threshold, relative to the normalised problem (absorbs the solver's tolerances)",
    "IMAGE_MARGIN": "the image MILP's witness margin: inactive rows below minus this, earlier units this far from their kink",
    "BOUND_WIDEN_RTOL": "interval bounds of the network encodings are widened by this (relative, at least absolute) before use",
    "BOUND_WIDEN_ONE_RTOL": "one LP-tightened bound of a network encoding is moved outwards by this (relative) before use",
    "DIRECTION_MOVING_RTOL": "a coordinate of a direction below this times its largest does not move (a network's first look)",
    "OUTPUT_MATCH_RTOL": "two outputs of a network agree when they differ by at most this, relative to the larger",
    "OUTPUT_KEY_QUANTUM": "outputs are rounded to this fraction of their scale to group equal ones (candidates only, each "
    "verified)",
    "RECONSTRUCT_ZERO_RTOL": "an output coordinate below this times the largest is a zero when a layer's input is reconstructed",
    "ROW_ZERO_RTOL": "a row of norm below this times the largest is a zero row (the image MILP leaves it out)",
    "LOCAL_PAIR_SHRINKS": "the fractions by which sample points are pulled towards the centre before a local pair is sought "
    "there",
    "REDUCTION_RTOL": "the largest relative difference between a compiled ONNX network and the graph's own forward",
    "FORWARD_RTOL": "the largest relative difference between a traced network's forward and the module's own float64 forward",
    "ONNX_BN_DEFAULT_EPSILON": "(file format) the epsilon of an ONNX BatchNormalization node that states none: the "
    "operator's default",
    "RELAXATION_MARGIN_RTOL": "the margin the LP relaxation of a region's count asks of each row (times scale and row norm)",
    "RELAXATION_SHIFT_RTOL": "the bias shift of a row the reweighted LP relaxation drops (times scale and row norm)",
    "COUNT_RETRY_RTOL": "the least bias lowering when a counting candidate that leans on the solver's tolerance is retried",
    "BALL_ROUNDING_PAD": "the extra factor by which the radius of a ball holding a box is rounded up",
    "SAMPLING_ABOVE_TOL": "(experiments) sampling estimates of the maximal bias count as at or above it within this",
    "KNOWN_VALUE_ATOL": "(experiments) the tetrahedron's polytope bias must equal the known value within this",
    "NONRECTIFYING_ACTIVE_RTOL": "(experiments) a coefficient of the injectivity experiment's witness counts as active from "
    "this times the largest on",
    "LOGISTIC_RIDGE": "(experiments) the ridge that keeps the threshold's logistic Newton step finite",
    "LOGISTIC_STEP_TOL": "(experiments) the threshold's logistic fit stops when no step component exceeds this",
    "MIN_TIMED_SECONDS": "the least time a timed block of the rectifying test is taken to have lasted (seconds; sizes the "
    "next block)",
    "SECONDS_PER_FLOP": "the seconds one floating-point operation is estimated to take, for the progress bar's time estimate",
    "DRAW_PARALLEL_TOL": "(drawing) a direction component below this: the line is drawn parallel to that axis",
    "DRAW_DUPLICATE_TOL": "(drawing) consecutive corners of a drawn polygon closer than this are one corner",
    "DRAW_ZERO": "(drawing) a drawn length, scale or angle gap below this counts as zero (labels, a full circle, a moving "
    "row)",
    "DRAW_INSIDE_RTOL": "(drawing) a grid point of a 2-d picture is drawn inside a domain within this relative tolerance",
    "DRAW_DIRECTION_MIN": "(drawing) a label's offset direction shorter than this is replaced by a fixed one",
    "DRAW_LOG_FLOOR": "(drawing) the floor of the logarithmic error axis of the playground",
    "DRAW_AXIS_MIN": "(drawing) the least height of the playground's linear axis",
}


__all__ += [name for name in GUARD_DOCS if name not in __all__]


def guard_table() -> list[tuple[str, float | tuple[float, ...], str]]:
    """``(name, value, what it bounds)`` for every numerical guard (a value is a float, or a tuple of floats for a
    sequence such as :data:`LOCAL_PAIR_SHRINKS`).
    """
    def value(v):
        return tuple(float(x) for x in v) if isinstance(v, tuple) else float(v)

    return [(name, value(globals()[name]), text) for name, text in GUARD_DOCS.items()]
