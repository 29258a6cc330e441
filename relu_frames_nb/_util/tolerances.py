r"""Every tolerance of the package in one place, each with a name and what it bounds.

All of them are **relative to the normal form** of the problem (:mod:`relu_frames_nb.pipeline.normal`:
rows of norm in ``[1/2, 1)``, a domain of size in ``[1/2, 1)``), so they mean the same thing
whatever units the caller's weights and data are in. A verdict's certificate lists the ones its
proof relied on (:meth:`Tolerances.used`).

The rule they serve: **a comparison that lies within a rounding bound is never a proof**. A
floating-point margin proves something only when it clears the bound on the rounding of the
computation that produced it; inside that bound an exact computation decides, or nothing does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["Tolerances", "DEFAULT_TOLERANCES", "TOLERANCE_DOCS", "GUARD_DOCS", "MILP_FEASIBILITY", "DUAL_BOUND_SLACK",
           "WITNESS_MARGIN_RTOL", "RADIUS_RTOL", "DIVISOR_FLOOR"]

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
# numerical guards: fixed constants of the exact engine (not options of a check), each with what it bounds
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

#: one sentence per numerical guard (the book's page "How a check runs" lists them beside the tolerances)
GUARD_DOCS = {
    "MILP_FEASIBILITY": "feasibility tolerance HiGHS runs with; the certificate margin is a thousand times larger",
    "DUAL_BOUND_SLACK": "subtracted from a MILP's dual bound on a count before rounding it up to an integer",
    "WITNESS_MARGIN_RTOL": "a witness candidate with a smaller margin (relative to the problem's scale) counts as having none",
    "RADIUS_RTOL": "a witness candidate this close (relative) to a round domain's radius counts as on its surface",
    "DIVISOR_FLOOR": "the least divisor in ratios of norms or singular values",
}


def guard_table() -> list[tuple[str, float, str]]:
    """``(name, value, what it bounds)`` for every numerical guard."""
    return [(name, float(globals()[name]), text) for name, text in GUARD_DOCS.items()]
