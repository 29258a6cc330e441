"""Polytope bias estimation: closed form vs the paper's convex programs, and cost vs the hull.

(a) ``polytope_bias`` on the unit sphere against Algorithm 2 of App. C2 as printed: the
    convex program (opt) (relaxed to ``||D c|| <= 1``) solved with cvxpy for every facet
    containing each element with a negative boundary bias. Targets: values equal to
    1e-8, ours at least 50x faster. cvxpy is a benchmark-only dependency (extra ``bench``).
(b) End-to-end ``polytope_bias`` (hull, facets, projections, bias) against
    ``scipy.spatial.ConvexHull`` alone. Target: at most 3x.

Run with ``python -m benchmarks polytope`` or ``python -m benchmarks.bench_polytope``.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial import ConvexHull

import relu_frames_nb as rf
from benchmarks._common import Target, at_least, at_most, best_of
from relu_frames_nb.paper.bias.polytope import inscribing_polytope, polytope_bias

SPEEDUP_TARGET = 50.0
VALUE_TOL = 1e-8
HULL_RATIO_TARGET = 3.0


def paper_sphere_bias(X: np.ndarray) -> tuple[np.ndarray, int]:
    """Algorithm 2 with program (opt), one cvxpy problem per facet and vertex (simplicial hulls)."""
    import cvxpy as cp

    hull = ConvexHull(X)
    m = X.shape[0]
    alpha_phi = np.full(m, np.inf)  # formula (i)
    for F in hull.simplices:
        gram = X[F] @ X[F].T
        alpha_phi[F] = np.minimum(alpha_phi[F], gram.min(axis=1))
    alpha_s = alpha_phi.copy()
    n_programs = 0
    for i in np.flatnonzero(alpha_phi < 0):
        best = np.inf
        for F in hull.simplices[np.any(hull.simplices == i, axis=1)]:
            D = X[F].T
            c = cp.Variable(len(F), nonneg=True)
            prob = cp.Problem(cp.Minimize((X[i] @ D) @ c), [cp.norm(D @ c, 2) <= 1])
            prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
            n_programs += 1
            best = min(best, float(prob.value))
        alpha_s[i] = best
    return alpha_s, n_programs


def _line(label: str, text: str, holds: bool) -> None:
    print(f"{label:<44} {text:<60} {'PASS' if holds else 'FAIL'}", flush=True)


def bench_vs_cvxpy(m: int, n: int, seed: int = 0) -> list[Target]:
    F = rf.zoo.random_sphere(m, n, seed=seed)
    X = np.asarray(F.vectors)
    assert inscribing_polytope(F).is_simplicial  # so that facets == qhull's simplices
    ours = polytope_bias(F, rf.Sphere(n)).values
    t_ours = best_of(lambda: polytope_bias(F, rf.Sphere(n)), repeat=20)
    t0 = time.perf_counter()
    ref, n_programs = paper_sphere_bias(X)
    t_ref = time.perf_counter() - t0
    diff = float(np.max(np.abs(ours - ref)))
    speedup = t_ref / t_ours
    tag = f"(a) sphere, m={m} n={n}"
    _line(
        f"{tag}: values",
        f"max |ours - cvxpy| = {diff:.1e} over {m} elements ({n_programs} programs)  target <= {VALUE_TOL:g}",
        diff <= VALUE_TOL,
    )
    _line(
        f"{tag}: speed",
        f"ours {t_ours * 1e3:.2f} ms, cvxpy {t_ref * 1e3:.0f} ms: {speedup:.0f}x  target >= {SPEEDUP_TARGET:g}x",
        speedup >= SPEEDUP_TARGET,
    )
    return [
        at_most(f"polytope {tag} max |diff| vs cvxpy", diff, VALUE_TOL),
        at_least(f"polytope {tag} speed-up vs cvxpy", speedup, SPEEDUP_TARGET, "x"),
    ]


def bench_vs_hull(m: int, n: int, seed: int = 0, repeat: int = 15) -> Target:
    F = rf.zoo.random_sphere(m, n, seed=seed)
    X = np.asarray(F.vectors)
    K = rf.Sphere(n)
    t_hull, t_pbe = np.inf, np.inf
    for _ in range(repeat):  # interleaved, so that load changes hit both alike
        t0 = time.perf_counter()
        ConvexHull(X)
        t1 = time.perf_counter()
        est = polytope_bias(F, K)
        t2 = time.perf_counter()
        t_hull, t_pbe = min(t_hull, t1 - t0), min(t_pbe, t2 - t1)
    ratio = t_pbe / t_hull
    _line(
        f"(b) end-to-end vs ConvexHull, m={m} n={n}",
        f"hull {t_hull * 1e3:.1f} ms, polytope_bias {t_pbe * 1e3:.1f} ms: {ratio:.2f}x "
        f"({est.info['n_facets']} facets, {est.info['n_projections']} projections)  target <= {HULL_RATIO_TARGET:g}x",
        ratio <= HULL_RATIO_TARGET,
    )
    return at_most(f"polytope (b) m={m} n={n} time / ConvexHull time", ratio, HULL_RATIO_TARGET, "x")


def main() -> list[Target]:
    targets: list[Target] = []
    try:
        import cvxpy  # noqa: F401
    except ImportError:
        print(
            "(a) SKIP: cvxpy is not installed; install the benchmark extra "
            "(pip install 'relu_frames_nb[bench]' or .venv/bin/pip install cvxpy) to compare with program (opt).",
            flush=True,
        )
    else:
        for m, n in ((12, 3), (80, 5)):
            targets += bench_vs_cvxpy(m, n)
    for m, n in ((200, 5), (100, 6)):
        targets.append(bench_vs_hull(m, n))
    held = sum(t.holds for t in targets)
    print(f"bench_polytope: {held}/{len(targets)} targets PASS" + ("" if held == len(targets) else " (some FAIL)"))
    return targets


if __name__ == "__main__":
    main()
