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
