"""book/transform.py: the chain's statements, exercises and tag references as book sources."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
NOTEBOOKS = ROOT / "notebooks"
PAPER_TAGS = [
    line.strip()
    for line in (ROOT / "tests" / "paper_tags.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


tf = _load("book_transform", BOOK / "transform.py")


def _nb(*cells):
    nb = new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def _run(nbs: dict[str, object]) -> dict[str, object]:
    items, where = tf.collect_items(nbs)
    return {name: tf.transform_notebook(nb, name, items, where[name]) for name, nb in nbs.items()}


def _md(nb) -> str:
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


# ---------------------------------------------------------------------------------------------
# statements
# ---------------------------------------------------------------------------------------------


def test_kind_from_prefix_or_from_the_papers_environment():
    assert tf.kind_of("thm:bigthm") == "theorem" and tf.kind_of("lem:Br") == "lemma"
    assert tf.kind_of("prop:K") == "proposition" and tf.kind_of("cor:spark") == "corollary"
    assert tf.kind_of("def:mostcorr") == "definition" and tf.kind_of("ex:mb") == "example"
    assert tf.kind_of("rem:hole-radius") == "remark" and tf.kind_of("alg:mcbe") == "algorithm"
    assert tf.kind_of("reluinj1") == "theorem" and tf.kind_of("relulayer") == "definition"
    assert tf.kind_of("locstab") == "definition"
    assert tf.kind_of("fig:fig1") is None  # a figure: a target, no box
    with pytest.raises(tf.TransformError, match="UNPREFIXED"):
        tf.kind_of("somethingnew")
    with pytest.raises(tf.TransformError, match="unknown prefix"):
        tf.kind_of("conj:x")


def test_every_paper_tag_has_a_kind():
    for tag in PAPER_TAGS:
        tf.kind_of(tag)  # raises for a tag the book would not know how to box


def test_statement_paragraph_becomes_a_numbered_labelled_box_and_the_rest_stays():
    src = (
        "## 1. Rectifying implies injective\n\n"
        "**[reluinj1]** (Injectivity I) If $\\Phi$ is $\\alpha$-rectifying on $K$, then $C_\\beta$ is injective\n"
        "on $K$ for every $\\beta < \\alpha$.\n\n"
        "Why: where the outputs agree ...\n"
    )
    out = _md(_run({"02_x": _nb(new_markdown_cell(src))})["02_x"])
    assert ":::{prf:theorem} (Injectivity I) `[reluinj1]`\n:label: reluinj1\n\nIf $\\Phi$ is" in out
    assert "injective\non $K$ for every $\\beta < \\alpha$.\n:::" in out
    assert out.startswith("## 1. Rectifying implies injective\n\n")
    assert out.rstrip().endswith("Why: where the outputs agree ...")
    assert "**[reluinj1]**" not in out


def test_a_statement_takes_its_list_its_completing_formula_and_the_sentence_after_it():
    lines = [
        "**[thm:pbe]** Let $\\Phi$ be omnidirectional. Put",  # 0: the sentence goes on
        "",
        "$$a = b.$$",  # 2
        "",
        "Then $\\Phi$ is rectifying.",  # 4
        "",
        "Check on random frames.",  # 6: not part of it
    ]
    assert tf.statement_extent(lines, 0) == 5
    lines = ["**[prop:K]** Let $\\Phi$ be rectifying.", "", "1. scaling;", "   more", "2. sign.", "", "Check: ..."]
    assert tf.statement_extent(lines, 0) == 5
    lines = ["**[alg:mcbe]** Algorithm 1, and the library:", "| a | b |", "|---|---|"]
    assert tf.statement_extent(lines, 0) == 3
    lines = ["**[alg:mcbe]** Algorithm 1, and the library:", "", "| a | b |", "|---|---|", "", "More."]
    assert tf.statement_extent(lines, 0) == 4
    # a finished sentence does not take the formula after it; the next statement starts its own box
    lines = ["**[lem:x]** A lemma.", "", "$$x$$", "", "**[cor:y]** A corollary."]
    assert tf.statement_extent(lines, 0) == 1
    lines = ["**[lem:x]** A lemma", "**[cor:y]** A corollary."]
    assert tf.statement_extent(lines, 0) == 1


def test_two_statements_in_one_cell_and_a_figure_target():
    src = (
        "**[locstab]** For $x_0 \\in K$, a definition.\n\n"
        "**[prop:local-stability]** Let $\\Phi$ be rectifying. Then stable.\n\n"
        "**[fig:fig1]** Figure 1 of the paper, redrawn.\n"
    )
    out = _md(_run({"10_x": _nb(new_markdown_cell(src))})["10_x"])
    assert ":::{prf:definition} `[locstab]`\n:label: locstab\n\nFor $x_0 \\in K$, a definition.\n:::" in out
    assert ":::{prf:proposition} `[prop:local-stability]`\n:label: prop:local-stability\n\nLet" in out
    assert "(fig:fig1)=\n**[fig:fig1]** Figure 1 of the paper, redrawn." in out


def test_names_with_parentheses_inside_and_without_a_name():
    m = tf.STATEMENT.match("**[lem:omni-completion]** (App. B (proof)) If $\\Phi$ ...")
    assert m.group("tag") == "lem:omni-completion" and m.group("name") == "App. B (proof)"
    m = tf.STATEMENT.match("**[ex:mb]** The triangle (Mercedes-Benz) frame")
    assert m.group("name") is None  # "(Mercedes-Benz)" is not at the start: not a name


def test_inline_tags_link_to_the_item_and_repeated_tags_get_unique_labels():
    a = _nb(
        new_markdown_cell("| tag |\n|---|\n| `[thm:a]` |\n| `[fig:f]` |\n| `[thm:unknown]` |"),
        new_markdown_cell("**[thm:a]** A theorem.\n\n**[fig:f]** A figure."),
        new_code_cell("x = '`[thm:a]`'"),
    )
    b = _nb(
        new_markdown_cell("See `[thm:a]` and `[fig:f]`.\n\n```python\n`[thm:a]`\n```"),
        new_markdown_cell("**[fig:f]** The same figure, drawn again."),
    )
    out = _run({"01_a": a, "02_b": b})
    md_a, md_b = _md(out["01_a"]), _md(out["02_b"])
    assert "| {prf:ref}`thm:a` `[thm:a]` |" in md_a
    assert "| {ref}`[fig:f] <fig:f>` |" in md_a
    assert "| `[thm:unknown]` |" in md_a  # not in the chain: left as it is
    assert out["01_a"].cells[2].source == "x = '`[thm:a]`'"  # code is never touched
    assert "(fig:f-2)=" in md_b  # the second occurrence of a tag gets its own label
    assert "See {prf:ref}`thm:a` `[thm:a]` and {ref}`[fig:f] <fig:f-2>`." in md_b  # the local occurrence wins
    assert "```python\n`[thm:a]`\n```" in md_b  # nor inside a fenced block
    assert "**[thm:a]**" not in md_a


def test_markdown_outputs_are_linked_too_and_the_input_notebook_is_not_modified():
    cell = new_code_cell("display(Markdown(...))")
    cell.outputs = [new_output("display_data", data={"text/markdown": "| `[thm:a]` | x |", "text/plain": "<Markdown>"})]
    nb = _nb(new_markdown_cell("**[thm:a]** A theorem."), cell)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    before = nbformat.writes(nb)
    out = _run({"00_index": nb})["00_index"]
    assert out.cells[1].outputs[0]["data"]["text/markdown"] == "| {prf:ref}`thm:a` `[thm:a]` | x |"
    assert "widgets" not in out.metadata  # the book shows the still pictures
    assert nbformat.writes(nb) == before


# ---------------------------------------------------------------------------------------------
# exercises
# ---------------------------------------------------------------------------------------------


def _exercise_notebook():
    return _nb(
        new_markdown_cell("## Exercises"),
        new_markdown_cell("### Exercise 3.1 — Raise the bias\n\nFind the largest $\\alpha$.", metadata={"tags": ["exercise"]}),
        new_code_cell("answer_3_1 = None", metadata={"tags": ["answer"]}),
        new_code_cell("answer_3_1 = -0.5\nex.solution('3.1')", metadata={"tags": ["solution"]}),
        new_code_cell("more = 1", metadata={"tags": ["solution"]}),
        new_code_cell(
            "ex.nb03.check_3_1(answer_3_1)",
            metadata={"tags": ["check"]},
            outputs=[new_output("stream", name="stdout", text="Exercise 3.1: correct — the largest bias is -1/2\n")],
        ),
        new_markdown_cell("### Exercise 3.2\n\nAnother one.", metadata={"tags": ["exercise"]}),
        new_code_cell("answer_3_2 = None", metadata={"tags": ["answer"]}),
        new_code_cell("answer_3_2 = 1\nex.solution('3.2')", metadata={"tags": ["solution"]}),
    )


def test_exercise_cells_become_boxes_and_solutions_hide_behind_a_toggle():
    out = _run({"03_x": _exercise_notebook()})["03_x"]
    kinds = [(c.cell_type, c.source.split("\n")[0]) for c in out.cells]
    assert kinds == [
        ("markdown", "## Exercises"),
        ("markdown", ":::{exercise} 3.1 — Raise the bias"),
        ("code", "answer_3_1 = None"),
        ("markdown", ":::{solution-start} exercise-3-1"),
        ("code", "answer_3_1 = -0.5"),
        ("code", "more = 1"),  # consecutive solution cells share one toggle
        ("markdown", ":::{solution-end}"),
        ("code", "ex.nb03.check_3_1(answer_3_1)"),
        ("markdown", ":::{exercise} 3.2"),
        ("code", "answer_3_2 = None"),
        ("markdown", ":::{solution-start} exercise-3-2"),
        ("code", "answer_3_2 = 1"),
        ("markdown", ":::{solution-end}"),  # closed at the end of the notebook too
    ]
    assert out.cells[1].source == (
        ":::{exercise} 3.1 — Raise the bias\n:label: exercise-3-1\n:nonumber:\n\nFind the largest $\\alpha$.\n:::"
    )
    assert ":label: solution-3-1\n:class: dropdown" in out.cells[3].source
    # the teacher's check output gives the answer away: not in the book, not even behind a toggle
    assert out.cells[7].metadata["tags"] == ["check"]
    assert out.cells[7].outputs == [] and out.cells[7].execution_count is None
    assert out.cells[2].metadata["tags"] == ["answer"]


# ---------------------------------------------------------------------------------------------
# the real chain
# ---------------------------------------------------------------------------------------------


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.glob("*.ipynb")):
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def test_the_chain_transforms_every_statement_and_leaves_the_notebooks_alone(tmp_path):
    before = _digest(NOTEBOOKS)
    written = tf.transform_chain(NOTEBOOKS, tmp_path)
    assert _digest(NOTEBOOKS) == before
    sources = tf.chain_sources(NOTEBOOKS)
    assert [p.name for p in written] == [p.name for p in sources]
    n_boxes = n_statements = 0
    stated: set[str] = set()
    for src, dst in zip(sources, written):
        nb, out = nbformat.read(src, as_version=4), nbformat.read(dst, as_version=4)
        original = _md(nb)
        statements = re.findall(r"^\*\*\[([^\]]+)\]\*\*", original, re.M)
        text = _md(out)
        boxes = re.findall(r"^:{3,}\{prf:(\w+)\} .*?`\[([^\]]+)\]`\n:label: (\S+)", text, re.M)
        figures = [t for t in statements if t.startswith("fig:")]
        uses = [t for t in statements if not t.startswith("fig:") and t in stated]  # stated in an earlier notebook
        statements = [t for t in statements if t not in uses]
        assert sorted(t for _, t, _ in boxes) == sorted(t for t in statements if not t.startswith("fig:")), src.name
        stated |= {t for _, t, _ in boxes}
        for tag in uses:  # a later **[tag]** paragraph links back to the box
            assert f"{{prf:ref}}`{tag}` `[{tag}]`" in text and f"**[{tag}]**" not in text, (src.name, tag)
        for kind, tag, label in boxes:
            assert kind == tf.kind_of(tag) and (label == tag or re.fullmatch(rf"{re.escape(tag)}-\d+", label))
        for tag in figures:
            assert re.search(rf"^\({re.escape(tag)}(-\d+)?\)=\n\*\*\[{re.escape(tag)}\]\*\*", text, re.M), (src.name, tag)
        n_boxes, n_statements = n_boxes + len(boxes), n_statements + len(statements) - len(figures)
        # code cells and their outputs are untouched (markdown outputs aside), in the same order
        # (the check cells' outputs aside: the teacher's "correct — ..." is dropped)
        code_in = [(c.source, [] if "check" in c.metadata.get("tags", []) else c.outputs)
                   for c in nb.cells if c.cell_type == "code"]  # fmt: skip
        # (and the live 3-D views added after a widget's still: see live_3d_views)
        def _live(o):
            data = o.get("data", {})
            return tf.WIDGET_VIEW in data or data.get("text/html") == tf.LIVE_CAPTION

        code_out = [(c.source, [o for o in c.outputs if not _live(o)]) for c in out.cells if c.cell_type == "code"]
        assert all(not c.outputs for c in out.cells if "check" in c.metadata.get("tags", []))
        assert [s for s, _ in code_in] == [s for s, _ in code_out]
        for (_, o_in), (_, o_out) in zip(code_in, code_out):
            assert [o.get("output_type") for o in o_in] == [o.get("output_type") for o in o_out]
    assert n_boxes == n_statements >= 40  # the chain states every numbered item of the paper
    # every numbered (non-figure) item of the paper is boxed somewhere, so that {prf:ref} finds it
    boxed = {item["tag"] for item in tf.item_table(NOTEBOOKS) if item["kind"]}
    assert {t for t in PAPER_TAGS if not t.startswith("fig:")} <= boxed


def test_rewrites_only_what_changed(tmp_path):
    tf.transform_chain(NOTEBOOKS, tmp_path)
    stamps = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.ipynb")}
    (tmp_path / "99_stale.ipynb").write_text("{}")
    tf.transform_chain(NOTEBOOKS, tmp_path)
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.ipynb")} == stamps  # the stale copy is gone too


def test_the_transformed_sources_build_without_warnings(tmp_path):
    """A small book from a synthetic notebook (statements, references, an exercise) builds with -W."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    src = tmp_path / "in"
    src.mkdir()
    nb = _exercise_notebook()
    nb.cells[:0] = [
        new_markdown_cell(
            "# 03 — A page\n\n| tag |\n|---|\n| `[thm:a]` |\n\n**[thm:a]** (Name) If $a$ then\n\n$$b$$\n\nThen $c$."
        ),
    ]
    nbformat.write(nb, src / "03_page.ipynb")
    site = tmp_path / "site"
    tf.transform_chain(src, site / "notebooks")
    (site / "index.md").write_text("# Index\n\n```{toctree}\n:glob:\n\nnotebooks/*\n```\n")
    out = tmp_path / "out" / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(BOOK), "-W", "--keep-going",
                           str(site), str(out)], capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (out / "notebooks" / "03_page.html").read_text()
    assert 'class="proof theorem admonition" id="thm:a"' in html
    assert 'href="#thm:a"' in html  # the table's link to the box
    assert 'class="exercise admonition" id="exercise-3-1"' in html
    assert re.search(r'class="solution dropdown admonition" id="solution-3-1"', html)
    assert "tag_solution" in html.split('id="solution-3-1"')[1].split("tag_check")[0]  # the code sits in the toggle


def test_pipes_inside_math_in_a_table_row_do_not_split_the_row():
    row = r"| `[cor:spark]` | a count $|I_x^\alpha| \ge n$, a norm $\|x\|$ | $a$ |"
    expected = r"| `[cor:spark]` | a count $\vert{}I_x^\alpha\vert{} \ge n$, a norm $\Vert{}x\Vert{}$ | $a$ |"
    assert tf.protect_table_math(row) == expected
    assert tf.protect_table_math(r"prose $|x|$ is left alone") == r"prose $|x|$ is left alone"
    out = _run({"03_x": _nb(new_markdown_cell("| a |\n|---|\n| $|x|$ |\n\n```\n| $|x|$ |\n```"))})["03_x"]
    assert out.cells[0].source == "| a |\n|---|\n| $\\vert{}x\\vert{}$ |\n\n```\n| $|x|$ |\n```"


def test_an_item_is_boxed_once_and_a_later_bold_tag_links_back_to_it():
    a = _nb(new_markdown_cell("**[reluinj0]** (Injectivity II) If injective then rectifying."))
    b = _nb(
        new_markdown_cell("**[reluinj0]** Injectivity II in action: at such a point ...\n\n* **[thm:x]** is unknown here"),
        new_markdown_cell("**[fig:f]** A figure."),
    )
    out = _run({"02_a": a, "13_b": b})
    assert ":::{prf:theorem} (Injectivity II) `[reluinj0]`\n:label: reluinj0" in _md(out["02_a"])
    md_b = _md(out["13_b"])
    assert "prf:theorem" not in md_b
    assert md_b.startswith("{prf:ref}`reluinj0` `[reluinj0]` Injectivity II in action")
    assert "* **[thm:x]** is unknown here" in md_b  # no such item: left as it is
    assert "(fig:f)=\n**[fig:f]** A figure." in md_b  # a figure's own bold tag is not linked to itself


# ---------------------------------------------------------------------------------------------
# live 3-D views: the pythreejs scene inside a widget stays live, the rest is its still picture
# ---------------------------------------------------------------------------------------------


def _model(name, module="@jupyter-widgets/controls", **state):
    return {"model_name": name, "model_module": module, "model_module_version": "2.0.0", "state": state}


def test_a_3d_scene_inside_a_widget_becomes_a_live_view_and_the_rest_stays_a_still():
    three = "jupyter-threejs"
    state = {
        "box": _model("VBoxModel", children=["IPY_MODEL_check", "IPY_MODEL_render"]),
        "check": _model("CheckboxModel", layout="IPY_MODEL_lay1"),
        "lay1": _model("LayoutModel", "@jupyter-widgets/base"),
        "render": _model("RendererModel", three, scene="IPY_MODEL_scene", camera="IPY_MODEL_cam",
                         controls=["IPY_MODEL_orbit"]),  # fmt: skip
        "scene": _model("SceneModel", three, children=["IPY_MODEL_mesh"]),
        "mesh": _model("MeshModel", three, geometry="IPY_MODEL_geo", nested={"deep": ["IPY_MODEL_mat"]}),
        "geo": _model("BufferGeometryModel", three),
        "mat": _model("MeshBasicMaterialModel", three),
        "cam": _model("PerspectiveCameraModel", three),
        "orbit": _model("OrbitControlsModel", three, controlling="IPY_MODEL_cam"),
        "slider": _model("FloatSliderModel"),  # a widget of another output: needs Python, stays a still
    }
    explorer = new_code_cell("explorer")
    explorer.outputs = [new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "box", "version_major": 2, "version_minor": 0},
        "image/png": "iVBOR", "text/plain": "Explorer(...)"})]  # fmt: skip
    slider = new_code_cell("slider")
    slider.outputs = [new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "slider", "version_major": 2, "version_minor": 0},
        "image/png": "iVBOR2", "text/plain": "FloatSlider()"})]  # fmt: skip
    nb = new_notebook(cells=[explorer, slider])
    nb.metadata["widgets"] = {tf.WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": state}}
    assert tf.live_3d_views(nb) == 1
    outs = nb.cells[0].outputs
    assert tf.WIDGET_VIEW not in outs[0]["data"] and outs[0]["data"]["image/png"] == "iVBOR"  # the still stays
    assert "drag to turn" in outs[1]["data"]["text/html"]
    assert outs[2]["data"][tf.WIDGET_VIEW]["model_id"] == "render"
    assert [o["data"].get("image/png") for o in nb.cells[1].outputs] == ["iVBOR2"]  # the slider: a still only
    kept = nb.metadata["widgets"][tf.WIDGET_STATE]["state"]
    assert set(kept) == {"render", "scene", "mesh", "geo", "mat", "cam", "orbit"}  # what the scene uses, no more
    assert nb.metadata["widgets"][tf.WIDGET_STATE]["version_major"] == 2


def test_a_notebook_without_a_3d_scene_keeps_no_widget_state():
    cell = new_code_cell("w")
    cell.outputs = [new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "s", "version_major": 2, "version_minor": 0},
        "image/png": "iVBOR"})]  # fmt: skip
    nb = new_notebook(cells=[cell])
    nb.metadata["widgets"] = {tf.WIDGET_STATE: {"state": {"s": _model("FloatSliderModel")}}}
    assert tf.live_3d_views(nb) == 0
    assert "widgets" not in nb.metadata and list(nb.cells[0].outputs[0]["data"]) == ["image/png"]
