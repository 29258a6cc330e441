"""The shape of the package: imports point down, algorithms ask domains instead of testing their class.

(The layers, the absence of import cycles and the private-module rule are import-linter contracts in
pyproject.toml, run by scripts/test.sh; this module checks what import-linter cannot see.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import relu_frames_nb as rf

PKG = Path(rf.__file__).parent
DOMAIN_CLASSES = {cls.__name__ for cls in rf.Domain.registered().values()} | {"Ball", "Sphere", "Shell", "PositiveBall"}
#: in-package imports allowed inside a function: modules that exist to wrap an optional third-party library
OPTIONAL_WRAPPERS = {"relu_frames_nb._util.kernels_numba"}


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path, path.name == "__init__.py"


def _target(name: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _function_nodes(tree: ast.AST) -> set[int]:
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(sub) for sub in ast.walk(node))
    return inside


def test_in_package_imports_sit_at_module_level():
    offenders = []
    for name, path, is_pkg in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside = _function_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and id(node) in inside:
                target = _target(name, is_pkg, node)
                full = {f"{target}.{a.name}" for a in node.names} | {target}
                if target.startswith("relu_frames_nb") and not full & OPTIONAL_WRAPPERS:
                    offenders.append(f"{name}:{node.lineno} imports {target} inside a function")
    assert not offenders, "\n".join(offenders)


def test_no_private_name_crosses_a_public_module():
    def private(mod: str) -> bool:
        return any(p.startswith("_") and not p.startswith("__") for p in mod.split(".")[1:])

    offenders = []
    for name, path, is_pkg in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = _target(name, is_pkg, node)
                if not target.startswith("relu_frames_nb") or private(target):
                    continue
                for alias in node.names:
                    sub = PKG.parent / (target.replace(".", "/") + "/" + alias.name)
                    is_module = sub.with_suffix(".py").exists() or sub.is_dir()
                    if alias.name.startswith("_") and not alias.name.startswith("__") and not is_module:
                        offenders.append(f"{name}:{node.lineno} imports {alias.name} from the public module {target}")
    assert not offenders, "\n".join(offenders)


def _class_tests(path: Path) -> list[str]:
    """isinstance / issubclass / type() tests against a domain class, and domain class names used at all."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name) and node.id in DOMAIN_CLASSES:
            found.append(f"{path.relative_to(PKG.parent)}:{node.lineno} names {node.id}")
    return found


@pytest.mark.parametrize("part", ["exact", "network", "paper/bias", "pipeline", "_layer_check.py", "checking.py"])
def test_algorithms_name_no_concrete_domain_class(part):
    assert (PKG / part).exists(), f"{part} was moved: update this list"
    paths = sorted((PKG / part).rglob("*.py")) if (PKG / part).is_dir() else [PKG / part]
    offenders = [hit for path in paths for hit in _class_tests(path)]
    assert not offenders, "\n".join(offenders)


def test_isinstance_on_domain_classes_only_in_domains_and_viz():
    offenders = []
    for name, path, _ in _modules():
        if name.startswith(("relu_frames_nb.domains", "relu_frames_nb.viz")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("isinstance", "issubclass"):
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} if len(node.args) > 1 else set()
                if names & DOMAIN_CLASSES:
                    offenders.append(f"{name}:{node.lineno}")
    assert not offenders, "\n".join(offenders)


def test_the_package_root_stays_small():
    """The root holds the front doors only (issue 29: at most 14 modules); the rest lives in sub-packages."""
    root_modules = sorted(p.name for p in PKG.glob("*.py"))
    assert len(root_modules) <= 14, root_modules
