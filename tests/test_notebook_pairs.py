"""The notebook pairs: every py:percent source has its .ipynb, in sync, committed with outputs.

``notebooks/NN_slug.py`` is the source; ``NN_slug.ipynb`` is produced from it by
``scripts/build_notebooks.py`` (headless execution) and committed with its outputs, so that GitHub,
nbviewer and Binder show results before anything runs. These tests fail when a pair drifts apart
(someone edited one side only), when a notebook was committed without running it top to bottom, or
when a widget was saved without the state or picture that lets it read sensibly without a kernel.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
WIDGET = "application/vnd.jupyter.widget-view+json"


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def test_the_chain_has_its_fourteen_notebooks():
    names = [p.stem for p in SOURCES]
    assert names[0] == "00_index" and names[-2:] == ["12_playground", "13_real_network"], names
    assert [n[:2] for n in names] == [f"{k:02d}" for k in range(14)], names
    assert sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) == names, "every .ipynb needs its .py and back"


def test_pairing_is_configured():
    text = (NOTEBOOKS / "jupytext.toml").read_text(encoding="utf-8")
    assert re.search(r'formats\s*=\s*"ipynb,py:percent"', text), text


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_pair_is_in_sync(source):
    ipynb = source.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run python scripts/build_notebooks.py {source.stem[:2]}"
    from_py = _cells(jupytext.read(source))
    from_ipynb = _cells(nbformat.read(ipynb, as_version=4))
    if from_py != from_ipynb:
        k = next((i for i, (a, b) in enumerate(zip(from_py, from_ipynb)) if a != b), min(len(from_py), len(from_ipynb)))
        pytest.fail(f"{source.name} and {ipynb.name} differ from cell {k} on ({len(from_py)} vs {len(from_ipynb)} cells): "
                    f"rebuild with python scripts/build_notebooks.py {source.stem[:2]}", pytrace=False)  # fmt: skip


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_committed_with_outputs_from_one_headless_run(source):
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{source.stem}: not executed top to bottom in one run: {counts}"
    assert nb.metadata.kernelspec.name == "python3"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{source.stem}: committed with an error output"
    last = "".join(o.get("text", "") for o in code[-1].outputs)
    assert "all checks passed" in last, f"{source.stem}: the last cell should report that all checks passed"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_widgets_read_sensibly_without_a_kernel(source):
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    views = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if WIDGET in o.get("data", {})]
    if not views:
        return
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for out in views:
        model = out["data"][WIDGET]["model_id"]
        assert model in state, f"{source.stem}: widget {model} has no saved state"
        assert out["data"].get("image/png"), f"{source.stem}: widget {model} has no static picture"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_sizes_follow_relu_frames_full(source):
    text = source.read_text(encoding="utf-8")
    assert "FULL = rf.full_size()" in text, f"{source.stem}: sizes must follow RELU_FRAMES_FULL through rf.full_size()"
    assert not re.search(r"^FULL\s*=\s*(True|False)", text, flags=re.M), f"{source.stem}: a hard-coded FULL"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_each_notebook_says_what_you_learn_and_what_we_saw(source):
    text = source.read_text(encoding="utf-8")
    assert "What you will learn" in text, f"{source.stem}: no 'What you will learn' at the top"
    assert "## What we saw" in text, f"{source.stem}: no 'What we saw' at the end"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_committed_notebook_stays_small_enough_to_render_on_github(source):
    size = source.with_suffix(".ipynb").stat().st_size
    assert size < 3_000_000, f"{source.stem}.ipynb is {size / 1e6:.1f} MB: saved widget state or images grew too large"
