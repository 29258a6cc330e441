"""Tests of the exact (rational) verification of the polytope bias, relu_frames_nb.paper.bias._exact."""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError
from relu_frames_nb.paper.bias._exact import MAX_DIM, MAX_VECTORS, verify_polytope_bias
from relu_frames_nb.paper.bias.polytope import complete_omnidirectional, polytope_bias
from relu_frames_nb.paper.rectifying import is_rectifying

MB = np.asarray(rf.zoo.mercedes_benz())
TETRA = np.asarray(rf.zoo.platonic("tetrahedron"))


def frac(v) -> list[Fr]:
    return [Fr(float(t)) for t in np.ravel(v)]


def exact_output(W: np.ndarray, alpha: np.ndarray, x: list[Fr]) -> list[Fr]:
    """ReLU(<x, w_i> - alpha_i) in exact arithmetic."""
    out = []
    for w, a in zip(W, alpha):
        t = sum(p * q for p, q in zip(frac(w), x)) - Fr(float(a))
        out.append(max(t, Fr(0)))
    return out


def exact_active(W: np.ndarray, alpha: np.ndarray, x: list[Fr]) -> list[int]:
    return [i for i, (w, a) in enumerate(zip(W, alpha)) if sum(p * q for p, q in zip(frac(w), x)) >= Fr(float(a))]


def exact_rank(rows: list[list[Fr]]) -> int:
    A = [list(r) for r in rows]
    rank = 0
    for c in range(len(A[0]) if A else 0):
        piv = next((r for r in range(rank, len(A)) if A[r][c] != 0), None)
        if piv is None:
            continue
        A[rank], A[piv] = A[piv], A[rank]
        for r in range(rank + 1, len(A)):
            f = A[r][c] / A[rank][c]
            A[r] = [x - f * y for x, y in zip(A[r], A[rank])]
        rank += 1
    return rank


def exactly_not_rectifying(W: np.ndarray, alpha: np.ndarray, x: list[Fr]) -> bool:
    act = exact_active(W, alpha, x)
    return exact_rank([frac(W[i]) for i in act]) < W.shape[1] if act else True


# ---------------------------------------------------------------------------------
# the Mercedes-Benz frame on the unit ball: -1/2 is the threshold
# ---------------------------------------------------------------------------------


def test_mercedes_benz_at_minus_one_half_is_proved():
    text = verify_polytope_bias(MB, np.full(3, -0.5), rf.Ball(2))
    assert isinstance(text, str) and "exact proof" in text and "\n" not in text
    # the stored vectors are a little shorter than 1, so the bound of the top vector is a hair below -1/2
    # (-1/2 / |phi_2|): the plain comparison fails, the dual certificates settle it
    assert verify_polytope_bias(MB, np.full(3, -0.5), rf.Ball(2), certificates=False) is None
    assert "certificate" in text


def test_mercedes_benz_stored_vectors_are_shorter_than_one():
    # the fact the previous test relies on, checked exactly
    assert sum(q * q for q in frac(MB[1])) < 1 and sum(q * q for q in frac(MB[0])) == 1


def test_mercedes_benz_below_threshold_is_proved_by_the_bound_alone():
    for a in (-0.5 - 1e-12, np.nextafter(-0.5, -1.0)):
        text = verify_polytope_bias(MB, np.full(3, a), rf.Ball(2), certificates=False)
        assert text is not None and "certificate" not in text


def test_mercedes_benz_above_threshold_is_not_proved_and_a_pair_collides():
    alpha = np.full(3, -0.5 + 1e-12)
    assert verify_polytope_bias(MB, alpha, rf.Ball(2)) is None
    assert verify_polytope_bias(MB, np.full(3, np.nextafter(-0.5, 0.0)), rf.Ball(2)) is None
    # independent check in exact arithmetic: two points of the open unit ball with the same output
    top = int(np.argmax(MB[:, 1]))  # the zoo's orientation: the vector (0, 1)
    assert MB[top].tolist() == [0.0, 1.0]
    x = frac([3e-13, 1 - 1e-12])
    y = frac([-3e-13, 1 - 1e-12])
    assert x != y
    assert sum(t * t for t in x) < 1 and sum(t * t for t in y) < 1
    assert exact_output(MB, alpha, x) == exact_output(MB, alpha, y)
    assert exactly_not_rectifying(MB, alpha, x)


def test_mercedes_benz_scaled_rows_are_the_same_problem():
    # the front door's normal form scales rows and biases by powers of two: exactly the same problem
    scale = np.array([0.5, 2.0, 0.25])
    assert verify_polytope_bias(MB * scale[:, None], -0.5 * scale, rf.Ball(2)) is not None
    assert verify_polytope_bias(MB * scale[:, None], (-0.5 + 1e-12) * scale, rf.Ball(2)) is None
    # and the domain with the bias: B(2) at -1
    assert verify_polytope_bias(MB, np.full(3, -1.0), rf.Ball(2, 2.0)) is not None
    # far out in the exponent range, without overflow or a warning
    for c in (2.0**-1000, 2.0**1000):
        assert verify_polytope_bias(MB * c, np.full(3, -0.5 * c), rf.Ball(2)) is not None
        assert verify_polytope_bias(MB, np.full(3, -0.5 * c), rf.Ball(2, c)) is not None
        assert verify_polytope_bias(MB * c, np.full(3, (-0.5 + 1e-12) * c), rf.Ball(2)) is None


def test_strict_needs_a_margin():
    assert verify_polytope_bias(MB, np.full(3, -0.5 - 1e-12), rf.Ball(2), strict=True) is not None
    text = verify_polytope_bias(MB, np.full(3, -0.5 - 1e-12), rf.Ball(2), strict=True)
    assert "α <" in text


# ---------------------------------------------------------------------------------
# tetrahedron on the sphere: -1/sqrt(3)
# ---------------------------------------------------------------------------------


def test_tetrahedron_on_the_sphere_both_roundings():
    c = float(TETRA[0, 0])
    # every coordinate is +-c and c rounds 1/sqrt(3) up: the stored frame is a regular tetrahedron
    # of radius sqrt(3) c > 1, whose polytope bias on the unit sphere is exactly -c
    assert np.all(np.abs(TETRA) == c)
    assert 3 * Fr(c) ** 2 > 1
    below = -1 / np.sqrt(3.0)  # the float nearest to -1/sqrt(3), which lies below it
    assert below == -c
    above = np.nextafter(below, 0.0)  # the float just above -1/sqrt(3)
    assert 3 * Fr(above) ** 2 < 1 < 3 * Fr(below) ** 2
    assert verify_polytope_bias(TETRA, np.full(4, below), rf.Sphere(3)) is not None
    assert verify_polytope_bias(TETRA, np.full(4, above), rf.Sphere(3)) is None
    # -c is the bound itself: not strictly below it; the next float down is
    assert verify_polytope_bias(TETRA, np.full(4, below), rf.Sphere(3), strict=True) is None
    assert verify_polytope_bias(TETRA, np.full(4, np.nextafter(below, -1.0)), rf.Sphere(3), strict=True) is not None


def test_tetrahedron_above_threshold_has_a_non_rectifying_point_near_the_sphere():
    # at -c + ulp the bound fails; the point where it is attained, -(phi_k + phi_l) / (2c) (norm exactly 1),
    # has only two active rows: scaled by (1 - 1e-17) it lies inside the ball and is still not rectifying
    alpha = np.full(4, np.nextafter(-float(TETRA[0, 0]), 0.0))
    c = Fr(float(TETRA[0, 0]))
    x = [-(p + q) / (2 * c) * (1 - Fr(1, 10**17)) for p, q in zip(frac(TETRA[2]), frac(TETRA[3]))]
    assert sum(t * t for t in x) < 1
    assert exactly_not_rectifying(TETRA, alpha, x)
    assert verify_polytope_bias(TETRA, alpha, rf.Ball(3)) is None


# ---------------------------------------------------------------------------------
# icosahedron and octahedron (DESIGN.md, known answers)
# ---------------------------------------------------------------------------------


def test_icosahedron_on_the_sphere_is_one_over_sqrt5():
    F = np.asarray(rf.zoo.platonic("icosahedron"))
    a = 1 / np.sqrt(5.0)
    assert verify_polytope_bias(F, np.full(12, a - 1e-15), rf.Sphere(3)) is not None
    assert verify_polytope_bias(F, np.full(12, a + 1e-15), rf.Sphere(3)) is None
    # on the ball the bias is 0 (the centre must keep rows active)
    assert verify_polytope_bias(F, np.zeros(12), rf.Ball(3)) is not None
    assert verify_polytope_bias(F, np.full(12, 1e-300), rf.Ball(3)) is None


@pytest.mark.parametrize("K", [rf.Ball(3), rf.Sphere(3)], ids=["ball", "sphere"])
def test_octahedron_is_zero(K):
    F = np.asarray(rf.zoo.platonic("octahedron"))
    assert F.shape == (6, 3)
    assert verify_polytope_bias(F, np.zeros(6), K, certificates=False) is not None
    assert verify_polytope_bias(F, np.full(6, 1e-300), K) is None
    # exact witness on the unit sphere (inside the ball): (3/5, 4/5, 0) keeps only +-e_1, +-e_2 candidates
    x = [Fr(3, 5), Fr(4, 5), Fr(0)]
    assert exactly_not_rectifying(F, np.full(6, 1e-300), x)


@pytest.mark.parametrize("name", ["cube", "dodecahedron"])
def test_non_simplicial_facets(name):
    # the cube's squares are exactly coplanar in float64 (+-c everywhere): facets with 4 points
    F = np.asarray(rf.zoo.platonic(name))
    est = polytope_bias(F, rf.Ball(3))
    text = verify_polytope_bias(F, est.values - 1e-12, rf.Ball(3))
    assert text is not None
    if name == "cube":
        assert "6 facets" in text


# ---------------------------------------------------------------------------------
# random frames: agreement with the float estimate when the margin is large
# ---------------------------------------------------------------------------------


CASES = [(m, n, seed) for n, ms in ((2, (4, 9)), (3, (6, 12)), (4, (8,))) for m in ms for seed in range(2)]


@pytest.mark.parametrize("m,n,seed", CASES)
@pytest.mark.parametrize("kind", ["ball", "sphere", "positive-ball", "shell"])
def test_random_frames_agree_with_the_float_estimate(m, n, seed, kind):
    F = np.asarray(complete_omnidirectional(rf.zoo.gaussian(m, n, seed=seed)))  # not normalized
    K = {"ball": rf.Ball(n, 1.5), "sphere": rf.Sphere(n), "positive-ball": rf.PositiveBall(n),
         "shell": rf.Shell(n, 0.25, 1.0)}[kind]  # fmt: skip
    vals = polytope_bias(F, K).values
    free = ~np.isfinite(vals)
    scale = 1.0 + np.max(np.abs(vals[~free]))
    below = np.where(free, 1e6, vals - 1e-7 * scale)
    text = verify_polytope_bias(F, below, K, certificates=False)
    assert text is not None and "certificate" not in text
    # a margin of the other sign: the plain comparison never proves it
    above = np.where(free, 1e6, vals + 1e-4 * scale)
    assert verify_polytope_bias(F, above, K, certificates=False) is None


def test_box_uses_the_radial_set_around_it():
    box = rf.Box(np.full(2, -0.5), np.full(2, 0.5))
    vals = polytope_bias(MB, box).values
    assert verify_polytope_bias(MB, vals - 1e-9, box) is not None
    assert verify_polytope_bias(MB, vals + 1e-6, box, certificates=False) is None


def test_candidate_facets_are_not_trusted():
    est = polytope_bias(TETRA, rf.Sphere(3))
    good = verify_polytope_bias(TETRA, est.values, rf.Sphere(3), facets=est.info["polytope"].facets)
    junk = verify_polytope_bias(TETRA, est.values, rf.Sphere(3), facets=[[0, 1], [7, 8, 9], [0, 1, 2, 3]])
    assert good is not None and junk is not None
    # a wrong bias is not rescued by any facet list
    assert verify_polytope_bias(TETRA, est.values + 1e-9, rf.Sphere(3), facets=est.info["polytope"].facets) is None


# ---------------------------------------------------------------------------------
# never a proof where a non-rectifying point exists
# ---------------------------------------------------------------------------------


def _witness(W: np.ndarray, alpha: np.ndarray, rng: np.random.Generator, N: int):
    """A point of the open unit ball with fewer than n active rows (so not rectifying), checked exactly, or None."""
    m, n = W.shape
    U = rng.standard_normal((N, n))
    U /= np.linalg.norm(U, axis=1)[:, None]
    X = np.vstack([U * (1 - 1e-9), U * rng.random((N, 1)) ** (1 / n)])  # the sphere's neighbourhood and the ball
    G = X @ W.T - alpha
    few = np.flatnonzero(((G >= 0).sum(axis=1) < n) & (np.abs(G).min(axis=1) > 1e-9))
    for k in few[:5]:
        x = frac(X[k])
        if sum(t * t for t in x) < 1 and len(exact_active(W, alpha, x)) < n:
            return x
    return None


def test_never_proves_where_sampling_finds_a_non_rectifying_point():
    rng = np.random.default_rng(7)
    witnessed = 0
    for trial in range(40):
        n = 2 if trial % 2 else 3
        m = int(rng.integers(n + 2, 8))
        W = np.asarray(complete_omnidirectional(rf.zoo.random_sphere(m, n, seed=1000 + trial)))
        vals = polytope_bias(W, rf.Ball(n)).values
        for delta in (1e-9, 1e-6, 1e-3, 3e-2, 1e-1):
            alpha = vals + delta * (0.5 + rng.random(W.shape[0]))
            x = _witness(W, alpha, rng, 20000 if n == 3 else 5000)
            if x is None:
                continue
            witnessed += 1
            assert exactly_not_rectifying(W, alpha, x)
            assert verify_polytope_bias(W, alpha, rf.Ball(n)) is None, (trial, delta)
    assert witnessed >= 10  # the test only means something when sampling finds points


def _sphere_witness(W: np.ndarray, alpha: np.ndarray, rng: np.random.Generator, N: int):
    """A point exactly on the unit sphere with fewer than n active rows, or None.

    Inverse stereographic projection of a rational t: ``(2 t, |t|^2 - 1) / (|t|^2 + 1)`` has norm 1 exactly.
    """
    m, n = W.shape
    T = rng.standard_normal((N, n - 1)) * 2.0
    t2 = (T * T).sum(axis=1, keepdims=True)
    X = np.hstack([2 * T, t2 - 1]) / (t2 + 1)
    G = X @ W.T - alpha
    few = np.flatnonzero(((G >= 0).sum(axis=1) < n) & (np.abs(G).min(axis=1) > 1e-9))
    for k in few[:5]:
        t = frac(T[k])
        q = sum(v * v for v in t)
        x = [2 * v / (q + 1) for v in t] + [(q - 1) / (q + 1)]
        assert sum(v * v for v in x) == 1
        if len(exact_active(W, alpha, x)) < n:
            return x
    return None


@pytest.mark.parametrize("kind", ["sphere", "shell"])
def test_never_proves_where_exact_sphere_points_are_not_rectifying(kind):
    rng = np.random.default_rng(11)
    witnessed = 0
    for trial in range(30):
        n = 2 if trial % 2 else 3
        m = int(rng.integers(n + 2, 8))
        W = np.asarray(complete_omnidirectional(rf.zoo.random_sphere(m, n, seed=2000 + trial)))
        K = rf.Sphere(n) if kind == "sphere" else rf.Shell(n, 0.5, 1.0)  # the unit sphere lies in both
        vals = polytope_bias(W, K).values
        for delta in (1e-9, 1e-6, 1e-3, 3e-2, 1e-1, 3e-1):
            alpha = vals + delta * (0.5 + rng.random(W.shape[0]))
            x = _sphere_witness(W, alpha, rng, 20000 if n == 3 else 5000)
            if x is None:
                continue
            witnessed += 1
            assert exactly_not_rectifying(W, alpha, x)
            assert verify_polytope_bias(W, alpha, K) is None, (trial, delta)
    assert witnessed >= 10


def test_dodecahedron_on_the_sphere_above_its_polytope_bias():
    # pentagons: the polytope bias 1/3 is not the largest bias; the shell certificates prove more, and
    # samples of the sphere agree
    F = np.asarray(rf.zoo.platonic("dodecahedron"))
    for a in (1 / 3, 0.4):
        assert verify_polytope_bias(F, np.full(20, a), rf.Sphere(3)) is not None
        X = rf.Sphere(3).sample(20000, seed=1)
        assert is_rectifying(rf.ReLULayer(rf.Frame(F), np.full(20, a)), X).all()
    # at 0.75 a vertex direction keeps only its own vertex active (its three neighbours: <u, phi> = sqrt(5)/3 < 0.75)
    assert verify_polytope_bias(F, np.full(20, 0.75), rf.Sphere(3)) is None


def test_proofs_above_the_float_estimate_hold_at_samples():
    # biases above the polytope bias, proved by the dual certificates: every sample must be rectifying
    rng = np.random.default_rng(3)
    proved = 0
    for trial in range(12):
        n = 2 + trial % 2
        W = np.asarray(complete_omnidirectional(rf.zoo.gaussian(int(rng.integers(n + 2, 8)), n, seed=trial)))
        vals = polytope_bias(W, rf.Ball(n)).values
        alpha = vals + 1e-3 * rng.random(W.shape[0])
        if verify_polytope_bias(W, alpha, rf.Ball(n)) is None:
            continue
        proved += 1
        X = rf.Ball(n).sample(20000, seed=trial)
        assert is_rectifying(rf.ReLULayer(rf.Frame(W), alpha), X).all()
    assert proved >= 3


# ---------------------------------------------------------------------------------
# limits and bad input
# ---------------------------------------------------------------------------------


def test_limits_give_none_quickly():
    W = np.asarray(rf.zoo.random_sphere(12, MAX_DIM + 1, seed=0))
    assert verify_polytope_bias(W, np.full(12, -1.0), rf.Ball(MAX_DIM + 1)) is None
    W = np.asarray(complete_omnidirectional(rf.zoo.random_sphere(MAX_VECTORS + 1, 3, seed=0)))
    assert verify_polytope_bias(W, np.full(W.shape[0], -1.0), rf.Ball(3)) is None
    assert verify_polytope_bias(np.array([[1.0], [-1.0]]), np.array([-1.0, -1.0]), rf.Ball(1)) is None
    assert verify_polytope_bias(MB, np.full(3, -0.5), rf.Ball(2), time_limit=0.0) is None


def test_unsupported_domains_give_none():
    assert verify_polytope_bias(MB, np.full(3, -0.5), rf.RealSpace(2)) is None
    assert verify_polytope_bias(MB, np.full(3, -0.5), rf.Samples(np.eye(2))) is None
    assert verify_polytope_bias(MB, np.full(3, -0.5), "boundary") is None
    assert verify_polytope_bias(MB, np.full(3, -0.5), rf.Ball(3)) is None  # another dimension


def test_not_omnidirectional_gives_none():
    W = np.array([[1.0, 0.1], [1.0, -0.2], [0.5, 1.0], [0.4, -1.0]])  # all in the half-plane x > 0
    assert verify_polytope_bias(W, np.full(4, -10.0), rf.Ball(2)) is None


def test_infinite_biases():
    # -inf: always active; +inf: never active (then the others must do)
    alpha = np.array([-np.inf, -0.5, -0.5])
    assert verify_polytope_bias(MB, alpha, rf.Ball(2)) is not None
    assert verify_polytope_bias(MB, np.array([np.inf, -0.5, -0.5]), rf.Ball(2)) is None


def test_zero_rows_are_allowed():
    W = np.vstack([MB, np.zeros(2)])
    assert verify_polytope_bias(W, np.r_[np.full(3, -0.5), 1.0], rf.Ball(2)) is not None


@pytest.mark.parametrize(
    "W,alpha,kw",
    [
        (MB, np.zeros(2), {}),
        (MB[0], np.zeros(1), {}),
        (np.array([[np.nan, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.zeros(3), {}),
        (MB, np.array([np.nan, 0.0, 0.0]), {}),
        (MB, np.zeros(3), {"strict": "yes"}),
        (MB, np.zeros(3), {"time_limit": -1.0}),
    ],
)
def test_bad_input_raises(W, alpha, kw):
    with pytest.raises(InputError):
        verify_polytope_bias(W, alpha, rf.Ball(2), **kw)
