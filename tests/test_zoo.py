import itertools

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError

SQ3 = np.sqrt(3.0)


def test_mercedes_benz_matches_paper():
    np.testing.assert_allclose(rf.zoo.mercedes_benz().vectors, [[0, 1], [-SQ3 / 2, -0.5], [SQ3 / 2, -0.5]])
    assert rf.zoo.triangle is rf.zoo.mercedes_benz


def test_example_a_matches_paper():
    r = 1 / np.sqrt(2)
    np.testing.assert_allclose(rf.zoo.example_a().vectors, [[1, 0], [r, r], [0, 1], [-1, 0], [0, -1]])


@pytest.mark.parametrize(
    ("name", "m", "neighbour_cos"),
    [
        ("tetrahedron", 4, -1 / 3),
        ("octahedron", 6, 0.0),
        ("cube", 8, 1 / 3),
        ("icosahedron", 12, 1 / np.sqrt(5)),
        ("dodecahedron", 20, np.sqrt(5) / 3),
    ],
)
def test_platonic_solids_are_regular(name, m, neighbour_cos):
    F = rf.zoo.platonic(name)
    assert F.m == m and F.n == 3 and F.is_normalized()
    G = F.gram
    np.fill_diagonal(G, -2)
    # every vertex has the same largest inner product with its neighbours
    np.testing.assert_allclose(G.max(axis=1), neighbour_cos, atol=1e-12)
    # pairwise distinct vertices
    assert min(np.linalg.norm(a - b) for a, b in itertools.combinations(F.vectors, 2)) > 0.1


def test_octahedron_is_plus_minus_basis():
    a = {tuple(v) for v in rf.zoo.platonic("octahedron").vectors}
    b = {tuple(v) for v in rf.zoo.plus_minus_basis(3).vectors}
    assert a == b


def test_regular_polygon():
    F = rf.zoo.regular_polygon(6)
    assert F.m == 6 and F.is_normalized()
    np.testing.assert_allclose(F.gram[0, 1], np.cos(np.pi / 3))
    with pytest.raises(InputError):
        rf.zoo.regular_polygon(2)


def test_random_frames_are_seeded():
    a = rf.zoo.random_sphere(10, 4, seed=3)
    assert a == rf.zoo.random_sphere(10, 4, seed=3)
    assert a != rf.zoo.random_sphere(10, 4, seed=4)
    assert a.is_normalized()
    g = rf.zoo.gaussian(10, 4, seed=3)
    assert not g.is_normalized()
    with pytest.raises(InputError):
        rf.zoo.random_sphere(2, 4)
    with pytest.raises(InputError):
        rf.zoo.random_sphere(5, 2, seed="x")
    with pytest.raises(InputError, match="seed must be a non-negative int, None or a numpy Generator; got -1"):
        rf.zoo.gaussian(5, 2, seed=-1)


def test_names_and_get():
    for name in rf.zoo.names():
        assert isinstance(rf.zoo.get(name), rf.Frame)
    with pytest.raises(InputError, match="must be one of"):
        rf.zoo.get("heptagon-ish")
    with pytest.raises(InputError):
        rf.zoo.platonic("sphere")
