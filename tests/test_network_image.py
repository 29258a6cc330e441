"""Layer k of a network on the true image of the layers before it (exact big-M encoding), against brute force.

Brute force in the plane (n = 2, widths <= 6): a 401 x 401 grid of the domain pushed through the
network. Every grid point is a point of K, so the fewest strictly active rows over the image is at
most the grid's fewest: a lower bound above it would be a wrong certificate.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb.domains import Ball, Box
from relu_frames_nb.network import Network
from relu_frames_nb.network import check as check_mod
from relu_frames_nb.network.image import check_on_image, image_bounds
from tests._brute_cells import largest_collision

GRID = np.linspace(-1.0, 1.0, 401)
PLANE = np.stack(np.meshgrid(GRID, GRID), -1).reshape(-1, 2)


def _net(seed: int, widths=None, bias=(0.3, 1.0)):
    rng = np.random.default_rng(seed)
    widths = widths or [int(rng.integers(3, 7)) for _ in range(2 + seed % 2)]
    ws, n = [], 2
    for j, m in enumerate(widths):
        ws.append((rng.normal(size=(m, n)), rng.normal(size=m) * 0.3 + (bias[0] if j == 0 else bias[1])))
        n = m
    return ws


def _grid(K):
    X = PLANE * (1.0 if isinstance(K, Box) else 1.0)
    return X[np.linalg.norm(X, axis=1) <= 1.0] if isinstance(K, Ball) else X


def _image(ws, k, X):
    H = X
    for W, b in ws[:k]:
        H = np.maximum(H @ W.T + b, 0.0)
    return H


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("domain", ["box", "ball"])
def test_lower_bound_and_certificate_against_the_grid(seed, domain):
    K = Box(-np.ones(2), np.ones(2)) if domain == "box" else Ball(2)
    ws = _net(seed)
    X = _grid(K)
    for k in range(1, len(ws)):
        res = check_on_image(ws, k, K, budget=Budget(30))
        W, b = ws[k]
        Z = _image(ws, k, X)
        active = (Z @ W.T + b) > 0
        fewest = int(active.sum(axis=1).min())
        if res.lower is not None:
            assert res.lower <= fewest, (seed, k, res.lower, fewest)
        if res.status == "injective" and res.pieces is not None:
            # certified across the pieces of the image: no colliding pair of image points by brute force
            assert largest_collision(ws, k)[0] < 1e-7, (seed, k)
        elif res.status == "injective":
            # the certificate's claim, checked at every grid point: the strictly active rows span
            live = np.ptp(Z, axis=0) > 0
            for pattern in np.unique(active, axis=0):
                assert np.linalg.matrix_rank(W[pattern][:, live]) == live.sum(), (seed, k)
        if res.upper is not None:  # a point of K where that many rows are strictly active
            assert K.contains(res.point)
            assert int(((_image(ws, k, res.point[None]) @ W.T + b) > 0).sum()) == res.upper


def test_bounds_enclose_the_grid_and_are_tighter_than_intervals():
    ws = _net(5, widths=[6, 6, 5], bias=(0.2, 0.2))
    K = Box(-np.ones(2), np.ones(2))
    layers, _, _, tightened = image_bounds(ws, 2, K, budget=Budget(30))
    loose, _, _, none = image_bounds(ws, 2, K, budget=Budget(30), tighten=False)
    assert none == 0 and tightened > 0
    H = PLANE
    for j, (W, b) in enumerate(ws[:2]):
        P = H @ W.T + b
        L = layers[j]
        assert np.all(P / L.scale >= L.lo - 1e-9) and np.all(P / L.scale <= L.hi + 1e-9)
        assert np.all(layers[j].lo * layers[j].scale >= loose[j].lo * loose[j].scale - 1e-9)
        H = np.maximum(P, 0.0)
    assert np.any(layers[1].lo * layers[1].scale > loose[1].lo * loose[1].scale + 1e-6)


def test_the_true_image_certifies_where_the_box_cannot():
    ws = _net(118)  # a 2 -> 4 -> 6 network; layer 2 fails on the box around layer 1's image
    net = Network.from_weights(ws)
    K = Box(-np.ones(2), np.ones(2))
    v = rf.check(net, K, time_limit=30)
    assert v.status == "injective" and v.certificate is not None
    second = v.layers[1]
    assert second.details["input_set"] == "image" and second.method == "image MILP"
    assert second.details["layer_status"] != "injective"  # what the box said
    assert "image of layer 1" in second.domain and "on the box enclosing the image" in second.text
    # brute force: at every grid point the strictly active rows of layer 2 span R^4
    W, b = ws[1]
    for pattern in np.unique((_image(ws, 1, PLANE) @ W.T + b) > 0, axis=0):
        assert np.linalg.matrix_rank(W[pattern]) == 4
    # the same verdict when the input is scaled by 10^k (the first layer scaled back) and layer 2 by 10^-k
    for e in (-3, 4):
        s = 10.0**e
        scaled = Network.from_weights([(ws[0][0] / s, ws[0][1]), (ws[1][0] * s, ws[1][1] * s)])
        vs = rf.check(scaled, Box(-s * np.ones(2), s * np.ones(2)), time_limit=30)
        assert vs.status == "injective" and vs.layers[1].details["input_set"] == "image", e


def test_a_witness_in_a_small_corner_is_a_verified_network_pair():
    # layer 1 affine on the box (every unit on); layer 2 keeps two rows in R^2 terms, but in the corner
    # x1 + x2 > ~1.9 the second is off and only q1 = x1 + x2 + 10 is left: rank 1, a collision there
    W1, b1 = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]), np.full(4, 1.01)
    q = np.array([[1.0, 1.0, 10.0], [-4.0, -6.0, 9.6]])  # rows (a1, a2, c): a . x + c

    def row(a1, a2, c):  # in terms of h = W1 x + b1 = (x1 + 1.01, x2 + 1.01, ...)
        return np.array([a1, a2, 0.0, 0.0]), c - 1.01 * (a1 + a2)

    W2 = np.array([row(*r)[0] for r in q])
    b2 = np.array([row(*r)[1] for r in q])
    ws = [(W1, b1), (W2, b2)]
    net = Network.from_weights(ws)
    K = Box(-np.ones(2), np.ones(2))
    corner = (PLANE @ q[1, :2] + q[1, 2]) <= 0
    assert 0 < corner.mean() < 0.01  # a corner that samples rarely hit
    res = check_on_image(ws, 1, K, budget=Budget(30),
                         local_pair=lambda P: check_mod._local_pair(net, 1, K, 0, Budget(30), points=P))  # fmt: skip
    assert res.status == "not injective" and res.pair is not None
    x, y = res.pair
    assert K.contains(x) and K.contains(y) and np.linalg.norm(x - y) > 0
    np.testing.assert_allclose(net(x), net(y), rtol=1e-12, atol=1e-12)  # recomputed here, not trusted


def test_tiny_budget_on_a_large_network_is_undetermined_not_late():
    rng = np.random.default_rng(0)
    ws = [(rng.normal(size=(60, 20)), rng.normal(size=60)), (rng.normal(size=(80, 60)), rng.normal(size=80))]
    res = check_on_image(ws, 1, Ball(20), budget=Budget(0.05))
    assert res.status == "undetermined" and any("time limit" in note for note in res.notes)


def test_bad_arguments():
    ws = _net(0)
    with pytest.raises(ValueError, match="at least 1"):
        check_on_image(ws, 0, Box(-np.ones(2), np.ones(2)), budget=Budget(5))
    with pytest.raises(ValueError, match="unbounded"):
        check_on_image(ws, 1, rf.RealSpace(2), budget=Budget(5))


def test_an_infeasible_model_is_never_a_certificate(monkeypatch):
    import relu_frames_nb.network.image as image

    real = image.solve_model

    def infeasible(c, integrality, *args, **kwargs):  # the MILPs report "infeasible"; the bound LPs run as they are
        out = real(c, integrality, *args, **kwargs)
        return out if not np.any(integrality) else type(out)(2, None, None, None, 0)

    monkeypatch.setattr(image, "solve_model", infeasible)
    res = check_on_image(_net(118), 1, Box(-np.ones(2), np.ones(2)), budget=Budget(30))
    assert res.status == "undetermined" and res.lower is None
    assert any("numerical trouble" in note for note in res.notes)
