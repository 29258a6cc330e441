r"""The exact stage for directions: zero bias, R^n, and R^n as a superset of the domain.

Active sets of a zero-bias layer depend on the direction of ``x`` only, so on every domain whose
cone of directions is all of :math:`\mathbb{R}^n` (a ball, a shell, a box around 0) the question is
whether the half-space depth of the origin among the rows exceeds ``h``
(:func:`relu_frames_nb.paper.depth.halfspace_depth_at_least`: a branch and bound whose every bound comes
from a circuit verified exactly). A layer with a bias on :math:`\mathbb{R}^n` is the same question for
the lifted rows :math:`(\phi_i, -a_i)` with the point :math:`-e_{n+1}` kept negative (directions with
:math:`t > 0`). And since a layer injective on :math:`\mathbb{R}^n` is injective on every subset, the
lifted question is also a cheap certificate for a bounded domain (monotonicity: the verdict says the
proof was on :math:`\mathbb{R}^n`); every bias :math:`\le 0` is covered by the zero-bias question.

A removal set found by the search gives a direction where at most ``h`` rows are active; it becomes
a witness only after the usual construction and check inside the domain.
"""

from __future__ import annotations

import numpy as np

from ..paper.depth import halfspace_depth_at_least
from ._hyperplanes import HyperplaneInfo
from ._state import Run

__all__ = ["depth_stage", "depth_mode"]


def _all_directions(Kr) -> bool:
    signs = Kr.cone_signs()
    return signs is not None and all(len(s) == 2 for s in signs)


def depth_mode(run: Run) -> str:
    """Which depth question fits the run: ``"zero bias"`` and ``"R^n"`` decide it (ask them first),
    ``"zero bias covers"`` and ``"R^n covers"`` are supersets that can only certify (ask them after the
    cheap witnesses).
    """
    if bool(np.all(run.a == 0)) and _all_directions(run.Kr):
        return "zero bias"
    if run.Kr.whole_space:
        return "R^n"
    if np.all(run.a <= 0) and _all_directions(run.Kr):
        return "zero bias covers"
    return "R^n covers"


def depth_stage(run: Run, info: HyperplaneInfo) -> tuple[str, str] | None:
    """Try the depth question that fits the run; ``("injective", proof)`` when proved, else None.

    A witness found on the way is kept in ``run.pair`` (the caller reports it).
    """
    Phi, a, Kr = run.Phi, run.a, run.Kr
    m, d = Phi.shape
    Wr, ar = run.rows if run.rows is not None else (Phi, a)  # the rows as given: circuits are verified on them
    h = info.h
    mode = depth_mode(run)
    share = {"zero bias": 0.8, "R^n": 0.8, "zero bias covers": 0.4, "R^n covers": 0.25}[mode]
    if mode.endswith("covers") and d >= 12 and m < 6 * d:
        # a superset that holds only if the layer is injective on all of R^n: below m/n = 6 (where half of
        # the Gaussian layers are at n = 12, `reproduce threshold`) it rarely does, and at n = 16 the
        # question took its whole share without an answer; the domain's own questions get the time
        share *= 0.25
    if mode in ("zero bias", "zero bias covers"):
        points, kept = Wr, None
    if mode in ("R^n", "R^n covers"):
        lifted = np.hstack([Wr, -ar[:, None]])  # not normalised: the search normalises, circuits are checked on these
        p = np.zeros((1, d + 1))
        p[0, d] = -1.0  # kept negative: only directions with t > 0
        points, kept = np.vstack([lifted, p]), [m]
    run.report(f"half-space depth ({mode})")
    res = halfspace_depth_at_least(points, h, kept=kept, time_limit=share * run.remaining(), workers=run.budget.workers,
                                   tick=lambda nodes: run.report(f"half-space depth ({mode})"))  # fmt: skip
    run.notes.append(f"half-space depth ({mode}): {res.status} after {res.nodes} nodes, {res.circuits} circuits verified")
    if res.status == "deep":
        where = {
            "zero bias": "every direction",
            "R^n": "every point of R^n",
            "zero bias covers": "every direction at zero bias, hence at every bias ≤ 0 (smaller biases only add active "
                                f"rows) and on every subset of R^{d}",
            "R^n covers": f"every point of R^{d}, hence of its subset",
        }[mode]  # fmt: skip
        proof = (
            f"{where} keeps more than h = {h} frame vectors active: no {h} of them can be removed so that the others lie in "
            f"an open half-space (branch and bound over removal sets, {res.nodes} nodes, every bound from a circuit "
            "verified exactly)"
        )
        return "injective", proof
    if res.status == "shallow" and res.direction is not None:
        x = np.asarray(res.direction, dtype=float)
        if mode in ("zero bias",):
            run.try_witness(Kr.move_inside(x))
        elif mode in ("R^n", "R^n covers") and x[-1] > 0:
            run.try_witness(x[:-1] / x[-1])
    return None
