"""A duck-typed torch tensor for the tests that must not need torch: ``.detach().cpu().numpy()`` and ``.ndim``."""

from __future__ import annotations

import numpy as np


class Tensor:
    """What the package reads of a torch tensor."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=float)
        self.ndim = self.a.ndim

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a
