"""Layer k on the image of the layers before, across the pieces of the image (network/pieces.py).

Every verdict is compared with an independent brute force (tests/_brute_cells.py: cells from a
grid, LPs for every pair of cells) on random 2 -> w1 -> w2 networks over the box [-1, 1]^2.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb.network.image import check_on_image
from relu_frames_nb.network.pieces import MAX_DIM
from tests._brute_cells import largest_collision

BOX = rf.Box(-np.ones(2), np.ones(2))
SEEDS = range(16)


def _net(seed: int):
    rng = np.random.default_rng(seed)
    w1, w2 = int(rng.integers(3, 7)), int(rng.integers(5, 11))
    W1, b1 = rng.normal(size=(w1, 2)), rng.normal(size=w1) * 0.3 + 0.4
    W2, b2 = rng.normal(size=(w2, w1)), rng.normal(size=w2) * 0.5 + 1.0
    return [(W1, b1), (W2, b2)]


def _forward(ws, x, k):
    h = np.asarray(x, dtype=float)
    for W, b in ws[: k + 1]:
        h = np.maximum(W @ h + b, 0.0)
    return h


def _collide(ws, x, y) -> bool:
    return bool(np.allclose(_forward(ws, x, 1), _forward(ws, y, 1), rtol=1e-9, atol=1e-12))


@cache
def _case(seed: int):
    ws = _net(seed)
    res = check_on_image(ws, 1, BOX, budget=Budget(60), verify_pair=lambda x, y: _collide(ws, x, y))
    gap, pair = largest_collision(ws, 1)
    return ws, res, gap, pair


@pytest.mark.parametrize("seed", SEEDS)
def test_verdicts_agree_with_the_brute_force(seed):
    ws, res, gap, pair = _case(seed)
    if res.status == "injective":
        assert gap < 1e-7, (seed, gap, res.text)
    if gap > 1e-6:  # two distinct image points collide: never certified
        assert res.status != "injective", seed
        assert _collide(ws, *pair)
    if res.status == "not injective":
        x, y = res.pair
        assert BOX.contains(x) and BOX.contains(y) and _collide(ws, x, y)
        assert not np.allclose(_forward(ws, x, 0), _forward(ws, y, 0))  # distinct points of the image


def test_the_pieces_certify_where_counting_cannot_and_the_suite_is_not_vacuous():
    cases = [_case(s) for s in SEEDS]
    by_pieces = [s for s, (_, res, _, _) in zip(SEEDS, cases) if res.pieces is not None and res.pieces.status == "injective"]
    colliding = [s for s, (_, _, gap, _) in zip(SEEDS, cases) if gap > 1e-6]
    assert len(by_pieces) >= 3, by_pieces
    assert len(colliding) >= 3, colliding
    for s in by_pieces:  # counting alone fell short there
        res = cases[SEEDS.index(s)][1]
        assert res.h is None or res.lower <= res.h
        assert "pulled back" in res.text


@pytest.mark.parametrize("power", [-3, 0, 4])
def test_the_verdict_does_not_change_when_the_input_is_scaled(power):
    seed = next(s for s in SEEDS if _case(s)[1].pieces is not None and _case(s)[1].pieces.status == "injective")
    (W1, b1), second = _net(seed)
    t = 10.0**power
    ws = [(W1 / t, b1), second]  # the same network on the box scaled by t
    res = check_on_image(ws, 1, rf.Box(-t * np.ones(2), t * np.ones(2)), budget=Budget(60))
    assert res.status == "injective" and res.pieces is not None and res.pieces.status == "injective"


def test_a_fold_of_far_apart_inputs_is_found_by_the_two_copy_milp():
    # layer 1 is injective on the box; layer 2 sees |x1| only, so (a, b) and (-a, b) collide
    W1, b1 = np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1]]), np.array([0.0, 0, 1, 1])
    W2, b2 = np.array([[1.0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]), np.ones(3)
    ws = [(W1, b1), (W2, b2)]
    res = check_on_image(ws, 1, BOX, budget=Budget(30), verify_pair=lambda x, y: _collide(ws, x, y))
    assert res.status == "not injective"
    x, y = res.pair
    assert _collide(ws, x, y) and np.max(np.abs(x - y)) > 0.5
    net = rf.Network.from_weights(ws)
    v = rf.check(net, BOX, time_limit=30)
    assert v.status == "not injective"
    np.testing.assert_allclose(net(v.pair[0]), net(v.pair[1]), rtol=1e-9, atol=1e-12)


def test_a_collision_of_the_layers_before_is_not_blamed_on_the_layer():
    # seed 5: layer 1 maps two far-apart inputs to one point, which the two-copy MILP finds first
    ws = _net(5)
    res = check_on_image(ws, 1, BOX, budget=Budget(30), verify_pair=lambda x, y: _collide(ws, x, y))
    assert res.status != "not injective"
    assert res.pieces is not None and res.pieces.pair is not None
    x, y = res.pieces.pair
    np.testing.assert_allclose(_forward(ws, x, 0), _forward(ws, y, 0), atol=1e-9)
    assert np.max(np.abs(x - y)) > 1e-3
    assert "layers before already give the same point" in res.pieces.text


def test_a_tiny_budget_ends_undetermined():
    rng = np.random.default_rng(3)
    ws = [(rng.normal(size=(10, 3)), np.full(10, 0.5)), (rng.normal(size=(20, 10)), np.full(20, 1.0))]
    res = check_on_image(ws, 1, rf.Ball(3), budget=Budget(0.05))
    assert res.status == "undetermined"
    assert "time limit" in res.text or any("time limit" in n for n in res.notes)


def test_high_input_dimension_is_not_tried():
    rng = np.random.default_rng(0)
    n = MAX_DIM + 1
    ws = [(rng.normal(size=(3 * n, n)), np.full(3 * n, 0.5)), (rng.normal(size=(6 * n, 3 * n)), np.full(6 * n, 1.0))]
    res = check_on_image(ws, 1, rf.Box(-np.ones(n), np.ones(n)), budget=Budget(30))
    assert res.pieces is None


def test_a_narrowing_layer_that_folds_its_image_gets_a_verified_pair():
    # 6 -> 3 cannot be certified by spanning in R^6; on the 2-dimensional image it folds far-apart inputs
    rng = np.random.default_rng(0)
    ws = [(rng.normal(size=(6, 2)), rng.normal(size=6) * 0.3 + 0.6), (rng.normal(size=(3, 6)), rng.normal(size=3) * 0.3 + 2.0)]
    res = check_on_image(ws, 1, BOX, budget=Budget(30), verify_pair=lambda x, y: _collide(ws, x, y))
    assert res.h is None  # the rows span 3 of the 6 coordinates: no counting certificate is possible
    assert largest_collision(ws, 1)[0] > 0.1  # the brute force agrees that it folds
    assert res.status == "not injective"
    x, y = res.pair
    assert BOX.contains(x) and BOX.contains(y) and _collide(ws, x, y)
    assert not np.allclose(_forward(ws, x, 0), _forward(ws, y, 0))
