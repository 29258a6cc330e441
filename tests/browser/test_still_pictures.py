"""Where no kernel runs (GitHub, nbviewer without widget state, a static HTML export), each explorer of the
committed ``notebooks/12_playground.ipynb`` shows a still picture captioned as such, not a bare picture that
looks like a live widget without its controls."""

from __future__ import annotations

import re

import numpy as np
import pytest

from .conftest import REPO
from .jupyter_ui import pixels

pytestmark = pytest.mark.browser

NOTEBOOK = REPO / "notebooks" / "12_playground.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _static_html() -> tuple[str, int]:
    """The committed notebook as nbconvert's HTML without widget state (what a reader without a kernel gets),
    and the number of widget outputs in it."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.metadata.pop("widgets", None)
    n_widgets = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data:
                assert "image/png" in data, "a widget output without its still picture"
                n_widgets += 1
                del data[WIDGET_VIEW]  # nothing to render it with: the reader sees the fallback
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    # offline: drop remote scripts and stylesheets (MathJax, require.js) so that the page loads at once
    html = re.sub(r"<script[^>]+src=\"https?://[^\"]+\"[^>]*>\s*</script>", "", html)
    html = re.sub(r"<link[^>]+href=\"https?://[^\"]+\"[^>]*>", "", html)
    return html, n_widgets


def test_widget_stills_are_captioned_as_still_pictures(page, artifacts_dir):
    html, n_widgets = _static_html()
    assert n_widgets == 3  # the three explorers
    page.set_content(html, wait_until="domcontentloaded")
    images = page.locator(".jp-OutputArea-output img")
    images.first.wait_for()
    captioned = 0
    for k in range(images.count()):
        img = images.nth(k)
        if not (img.get_attribute("src") or "").startswith("data:image/png;base64,"):
            continue
        img.scroll_into_view_if_needed()
        shot = img.screenshot()
        a = pixels(shot)
        band = a[2:16, 4 : a.shape[1] // 2]  # the top rows, where the caption band is
        grey = (np.abs(band - 236).max(axis=2) <= 4).mean()  # the band's grey
        dark = (band.max(axis=2) < 140).mean()  # the caption's letters
        if grey > 0.5 and dark > 0.02:
            captioned += 1
            (artifacts_dir / f"static-still-{k}.png").write_bytes(shot)
    assert captioned == n_widgets, f"{captioned} of {n_widgets} widget stills carry the caption band"
    page.screenshot(path=str(artifacts_dir / "static-12_playground.png"), full_page=True)
