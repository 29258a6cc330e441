"""Fixtures for the real-browser tests: Jupyter servers, headless Chromium, artifacts.

Every test in this folder is marked ``browser``. It needs Debian's Chromium at
``/usr/bin/chromium`` (or ``$RFNB_CHROMIUM``) and the ``browser`` extra (Python
``playwright``, ``voila``, ``notebook>=7``). Without them the tests skip with the reason;
with ``RFNB_REQUIRE_BROWSER=1`` (set by ``.ci/run``) they fail instead, so CI cannot
silently skip them.

Each server (JupyterLab, Notebook 7, Voila) listens on 127.0.0.1 on a free port with a
random token and isolated ``JUPYTER_CONFIG_DIR`` / ``JUPYTER_DATA_DIR`` /
``JUPYTER_RUNTIME_DIR`` / ``IPYTHONDIR``. The test notebooks are generated at test time
from the py:percent sources in ``notebooks/`` with jupytext. Screenshots, browser console
logs and server logs go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ARTIFACTS = REPO / "test-artifacts" / "browser"
NOTEBOOK_SOURCES = HERE / "notebooks"
CHAIN_PLAYGROUND = HERE.parents[1] / "notebooks" / "12_playground.py"
#: the repository's Voila configuration (hides cells tagged voila-hide, exercises, solutions, checks)
VOILA_CONFIG = REPO / "voila.json"
CHROMIUM = os.environ.get("RFNB_CHROMIUM", "/usr/bin/chromium")
REQUIRE_BROWSER = os.environ.get("RFNB_REQUIRE_BROWSER", "") not in ("", "0")

#: Launch flags that give WebGL2 through SwiftShader in headless mode (JUPYTER-STACK.md).
#: Never ``--use-gl=swiftshader``: the WebGL context becomes null.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]
VIEWPORT = {"width": 1300, "height": 2200}

SERVER_START_TIMEOUT = 180.0  # s; JupyterLab answers after ~4 s on an idle 2-core machine

# the py:percent sources are notebook material, not test modules (nor doctest modules)
collect_ignore_glob = ["notebooks/*"]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # keep each phase's report on the item so fixtures can screenshot failures
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


# ----------------------------------------------------------------------------------
# availability: skip locally with a clear reason, fail in CI
# ----------------------------------------------------------------------------------


def _missing_requirements() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return (
            f"Chromium not found at {CHROMIUM}: the real-browser tests need Debian's chromium "
            "(`apt-get update && apt-get install -y chromium`, as .ci/run does; never `playwright install`), "
            "or point RFNB_CHROMIUM at a Chromium binary."
        )
    for module, package in (("playwright", "playwright"), ("voila", "voila"), ("notebook", "notebook>=7")):
        try:
            __import__(module)
        except ImportError:
            return (
                f"Python package {package!r} missing: install the test extras with `pip install -e '.[test]'` (or `.[browser]`)."
            )
    return None


@pytest.fixture(scope="session")
def browser_requirements():
    reason = _missing_requirements()
    if reason:
        if REQUIRE_BROWSER:
            pytest.fail(f"RFNB_REQUIRE_BROWSER is set but the browser tests cannot run: {reason}", pytrace=False)
        pytest.skip(reason)


# ----------------------------------------------------------------------------------
# test notebooks and isolated Jupyter directories
# ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def jupyter_home(tmp_path_factory, browser_requirements) -> Path:
    """Isolated Jupyter dirs plus the generated test notebooks (``pristine/``, copied per server)."""
    import jupytext
    import nbformat

    home = tmp_path_factory.mktemp("jupyter-home")
    for sub in ("config", "data", "runtime", "ipython", "pristine"):
        (home / sub).mkdir()
    # no news / update pop-ups over the notebook
    (home / "config" / "labconfig").mkdir()
    (home / "config" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}})
    )
    # the test notebooks, and the chain's playground as it is served to a class with Voila
    for source in [*sorted(NOTEBOOK_SOURCES.glob("*.py")), CHAIN_PLAYGROUND]:
        nb = jupytext.read(source)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        nb.metadata.pop("jupytext", None)
        nbformat.write(nb, home / "pristine" / f"{source.stem}.ipynb")
    # Voila reads voila.json from the directory it starts in (the repository root for
    # `voila notebooks/12_playground.ipynb` and on Binder): the servers start in their root folder
    shutil.copy(VOILA_CONFIG, home / "pristine" / VOILA_CONFIG.name)
    return home


def _jupyter_env(home: Path, kit_templates: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        IPYTHONDIR=str(home / "ipython"),
        JUPYTER_PLATFORM_DIRS="1",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONUNBUFFERED="1",
    )
    env.pop("MPLBACKEND", None)  # the kernel must use the inline backend
    env.pop("JUPYTER_PATH", None)
    env.pop("JUPYTER_CONFIG_PATH", None)
    if kit_templates:
        env["JUPYTER_PATH"] = str(KIT_JUPYTER_PATH)
    return env


def _binder_env(home: Path) -> dict[str, str]:
    """The environment binder/start gives the server on Binder (its JUPYTER_PATH), over the tests' own."""
    env = _jupyter_env(home)
    out = subprocess.run(["bash", str(REPO / "binder" / "start"), "env"], env=env, capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    for key in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH"):
        env[key] = next(line.split("=", 1)[1] for line in out.splitlines() if line.startswith(key + "="))
    return env


# ----------------------------------------------------------------------------------
# servers
# ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class JupyterServer:
    """A running Jupyter server (JupyterLab, Notebook 7 or Voila) owned by the test session."""

    kind: str
    port: int
    token: str
    root: Path
    log_path: Path
    proc: subprocess.Popen = field(repr=False)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/", **query: str) -> str:
        """URL of ``path`` with the token (and extra query items, ``None`` = bare key)."""
        items = [k if v is None else f"{k}={v}" for k, v in query.items()] + [f"token={self.token}"]
        return f"{self.base}{path}?{'&'.join(items)}"

    def restore(self, name: str) -> None:
        """Put back the unexecuted notebook ``name`` and stop its kernel (before a retry)."""
        with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
            for sess in self.api("/api/sessions") or []:
                if str(sess.get("path", "")).endswith(name):
                    self.api(f"/api/sessions/{sess['id']}", method="DELETE", timeout=30.0)
        shutil.copy(self.root.parent / "pristine" / name, self.root / name)

    def log_tail(self, n: int = 40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def api(self, path: str, method: str = "GET", timeout: float = 5.0):
        req = urllib.request.Request(self.base + path, method=method, headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
            return json.loads(body) if body else None

    def wait_ready(self, timeout: float = SERVER_START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} server exited with {self.proc.returncode}:\n{self.log_tail()}")
            if self.kind.startswith("voila"):
                # Voila has no /api/status; any HTTP answer from its static handler means it is up
                # (requesting "/" would execute the notebook)
                try:
                    self.api("/voila/static/", timeout=3.0)
                    return
                except urllib.error.HTTPError:
                    return
                except (OSError, ValueError):
                    pass
            else:
                with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                    self.api("/api/status", timeout=3.0)
                    return
            time.sleep(0.5)
        raise RuntimeError(f"{self.kind} server did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            if not self.kind.startswith("voila"):
                # clean shutdown: the server stops its kernels and exits
                with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                    self.api("/api/shutdown", method="POST", timeout=10.0)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=20)
            if self.proc.poll() is None:
                self.proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=20)
        # anything left in the server's own process group (kernels it started): kill by group id
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)


#: the kit's Voilà template (scripts/app.sh): found through JUPYTER_PATH, serves Font Awesome itself
KIT_JUPYTER_PATH = REPO / "share" / "jupyter"


def _server_command(kind: str, port: int, token: str, root: Path, notebook: str | None) -> list[str]:
    common = ["--no-browser", f"--port={port}"]
    if kind == "voila-binder":  # Binder: a Jupyter server whose Voila extension renders /voila/render/...
        cmd = [sys.executable, "-m", "jupyter", "server", *common, "--ip=127.0.0.1", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0"]  # fmt: skip
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        return cmd
    if kind in ("voila", "voila-app"):
        cmd = [sys.executable, "-m", "voila", str(root / notebook), *common, "--Voila.ip=127.0.0.1", f"--token={token}"]
        cmd += ["--Voila.port_retries=0", "--VoilaConfiguration.show_tracebacks=True"]
        if kind == "voila-app":  # as scripts/app.sh starts it
            cmd += ["--template=relu-frames"]
    else:
        app = {"lab": "lab", "notebook7": "notebook"}[kind]
        cmd = [sys.executable, "-m", "jupyter", app, *common, "--ip=127.0.0.1", f"--IdentityProvider.token={token}"]
        cmd += [f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0"]
        if kind == "lab":
            cmd += ["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if not kind.startswith("voila") and hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


@contextlib.contextmanager
def running_server(kind: str, home: Path, log_dir: Path, notebook: str | None = None):
    """Start a server on a free port with a random token; stop it (and its kernels) afterwards."""
    # each server gets fresh copies: JupyterLab autosaves outputs, which another front-end must not see
    base = f"root-{kind}{'-' + Path(notebook).stem if notebook else ''}"
    root = home / base
    k = 1
    while root.exists():  # module-scoped servers of the same kind (one per test module) get their own copy
        k += 1
        root = home / f"{base}-{k}"
    shutil.copytree(home / "pristine", root)
    server = None
    for attempt in range(2):  # a free port can be taken between probe and bind: retry once
        port, token = _free_port(), secrets.token_hex(24)
        log_path = log_dir / f"server-{root.name.removeprefix('root-')}.log"
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                _server_command(kind, port, token, root, notebook),
                cwd=root,
                env=_binder_env(home) if kind == "voila-binder" else _jupyter_env(home, kit_templates=kind == "voila-app"),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = JupyterServer(kind, port, token, root, log_path, proc)
        try:
            server.wait_ready()
            break
        except RuntimeError:
            server.stop()
            if attempt == 1 or "address already in use" not in server.log_tail(200).lower():
                raise
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def lab_server(jupyter_home, artifacts_dir):
    with running_server("lab", jupyter_home, artifacts_dir) as server:
        yield server


@pytest.fixture(scope="module")
def notebook7_server(jupyter_home, artifacts_dir):
    with running_server("notebook7", jupyter_home, artifacts_dir) as server:
        yield server


@pytest.fixture(scope="module")
def voila_server(jupyter_home, artifacts_dir):
    with running_server("voila", jupyter_home, artifacts_dir, notebook="playground.ipynb") as server:
        yield server


@pytest.fixture(scope="module")
def voila_app_server(jupyter_home, artifacts_dir):
    """notebooks/12_playground as scripts/app.sh serves it: the kit's template, Font Awesome from the machine."""
    spec = importlib.util.spec_from_file_location("kit_app", REPO / "scripts" / "app.py")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    app.vendor_fontawesome()
    with running_server("voila-app", jupyter_home, artifacts_dir, notebook=f"{CHAIN_PLAYGROUND.stem}.ipynb") as server:
        yield server


@pytest.fixture(scope="module")
def voila_binder_server(jupyter_home, artifacts_dir):
    """The playground as Binder serves it: binder/postBuild (Font Awesome into the kit's template), binder/start
    (the template on JUPYTER_PATH), a Jupyter server with Voila's extension; the URL asks for the template."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])  # `python` is the kit's
    subprocess.run(["bash", str(REPO / "binder" / "postBuild")], check=True, capture_output=True,
                   env=dict(os.environ, PATH=path))  # fmt: skip
    with running_server("voila-binder", jupyter_home, artifacts_dir) as server:
        yield server


@pytest.fixture(scope="module")
def voila_chain_server(jupyter_home, artifacts_dir):
    with running_server("voila", jupyter_home, artifacts_dir, notebook=f"{CHAIN_PLAYGROUND.stem}.ipynb") as server:
        yield server


# ----------------------------------------------------------------------------------
# browser
# ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium(browser_requirements):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def _artifact_name(nodeid: str) -> str:
    path, _, test = nodeid.partition("::")
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{Path(path).stem}-{test}").strip("_")


@pytest.fixture
def page(chromium, artifacts_dir, request):
    """A fresh page (tall viewport) whose console is recorded; screenshot on failure."""
    context = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    console: list[str] = []
    pg.on("console", lambda msg: console.append(f"[{msg.type}] {msg.text}"))
    pg.on("pageerror", lambda exc: console.append(f"[pageerror] {exc}"))
    pg.console_messages_seen = console  # read by the helpers' console check
    yield pg
    name = _artifact_name(request.node.nodeid)
    failed = any(
        getattr(request.node, f"rep_{w}", None) is not None and getattr(request.node, f"rep_{w}").failed
        for w in ("setup", "call")
    )
    if failed:
        with contextlib.suppress(Exception):
            pg.screenshot(path=str(artifacts_dir / f"{name}-FAILED.png"), full_page=True)
    (artifacts_dir / f"{name}-console.log").write_text("\n".join(console) + "\n")
    context.close()
