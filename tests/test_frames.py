import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError, NotAFrameError, TooExpensiveError
from tests.conftest import BAD_ARRAYS, NOT_FRAMES


def test_operators_match_matrices(frame):
    phi = frame.vectors
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, frame.n))
    np.testing.assert_allclose(frame.analysis(X), X @ phi.T)
    np.testing.assert_allclose(frame.analysis(X[0]), phi @ X[0])
    C = rng.standard_normal((4, frame.m))
    np.testing.assert_allclose(frame.synthesis(C), C @ phi)
    np.testing.assert_allclose(frame.frame_operator, phi.T @ phi)
    np.testing.assert_allclose(frame.gram, phi @ phi.T)


def test_bounds_are_optimal(frame):
    A, B = frame.bounds
    assert 0 < A <= B
    # the frame inequality holds for random x and is attained by the extreme eigenvectors
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, frame.n))
    energy = np.sum(frame.analysis(X) ** 2, axis=1) / np.sum(X**2, axis=1)
    assert np.all(energy >= A - 1e-12) and np.all(energy <= B + 1e-12)
    w, v = np.linalg.eigh(frame.frame_operator)
    np.testing.assert_allclose(np.sum(frame.analysis(v[:, 0]) ** 2), A, rtol=1e-12)
    np.testing.assert_allclose(np.sum(frame.analysis(v[:, -1]) ** 2), B, rtol=1e-12)


def test_tight_frames():
    assert rf.zoo.mercedes_benz().is_tight()
    np.testing.assert_allclose(rf.zoo.mercedes_benz().bounds, (1.5, 1.5))
    assert rf.zoo.platonic("icosahedron").is_tight()
    assert not rf.zoo.example_a().is_tight()


def test_canonical_dual_reconstructs(frame):
    dual = frame.canonical_dual().vectors
    rng = np.random.default_rng(2)
    x = rng.standard_normal(frame.n)
    np.testing.assert_allclose(dual.T @ frame.analysis(x), x, atol=1e-12)
    np.testing.assert_allclose(dual.T, np.linalg.pinv(frame.vectors), atol=1e-12)


def test_normalization_keeps_norms_and_rescales_bias():
    F = rf.Frame([[2.0, 0.0], [0.0, 0.5], [-3.0, -3.0]])
    G = F.normalized()
    assert G.is_normalized() and not F.is_normalized()
    np.testing.assert_allclose(F.norms, [2.0, 0.5, np.sqrt(18)])
    alpha = np.array([0.4, -0.1, 1.0])
    a2 = F.normalize_bias(alpha)
    np.testing.assert_allclose(F.denormalize_bias(a2), alpha)
    # Lemma "normalized": same active sets before and after
    X = np.random.default_rng(3).standard_normal((500, 2))
    same = rf.ReLULayer(F, alpha).active_set(X) == rf.ReLULayer(G, a2).active_set(X)
    assert same.all()


def test_subframes():
    F = rf.zoo.example_a()
    assert F.spans([0, 2]) and not F.spans([0, 3]) and not F.spans([1])
    assert F.subframe([0, 1]).m == 2
    with pytest.raises(NotAFrameError):
        F.subframe([0, 3])
    assert F.spans(np.array([True, False, True, False, False]))
    with pytest.raises(InputError):
        F.spans([7])


@pytest.mark.parametrize(
    ("frame_factory", "spark"),
    [
        (rf.zoo.mercedes_benz, 3),
        (lambda: rf.zoo.standard_basis(3), 4),
        (lambda: rf.zoo.plus_minus_basis(3), 2),
        (rf.zoo.example_a, 2),
        (lambda: rf.zoo.platonic("tetrahedron"), 4),
        (lambda: rf.Frame([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]]), 3),
        (lambda: rf.zoo.random_sphere(9, 4, seed=0), 5),
    ],
)
def test_spark(frame_factory, spark):
    F = frame_factory()
    assert F.spark() == spark
    assert F.is_full_spark() == (spark == F.n + 1)


def test_spark_refuses_large_problems():
    F = rf.zoo.random_sphere(60, 10, seed=0)
    with pytest.raises(TooExpensiveError, match="max_subsets"):
        F.spark()


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 7), st.integers(2, 3), st.integers(0, 10_000))
def test_spark_equals_brute_force(m, n, seed):
    import itertools

    rng = np.random.default_rng(seed)
    phi = rng.integers(-1, 2, size=(m, n)).astype(float)  # small integers: many dependencies
    phi[np.all(phi == 0, axis=1)] = 1.0
    try:
        F = rf.Frame(phi)
    except NotAFrameError:
        return
    brute = n + 1
    for k in range(1, n + 1):
        if any(np.linalg.matrix_rank(phi[list(c)]) < k for c in itertools.combinations(range(m), k)):
            brute = k
            break
    assert F.spark() == brute


@pytest.mark.parametrize("name", sorted(NOT_FRAMES))
def test_not_frames_are_refused(name):
    with pytest.raises(NotAFrameError if name != "one-dim" else InputError) as err:
        rf.Frame(NOT_FRAMES[name])
    assert "got" in str(err.value)


@pytest.mark.parametrize("name", sorted(BAD_ARRAYS))
def test_bad_arrays_are_refused(name):
    with pytest.raises(InputError):
        rf.Frame(BAD_ARRAYS[name])


def test_error_is_a_value_error_and_names_argument():
    with pytest.raises(ValueError, match="frame vectors must be non-zero"):
        rf.Frame(NOT_FRAMES["zero-row"])
    with pytest.raises(ValueError, match=r"X must have 2 columns"):
        rf.zoo.mercedes_benz().analysis(np.ones((4, 3)))


def test_frame_is_immutable_and_copies_input():
    W = np.eye(2)
    F = rf.Frame(W)
    W[0, 0] = 5.0
    assert F.vectors[0, 0] == 1.0
    with pytest.raises(ValueError):
        F.vectors[0, 0] = 2.0


def test_equality_hash_repr():
    assert rf.zoo.mercedes_benz() == rf.zoo.mercedes_benz()
    assert hash(rf.zoo.mercedes_benz()) == hash(rf.zoo.mercedes_benz())
    assert rf.zoo.mercedes_benz() != rf.zoo.example_a()
    assert "m=3" in repr(rf.zoo.mercedes_benz())
    assert np.asarray(rf.zoo.mercedes_benz()).shape == (3, 2)


def test_accepts_lists_and_integer_arrays():
    F = rf.Frame([[1, 0], [0, 1], [-1, -1]])
    assert F.vectors.dtype == np.float64
