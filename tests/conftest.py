"""Shared zoo of standard, degenerate and adversarial inputs for the tests."""

from __future__ import annotations

import signal

import numpy as np
import pytest

import relu_frames_nb as rf

SQ3 = np.sqrt(3.0)

#: frames that every frame-level function must handle (name -> factory)
STANDARD_FRAMES = {
    "mercedes-benz": rf.zoo.mercedes_benz,
    "example-a": rf.zoo.example_a,
    "standard-basis-3": lambda: rf.zoo.standard_basis(3),
    "plus-minus-basis-2": lambda: rf.zoo.plus_minus_basis(2),
    "pentagon": lambda: rf.zoo.regular_polygon(5),
    "tetrahedron": lambda: rf.zoo.platonic("tetrahedron"),
    "icosahedron": lambda: rf.zoo.platonic("icosahedron"),
    "random-sphere-7x3": lambda: rf.zoo.random_sphere(7, 3, seed=1),
    "gaussian-12x4": lambda: rf.zoo.gaussian(12, 4, seed=2),
}

#: arrays that are not frames, with the reason
NOT_FRAMES = {
    "zero-row": [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]],
    "rank-deficient": [[1.0, 1.0], [2.0, 2.0], [-1.0, -1.0]],
    "too-few": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
    "one-dim": [1.0, 2.0, 3.0],
}

#: inputs that are not numeric arrays, or contain NaN/inf
BAD_ARRAYS = {
    "nan": [[np.nan, 0.0], [0.0, 1.0], [1.0, 1.0]],
    "inf": [[np.inf, 0.0], [0.0, 1.0], [1.0, 1.0]],
    "strings": [["a", "b"], ["c", "d"]],
    "ragged": [[1.0, 0.0], [1.0]],
    "text": "1 0; 0 1",
}


@pytest.fixture(params=sorted(STANDARD_FRAMES))
def frame(request) -> rf.Frame:
    """Each standard frame in turn."""
    return STANDARD_FRAMES[request.param]()


@pytest.fixture
def triangle() -> rf.Frame:
    return rf.zoo.mercedes_benz()


@pytest.fixture
def mb2_points() -> np.ndarray:
    """The two points of Example "mb2" that collide for alpha = 0."""
    return np.array([[0.5, SQ3 / 2], [-0.5, SQ3 / 2]])


def full_spark_random(m: int, n: int, seed: int) -> rf.Frame:
    """A random unit-norm frame (full spark with probability one)."""
    return rf.zoo.random_sphere(m, n, seed=seed)


def sigint_as_in_a_terminal() -> None:
    """In the child, before it starts: Ctrl-C's default action, so that Python turns SIGINT into KeyboardInterrupt.

    A test suite started in the background (``nohup bash .ci/run &``) inherits SIGINT *ignored*, as every background
    job of a non-interactive shell does, and Python leaves an ignored SIGINT ignored: the command under test would
    never see the signal (the clean runs of two stops failed so, exit 3 after the whole check instead of 130).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
