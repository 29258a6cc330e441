r"""Whole networks: :class:`Network` (from (W, b) pairs, a PyTorch state dict, a fitted
scikit-learn MLP) and :func:`check_network`, injectivity checked layer by layer.

Map of the subpackage
---------------------
model   :class:`Network`: loaders, shapes, forward pass
bounds  :func:`preactivation_bounds`, :func:`relu_box`: interval bounds of a layer's image
check   :func:`check_network` -> :class:`NetworkVerdict` (one :class:`LayerCheck` per layer)
"""

from .bounds import preactivation_bounds, relu_box
from .check import LayerCheck, NetworkVerdict, check_network
from .model import Network

__all__ = ["Network", "NetworkVerdict", "LayerCheck", "check_network", "preactivation_bounds", "relu_box"]
