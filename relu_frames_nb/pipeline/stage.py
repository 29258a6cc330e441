r"""A check is an ordered list of stages; each stage answers with evidence or steps aside.

A :class:`Stage` has a name, a sentence saying what it does, what it can prove, the share of the
time left that it may use, ``applies(problem, ctx)`` and ``run(problem, ctx) -> Evidence | None``.
:func:`run_stages` walks a list: it skips the stages that do not apply, gives each the share of the
budget it declares, stops at the first evidence that decides, and keeps going when a stage used up
its own share (the note says so) as long as the check's budget has time left. A new method is one
:class:`Stage` subclass, one line in a list, and its tests.

The lists themselves live beside the code they call (the layer check's fast and exact lists, the
exact engine's searches, the network's own stages); :func:`stage_table` lays any list out for the
book's page "How a check runs".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .._util.budget import BudgetExhausted
from ..verdict import Certificate, Status
from .context import Context
from .problem import Problem

__all__ = ["Evidence", "Stage", "run_stages", "stage_table"]


@dataclass(frozen=True)
class Evidence:
    """What a stage found.

    Attributes
    ----------
    status : Status
        ``"injective"``, ``"not injective"`` or ``"undetermined"`` (bounds reached, no proof).
    method : str
        The stage (the method) that found it: the one meaning of "method" in a verdict.
    reason : str
        The proof or the witness for people (the verdict's text after the dash).
    certificate : Certificate or None
    pair : tuple of two ndarrays or None
        In the normal form; mapped back and checked again by the assembler.
    bounds : tuple or None
        Bounds on the fewest active rows reached.
    data : Any
        The stage's own result object (e.g. the exact engine's), for the details.
    """

    status: Status
    method: str
    reason: str = ""
    certificate: Certificate | None = None
    pair: tuple | None = None
    bounds: tuple | None = None
    data: Any = None
    notes: tuple = field(default_factory=tuple)

    @property
    def decided(self) -> bool:
        """True for a proof either way."""
        return self.status != Status.UNDETERMINED


class Stage:
    """One step of a check. Subclasses set the class attributes and implement :meth:`run`."""

    #: the name shown in progress bars, in the verdict's ``stages`` and as its ``method``
    name: str = ""
    #: one sentence: what the stage does
    summary: str = ""
    #: what a success proves: "injective", "not injective" or "either"
    proves: str = "either"
    #: the fraction of the time left that the stage may use (1.0: all of it)
    share: float = 1.0

    def applies(self, problem: Problem, ctx: Context) -> bool:
        """Whether the stage has anything to say about ``problem`` (cheap; no solve)."""
        return True

    def time_share(self, problem: Problem) -> float:
        """The share of the time left for this problem (the class's ``share`` unless overridden)."""
        return self.share

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:  # pragma: no cover - abstract
        """Look for a proof either way within ``ctx``'s budget."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Stage {self.name!r}>"


def run_stages(stages: Sequence[Stage], problem: Any, ctx: Context, *, stop_at_deadline: bool = True) -> Evidence | None:
    """Run ``stages`` in order; the first deciding evidence, else the last undetermined one (or None).

    A stage that exhausts its own share of the time ends with a note and the next one runs; the
    check's own deadline ends the list (``BudgetExhausted`` propagates to the caller). With
    ``stop_at_deadline=False`` every stage that applies is started even after the deadline (stages
    that wind down and report what they reached, e.g. a network's layer that must still be described).
    ``problem`` is a :class:`Problem`, or for a network's own stages the state they share.
    """
    last: Evidence | None = None
    for stage in stages:
        if not stage.applies(problem, ctx):
            continue
        if stop_at_deadline:
            ctx.check(stage.name)
        ctx.findings.stages.append(stage.name)
        sub = ctx.share(stage.time_share(problem))
        try:
            ev = stage.run(problem, sub)
        except BudgetExhausted as exc:
            if sub is ctx or ctx.budget.expired():
                raise
            ctx.findings.notes.append(f"{stage.name}: its share of the time ran out{_during(exc)}")
            continue
        if ev is None:
            continue
        if ev.decided:
            return ev
        last = ev
    return last


def _during(exc: BudgetExhausted) -> str:
    return f" (during {exc.stage})" if exc.stage else ""


def stage_table(stages: Iterable[Stage]) -> list[dict[str, Any]]:
    """One row per stage: name, what it does, what it proves, its share of the time."""
    rows = []
    for i, st in enumerate(stages, start=1):
        share = st.share
        rows.append({"order": i, "name": st.name, "summary": st.summary, "proves": st.proves,
                     "share": "all that is left" if share >= 1.0 else f"{share:.0%} of what is left"})  # fmt: skip
    return rows
