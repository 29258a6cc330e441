import numpy as np
import pytest

from relu_frames_nb._util import validation as v
from relu_frames_nb.errors import DimensionMismatchError, InputError


def test_to_float_array_accepts_numbers_and_bools():
    assert v.to_float_array([1, 2], "x").dtype == np.float64
    assert v.to_float_array(np.array([True, False]), "x").tolist() == [1.0, 0.0]


@pytest.mark.parametrize("bad", ["abc", b"1", [1, "a"], [[1, 2], [3]], [1 + 2j], [np.nan], [np.inf], None, {"a": 1}])
def test_to_float_array_refuses(bad):
    with pytest.raises(InputError, match="^x must"):
        v.to_float_array(bad, "x")


def test_points_and_bias():
    pts, single = v.as_points([1.0, 2.0], 2)
    assert pts.shape == (1, 2) and single
    with pytest.raises(DimensionMismatchError, match="X must have 3 columns"):
        v.as_points(np.ones((4, 2)), 3)
    with pytest.raises(InputError):
        v.as_points(np.ones((2, 2, 2)), 2)
    np.testing.assert_array_equal(v.as_bias(0.5, 3), [0.5] * 3)
    with pytest.raises(DimensionMismatchError):
        v.as_bias([1.0, 2.0], 3)


@pytest.mark.parametrize(
    ("func", "bad"),
    [
        (v.as_positive, 0.0),
        (v.as_positive, -1),
        (v.as_positive, float("nan")),
        (v.as_nonnegative, -1e-9),
        (v.as_count, 1.5),
        (v.as_count, True),
        (v.as_count, 0),
        (v.as_probability, 1.5),
        (v.as_positive, "1"),
    ],
)
def test_scalar_validators_refuse(func, bad):
    with pytest.raises(InputError, match="^y must"):
        func(bad, "y")


def test_scalar_validators_accept_numpy_scalars():
    assert v.as_count(np.int64(4), "k") == 4
    assert v.as_positive(np.float32(2.0), "r") == 2.0


def test_rows_outputs_and_index_sets():
    Z, single = v.as_rows([1.0, 0.0, 2.0], 3, "Z")
    assert Z.shape == (1, 3) and single
    with pytest.raises(DimensionMismatchError, match="one per frame element"):
        v.as_rows(np.ones((2, 4)), 3, "Z")
    with pytest.raises(InputError, match="non-negative"):
        v.as_outputs([1.0, -1.0, 0.0], 3)
    assert v.as_outputs([1.0, -1e-12, 0.0], 3, zero_tol=1e-9)[0].tolist() == [[1.0, 0.0, 0.0]]
    assert v.as_index_set({2, 0}, 3).tolist() == [0, 2]
    assert v.as_index_set(np.array([True, False, True]), 3).tolist() == [0, 2]
    for bad in ([0, 0], [3], "01", [0.5]):
        with pytest.raises(InputError, match="^J must"):
            v.as_index_set(bad, 3)
    assert v.as_choice("a", "kind", ("a", "b")) == "a"
    with pytest.raises(InputError, match="kind must be one of 'a', 'b'; got 'c'"):
        v.as_choice("c", "kind", ("a", "b"))


def test_seeds():
    g = np.random.default_rng(1)
    assert v.as_rng(g) is g
    assert v.as_rng(5).random() == np.random.default_rng(5).random()
    assert v.as_seed(np.int64(3)) == 3
    with pytest.raises(InputError, match=r"^seed must be a non-negative int, None or a numpy Generator; got -1\.$"):
        v.as_rng(-1)
    for bad in (-1, True, 1.0, "1"):
        with pytest.raises(InputError, match="^seed must be a non-negative int"):
            v.as_seed_sequence(bad)
        with pytest.raises(InputError, match="^seed must be a non-negative int"):
            v.as_seed(bad)
    ss = v.as_seed_sequence(7, key=(2, 3))
    ref = np.random.SeedSequence(7, spawn_key=(2, 3))
    assert ss.generate_state(4).tolist() == ref.generate_state(4).tolist()
    child = v.as_seed_sequence(ss, key=(1,))
    assert child.spawn_key == (2, 3, 1) and child.entropy == 7
    assert v.as_seed_sequence(ss) is ss


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), [True, False, True], np.array([1, 0, 1], dtype=bool)])
def test_bias_refuses_booleans(bad):
    with pytest.raises(InputError, match="booleans are not a bias"):
        v.as_bias(bad, 3)


def test_bias_still_accepts_numbers_and_int_arrays():
    np.testing.assert_array_equal(v.as_bias(0, 3), [0.0] * 3)
    np.testing.assert_array_equal(v.as_bias(np.array([1, 0, 2]), 3), [1.0, 0.0, 2.0])
