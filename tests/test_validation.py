import numpy as np
import pytest

from relu_frames_nb import _validation as v
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
