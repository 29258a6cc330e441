"""Names a module re-exports from its siblings on first use (PEP 562), so that the siblings may import it."""

from __future__ import annotations

import importlib
from typing import Any, Callable

__all__ = ["lazy_exports"]


def lazy_exports(module: str, package: str | None, names: dict[str, str]) -> tuple[Callable, Callable]:
    """``(__getattr__, __dir__)`` for ``module`` that import ``names[name]`` (relative to ``package``) on use."""

    def __getattr__(name: str) -> Any:
        if name in names:
            value = getattr(importlib.import_module(names[name], package), name)
            vars(importlib.import_module(module))[name] = value  # look it up once
            return value
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(importlib.import_module(module))) | set(names))

    return __getattr__, __dir__
