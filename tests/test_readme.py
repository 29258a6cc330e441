"""The README's API tour runs as written."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs():
    code = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert code, "the README has no python block"
    ns: dict = {}
    exec(compile(code[0], str(README), "exec"), ns)  # our own file, not user input
    L, X = ns["L"], ns["X"]
    np.testing.assert_allclose(ns["rf"].reconstruct(L, L(X)), X, atol=1e-9)
    assert ns["rf"].decide(L, ns["rf"].Ball(2)).status == "injective"


def test_run_command_opens_the_index_and_binder_links_resolve():
    root = README.parent
    text = README.read_text(encoding="utf-8")
    assert "bash scripts/lab.sh" in text and "bash scripts/test.sh" in text
    lab = (root / "scripts" / "lab.sh").read_text(encoding="utf-8")
    assert "00_index.ipynb" in lab and "jupyter lab" in lab
    targets = re.findall(r"urlpath=(?:lab/tree|voila/render)/([\w/.-]+\.ipynb)", text)
    assert len(targets) >= 2, "the README gives the Binder links to the index and the playground"
    for target in targets:
        assert (root / target).exists(), f"the Binder link points to {target}, which does not exist"
