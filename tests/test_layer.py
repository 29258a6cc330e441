import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import DimensionMismatchError, InputError
from tests._torch_standins import Tensor


def test_forward_matches_formula(frame):
    rng = np.random.default_rng(0)
    alpha = rng.standard_normal(frame.m)
    L = rf.ReLULayer(frame, alpha)
    X = rng.standard_normal((50, frame.n))
    expected = np.array([[max(0.0, x @ p - a) for p, a in zip(frame.vectors, alpha)] for x in X])
    np.testing.assert_allclose(L(X), expected)
    np.testing.assert_allclose(L(X[3]), expected[3])


def test_scalar_bias_broadcasts():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    np.testing.assert_allclose(L.alpha, [-0.5] * 3)


def test_torch_convention_round_trip():
    rng = np.random.default_rng(1)
    W, b = rng.standard_normal((6, 3)), rng.standard_normal(6)
    L = rf.ReLULayer.from_weights(W, b)
    np.testing.assert_allclose(L.alpha, -b)
    X = rng.standard_normal((10, 3))
    np.testing.assert_allclose(L(X), np.maximum(X @ W.T + b, 0))
    W2, b2 = L.to_weights()
    np.testing.assert_allclose(W2, W)
    np.testing.assert_allclose(b2, b)
    np.testing.assert_allclose(rf.ReLULayer.from_weights(W).alpha, 0)


def test_active_set_uses_non_strict_inequality():
    L = rf.ReLULayer(rf.zoo.standard_basis(2), [0.5, 0.0])
    np.testing.assert_array_equal(L.active_set([0.5, -1.0]), [True, False])
    np.testing.assert_array_equal(L.active_set([0.49, 0.0]), [False, True])
    np.testing.assert_array_equal(L.active_set([0.49, -1e-3], tol=0.02), [True, True])


def test_normalized_layer_has_same_active_sets():
    rng = np.random.default_rng(2)
    L = rf.ReLULayer(rf.zoo.gaussian(8, 3, seed=1), rng.standard_normal(8))
    X = rng.standard_normal((300, 3))
    np.testing.assert_array_equal(L.active_set(X), L.normalized().active_set(X))


def test_bad_inputs():
    F = rf.zoo.mercedes_benz()
    with pytest.raises(DimensionMismatchError, match="alpha"):
        rf.ReLULayer(F, [0.0, 1.0])
    with pytest.raises(InputError, match="alpha"):
        rf.ReLULayer(F, [np.nan, 0, 0])
    with pytest.raises(DimensionMismatchError, match="X"):
        rf.ReLULayer(F, 0)(np.ones((2, 3)))
    with pytest.raises(DimensionMismatchError, match="b"):
        rf.ReLULayer.from_weights(np.eye(2), [1.0, 2.0, 3.0])
    with pytest.raises(InputError):
        rf.ReLULayer(F, "0.5")
    with pytest.raises(InputError):
        rf.ReLULayer(F, 0).active_set([0, 1], tol=-1)
    L = rf.ReLULayer(F, 0)
    assert "ReLULayer(m=3" in repr(L) and "ReLULayer(m=3" in repr(L.with_bias(np.arange(3.0)))


def test_accepts_tensor_like_inputs():
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    L = rf.ReLULayer.from_weights(Tensor(W), Tensor([0.1, 0.2, 0.3]))
    np.testing.assert_allclose(L.alpha, [-0.1, -0.2, -0.3])
    np.testing.assert_allclose(L(Tensor([[1.0, 1.0]])), [[1.1, 1.2, 0.0]])


def test_layer_refuses_a_bool_bias():
    with pytest.raises(InputError, match="booleans are not a bias"):
        rf.ReLULayer(rf.zoo.mercedes_benz(), True)
    with pytest.raises(InputError, match="booleans are not a bias"):
        rf.ReLULayer.from_weights(rf.zoo.mercedes_benz().vectors, [True, False, True])
