"""One spelling for domains, shared by the command line, the explorers and the IPython extension.

``ball[:r]``, ``sphere[:r]``, ``shell:s,r`` (alias ``donut``), ``positive-ball[:r]``,
``real-space``, ``exterior:s``, ``box:LO,HI`` (the same bounds for every coordinate) or
``box:FILE`` (rows ``lo`` and ``hi``), ``hull:FILE`` (the convex hull of the points of FILE),
``polytope:FILE.npz`` (arrays ``A`` and ``b``: ``{x : A x <= b}``) and ``samples:FILE``
(a finite data set). Every domain's :attr:`~relu_frames_nb.domains.Domain.spec` reads back
through :func:`parse_domain`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._io import read_array, read_npz
from .._validation import as_count
from ..errors import InputError
from .base import Domain

__all__ = ["parse_domain", "DOMAIN_SPECS"]

#: the spellings, for help texts
DOMAIN_SPECS = (
    "ball:r | sphere:r | shell:s,r | positive-ball:r | real-space | exterior:s | box:LO,HI | box:FILE | "
    "hull:FILE | polytope:FILE.npz | samples:FILE"
)

_ALIASES = {"donut": "shell", "positive_ball": "positive-ball", "positiveball": "positive-ball", "rn": "real-space",
            "r^n": "real-space", "real_space": "real-space", "realspace": "real-space"}  # fmt: skip


def _numbers(arg: str, spec: str, name: str) -> list[float]:
    try:
        return [float(t) for t in arg.split(",") if t.strip()] if arg.strip() else []
    except ValueError:
        raise InputError(f"{name} {spec!r}: the radii must be numbers separated by commas.") from None


def _count(nums: list[float], allowed: tuple[int, ...], usage: str, spec: str, name: str) -> None:
    if len(nums) not in allowed:
        raise InputError(f"expected {usage}; got {len(nums)} number(s).")


def parse_domain(spec: Any, n: int, *, name: str = "domain") -> Domain:
    """The domain in R^n spelled by ``spec`` (see the module docstring).

    Parameters
    ----------
    spec : str
        For example ``"ball:1"``, ``"shell:0.5,1"``, ``"box:0,1"``, ``"samples:data.npy"``.
    n : int
        The dimension (the layer's input dimension); data files must have ``n`` columns.
    name : str
        How the caller names the argument in error messages (``"--domain"`` on the command line).

    Returns
    -------
    Domain

    Examples
    --------
    >>> parse_domain("shell:0.5,1", 3)
    Shell(n=3, s=0.5, r=1)
    >>> parse_domain(parse_domain("ball:2", 4).spec, 4)
    Ball(n=4, r=2)
    """
    from .radial import Ball, Exterior, PositiveBall, RealSpace, Shell, Sphere
    from .samples import Samples

    n = as_count(n, "n")
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"{name} must be a string like 'ball:1' ({DOMAIN_SPECS}); got {spec!r}.")
    kind, _, arg = spec.strip().partition(":")
    kind = _ALIASES.get(kind.strip().lower(), kind.strip().lower())
    if kind in ("samples", "hull", "box", "polytope") and arg and (Path(arg).suffix or Path(arg).exists()):
        if kind == "polytope":
            from .polyhedral import Polytope

            arrays = read_npz(arg, f"{name} polytope file")
            missing = [k for k in ("A", "b") if k not in arrays]
            if missing:
                raise InputError(f"{name} polytope file {arg!r} must hold arrays 'A' and 'b'; got keys {sorted(arrays)}.")
            dom: Domain = Polytope(arrays["A"], arrays["b"])
        else:
            X = read_array(arg, f"{name} {kind}", keys=("X", "samples", "points", "data") if kind != "box" else ("box",))
            if kind == "box":
                from .polyhedral import Box

                if X.ndim != 2 or X.shape[0] != 2:
                    raise InputError(f"{name} box file {arg!r} must hold two rows, lo and hi; got shape {X.shape}.")
                dom = Box(X[0], X[1])
            elif X.ndim != 2:
                raise InputError(f"{name} {kind} file {arg!r} must hold points as rows (a 2-D array); got shape {X.shape}.")
            elif kind == "samples":
                dom = Samples(X, source=arg)
            else:
                from .polyhedral import Hull

                dom = Hull(X)
        if dom.n != n:
            raise InputError(f"{name} {kind} file {arg!r} must have {n} columns (the layer's input dimension); got {dom.n}.")
        return dom
    if kind in ("samples", "hull", "polytope"):
        raise InputError(f"{name} {kind} needs a file: {kind}:FILE (.npy, .npz, .csv); got {spec!r}.")
    nums = _numbers(arg, spec, name)
    try:
        if kind == "ball":
            _count(nums, (0, 1), "ball:r with one radius", spec, name)
            return Ball(n, *nums)
        if kind == "sphere":
            _count(nums, (0, 1), "sphere:r with one radius", spec, name)
            return Sphere(n, *nums)
        if kind == "positive-ball":
            _count(nums, (0, 1), "positive-ball:r with one radius", spec, name)
            return PositiveBall(n, *nums)
        if kind == "shell":
            _count(nums, (2,), "shell:s,r with two radii s < r", spec, name)
            return Shell(n, nums[0], nums[1])
        if kind == "exterior":
            _count(nums, (1,), "exterior:s with one radius", spec, name)
            return Exterior(n, nums[0])
        if kind == "real-space":
            _count(nums, (0,), "real-space with no argument", spec, name)
            return RealSpace(n)
        if kind == "box":
            from .polyhedral import Box

            _count(nums, (2,), "box:LO,HI (the same bounds for every coordinate) or box:FILE", spec, name)
            return Box(nums[0], nums[1], n=n)
    except InputError as exc:
        raise InputError(f"{name} {spec!r}: {exc}") from None
    raise InputError(f"{name} must be one of {DOMAIN_SPECS}; got {spec!r}.")
