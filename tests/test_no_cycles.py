"""No import circle among the scripts of book/ and scripts/ (the package's own circles are import-linter's job).

These files are not a package: each puts its folder (or book/) on ``sys.path`` and imports the others by
their bare names, so import-linter does not see them. Here their imports are read with ``ast``, those
inside functions included (a lazy import still makes a circle), and the graph must have no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("book", "scripts")


def _files() -> dict[str, Path]:
    files: dict[str, Path] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).glob("*.py")):
            assert path.stem not in files, f"{path} and {files[path.stem]} share a bare import name"
            files[path.stem] = path
    return files


def _graph() -> dict[str, set[str]]:
    """``{module: the modules of book/ and scripts/ it imports}``, by bare name."""
    files = _files()
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                targets.add(node.module.split(".")[0])
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each back edge of a depth-first search (empty when the graph has none)."""
    found, state, stack = [], {}, []

    def visit(u: str) -> None:
        state[u] = "open"
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == "open":
                found.append(stack[stack.index(v) :] + [v])
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = "done"

    for u in sorted(graph):
        if u not in state:
            visit(u)
    return found


def test_the_cycle_finder_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_import_graph_is_read():
    graph = _graph()
    # what the book's two front ends and the app share sits in book/sources.py
    assert "sources" in graph["build"] and "sources" in graph["pdf"] and "sources" in graph["app"]
    assert "pdf" in graph["build"]  # build.py --pdf calls pdf.py (a lazy import, still an edge)
    assert "transform" in graph["sources"]


def test_no_import_circle_in_book_and_scripts():
    cycles = _cycles(_graph())
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)
