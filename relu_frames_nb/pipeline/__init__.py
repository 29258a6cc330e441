r"""The checking pipeline's building blocks: a problem, a context, stages and their evidence.

* :class:`Problem` -- the normal form of "is ``ReLU(W x - alpha)`` injective on ``K``?", built once;
* :class:`Context` -- one budget (deadline, memory, progress), one seed and one set of
  :class:`Tolerances`, handed to every stage and to the paper's tools;
* :class:`Stage` and :class:`Evidence` -- a step of a check and what it found; :func:`run_stages`
  walks an ordered list of them.

The lists (the layer check's fast and exact stages, the exact engine's searches, a network's own
stages) live beside the code they call; the book's page "How a check runs" shows them.
"""

from .context import Context, Findings
from .problem import Problem
from .stage import Evidence, Stage, run_stages, stage_table
from .tolerances import DEFAULT_TOLERANCES, TOLERANCE_DOCS, Tolerances

__all__ = ["Context", "Findings", "Problem", "Evidence", "Stage", "run_stages", "stage_table", "Tolerances",
           "DEFAULT_TOLERANCES", "TOLERANCE_DOCS"]  # fmt: skip
