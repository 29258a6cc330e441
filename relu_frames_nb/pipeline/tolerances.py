"""The public face of the package's tolerances; they live in :mod:`relu_frames_nb._util.tolerances`.

That home sits below every layer, so the domains, the frames and the private helpers can name their
guards too; this module re-exports the names the check and its readers use.
"""

from __future__ import annotations

from .._util.tolerances import (
    DEFAULT_TOLERANCES,
    DIVISOR_FLOOR,
    DUAL_BOUND_SLACK,
    GUARD_DOCS,
    MILP_FEASIBILITY,
    RADIUS_RTOL,
    TOLERANCE_DOCS,
    WITNESS_MARGIN_RTOL,
    Tolerances,
    guard_table,
)

__all__ = ["Tolerances", "DEFAULT_TOLERANCES", "TOLERANCE_DOCS", "GUARD_DOCS", "MILP_FEASIBILITY", "DUAL_BOUND_SLACK",
           "WITNESS_MARGIN_RTOL", "RADIUS_RTOL", "DIVISOR_FLOOR", "guard_table"]
