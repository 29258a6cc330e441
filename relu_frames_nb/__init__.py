"""relu_frames_nb: injectivity of ReLU layers ``ReLU(Phi x - alpha)`` with frame theory.

Map of the package (data flows one way: core -> viz -> widgets -> notebooks)
---------------------------------------------------------------------------
frames          :class:`Frame` (analysis/synthesis, bounds, normalization, spark)
zoo             named frames of the paper and random frames
domains         :class:`Ball`, :class:`Sphere`, :class:`Shell`, :class:`PositiveBall`,
                :class:`RealSpace`, :class:`Samples`; covering radii
layer           :class:`ReLULayer` (batched forward pass, PyTorch convention)
rectifying      alpha-rectifying tests, maximal domain, collisions, exact zero-bias test
bias            most correlated bases, maximal constant bias, sampling-based and
                polytope bias estimation, all returning :class:`BiasEstimate`
reconstruction  ReLU-duals, left-inverse banks, ReLU frame algorithm, PReLU
stability       local and global Lipschitz bounds, image radius

The core imports numpy and scipy only; plots and widgets live in ``relu_frames_nb.viz``.
"""

from . import zoo
from .bias.estimate import BiasEstimate
from .domains import (
    Ball,
    CoveringRadius,
    Domain,
    PositiveBall,
    RealSpace,
    Samples,
    Shell,
    Sphere,
    covering_radius,
    paper_correction,
)
from .errors import (
    DegenerateHullError,
    DimensionMismatchError,
    InputError,
    NotAFrameError,
    NotInjectiveError,
    NotOmnidirectionalError,
    ReluFramesError,
    TooExpensiveError,
)
from .frames import Frame
from .layer import ReLULayer

__version__ = "0.1.0"

__all__ = [
    "zoo",
    "Frame",
    "ReLULayer",
    "Domain",
    "Ball",
    "Sphere",
    "Shell",
    "PositiveBall",
    "RealSpace",
    "Samples",
    "CoveringRadius",
    "covering_radius",
    "paper_correction",
    "BiasEstimate",
    "ReluFramesError",
    "InputError",
    "NotAFrameError",
    "DimensionMismatchError",
    "TooExpensiveError",
    "NotOmnidirectionalError",
    "DegenerateHullError",
    "NotInjectiveError",
]
