r"""Whole networks: :class:`Network` (from ReLU layers, PyTorch-convention ``(W, b)`` pairs through
:meth:`Network.from_weights`, a PyTorch state dict, a fitted scikit-learn MLP) and the layer-by-layer
check behind :func:`relu_frames_nb.check`.

Map of the subpackage
---------------------
model   :class:`Network`: loaders, shapes, forward pass
graph   an exact graph of affine maps, ReLU, LeakyReLU/PReLU and maxima, reduced to layers
trace   a torch module read by torch.fx tracing into that graph (:meth:`Network.from_torch`)
onnx_reader  an ONNX model read into that graph (:meth:`Network.from_onnx`)
bounds  :func:`preactivation_bounds`, :func:`relu_box`: interval bounds of a layer's image
check   :func:`check_network`: the layer-by-layer check, one :class:`~relu_frames_nb.Verdict`
        with one verdict per layer
image   a later layer on the true image of the layers before (exact big-M encoding, counting)
pieces  the same question pulled back to a low-dimensional input space (two-copy MILP, cells)
_encoding  the big-M model both use
"""

from .bounds import preactivation_bounds, relu_box
from .check import check_network
from .model import Network

__all__ = ["Network", "check_network", "preactivation_bounds", "relu_box"]
