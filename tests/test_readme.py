"""The README's API tour runs as written."""

import re
import warnings
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs():
    code = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert code, "the README has no python block"
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the README teaches the current API only
        exec(compile(code[0], str(README), "exec"), ns)  # our own file, not user input
    L, X = ns["L"], ns["X"]
    np.testing.assert_allclose(ns["rf"].reconstruct(L, L(X)), X, atol=1e-9)
    assert ns["rf"].check(L, ns["rf"].Ball(2)).status == "injective"


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


def test_the_readme_links_to_no_placeholder_repository_and_says_where_to_set_it():
    """The repository is said once, in pyproject.toml; the README shows no badge or link to a placeholder."""
    text = README.read_text(encoding="utf-8")
    pyproject = (README.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^\[project\.urls\]\s*\nRepository\s*=", pyproject, re.M), "pyproject.toml says the repository"
    assert "OWNER/REPO" not in text.upper(), "the README links to the placeholder repository"
    assert "[project.urls] Repository" in text, "the README says where the repository is set"
    # a clickable Binder or repository link ([text](url), a badge, a bare URL) only to a real repository:
    # the template addresses stay in code spans, with <owner>/<repo> in them
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S)
    links = re.findall(r"https://(?:mybinder\.org/v2/gh|github\.com)/([^/\s)]+/[^/\s)?]+)", prose)
    repo = re.search(r'^Repository\s*=\s*"https://github\.com/([^"/]+/[^"/]+)"', pyproject, re.M)
    allowed = {repo.group(1)} if repo and "OWNER/REPO" not in repo.group(1).upper() else set()
    assert set(links) <= allowed, f"links to a repository other than the one set in pyproject.toml: {set(links) - allowed}"


def test_whole_network_example_prints_what_the_readme_shows(tmp_path):
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    W1, W2 = rng.standard_normal((12, 3)) / np.sqrt(3), rng.standard_normal((30, 12)) / np.sqrt(12)
    np.savez(tmp_path / "net.npz", **{"fc1.weight": W1, "fc1.bias": np.full(12, 0.3),
                                      "fc2.weight": W2, "fc2.bias": np.full(30, 1.0)})  # fmt: skip
    block = re.search(r"```console\n\$ python -m relu_frames_nb check net.npz (.*?)\n(.*?)```", README.read_text("utf-8"), re.S)
    assert block, "the README shows `check` on a whole network"
    args, shown = block.group(1).split(), block.group(2).strip().splitlines()
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", "check", str(tmp_path / "net.npz"), *args],
                          capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0
    assert proc.stdout.strip().splitlines() == shown
