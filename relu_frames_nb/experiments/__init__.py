r"""The paper's numerical experiments (Section "Numerical experiments") at fast or full size.

===========  =====================================================================
propinj      Evolution towards injectivity (Figure "propinj"): proportion of an unseen
             test set on which the layer with the sampled bias :math:`\alpha^{(k)}` is
             rectifying, per iteration ``k``, over many random trials.
isinj        Effect of redundancy (Figure "isinj"): for every ``2 <= n <= 30``,
             ``n <= m <= 150``, the proportion of random bias entries that pass the
             sampled test :math:`\alpha_i \le \alpha^{(N)}_i - \rho^*\|\phi_i\|`, for bias
             variances 0, 0.1 and 1, next to the exact zero-bias verdict (Tukey depth)
             where it is affordable.
conv         Approximation of the maximal bias (Figure "conv"): distance of the sampled
             estimate to the exact polytope bias of the tetrahedron on the sphere,
             :math:`\alpha^{\mathbb{S}} = -1/\sqrt{3}` (the paper prints it without the minus).
threshold    The injectivity threshold of random layers (not a figure of the paper): the
             probability that a Gaussian layer ReLU(Wx - alpha) is injective on R^n
             against m/n, every layer decided exactly (half-space depth), with Wilson
             intervals, the crossing of 1/2 per n, and the asymptotic anchors of the
             literature (3.4, 6.698, 7.65, 8.34, 10.5).
===========  =====================================================================

Each function takes ``size="fast"`` (seconds, for CI and notebooks) or ``size="full"`` (the
paper's scale) and returns a small frozen result with ``save(path)`` / ``load(path)``
(``.npz``, no pickles).

Scale and reproducibility
-------------------------
Independent pieces of work (blocks of configurations or of trials) run through a
:class:`concurrent.futures.Executor`: by default a local process pool with one worker per
CPU (BLAS limited to one thread per worker); any other executor works, e.g. a Dask
cluster's ``client.get_executor()``. Every random draw comes from a
:class:`numpy.random.SeedSequence` keyed by ``(experiment, n, m, trial, role)``, so results
do not depend on the executor, the number of workers or the order of completion. With
``cache_dir`` each finished piece is written as an ``.npz`` shard; a rerun (after an
interruption, say) loads the shards and computes only what is missing.

Figure "isinj" at paper scale (3,915 frames, ``N = 5 * 10^5`` samples each) uses an exact
filtered kernel (:mod:`relu_frames_nb._util.kernels`): float32 coefficients with a proven error
margin, a two-pass test that skips the samples which cannot change any entry still under
test, early decisions (the estimate only decreases, so an entry below every bias under test
has failed for good and a frame whose entries have all failed stops), and, by default, one
sample stream per dimension shared by the frames of that dimension (``sample_sharing``).
"""

from __future__ import annotations

# also re-exported: the exact_source codes EXACT_* of IsinjResult and the size presets _*_SIZES
from ._conv import (
    _CONV_SIZES,  # noqa: F401
    TETRAHEDRON_ALPHA_S,
    ConvResult,
    conv,
)
from ._isinj import (  # noqa: F401
    _ISINJ_SIZES,
    EXACT_NONE,
    EXACT_REDUNDANCY,
    EXACT_REFUSED,
    EXACT_TUKEY,
    EXACT_WITNESS,
    REDUNDANCY_UPPER,
    IsinjResult,
    isinj,
)
from ._propinj import (
    _PROPINJ_SIZES,  # noqa: F401
    PropinjResult,
    propinj,
)
from ._runner import MAX_WORKERS, SIZES, check_ints, check_workers, default_executor, load_result  # noqa: F401
from ._threshold import (  # noqa: F401
    _THRESHOLD_SIZES,
    INJECTIVE,
    NOT_INJECTIVE,
    NOT_RUN,
    THRESHOLD_ANCHORS,
    UNDETERMINED,
    ThresholdResult,
    threshold,
    threshold_full_run,
    threshold_n14_run,
    wilson_interval,
)

__all__ = [
    "SIZES",
    "CONJECTURED_REDUNDANCY",
    "REDUNDANCY_LOWER",
    "REDUNDANCY_UPPER",
    "TETRAHEDRON_ALPHA_S",
    "PropinjResult",
    "IsinjResult",
    "ConvResult",
    "ThresholdResult",
    "THRESHOLD_ANCHORS",
    "propinj",
    "isinj",
    "conv",
    "threshold",
    "threshold_full_run",
    "threshold_n14_run",
    "wilson_interval",
    "load_result",
    "default_executor",
]

#: conjectured injectivity threshold of random zero-bias layers (Maillard et al.), m = q n
CONJECTURED_REDUNDANCY = 6.698
#: proven asymptotic bounds (Section "Redundancy"): q <= 3.3 not injective; q >= REDUNDANCY_UPPER = 9.091 injective
REDUNDANCY_LOWER = 3.3
