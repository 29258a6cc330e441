r"""Interactive explorers (ipywidgets compound widgets) built on the core, ``plane`` and ``space``.

* :class:`FrameExplorer2D` — a frame for :math:`\mathbb{R}^2` (preset, random or typed),
  a bias (one offset or per element), a domain; a live picture with overlays and a
  verdict line: injective on ``K`` or not, by which method, with the margin, and the
  colliding pair drawn when there is one.
* :class:`PolytopeExplorer3D` — the pythreejs polytope viewer with controls for frame,
  domain, bias method (polytope or sampling), a table of per-element biases and vertex
  selection.
* :class:`ReconstructionPlayground` — pick ``x``, see :math:`z = C_\alpha x` and its active
  set, reconstruct with the ReLU-dual and with the ReLU frame algorithm (iterations,
  error curve).
* :class:`DigitsExplorer` — a small image (a digit of a data set, or drawn on a grid of
  toggle buttons) through the first layer of a trained network: hidden activations, active
  count against the input dimension, reconstruction from the activations.

Each class is an :class:`ipywidgets.VBox` built in ``__init__``; observers are short,
call the core and update data in place. Every observer runs through a guard: an
exception is shown in the widget's error area (``.errors``, CSS class ``rfnb-errors``)
and kept in ``.error_text``, never lost. Plots are PNGs written into an ``Output`` widget
(CSS class ``rfnb-plot``), so they render in JupyterLab, Notebook 7 and Voila alike and
can be tested without a browser through ``.last_figure`` and ``.last_png``.

The classes live in :mod:`.explorer2d`, :mod:`.explorer3d` and :mod:`.playground` (shared
machinery in ``_widget_base``); this module re-exports them, so
``from relu_frames_nb.viz.widgets import FrameExplorer2D`` keeps working.
"""

from __future__ import annotations

from ..checking import check
from ..verdict import Verdict
from ._widget_base import presets
from .digits import DigitsExplorer
from .explorer2d import FrameExplorer2D
from .explorer3d import PolytopeExplorer3D, bias_table_html
from .playground import ReconstructionPlayground

__all__ = [
    "Verdict",
    "check",
    "FrameExplorer2D",
    "PolytopeExplorer3D",
    "ReconstructionPlayground",
    "DigitsExplorer",
    "bias_table_html",
    "presets",
]
