"""The kit's repository URL, said once: ``[project.urls] Repository`` in pyproject.toml.

``RFNB_REPOSITORY_URL`` overrides it for one build. The value shipped with the kit is a placeholder
(``https://github.com/OWNER/REPO``) until the kit is published; a placeholder or an empty value means
"not set", and then the book shows no repository button and no Binder button (book/conf.py) rather
than links to a repository that does not exist. book/conf.py, book/build.py and the tests read it here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
#: the value of ``[project.urls] Repository`` until the kit is published
PLACEHOLDER = "https://github.com/OWNER/REPO"
ENV = "RFNB_REPOSITORY_URL"
#: what the build says when the URL is not set (once, on stderr: see book/conf.py)
UNSET_NOTE = ("the repository URL is not set (pyproject.toml [project.urls] Repository is the placeholder "
              f"{PLACEHOLDER} or empty, and {ENV} is not set): the book has no repository and no Binder buttons. "
              f"Set it once in pyproject.toml, or for one build with {ENV}=https://github.com/<owner>/<repo>.")


def in_pyproject(path: Path = PYPROJECT) -> str:
    """``[project.urls] Repository`` of pyproject.toml as written ("" when the line is missing)."""
    text = Path(path).read_text(encoding="utf-8")
    section = text.split("[project.urls]", 1)[1].split("\n[", 1)[0] if "[project.urls]" in text else ""
    m = re.search(r'^Repository\s*=\s*"([^"]*)"', section, re.M)
    return m.group(1).strip() if m else ""


def is_set(url: str) -> bool:
    """Is ``url`` a real repository (not empty, not the placeholder)?"""
    url = (url or "").strip().rstrip("/")
    return bool(url) and "OWNER/REPO" not in url.upper()


def repository_url(environ: dict | None = None, pyproject: Path = PYPROJECT) -> str:
    """The repository URL the book links to, without a trailing slash; "" when it is not set."""
    environ = os.environ if environ is None else environ
    url = environ.get(ENV) or in_pyproject(pyproject)
    url = url.strip().rstrip("/")
    return url if is_set(url) else ""
