r"""The one result of the question "is this layer (or network) injective on K?": :class:`Verdict`.

:func:`relu_frames_nb.check` returns it for a layer and for a network alike; the command line
prints :meth:`Verdict.to_dict`, the IPython extension and the explorers show it. A verdict is a
proof or it is "undetermined":

* ``"injective"`` comes with a :class:`Certificate` (what was proved, on which domain, with the
  bounds, ``h`` and the tolerances the proof absorbed);
* ``"not injective"`` comes with a ``pair``: two distinct points of ``K``, each certainly in
  ``K``, whose outputs agree (the package's one pair check, :mod:`relu_frames_nb._util.pairs`),
  checked in the caller's own coordinates;
* ``"undetermined"`` says what was reached (``bounds`` on the fewest active rows, the stages
  that ran, why it stopped).

This module only defines the types; it runs no algorithm.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

__all__ = [
    "Status",
    "Certificate",
    "Verdict",
    "EXIT_BAD_INPUT",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
]


class Status(str, Enum):
    """The three answers, spelled once for the verdicts, the CLI, the extension and the explorers.

    A ``Status`` is a ``str``: ``Status.NOT_INJECTIVE == "not injective"``.
    """

    INJECTIVE = "injective"
    NOT_INJECTIVE = "not injective"
    UNDETERMINED = "undetermined"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:  # reads as the plain string it equals
        return repr(self.value)

    @property
    def exit_code(self) -> int:
        """The command line's exit status: 0 injective, 1 not injective, 3 undetermined."""
        return {"injective": 0, "not injective": 1}.get(self.value, 3)


#: exit status for bad input (unreadable file, wrong shape, bad option)
EXIT_BAD_INPUT = 2
#: exit status for an internal error (a bug): never 1, which means "not injective"
EXIT_INTERNAL_ERROR = 4
#: exit status when the check was interrupted (Ctrl-C or SIGTERM): no verdict
EXIT_INTERRUPTED = 130


def _json(v: Any) -> Any:
    """JSON-friendly: arrays as lists, inf and NaN as None, enums as their value."""
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, np.ndarray):
        return [_json(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json(x) for k, x in v.items()}
    if hasattr(v, "to_dict"):
        return v.to_dict()
    return v


class _ReadOnly(dict):
    """A verdict's details: a dict that refuses changes (a verdict is built complete; make a new one instead)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a Verdict's details cannot be changed; build a new verdict with dataclasses.replace(v, details=...)")

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        return (_ReadOnly, (dict(self),))


@dataclass(frozen=True)
class Certificate:
    """What was proved when a verdict says "injective".

    Attributes
    ----------
    kind : str
        ``"polytope bias"`` (Thm PBE + Injectivity I), ``"Tukey depth"`` (zero-bias test on R^n),
        ``"MILP dual bound"``, ``"hyperplane LPs"``, ``"finite set"`` (outputs compared),
        ``"single point"``, or ``"every layer"`` for a network.
    statement : str
        The fact proved, for people.
    domain : str
        Where it was proved: ``K`` itself or a superset of ``K`` (monotonicity: injective on a
        set is injective on every subset).
    lower_bound : int or None
        The proved lower bound on the fewest active rows (counting certificates).
    h : int or None
        The most frame vectors in one hyperplane; ``lower_bound > h`` is the proof.
    h_method : str
        How ``h`` was obtained (enumerated, or assumed with the checks made).
    margin : float or None
        For the polytope bias: ``min_i (bound_i - alpha_i)`` in the normalised problem.
    tolerances : dict
        The tolerances the proof absorbed (e.g. the bias raised by ``eps``), relative to the
        normalised problem (unit rows, domain of unit size).
    """

    kind: str
    statement: str
    domain: str = ""
    lower_bound: int | None = None
    h: int | None = None
    h_method: str = ""
    margin: float | None = None
    tolerances: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-serialisable."""
        return {
            "kind": self.kind,
            "statement": self.statement,
            "domain": self.domain,
            "lower_bound": self.lower_bound,
            "h": self.h,
            "h_method": self.h_method,
            "margin": _json(self.margin),
            "tolerances": _json(self.tolerances),
        }


@dataclass(frozen=True)
class Verdict:
    r"""Whether a layer or a network is injective on ``K``, and the proof.

    Attributes
    ----------
    status : Status
        ``"injective"``, ``"not injective"`` or ``"undetermined"`` (a :class:`Status`, which is a ``str``).
    method : str
        How it was decided: ``"polytope bias"``, ``"collision"``, ``"Tukey depth"``,
        ``"exact (milp)"``, ``"exact (hyperplanes)"``, ``"exact (removal sets)"``, ``"exact (depth)"``,
        ``"exact (samples)"`` and ``"exact (LP relaxation)"`` (pairs found by those searches), ``"finite set"``,
        ``"null space"``, ``"network"``, ... (``""`` when nothing decided it).
    text : str
        One line for people, starting with the status.
    domain : str
        The domain, described for people.
    certificate : Certificate or None
        The proof of injectivity.
    pair : tuple of two ndarrays or None
        Two distinct points of ``K`` with the same output, verified in the caller's coordinates.
    output : ndarray or None
        Their common output (computed at the first point).
    bounds : tuple (lower, upper) or None
        Bounds on the fewest active rows over ``K`` reached by the exact stage (either may be None).
    layers : tuple of Verdict
        For a network: one verdict per layer checked, on the domain it was checked on.
    pair_layer : int or None
        For a network: the (1-based) layer after which the pair's images coincide.
    notes : tuple of str
        Reductions, assumptions and limits met on the way (e.g. "time limit reached during ...").
    seconds : float
        Wall time.
    details : dict
        Further numbers: points checked, the polytope bias, the exact stage's count of solves, the
        bias convention read, the normalisation applied, the stages run.
    """

    status: Status
    method: str
    text: str
    domain: str = ""
    certificate: Certificate | None = None
    pair: tuple | None = None
    output: Any = None
    bounds: tuple | None = None
    layers: tuple = ()
    pair_layer: int | None = None
    notes: tuple = ()
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "details", _ReadOnly(self.details))

    # -- reading it ----------------------------------------------------------------------------
    @property
    def decided(self) -> bool:
        """True for ``"injective"`` and ``"not injective"``."""
        return self.status != Status.UNDETERMINED

    @property
    def exit_code(self) -> int:
        """The command line's exit status (0 injective, 1 not injective, 3 undetermined)."""
        return self.status.exit_code

    @property
    def lower_bound(self) -> int | None:
        """The proved lower bound on the fewest active rows (from ``bounds``), or None."""
        return None if self.bounds is None else self.bounds[0]

    @property
    def upper_bound(self) -> int | None:
        """The fewest active rows seen at an actual point of ``K`` (from ``bounds``), or None."""
        return None if self.bounds is None else self.bounds[1]

    def __repr__(self) -> str:
        return f"Verdict({self.text!r})"

    def report(self) -> str:
        """The verdict line, one line per layer of a network, and the notes, for a terminal."""
        lines = [self.text]
        lines += ["  " + v.text for v in self.layers]
        n_layers = self.details.get("n_layers")
        if self.layers and n_layers and len(self.layers) < n_layers:
            first = len(self.layers) + 1
            which = f"layer {first}" if first == n_layers else f"layers {first}–{n_layers}"
            lines.append(f"  {which}: not checked (not needed for the verdict)")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A JSON-serialisable summary (the command line's ``--json`` output)."""
        return {
            "status": self.status.value,
            "exit_code": self.exit_code,
            "method": self.method,
            "text": self.text,
            "domain": self.domain,
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "pair": None if self.pair is None else [_json(self.pair[0]), _json(self.pair[1])],
            "output": _json(self.output),
            "bounds": None if self.bounds is None else list(self.bounds),
            "pair_layer": self.pair_layer,
            "layers": [v.to_dict() for v in self.layers],
            "notes": list(self.notes),
            "seconds": _json(self.seconds),
            "details": _json(self.details),
        }

    def _repr_html_(self) -> str:
        color = {Status.INJECTIVE: "#009E73", Status.NOT_INJECTIVE: "#D55E00"}.get(self.status, "#555555")
        head, _, rest = self.text.partition(" — ")
        rows = [("method", self.method or "—"), ("domain", self.domain)]
        if self.certificate is not None:
            rows.append(("proof", self.certificate.statement))
        if self.pair is not None:
            rows.append(("pair", f"x = {_short(self.pair[0])}, y = {_short(self.pair[1])}"))
        if self.bounds is not None:
            lo, up = self.bounds
            rows.append(("fewest active rows", f"between {'?' if lo is None else lo} and {'?' if up is None else up}"))
        rows += [(f"layer {i}", v.text) for i, v in enumerate(self.layers, start=1)]
        rows += [("note", n) for n in self.notes]
        rows.append(("time", f"{self.seconds:.2f} s"))
        body = "".join(
            f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in rows
        )
        return (
            f"<div class='rf-verdict'><b style='color:{color}'>{html.escape(head)}</b>"
            f"{' — ' + html.escape(rest) if rest else ''}<table>{body}</table></div>"
        )


def _short(v: Any, k: int = 4) -> str:
    v = np.asarray(v).ravel()
    return "(" + ", ".join(f"{c:.4g}" for c in v[:k]) + (", …)" if v.size > k else ")")
