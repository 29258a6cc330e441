"""The search over removal sets on a ball or polytope (``depth.fewest_active_exceeds``, ``exact/_removal``).

Checked against brute force: every answer "deep" is checked at every point of a fine grid of the
domain (more than ``k`` rows active everywhere), every point reported "shallow" is recomputed
(inside the domain, at most ``k`` rows active), and a grid point with at most ``k`` active rows and a
margin forbids "deep". The answers do not change when rows, bias and domain are scaled by powers of ten.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.pairs import collides
from relu_frames_nb.domains import Box, PositiveBall, Shell
from relu_frames_nb.errors import InputError
from relu_frames_nb.exact._removal import hull_separator, search_set
from relu_frames_nb.paper.depth import ball_certified, fewest_active_exceeds


def _grid(n: int, lo: float, hi: float, per: int) -> np.ndarray:
    axes = [np.linspace(lo, hi, per)] * n
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, n)


def _layer(n, m, seed):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((m, n))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    return W, rng


DOMAINS = {
    "ball": (lambda n: {"radius": 1.0}, lambda X: np.linalg.norm(X, axis=1) <= 1.0),
    "box": (
        lambda n: {"radius": np.sqrt(n) * 1.000001, "facets": (np.vstack([np.eye(n), -np.eye(n)]), np.ones(2 * n))},
        lambda X: np.all(np.abs(X) <= 1.0, axis=1),
    ),
    "positive ball": (
        lambda n: {"radius": 1.0, "facets": (-np.eye(n), np.zeros(n))},
        lambda X: (np.linalg.norm(X, axis=1) <= 1.0) & np.all(X >= 0, axis=1),
    ),
    "off-centre ball": (lambda n: {"radius": 0.7, "center": np.full(n, 0.3)},
                        lambda X: np.linalg.norm(X - 0.3, axis=1) <= 0.7),  # fmt: skip
}


@pytest.mark.parametrize("kind", sorted(DOMAINS))
@pytest.mark.parametrize("n, m", [(2, 5), (2, 8), (3, 9)])
def test_against_a_grid(kind, n, m):
    kw_of, inside = DOMAINS[kind]
    per = 201 if n == 2 else 41
    G = _grid(n, -1.0, 1.0, per)
    G = G[inside(G)]
    seen = set()
    for seed in range(12):
        W, rng = _layer(n, m, [n, m, seed])
        alpha = rng.uniform(-0.6, 0.2, m)
        pre = G @ W.T - alpha
        counts = (pre >= 0).sum(axis=1)
        clear = np.min(np.where(pre >= 0, np.inf, -pre), axis=1)  # margin of the inactive rows
        for k in (n - 1, n):
            res = fewest_active_exceeds(W, alpha, k, **kw_of(n))
            seen.add(res.status)
            if res.status == "deep":
                assert counts.min() > k, (kind, seed, k)
            elif res.status == "shallow":
                x = res.point
                assert inside(x[None])[0]
                assert int(np.sum(W @ x >= alpha)) <= k
                assert set(np.flatnonzero(W @ x >= alpha)) <= set(res.removal)
            # a grid point well inside with few active rows and a clear margin: "deep" is impossible
            if np.any((counts <= k) & (clear > 1e-6)):
                assert res.status != "deep"
    assert {"deep", "shallow"} <= seen


@pytest.mark.parametrize("e", [-6, -2, 3, 7])
def test_answers_do_not_change_with_scale(e):
    n, m = 3, 10
    for seed in range(8):
        W, rng = _layer(n, m, [7, seed])
        alpha = rng.uniform(-0.5, 0.1, m)
        A, b = np.vstack([np.eye(n), -np.eye(n)]), np.ones(2 * n)
        base = fewest_active_exceeds(W, alpha, n - 1, radius=np.sqrt(n) * 1.001, facets=(A, b))
        s = 10.0**e
        rows = 10.0 ** (-e // 2)
        scaled = fewest_active_exceeds(W * rows, alpha * s * rows, n - 1, radius=np.sqrt(n) * 1.001 * s,
                                       facets=(A * 3.0, b * 3.0 * s))  # fmt: skip
        assert base.status == scaled.status
        if scaled.status == "shallow":
            x = scaled.point
            assert np.all(np.abs(x) <= s)
            assert int(np.sum(W @ x >= alpha * s)) <= n - 1


def test_ball_certificate_is_checked_not_trusted():
    # two opposite rows cannot both be <= -1/2 in the unit ball... but they can in a ball of radius 2
    G = np.array([[1.0, 0.0], [-1.0, 0.0]])
    gam = np.array([0.5, 0.5])  # <g, x> + 1/2 <= 0 for both: x1 <= -1/2 and x1 >= 1/2
    assert ball_certified(G, gam, np.array([1.0, 1.0]), np.zeros(2), 1.0)
    # the certificate needs S > r |y|; with u unbalanced, y != 0 and a large radius it fails
    assert not ball_certified(G, gam, np.array([1.0, 0.2]), np.zeros(2), 2.0)
    assert not ball_certified(G, gam, np.array([1.0, -1.0]), np.zeros(2), 1.0)  # negative multiplier
    # on the edge (S = r |y| exactly) nothing is proved
    assert not ball_certified(np.array([[1.0, 0.0]]), np.array([1.0]), np.array([1.0]), np.zeros(2), 1.0)


def test_time_limit_and_bad_input():
    W, rng = _layer(12, 70, 5)
    res = fewest_active_exceeds(W, np.full(70, -0.1), 11, radius=1.0, time_limit=0.05)
    assert res.status in ("undetermined", "shallow") and res.seconds < 5
    with pytest.raises(InputError, match="radius"):
        fewest_active_exceeds(W, np.zeros(70), 3, radius=0.0)
    with pytest.raises(InputError, match="alpha"):
        fewest_active_exceeds(W, np.zeros(3), 3, radius=1.0)
    with pytest.raises(InputError, match="facets"):
        fewest_active_exceeds(W, np.zeros(70), 3, radius=1.0, facets=(np.eye(3), np.ones(3)))


def test_search_sets_of_the_domains():
    c, r, f, exact, _ = search_set(rf.Ball(3, 2.0))
    assert exact and r == 2.0 and f is None and np.all(c == 0)
    c, r, f, exact, _ = search_set(PositiveBall(3))
    assert exact and f[0].shape == (3, 3)
    c, r, f, exact, _ = search_set(Shell(3, 0.5, 1.0))
    assert not exact and r == 1.0
    c, r, f, exact, _ = search_set(Box([0, -1, 2], [1, 3, 2.5]))
    assert exact
    corners = _grid(3, 0, 1, 2) * np.array([1, 4, 0.5]) + np.array([0, -1, 2])
    assert np.all(np.linalg.norm(corners - c, axis=1) <= r)
    assert np.all(corners @ f[0].T <= f[1] + 1e-12)
    X = np.random.default_rng(0).standard_normal((9, 3))
    S = search_set(rf.domains.Hull(X))
    assert S.exact and S.separate is not None
    assert np.all(np.linalg.norm(X - S.center, axis=1) <= S.radius)


def test_hull_cuts_hold_on_the_hull_and_cut_the_point():
    rng = np.random.default_rng(4)
    for e in (-5, 0, 6):
        X = rng.standard_normal((12, 3)) * 10.0**e
        sep = hull_separator(X)
        assert sep(X.mean(axis=0)) is None
        assert sep(X[3]) is None  # a vertex (or a point of the hull) is in the hull
        for _ in range(20):
            x = rng.standard_normal(3) * 3 * 10.0**e
            cut = sep(x)
            if cut is None:
                continue
            a, b = cut
            assert np.all(X @ a <= b) and a @ x > b


@pytest.mark.parametrize("n, m", [(2, 6), (3, 9)])
def test_hull_search_against_a_grid(n, m):
    """On a hull the search adds cuts as it goes; its answers agree with a grid of the hull."""
    from scipy.spatial import Delaunay

    seen = set()
    for seed in range(10):
        W, rng = _layer(n, m, [5, n, seed])
        X = rng.standard_normal((3 * n + 2, n))
        K = rf.domains.Hull(X)
        S = search_set(K)
        G = _grid(n, -3.0, 3.0, 201 if n == 2 else 41)
        G = G[Delaunay(X).find_simplex(G) >= 0]
        alpha = rng.uniform(-0.8, 0.3, m)
        counts = (G @ W.T - alpha >= 0).sum(axis=1)
        res = fewest_active_exceeds(W, alpha, n - 1, radius=S.radius, center=S.center, facets=S.facets,
                                    separate=S.separate)  # fmt: skip
        seen.add(res.status)
        if res.status == "deep":
            assert counts.min() > n - 1
        elif res.status == "shallow":
            x = res.point
            assert K.contains(x[None])[0]
            assert int(np.sum(W @ x >= alpha)) <= n - 1
    assert {"deep", "shallow"} <= seen


@pytest.mark.parametrize("kind", ["ball", "box", "positive ball", "shell", "hull"])
@pytest.mark.parametrize("e", [0, -4, 5])
def test_check_uses_it_and_agrees_with_brute_force(kind, e):
    """rf.check on small layers: answers by the new route agree with a grid, at every scale."""
    n, m = 2, 7
    s = 10.0**e
    hull = np.array([[-1, -0.8], [1, -1], [0.9, 0.7], [-0.2, 1], [-1, 0.3], [0.1, 0.2]]) * s
    K = {"ball": rf.Ball(2, s), "box": Box(-s, s, n=2), "positive ball": PositiveBall(2, s),
         "shell": Shell(2, 0.5 * s, s), "hull": rf.domains.Hull(hull)}[kind]  # fmt: skip
    G = _grid(2, -s, s, 301)
    G = G[K.contains(G)]
    methods = set()
    for seed in range(10):
        W, rng = _layer(n, m, [11, seed])
        alpha = rng.uniform(-0.6, 0.1, m) * s
        v = rf.check(rf.ReLULayer(W, alpha), K, time_limit=20, progress=False)
        methods.add(v.method)
        counts = ((G @ W.T - alpha) >= 0)
        ranks_ok = [np.linalg.matrix_rank(W[c]) == 2 if c.sum() >= 2 else False for c in counts[:: 7]]
        if str(v.status) == "injective":
            assert all(ranks_ok)
        elif str(v.status) == "not injective":
            x, y = v.pair
            assert collides(W, alpha, x, y)
            assert np.allclose(np.maximum(W @ x - alpha, 0), np.maximum(W @ y - alpha, 0), atol=1e-9 * s)
            assert K.contains(np.vstack([x, y])).all()
    assert any("removal sets" in str(mth) for mth in methods), methods


def test_a_search_stopped_by_its_limit_keeps_a_valid_lower_bound():
    W, rng = _layer(14, 140, 7)
    alpha = np.full(140, -0.03)
    res = fewest_active_exceeds(W, alpha, 13, radius=1.0, time_limit=0.5)
    assert res.status == "undetermined"
    X = rf.Ball(14).sample(20_000, seed=0)
    assert 0 < res.lower <= int((X @ W.T >= alpha).sum(axis=1).min())
    v = rf.check(rf.ReLULayer(W, alpha), rf.Ball(14), method="exact", time_limit=1.0, progress=False)
    assert str(v.status) == "undetermined" and v.lower_bound is not None and v.lower_bound >= 1
