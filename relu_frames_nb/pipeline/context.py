r"""What every stage and every paper tool receives: one budget, one seed, one set of tolerances.

A :class:`Context` is made once, at the front door (:func:`relu_frames_nb.check`) or by a public
tool from its own ``time_limit`` / ``seed`` keywords (:meth:`Context.create`), and handed down.
A stage that may use only part of the time gets :meth:`Context.share`: the same seed, tolerances
and findings, with a budget of its own that never outlives its parent's.

Randomness: :meth:`Context.generator` gives each caller a generator made afresh from the seed, so
the points a stage draws do not depend on which stages ran before it (adding a stage to a list does
not change what the others find); a numpy ``Generator`` passed as the seed is used as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._util.budget import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, Budget, unlimited
from .._util.validation import as_rng
from .tolerances import DEFAULT_TOLERANCES, Tolerances

__all__ = ["Context", "Findings"]


@dataclass
class Findings:
    """What the stages of one check found that is not a verdict: notes, numbers, the stages run."""

    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    stages: list[str] = field(default_factory=list)
    #: what one stage leaves for the next (points that failed a test, an estimate): never part of a verdict
    scratch: dict[str, Any] = field(default_factory=dict)


@dataclass
class Context:
    """A budget (deadline, memory, progress), a seed and the tolerances of one check.

    Attributes
    ----------
    budget : Budget
    seed : int, None or numpy Generator
    tol : Tolerances
    findings : Findings
        Shared by a context and every share of it.
    """

    budget: Budget
    seed: Any = 0
    tol: Tolerances = DEFAULT_TOLERANCES
    findings: Findings = field(default_factory=Findings)

    @classmethod
    def create(cls, *, time_limit: Any = DEFAULT_TIME_LIMIT, memory_limit: Any = DEFAULT_MEMORY, progress: Any = False,
               seed: Any = 0, tol: Tolerances | None = None, desc: str = "check", workers: Any = 1) -> Context:  # fmt: skip
        """A context with a budget of its own (the public tools' ``time_limit``, ``seed`` and ``workers`` keywords)."""
        as_rng(seed)  # validate once, here
        budget = Budget(time_limit, memory=memory_limit, progress=progress, desc=desc, workers=workers)
        return cls(budget, seed, DEFAULT_TOLERANCES if tol is None else tol)

    @classmethod
    def of(cls, ctx: Context | None = None, *, time_limit: Any = None, seed: Any = 0) -> Context:
        """``ctx`` itself, or a silent context from a tool's keywords (no limit when ``time_limit`` is None)."""
        if ctx is not None:
            if not isinstance(ctx, Context):
                raise TypeError(f"ctx must be a Context; got {type(ctx).__name__}.")
            return ctx
        if time_limit is None:
            as_rng(seed)
            return cls(unlimited(), seed)
        return cls.create(time_limit=time_limit, seed=seed)

    def share(self, fraction: float = 1.0, *, seconds: float | None = None) -> Context:
        """The same context with a budget for one stage: ``fraction`` of the time left (and at most ``seconds``)."""
        if fraction >= 1.0 and seconds is None:
            return self
        return Context(self.budget.share(fraction=fraction, seconds=seconds), self.seed, self.tol, self.findings)

    def generator(self) -> np.random.Generator:
        """A random generator made afresh from the seed (the Generator itself when one was given)."""
        return as_rng(self.seed)

    @staticmethod
    def for_tool(ctx: Context | None, time_limit: Any, seed: Any) -> tuple[Any, Any]:
        """A paper tool's ``(time_limit, seed)`` once its ``ctx`` keyword is taken into account.

        Without a context the tool's own keywords stand. With one, the tool uses the context's
        seed and at most the time the context has left (capped by ``time_limit`` when given), so
        a stage that calls the tool cannot be outlived by it.
        """
        if ctx is None:
            return time_limit, seed
        if not isinstance(ctx, Context):
            raise TypeError(f"ctx must be a relu_frames_nb.pipeline.Context; got {type(ctx).__name__}.")
        left = ctx.remaining()
        if time_limit is not None:
            left = min(left, float(time_limit))
        return (None if left == float("inf") else max(left, 0.0)), ctx.seed

    # shortcuts
    def remaining(self) -> float:
        """Seconds left in this context's budget (``inf`` without a limit)."""
        return self.budget.remaining()

    def check(self, stage: str | None = None, **info: Any) -> None:
        """Move the progress display; raise ``BudgetExhausted`` once the deadline has passed."""
        self.budget.check(stage, **info)
