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
from .bias.correlated import (
    TukeyDepth,
    max_constant_bias,
    most_correlated_basis,
    sampling_bias,
    tukey_depth_origin,
    zero_bias_injective,
)
from .bias.estimate import BiasEstimate
from .bias.polytope import (
    InscribingPolytope,
    complete_omnidirectional,
    inscribing_polytope,
    is_omnidirectional,
    polytope_bias,
    polytope_bias_exterior,
)
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
from .reconstruction import (
    FrameAlgorithmResult,
    LeftInverseBank,
    PReLULayer,
    prelu_inverse,
    reconstruct,
    relu_dual,
    relu_frame_algorithm,
    relu_synthesis,
)
from .rectifying import (
    Collision,
    RectifyingCheck,
    check_rectifying,
    find_collision,
    in_maximal_domain,
    is_rectifying,
)
from .sizes import full_size
from .stability import (
    GlobalBounds,
    LocalStability,
    active_bounds,
    active_lower_bound,
    active_upper_bound,
    global_bounds,
    image_radius,
    local_stability,
    measured_lipschitz,
)
from .verdict import Verdict, decide

__version__ = "0.1.0"

__all__ = [
    "zoo",
    "full_size",
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
    "is_rectifying",
    "in_maximal_domain",
    "check_rectifying",
    "RectifyingCheck",
    "find_collision",
    "Collision",
    "most_correlated_basis",
    "max_constant_bias",
    "sampling_bias",
    "tukey_depth_origin",
    "zero_bias_injective",
    "TukeyDepth",
    "InscribingPolytope",
    "inscribing_polytope",
    "is_omnidirectional",
    "complete_omnidirectional",
    "polytope_bias",
    "polytope_bias_exterior",
    "relu_synthesis",
    "relu_dual",
    "reconstruct",
    "LeftInverseBank",
    "relu_frame_algorithm",
    "FrameAlgorithmResult",
    "PReLULayer",
    "prelu_inverse",
    "active_bounds",
    "active_lower_bound",
    "active_upper_bound",
    "local_stability",
    "LocalStability",
    "global_bounds",
    "GlobalBounds",
    "image_radius",
    "measured_lipschitz",
    "Verdict",
    "decide",
    "ReluFramesError",
    "InputError",
    "NotAFrameError",
    "DimensionMismatchError",
    "TooExpensiveError",
    "NotOmnidirectionalError",
    "DegenerateHullError",
    "NotInjectiveError",
]


def load_ipython_extension(ipython):
    """``%load_ext relu_frames_nb``: rich reprs and the ``%%frame`` / ``%relu_check`` magics (see ``extension``)."""
    from .extension import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext relu_frames_nb``."""
    from .extension import unload_ipython_extension as _unload

    _unload(ipython)
