"""relu_frames_nb: injectivity of ReLU layers ``ReLU(Phi x - alpha)`` with frame theory.

Map of the package (data flows one way: core -> viz -> widgets -> notebooks)
---------------------------------------------------------------------------
frames           :class:`Frame` (analysis/synthesis, bounds, normalization, spark)
zoo              named frames of the paper and random frames
domains/         the data domains K: :class:`Ball`, :class:`Sphere`, :class:`Shell`,
                 :class:`PositiveBall`, :class:`RealSpace`, :class:`Exterior`,
                 :class:`Samples`, polyhedral :class:`Box`, :class:`Polytope`,
                 :class:`Hull`; :func:`parse_domain` (one spelling); covering radii
layer            :class:`ReLULayer` (batched forward, PyTorch convention), :class:`PReLULayer`
paper/           the paper's tools:
  rectifying       alpha-rectifying tests, maximal domain, collision witnesses
  local_invertibility  on a data set: where the active sub-frame spans the data's span
  zero_bias        the exact zero-bias test (Tukey depth of the origin)
  depth            exact half-space depth by branch and bound (zero bias and R^n beyond the Tukey
                   enumeration's reach), and the same search on the points of a ball or polytope
                   (fewest_active_exceeds)
  bias/            most correlated bases and maximal constant bias (correlated),
                   sampling-based estimation (sampling), the inscribing polytope and
                   omnidirectionality (inscribing), polytope bias estimation (polytope),
                   all returning :class:`BiasEstimate` (estimate)
  reconstruction   ReLU-synthesis, ReLU-duals, :func:`reconstruct`, PReLU inverse
  left_inverse     :class:`LeftInverseBank` (precomputed left inverses)
  frame_algorithm  the iterative ReLU frame algorithm
  stability        local and global Lipschitz bounds, image radius
checking         :func:`check`: the front door, "is this layer or network injective on K?"
verdict          :class:`Verdict`, :class:`Certificate`, :class:`Status`: its one result
exact/           the exact stage: mixed-integer programming (certificate or verified pair)
network/         :class:`Network` (PyTorch-convention loaders), checked layer by layer
pipeline/        a check as stages: Problem, Context, Stage, Tolerances, the normal form
experiments/     the paper's experiments (Figures "propinj", "isinj", "conv") and the
                 injectivity threshold of random layers, decided exactly ("threshold")
cli              ``python -m relu_frames_nb check``: a trained layer or network
reproduce        ``python -m relu_frames_nb reproduce``: regenerate the experiments
extension        ``%load_ext relu_frames_nb``: rich reprs and magics (needs IPython)
viz/             matplotlib 2-D views, pythreejs 3-D viewers, the explorers (optional)

Private helpers live in ``_util/`` (validation, patterns, progress, budgets, pairs, exact
arithmetic, LPs, children, io, formatting, kernels) and ``_layer_check`` (the stages of a layer's check).
Imports point down: base -> core -> verdicts -> front ends -> viz (an import-linter
contract in the test command keeps it so). The core imports numpy and scipy only.
"""

from . import zoo
from ._util.lazy import lazy_exports as _lazy_exports
from .domains import (
    Ball,
    Box,
    CoveringRadius,
    Domain,
    Exterior,
    Hull,
    Polytope,
    PositiveBall,
    RealSpace,
    Samples,
    Shell,
    Sphere,
    covering_radius,
    paper_correction,
    parse_domain,
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
from .layer import PReLULayer, ReLULayer
from .paper.bias.correlated import max_constant_bias, most_correlated_basis
from .paper.bias.estimate import BiasEstimate
from .paper.bias.inscribing import InscribingPolytope, complete_omnidirectional, inscribing_polytope, is_omnidirectional
from .paper.bias.polytope import polytope_bias, polytope_bias_exterior
from .paper.bias.sampling import sampling_bias
from .paper.depth import DepthSearch, fewest_active_exceeds, halfspace_depth_at_least
from .paper.frame_algorithm import FrameAlgorithmResult, relu_frame_algorithm
from .paper.left_inverse import LeftInverseBank
from .paper.local_invertibility import LocalInvertibility, local_invertibility
from .paper.reconstruction import prelu_inverse, reconstruct, relu_dual, relu_synthesis
from .paper.rectifying import Collision, RectifyingCheck, check_rectifying, find_collision, in_maximal_domain, is_rectifying
from .paper.sizes import full_size
from .paper.stability import (
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
from .paper.zero_bias import TukeyDepth, tukey_depth_origin, zero_bias_injective
from .verdict import Certificate, Status, Verdict

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
    "Exterior",
    "Box",
    "Polytope",
    "Hull",
    "parse_domain",
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
    "local_invertibility",
    "LocalInvertibility",
    "most_correlated_basis",
    "max_constant_bias",
    "sampling_bias",
    "tukey_depth_origin",
    "halfspace_depth_at_least",
    "fewest_active_exceeds",
    "DepthSearch",
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
    "check",
    "describe_stages",
    "Status",
    "Verdict",
    "Certificate",
    "Network",
    "ReluFramesError",
    "InputError",
    "NotAFrameError",
    "DimensionMismatchError",
    "TooExpensiveError",
    "NotOmnidirectionalError",
    "DegenerateHullError",
    "NotInjectiveError",
]


#: names imported on first use (the check, the exact stage and whole networks pull in more of SciPy)
_LAZY = {
    "check": "checking",
    "describe_stages": "checking",
    "Network": "network",
    # ``%load_ext relu_frames_nb`` looks these up: rich reprs and the magics (see ``extension``)
    "load_ipython_extension": "extension",
    "unload_ipython_extension": "extension",
}


__getattr__, __dir__ = _lazy_exports(__name__, __package__, {k: f".{v}" for k, v in _LAZY.items()})
