"""book/sources.py (what book/build.py prepares): the API page documents every public name and every explorer of viz.widgets."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_sources():
    pytest.importorskip("nbformat")  # book/sources.py imports book/transform.py, which needs it
    spec = importlib.util.spec_from_file_location("book_sources", ROOT / "book" / "sources.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["book_sources"] = module
    spec.loader.exec_module(module)
    return module


def test_the_api_page_lists_every_explorer_and_every_public_name(tmp_path):
    W = pytest.importorskip("ipywidgets")
    widgets = pytest.importorskip("relu_frames_nb.viz.widgets")
    import relu_frames_nb as rf

    sources = _load_sources()
    explorers = [n for n in widgets.__all__ if inspect.isclass(getattr(widgets, n)) and issubclass(getattr(widgets, n), W.Widget)]
    assert "DigitsExplorer" in explorers
    assert sorted(sources.EXPLORERS) == sorted(explorers)
    page = tmp_path / "api" / "index.md"
    documented = sources.write_api_page(page)
    assert set(documented) == set(rf.__all__) | set(explorers)
    text = page.read_text(encoding="utf-8")
    assert "Deprecated" not in text  # no release had aliases: rf.check is the one front door
    for name in explorers:
        assert f"\n   {name}\n" in text
