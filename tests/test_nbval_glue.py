"""The nbval glue of notebooks/ (conftest.py + nbval_sanitize.cfg) does what it promises.

A small notebook is executed headlessly (as the committed notebooks are), its stored
outputs are then perturbed the way a re-run perturbs them (float noise, memory addresses,
widget model ids, image bytes), and nbval must still pass it -- while a real change of a
text output must still fail.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("nbval")
pytest.importorskip("ipywidgets")

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

CELLS = [
    "import ipywidgets as widgets\nimport matplotlib.pyplot as plt\nimport numpy as np",
    "print(np.float64(0.1) + np.float64(0.2))",
    "class Thing:\n    pass\n\nprint(Thing())",
    "widgets.IntSlider(value=3)",
    "plt.plot([0, 1], [1, 0])\nplt.show()",
    "print(-0.0, 'hello')",
]


def _executed_notebook(tmp_path: Path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(
        nb, timeout=600, startup_timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    return nb


def _replace_in_outputs(cell, old: str, new: str) -> None:
    for out in cell.outputs:
        if "text" in out:
            assert old in out.text or old == "", (old, out.text)
            out.text = out.text.replace(old, new)


def test_nbval_glue_ignores_noise_but_catches_changes(tmp_path):
    nb = _executed_notebook(tmp_path)
    outputs = {i: c.outputs for i, c in enumerate(nb.cells)}
    assert "0.30000000000000004" in outputs[1][0].text
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs[3])
    assert any("image/png" in o.get("data", {}) for o in outputs[4])

    # what a re-run on another machine changes: float noise, addresses, model ids, image bytes
    _replace_in_outputs(nb.cells[1], "0.30000000000000004", "0.29999999999999993")
    address = outputs[2][0].text.split(" at ")[1].strip(">\n")
    _replace_in_outputs(nb.cells[2], address, "0x7f0000000000")
    for out in outputs[3]:
        out["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] = "0" * 32
    for out in outputs[4]:
        if "image/png" in out.get("data", {}):
            out["data"]["image/png"] = "iVBORw0KGgo" + "A" * 64
    _replace_in_outputs(nb.cells[5], "-0.0", "0.0")
    nbformat.write(nb, tmp_path / "noisy.ipynb")

    # and a real change that must be caught
    _replace_in_outputs(nb.cells[5], "hello", "hellx")
    nbformat.write(nb, tmp_path / "changed.ipynb")

    shutil.copy(NOTEBOOKS / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(NOTEBOOKS / "nbval_sanitize.cfg", tmp_path / "nbval_sanitize.cfg")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        "--nbval-current-env",
        "--nbval-kernel-startup-timeout=300",
        "--nbval-cell-timeout=600",
        "--nbval-sanitize-with",
        str(tmp_path / "nbval_sanitize.cfg"),
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(tmp_path),
        "-rA",
        str(tmp_path),
    ]
    run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    log = run.stdout + run.stderr
    passed_noisy = [ln for ln in log.splitlines() if ln.startswith("PASSED noisy.ipynb")]
    failed = [ln for ln in log.splitlines() if ln.startswith("FAILED")]
    assert len(passed_noisy) == len(CELLS), log
    assert failed == [f"FAILED changed.ipynb::Cell {len(CELLS) - 1}"] or (
        len(failed) == 1 and failed[0].startswith(f"FAILED changed.ipynb::Cell {len(CELLS) - 1}")
    ), log
