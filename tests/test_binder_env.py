"""The Binder environment check: a fresh venv from binder/ alone runs the whole notebook chain.

This is the slowest test of the suite (a pip install into an empty environment, then every notebook),
so it runs once, in a subprocess, and reports each notebook's run time. Set ``RFNB_SKIP_BINDER=1`` to
skip it during local work; CI never sets it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_binder_files_describe_the_environment():
    req = (ROOT / "binder" / "requirements.txt").read_text(encoding="utf-8").split("\n")
    lines = [ln.strip() for ln in req if ln.strip() and not ln.strip().startswith("#")]
    assert ".[notebooks]" in lines, "Binder must install the package with its notebook extras"
    assert any(ln.startswith("voila") for ln in lines), "the playground is served with Voila on Binder"
    runtime = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime.startswith("python-3."), runtime


def test_binder_start_puts_the_kit_template_and_its_server_config_on_the_paths():
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    out = subprocess.run(["bash", str(ROOT / "binder" / "start"), "env"], env=env, capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    paths = dict(line.split("=", 1) for line in out.splitlines() if line.startswith("JUPYTER_"))
    template = Path(paths["JUPYTER_PATH"].split(os.pathsep)[0]) / "voila" / "templates" / "relu-frames"
    assert (template / "index.html.j2").is_file()
    config = Path(paths["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0]) / "jupyter_server_config.json"
    settings = json.loads(config.read_text(encoding="utf-8"))["ServerApp"]["tornado_settings"]
    assert settings == {"mathjax_url": None, "mathjax_config": None}  # both null: Voila's page then loads no MathJax
    assert os.access(ROOT / "binder" / "start", os.X_OK) and os.access(ROOT / "binder" / "postBuild", os.X_OK)


def test_the_kit_template_hides_what_voila_json_hides():
    """Voila's server extension (Binder) ignores voila.json's preprocessors: the template's conf.json repeats them."""
    hidden = json.loads((ROOT / "voila.json").read_text(encoding="utf-8"))["TagRemovePreprocessor"]["remove_cell_tags"]
    conf = json.loads((ROOT / "share/jupyter/voila/templates/relu-frames/conf.json").read_text(encoding="utf-8"))
    (step,) = conf["preprocessors"].values()
    assert step["type"].endswith("TagRemovePreprocessor") and step["enabled"] is True
    assert sorted(step["remove_cell_tags"]) == sorted(hidden)


@pytest.mark.skipif(os.environ.get("RFNB_SKIP_BINDER") == "1", reason="RFNB_SKIP_BINDER=1")
def test_whole_chain_runs_in_a_fresh_binder_environment():
    if shutil.which("bash") is None:
        pytest.fail("bash is needed for scripts/binder_check.sh")
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "binder_check.sh")], capture_output=True, text=True,
                          timeout=1800, cwd=ROOT)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"binder check failed (exit {proc.returncode}):\n{out[-6000:]}"
    assert "the whole chain ran in the Binder environment" in proc.stdout
    chain = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    times = [ln for ln in proc.stdout.splitlines() if ln.strip().split(" ")[0] in chain]
    assert len(times) == len(chain), f"run times reported for {len(times)} of {len(chain)} notebooks:\n{proc.stdout[-3000:]}"
    print("\n".join(times))
