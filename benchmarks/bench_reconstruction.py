"""Reconstruction throughput (Section "Duality and Reconstruction", App. C3/C4).

A random unit-norm layer with m=60, n=10 and zero bias; N = 10^5 outputs of points of the
unit sphere (3*10^5 with ``--full``), all checked to have a spanning positive set. Methods,
timed in one process (best of 3, except the frame algorithm):

* per-sample ``np.linalg.pinv`` of the active sub-frame in a Python loop (the baseline;
  timed on 2000 rows, extrapolated per sample),
* ``reconstruct``: one factorization per distinct active pattern, batched normal equations,
* ``LeftInverseBank`` of the most correlated bases of 2000 *training* points (disjoint from
  the outputs): containment scan + precomputed duals, fall-back for uncovered rows,
* ``LeftInverseBank`` of the most correlated bases of the inputs themselves (the paper's
  "data of interest" case): key lookup only,
* ``relu_frame_algorithm`` batched (lam = lam0 = 2/(A+B), stop at relative residual 1e-10)
  on 5000 rows.

Target: the bank (training bases) reconstructs faster than the per-sample pseudo-inverse.
"""

from __future__ import annotations

import time

import numpy as np

import relu_frames_nb as rf
from benchmarks._common import Target, at_least, best_of, full_mode
from relu_frames_nb.paper.reconstruction import LeftInverseBank, reconstruct, relu_frame_algorithm


def per_sample_pinv(L: rf.ReLULayer, Z: np.ndarray) -> np.ndarray:
    phi, alpha = L.frame.vectors, L.alpha
    out = np.empty((Z.shape[0], L.n))
    for r, z in enumerate(Z):
        J = z > 0
        out[r] = np.linalg.pinv(phi[J]) @ (z[J] + alpha[J])
    return out


def top_n(L: rf.ReLULayer, X: np.ndarray) -> np.ndarray:
    """Most correlated bases of a full-spark frame: the n largest coefficients."""
    return np.argpartition(-(X @ L.frame.vectors.T), L.n - 1, axis=1)[:, : L.n]


def _rate(label: str, N: int, seconds: float, err: float, extra: str = "") -> float:
    rate = N / seconds
    print(f"{label:<44} {rate:>12,.0f} samples/s   max error {err:.1e}{extra}", flush=True)
    return rate


def main() -> list[Target]:
    m, n = 60, 10
    N = 300_000 if full_mode() else 100_000
    L = rf.ReLULayer(rf.zoo.random_sphere(m, n, seed=0), 0.0)
    X = rf.Sphere(n).sample(N, seed=1)
    Z = L(X)
    spans = np.array([L.frame.spans(np.flatnonzero(z > 0)) for z in Z[:2000]])
    assert spans.all(), "the benchmark layer must be injective on its inputs"
    print(f"layer m={m}, n={n}, alpha=0; N={N} outputs, "
          f"{np.unique(Z > 0, axis=0).shape[0]} distinct active patterns", flush=True)

    k = 2000
    t_loop = best_of(lambda: per_sample_pinv(L, Z[:k])) * N / k
    err = np.abs(per_sample_pinv(L, Z[:k]) - X[:k]).max()
    r_loop = _rate("per-sample pinv loop (extrapolated)", N, t_loop, err)

    t_rec = best_of(lambda: reconstruct(L, Z))
    r_rec = _rate("reconstruct (per pattern, batched)", N, t_rec, np.abs(reconstruct(L, Z) - X).max())

    X_train = rf.Sphere(n).sample(2000, seed=2)
    t0 = time.perf_counter()
    bank = LeftInverseBank(L, top_n(L, X_train))
    t_build = time.perf_counter() - t0
    cover = float(np.mean(bank.assign(Z) >= 0))
    t_bank = best_of(lambda: bank.reconstruct(Z))
    r_bank = _rate(
        f"LeftInverseBank, {len(bank)} training bases",
        N,
        t_bank,
        np.abs(bank.reconstruct(Z) - X).max(),
        f"   covers {100 * cover:.2f}%, built in {t_build:.2f} s",
    )

    t0 = time.perf_counter()
    own = LeftInverseBank(L, top_n(L, X))
    t_build_own = time.perf_counter() - t0
    t_own = best_of(lambda: own.reconstruct(Z))
    r_own = _rate(
        f"LeftInverseBank, {len(own)} bases of the inputs",
        N,
        t_own,
        np.abs(own.reconstruct(Z) - X).max(),
        f"   built in {t_build_own:.2f} s",
    )

    kf = 5000
    t0 = time.perf_counter()
    res = relu_frame_algorithm(L, Z[:kf], tol=1e-10, n_iter=5000)
    t_fa = (time.perf_counter() - t0) * N / kf
    r_fa = _rate(
        "relu_frame_algorithm batched (extrapolated)",
        N,
        t_fa,
        np.abs(res.x - X[:kf]).max(),
        f"   {res.n_iter} iterations, {100 * np.mean(res.converged):.2f}% converged",
    )

    ratio = r_bank / r_loop
    print(
        f"ratios vs per-sample pinv: reconstruct {r_rec / r_loop:.1f}x, bank {ratio:.1f}x, "
        f"bank of input bases {r_own / r_loop:.1f}x, frame algorithm {r_fa / r_loop:.2f}x",
        flush=True,
    )
    holds = ratio > 1.0
    print(
        f"bench_reconstruction: LeftInverseBank {r_bank:,.0f} samples/s vs per-sample pinv {r_loop:,.0f} "
        f"samples/s = {ratio:.1f}x (target: faster than per-sample pinv) {'PASS' if holds else 'FAIL'}",
        flush=True,
    )
    return [
        at_least("reconstruction: bank vs per-sample pinv", ratio, 1.0, "x"),
        Target("reconstruction: reconstruct vs per-sample pinv", r_rec / r_loop, float("nan"), True, "x", "report"),
    ]


if __name__ == "__main__":
    main()
