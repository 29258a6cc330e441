import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.paper.bias.estimate import ESTIMATE, GUARANTEED, BiasEstimate


def test_irrelevant_finite_admits_margin():
    e = BiasEstimate(np.array([0.5, np.inf, -0.25]), "test", rf.Ball(2), GUARANTEED)
    assert e.is_guarantee and e.m == 3
    np.testing.assert_array_equal(e.irrelevant, [False, True, False])
    np.testing.assert_allclose(e.finite(), [0.5, 0.5, -0.25])
    np.testing.assert_allclose(e.finite(fill=9.0), [0.5, 9.0, -0.25])
    np.testing.assert_array_equal(e.admits([0.5, 100.0, -0.2]), [True, True, False])
    assert e.margin([0.4, 0.0, -0.3]) == pytest.approx(0.05)
    assert e.margin(0.0) == pytest.approx(-0.25)
    assert "irrelevant=1" in repr(e)


def test_values_are_read_only_and_checked():
    e = BiasEstimate([0.0, 1.0], "test", guarantee=ESTIMATE)
    assert not e.is_guarantee
    with pytest.raises(ValueError):
        e.values[0] = 3.0
    with pytest.raises(ValueError):
        BiasEstimate([np.nan, 1.0], "test")
    with pytest.raises(ValueError):
        BiasEstimate(np.zeros((2, 2)), "test")
    with pytest.raises(rf.DimensionMismatchError):
        e.admits([0.0, 0.0, 0.0])
