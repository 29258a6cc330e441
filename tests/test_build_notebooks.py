"""scripts/build_notebooks.py, the one command that produces the committed notebooks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("nbclient")
pytest.importorskip("jupytext")
nbformat = pytest.importorskip("nbformat")

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "build_notebooks.py"
HEADER = (
    "# ---\n# jupyter:\n#   kernelspec:\n#     display_name: Python 3\n#     language: python\n#     name: python3\n"
    "# ---\n\n"
)


@pytest.fixture
def build(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("build_notebooks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    src = tmp_path / "src"
    src.mkdir()
    monkeypatch.setattr(module, "NOTEBOOKS", src)
    monkeypatch.delenv("RELU_FRAMES_FULL", raising=False)
    return module, src, tmp_path / "out"


def test_executes_the_source_and_writes_outputs_and_times(build, capsys):
    module, src, out = build
    (src / "01_demo.py").write_text(HEADER + "# %% [markdown]\n# A demo\n\n# %%\nx = 6 * 7\n\n# %%\nprint('x =', x)\n")
    (src / "02_other.py").write_text(HEADER + "# %%\nprint('other')\n")
    assert module.main(["01", "--out", str(out)]) == 0
    nb = nbformat.read(out / "01_demo.ipynb", as_version=4)
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "code"]
    assert nb.cells[2].outputs[0]["text"] == "x = 42\n" and nb.cells[2].execution_count == 2
    assert not (out / "02_other.ipynb").exists()  # only the selected notebook
    printed = capsys.readouterr().out
    assert "01_demo" in printed and "total" in printed


def test_a_failing_check_or_a_blown_budget_fails_the_build(build, capsys):
    module, src, out = build
    (src / "01_bad.py").write_text(HEADER + "# %%\nassert 1 + 1 == 3, 'arithmetic'\n")
    assert module.main(["--out", str(out)]) == 1
    assert "AssertionError" in capsys.readouterr().out
    (src / "01_bad.py").unlink()
    (src / "01_slow.py").write_text(HEADER + "# %%\nimport time\ntime.sleep(0.2)\n")
    assert module.main(["--out", str(out), "--per-notebook", "0.01"]) == 1
    assert "OVER BUDGET" in capsys.readouterr().out


def test_unknown_prefix_is_an_error(build):
    module, _, out = build
    with pytest.raises(SystemExit, match="no notebook source matches"):
        module.main(["99", "--out", str(out)])
