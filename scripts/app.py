"""Prepare the class's app: copy Font Awesome into the kit's Voilà template, once (``bash scripts/app.sh`` runs it).

Voilà's lab template asks a CDN for Font Awesome; the kit's template ``relu-frames``
(``share/jupyter/voila/templates/relu-frames``) serves it from its own static folder instead, so the
app makes no outside request. The files come from the npm registry once (``npm pack``, cached like
the book's MathJax, see ``book/sources.py``). Prints the template folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "share" / "jupyter" / "voila" / "templates" / "relu-frames"
FONTAWESOME = "@fortawesome/fontawesome-free@5.15.4"  # Voilà's lab template asks for ^5
STAMP = ".fontawesome-5.15.4"

sys.path.insert(0, str(ROOT / "book"))
from sources import copy_from_npm  # noqa: E402  (book/sources.py: the npm tarball cache)


def vendor_fontawesome(template: Path = TEMPLATE) -> Path:
    """Font Awesome's CSS and web fonts in ``template/static/fontawesome`` (css/, webfonts/); returns it."""
    target = template / "static" / "fontawesome"
    if (target / STAMP).exists():
        return target
    copy_from_npm(FONTAWESOME, ["css/all.min.css", "css/v4-shims.min.css"], target / "css")
    copy_from_npm(FONTAWESOME, ["webfonts/*"], target / "webfonts")
    copy_from_npm(FONTAWESOME, ["LICENSE.txt"], target)
    (target / STAMP).touch()
    return target


if __name__ == "__main__":
    print(vendor_fontawesome().parent.parent)
