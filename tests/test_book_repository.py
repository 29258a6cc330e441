"""The kit's repository URL is said once (pyproject.toml); while it is the placeholder, the book links to no repository.

Cheap: book/conf.py is run in a fresh process (no Sphinx build) and its theme options are read; the
buttons of a notebook page are made by conf.py's own hook on a stand-in page context.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
sys.path.insert(0, str(BOOK))
import repository  # noqa: E402  (book/repository.py)

EXAMPLE = "https://github.com/example/kit"

_READ_CONF = """
import json, runpy, sys
ns = runpy.run_path(sys.argv[1])
print(json.dumps({"options": ns["html_theme_options"], "url": ns["REPOSITORY_URL"]}))
"""


def _conf(url: str | None) -> tuple[dict, str]:
    """(what book/conf.py computes, its stderr) with RFNB_REPOSITORY_URL set to ``url`` (None: not set)."""
    env = {k: v for k, v in os.environ.items() if k != repository.ENV}
    if url is not None:
        env[repository.ENV] = url
    env.setdefault("MPLBACKEND", "Agg")
    proc = subprocess.run([sys.executable, "-c", _READ_CONF, str(BOOK / "conf.py")], capture_output=True, text=True,
                          cwd=ROOT, env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.mark.parametrize("url", ["", "https://github.com/OWNER/REPO", "https://github.com/owner/repo/", "  "])
def test_the_placeholder_or_nothing_is_not_a_repository(url, tmp_path):
    assert not repository.is_set(url)
    assert repository.repository_url({repository.ENV: url}, pyproject=_pyproject_with(url, tmp_path)) == ""


def _pyproject_with(url: str, folder: Path) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\n\n[project.urls]\nRepository = "{url}"\n\n[tool.x]\n', encoding="utf-8")
    return path


def test_the_environment_overrides_pyproject_and_a_real_url_is_kept(tmp_path):
    placeholder = _pyproject_with(repository.PLACEHOLDER, tmp_path)
    assert repository.in_pyproject(placeholder) == repository.PLACEHOLDER
    assert repository.repository_url({}, pyproject=placeholder) == ""
    assert repository.repository_url({repository.ENV: EXAMPLE + "/"}, pyproject=placeholder) == EXAMPLE
    (tmp_path / "set").mkdir()
    assert repository.repository_url({}, pyproject=_pyproject_with(EXAMPLE, tmp_path / "set")) == EXAMPLE


def test_pyproject_says_the_repository_once_and_conf_reads_it_there():
    assert repository.in_pyproject() != "", "pyproject.toml [project.urls] Repository is where the URL is said"
    conf = (BOOK / "conf.py").read_text(encoding="utf-8")
    assert "github.com/" not in conf, "book/conf.py must not write a repository URL of its own"


def test_unset_repository_gives_no_repository_or_binder_button_and_a_warning():
    if repository.repository_url():
        pytest.skip("the kit's repository is set (pyproject.toml or RFNB_REPOSITORY_URL): nothing unset to test")
    got, stderr = _conf(None)
    options = got["options"]
    assert got["url"] == "" and options["repository_url"] == ""
    assert options["use_repository_button"] is False
    assert not options["launch_buttons"].get("binderhub_url")
    assert "OWNER/REPO" not in json.dumps(options)
    # the warning is said when the builder starts (conf.py's setup hook), not when conf.py is read
    assert "WARNING" not in stderr


def test_a_set_repository_gives_the_repository_and_binder_buttons():
    got, _ = _conf(EXAMPLE)
    options = got["options"]
    assert options["repository_url"] == EXAMPLE and options["use_repository_button"] is True
    assert options["launch_buttons"]["binderhub_url"].startswith("https://")
    assert options["launch_buttons"]["notebook_interface"] == "jupyterlab"


class _App:
    def __init__(self):
        self.hooks = {}

    def connect(self, event, fn, priority=500):
        self.hooks[event] = fn


def _conf_module(url: str | None, monkeypatch):
    """book/conf.py imported in this process with RFNB_REPOSITORY_URL set to ``url``."""
    import importlib.util

    if url is None:
        monkeypatch.delenv(repository.ENV, raising=False)
    else:
        monkeypatch.setenv(repository.ENV, url)
    spec = importlib.util.spec_from_file_location("_rfnb_book_conf", BOOK / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page_buttons(conf, groups: list) -> list[dict]:
    context = {"header_buttons": groups, "pathto": lambda path, _=0: "../" + path}
    conf.add_local_lab_button(None, "notebooks/01_frames_and_relu_layers", "page.html", context, None)
    launch = [g for g in context["header_buttons"] if g.get("label") == "launch-buttons"]
    assert len(launch) == 1, context["header_buttons"]
    return launch[0]["buttons"]


def test_without_binder_a_notebook_page_still_offers_the_download_and_the_local_lab(monkeypatch):
    conf = _conf_module("https://github.com/OWNER/REPO", monkeypatch)
    assert conf.REPOSITORY_URL == ""
    buttons = _page_buttons(conf, [])  # the theme made no launch menu: no BinderHub configured
    texts = [b["text"] for b in buttons]
    assert texts == ["Download .ipynb", "Local JupyterLab"], texts
    assert not any("OWNER" in b["url"] or "mybinder" in b["url"] for b in buttons)


def test_with_binder_the_local_buttons_follow_the_themes(monkeypatch):
    conf = _conf_module(EXAMPLE, monkeypatch)
    binder = {"type": "link", "text": "Binder", "url": "https://mybinder.org/v2/gh/example/kit/HEAD"}
    buttons = _page_buttons(conf, [{"type": "group", "label": "launch-buttons", "buttons": [binder]}])
    assert [b["text"] for b in buttons] == ["Binder", "Download .ipynb", "Local JupyterLab"]


def test_the_build_warns_once_on_stderr_when_the_repository_is_unset(monkeypatch, capsys):
    conf = _conf_module("", monkeypatch)
    if conf.REPOSITORY_URL:
        pytest.skip("the kit's repository is set in pyproject.toml")
    app = _App()
    conf.warn_when_the_repository_is_unset(app)
    err = capsys.readouterr().err
    assert err.count("WARNING") == 1 and "repository URL is not set" in err and "pyproject.toml" in err
    conf = _conf_module(EXAMPLE, monkeypatch)
    conf.warn_when_the_repository_is_unset(app)
    assert capsys.readouterr().err == ""


def test_a_built_site_links_to_no_placeholder():
    """Over an existing build (book/_build/html or $RFNB_BOOK_HTML), when there is one: no page names OWNER/REPO."""
    site = Path(os.environ.get("RFNB_BOOK_HTML") or BOOK / "_build" / "html")
    pages = sorted(site.rglob("*.html")) if site.is_dir() else []
    if not pages:
        pytest.skip(f"no built book in {site} (bash scripts/book.sh builds one)")
    bad = [str(p.relative_to(site)) for p in pages if re.search(r"OWNER/REPO", p.read_text(encoding="utf-8", errors="replace"))]
    assert not bad, f"{len(bad)} of {len(pages)} pages link to the placeholder repository: {bad[:5]}"
