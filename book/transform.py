r"""Build-time transform of the notebook chain into the book's sources (run by ``book/build.py``).

The notebooks in ``notebooks/`` stay as they are (readable in JupyterLab); the book reads
*copies* written by :func:`transform_chain` into ``book/notebooks/`` (gitignored), in which

* every paper item stated in a markdown paragraph that begins ``**[tag]** (Name) ...`` becomes
  a numbered sphinx-proof box (``{prf:theorem}``, ``{prf:lemma}``, ... with ``:label: tag``),
  so that ``[tag]`` is a link target (``{prf:ref}`tag``` works). The box takes the paragraph,
  and what directly continues it: a list or a table right after it, a display formula that
  completes its sentence, and the sentence after such a formula (``Then ...``). The kind comes
  from the tag's prefix (``thm:`` theorem, ``lem:`` lemma, ...) or, for the paper's unprefixed
  labels, from :data:`UNPREFIXED`; a ``fig:`` paragraph keeps its text and gets a target label;
* every inline ```[tag]``` that names an item presented somewhere in the chain becomes a link
  to it (in markdown cells and in markdown outputs, e.g. the map of ``00_index``);
* an exercise (markdown cell tagged ``exercise``, headed ``### Exercise N.k — title``) becomes
  an ``{exercise}`` box labelled ``exercise-N-k``; the code cells tagged ``solution`` that
  follow it are wrapped in a gated ``{solution-start}``/``{solution-end}`` pair with
  ``:class: dropdown`` (hidden until the reader opens it); ``answer`` and ``check`` cells stay
  plain code cells, and the stored output of a ``check`` cell (the teacher's "correct — ...", which
  gives the answer away) is dropped;
* ``|`` inside inline math in a table row is written ``\vert`` (the row would split there);
* every widget output shows its still picture (PNG), and a pythreejs 3-D scene inside it also
  becomes a live view that turns and zooms in the browser without a kernel (the saved widget
  state, cut down to what the scenes use; see :func:`live_3d_views`).

Usage: ``python book/transform.py SRC_DIR DEST_DIR`` (files are rewritten only when their
content changes, so that Sphinx rebuilds only what changed).
"""

from __future__ import annotations

import copy
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat

#: the chain's folder: its ``exercises`` package holds the names of the exercise cells' tags
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
if str(NOTEBOOKS) not in sys.path:
    sys.path.insert(0, str(NOTEBOOKS))
from exercises.tags import CHECK, EXERCISE, SOLUTION  # noqa: E402  (notebooks/exercises/tags.py)

#: kind of a paper item by the prefix of its tag
PREFIX_KINDS = {
    "thm": "theorem",
    "lem": "lemma",
    "prop": "proposition",
    "cor": "corollary",
    "def": "definition",
    "ex": "example",
    "rem": "remark",
    "alg": "algorithm",
    "app": "remark",
}
#: kind of the paper's items whose LaTeX label has no prefix (the paper's environments)
UNPREFIXED = {
    "relulayer": "definition",
    "alpharect": "definition",
    "reluinj1": "theorem",
    "reluinj0": "theorem",
    "locstab": "definition",
    "prelu": "remark",  # an unnumbered excursion in the paper
}
#: prefixes of items that are not boxes (figures): their paragraph only gets a target label
TARGET_ONLY = ("fig",)

#: a statement paragraph: ``**[tag]**`` then an optional ``(Name)`` (one level of nested parentheses)
STATEMENT = re.compile(r"^\*\*\[(?P<tag>[A-Za-z][\w:.-]*)\]\*\*[ \t]*(?:\((?P<name>(?:[^()\n]|\([^()\n]*\))*)\))?[ \t]*")
#: an inline reference to a tag: ```[tag]``` (inline code), or ``**[tag]**`` where it is not a statement
INLINE_TAG = re.compile(r"`\[(?P<tag>[A-Za-z][\w:.-]*)\]`|\*\*\[(?P<bold>[A-Za-z][\w:.-]*)\]\*\*")
#: the heading of an exercise cell
EXERCISE_HEADING = re.compile(r"^#{1,6}\s*Exercise\s+(?P<num>\d+(?:\.\d+)*)\s*(?:[—–:-]+\s*(?P<title>.*?))?\s*$")
LIST_ITEM = re.compile(r"^(\d+[.)]|[*+-])\s")
FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})")


class TransformError(ValueError):
    """A notebook of the chain cannot be turned into book sources (the message says how to fix it)."""


def kind_of(tag: str) -> str | None:
    """The sphinx-proof kind of a paper item (``None`` for a figure, which only gets a target)."""
    prefix, sep, _ = tag.partition(":")
    if sep:
        if prefix in TARGET_ONLY:
            return None
        if prefix in PREFIX_KINDS:
            return PREFIX_KINDS[prefix]
        raise TransformError(f"tag [{tag}]: unknown prefix {prefix!r}; add it to PREFIX_KINDS in book/transform.py")
    if tag in UNPREFIXED:
        return UNPREFIXED[tag]
    raise TransformError(f"tag [{tag}] has no prefix and no kind in UNPREFIXED (book/transform.py): add it there")


@dataclass(frozen=True)
class Item:
    """A paper item found in the chain: its tag, the label of its box or target, where it is."""

    tag: str
    label: str
    kind: str | None  # None: a figure (a target label, no box)
    notebook: str


# ---------------------------------------------------------------------------------------------
# markdown: blocks, statements, references
# ---------------------------------------------------------------------------------------------


def _blocks(lines: list[str], start: int) -> list[tuple[int, int]]:
    """Blocks (runs of non-blank lines) from ``start`` on, as (first, end) line index pairs."""
    out, i = [], start
    while i < len(lines):
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            break
        j = i
        while j < len(lines) and lines[j].strip():
            j += 1
        out.append((i, j))
        i = j
    return out


def _is_list(line: str) -> bool:
    return bool(LIST_ITEM.match(line.lstrip()))


def _is_display_math(line: str) -> bool:
    return line.lstrip().startswith("$$")


def _ends_sentence(text: str) -> bool:
    """Does the text end a sentence (so that a display formula after it is not part of it)?"""
    return text.rstrip().endswith((".", "!", "?", ".)", ".*"))


def statement_extent(lines: list[str], first: int) -> int:
    """End (exclusive line index) of the statement that begins at line ``first``.

    The statement is its paragraph, plus what continues it directly: a list or a table right
    after it; a display formula when the text before it has not ended its sentence; after such a
    formula, a paragraph that goes on with the sentence (``Then ...``, lower case, ``(`` + lower
    case). Another statement (``**[...]**``), a heading or a fence ends it.
    """
    blocks = _blocks(lines, first)
    end = blocks[0][1]
    # the paragraph itself stops at a line that starts another statement or a heading
    for k in range(first + 1, end):
        if STATEMENT.match(lines[k]) or lines[k].startswith("#") or FENCE.match(lines[k]):
            return k
    prev = "para"
    for a, b in blocks[1:]:
        head = lines[a]
        if STATEMENT.match(head) or head.startswith("#") or FENCE.match(head):
            break
        text_before = "\n".join(lines[first:end])
        if _is_list(head) and prev in ("para", "list", "math"):
            kind = "list"
        elif head.lstrip().startswith("|") and text_before.rstrip().endswith(":"):
            kind = "table"
        elif _is_display_math(head) and not _ends_sentence(text_before):
            kind = "math"
        elif prev == "math" and re.match(r"^(Then\b|[a-z]|\([a-z])", head.lstrip()):
            kind = "para-cont"
        else:
            break
        # a list item of the next block must not itself start a statement
        if any(STATEMENT.match(ln) for ln in lines[a:b]):
            break
        end, prev = b, kind
    return end


def _fence(depth: int) -> str:
    return ":" * depth


def _max_colon_fence(text: str) -> int:
    runs = [len(m.group(0)) for m in re.finditer(r"^\s*(:{3,})", text, flags=re.M)]
    return max(runs, default=0)


def statement_box(tag: str, name: str | None, kind: str, label: str, body: str) -> str:
    """The MyST source of a numbered sphinx-proof box for one item."""
    title = (f"({name}) " if name else "") + f"`[{tag}]`"
    fence = _fence(max(3, _max_colon_fence(body) + 1))
    return f"{fence}{{prf:{kind}}} {title}\n:label: {label}\n\n{body.strip()}\n{fence}"


def link_inline_tags(text: str, items: dict[str, Item], local: dict[str, str]) -> str:
    """Turn each ```[tag]``` naming a known item into a link to its box (or figure target).

    A bold ``**[tag]**`` of a boxed item (its use after the statement) becomes the same link.

    ``local`` maps a tag to the label of its occurrence in the current notebook, which wins
    over the first occurrence in the chain (``fig:fig3`` is drawn in 04 and in 05).
    """

    def repl(m: re.Match) -> str:
        tag = m.group("tag") or m.group("bold")
        item = items.get(tag)
        if item is None or (m.group("bold") and item.kind is None):  # a figure's own bold tag stays
            return m.group(0)
        label = local.get(tag, item.label)
        if item.kind is None:
            return f"{{ref}}`[{tag}] <{label}>`"
        return f"{{prf:ref}}`{label}` `[{tag}]`"

    return _outside_fences(text, lambda chunk: INLINE_TAG.sub(repl, chunk))


_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(?P<tex>[^$\n]+?)(?<!\\)\$")


def protect_table_math(text: str) -> str:
    r"""In table rows, write ``|`` inside inline math as ``\vert`` (``\|`` as ``\Vert``).

    A table row is split at every ``|`` before the math is parsed, so ``$|I_x| \ge n$`` in a
    table cell would break the row and leave raw TeX on the page (JupyterLab protects the math
    first and shows it right; the book must too).
    """

    def fix(m: re.Match) -> str:
        tex = m.group("tex").replace("\\|", "\\Vert{}").replace("|", "\\vert{}")
        return f"${tex}$"

    lines = text.split("\n")
    for k, line in enumerate(lines):
        if line.lstrip().startswith("|") and "$" in line:
            lines[k] = _INLINE_MATH.sub(fix, line)
    return "\n".join(lines)


def _outside_fences(text: str, fn) -> str:
    """Apply ``fn`` to the parts of ``text`` that are not inside fenced code blocks."""
    out, chunk, fence = [], [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence is None and m:
            out.append(fn("\n".join(chunk)) if chunk else None)
            chunk, fence = [line], m.group(1)
            continue
        if fence is not None:
            chunk.append(line)
            if line.strip().startswith(fence):
                out.append("\n".join(chunk))
                chunk, fence = [], None
            continue
        chunk.append(line)
    if chunk:
        out.append(fn("\n".join(chunk)) if fence is None else "\n".join(chunk))
    return "\n".join(part for part in out if part is not None)


# ---------------------------------------------------------------------------------------------
# the chain: collect items, rewrite each notebook
# ---------------------------------------------------------------------------------------------


def _markdown_lines(nb) -> list[tuple[int, list[str]]]:
    return [(k, c.source.split("\n")) for k, c in enumerate(nb.cells) if c.cell_type == "markdown"]


def collect_items(notebooks: dict[str, object]) -> tuple[dict[str, Item], dict[str, dict[tuple[int, int], Item]]]:
    """Every statement of the chain (first occurrence per tag) and, per notebook, each occurrence's item.

    An item (theorem, lemma, ...) is boxed where it is first stated; a later paragraph that
    begins with its ``**[tag]**`` (e.g. 13_real_network applying Injectivity II) is a use, not a
    statement: it stays a paragraph and its tag becomes a link to the box. A figure drawn again
    gets a target of its own: labels are unique over the chain (``tag-2``, ``tag-3``, ...).
    """
    first: dict[str, Item] = {}
    seen: dict[str, int] = {}
    where: dict[str, dict[tuple[int, int], Item]] = {}
    for name, nb in notebooks.items():
        where[name] = {}
        for k, lines in _markdown_lines(nb):
            for i, line in enumerate(lines):
                m = STATEMENT.match(line)
                if not m:
                    continue
                tag = m.group("tag")
                kind = kind_of(tag)
                if kind is not None and tag in seen:
                    continue  # an item is stated once; a later **[tag]** refers back to it (a link)
                seen[tag] = seen.get(tag, 0) + 1
                label = tag if seen[tag] == 1 else f"{tag}-{seen[tag]}"
                item = Item(tag, label, kind, name)
                first.setdefault(tag, item)
                where[name][(k, i)] = item
    return first, where


def transform_markdown(source: str, occurrences: dict[int, Item], items: dict[str, Item], local: dict[str, str]) -> str:
    """Rewrite one markdown cell: statements into boxes or targets, inline tags into links."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        item = occurrences.get(i)
        if item is None:
            out.append(lines[i])
            i += 1
            continue
        end = statement_extent(lines, i)
        m = STATEMENT.match(lines[i])
        if item.kind is None:  # a figure: keep the text, put a target before it
            if out and out[-1].strip():
                out.append("")
            out.append(f"({item.label})=")
            out.extend(lines[i:end])
        else:
            body = "\n".join([lines[i][m.end() :], *lines[i + 1 : end]])
            body = link_inline_tags(body, items, local)
            if out and out[-1].strip():
                out.append("")
            out.extend(statement_box(item.tag, m.group("name"), item.kind, item.label, body).split("\n"))
            if end < len(lines) and lines[end].strip():
                out.append("")
        i = end
    text = "\n".join(out)
    # inline tags outside the boxes (the boxes' bodies were linked above)
    parts = re.split(r"(^:{3,}\{prf:[\s\S]*?^:{3,}$)", text, flags=re.M)
    return "".join(p if p.startswith(":::") else link_inline_tags(p, items, local) for p in parts)


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def exercise_box(source: str, label: str) -> str:
    """The MyST source of an ``{exercise}`` box from an exercise cell (its heading becomes the title)."""
    lines = source.strip("\n").split("\n")
    title = ""
    m = EXERCISE_HEADING.match(lines[0]) if lines else None
    if m:
        title = m.group("num") + (f" — {m.group('title')}" if m.group("title") else "")
        lines = lines[1:]
    elif lines and lines[0].startswith("#"):
        title = lines[0].lstrip("#").strip()
        lines = lines[1:]
    body = "\n".join(lines).strip()
    fence = _fence(max(3, _max_colon_fence(body) + 1))
    head = f"{fence}{{exercise}} {title}".rstrip()
    return f"{head}\n:label: {label}\n:nonumber:\n\n{body}\n{fence}"


def exercise_label(source: str, notebook: str, serial: int) -> str:
    """``exercise-N-k`` from the heading ``Exercise N.k``, else ``exercise-<notebook>-<serial>``."""
    first = source.strip("\n").split("\n")[0] if source.strip() else ""
    m = EXERCISE_HEADING.match(first)
    if m:
        return "exercise-" + m.group("num").replace(".", "-")
    return f"exercise-{notebook[:2]}-{serial}"


def _new_markdown(source: str, cell_id: str):
    """A markdown cell with a fixed id (random ids would make every build rewrite the copy)."""
    cell = nbformat.v4.new_markdown_cell(source)
    cell["id"] = cell_id
    return cell


def transform_notebook(nb, name: str, items: dict[str, Item], occurrences: dict[tuple[int, int], Item]):
    """A transformed copy of one notebook of the chain (the input is not modified)."""
    nb = copy.deepcopy(nb)
    local: dict[str, str] = {}
    for item in occurrences.values():
        local.setdefault(item.tag, item.label)
    per_cell: dict[int, dict[int, Item]] = {}
    for (k, i), item in occurrences.items():
        per_cell.setdefault(k, {})[i] = item

    cells = []
    exercise: str | None = None
    serial = 0
    in_solution = False
    for k, cell in enumerate(nb.cells):
        tags = _tags(cell)
        if in_solution and SOLUTION not in tags:
            cells.append(_new_markdown(":::{solution-end}\n:::", f"solution-end-{k}"))
            in_solution = False
        if cell.cell_type == "markdown":
            if EXERCISE in tags:
                serial += 1
                exercise = exercise_label(cell.source, name, serial)
                cell.source = exercise_box(link_inline_tags(cell.source, items, local), exercise)
            else:
                cell.source = transform_markdown(cell.source, per_cell.get(k, {}), items, local)
            cell.source = _outside_fences(cell.source, protect_table_math)
        elif cell.cell_type == "code":
            if SOLUTION in tags and exercise is not None and not in_solution:
                solution = exercise.replace("exercise-", "solution-", 1)
                start = f":::{{solution-start}} {exercise}\n:label: {solution}\n:class: dropdown\n:::"
                cells.append(_new_markdown(start, f"solution-start-{k}"))
                in_solution = True
            if CHECK in tags:
                # the teacher's run printed "correct — <the answer>": no toggle may show it (the worked
                # solution, in its dropdown, is where a reader who gives up finds the answer)
                cell.outputs = []
                cell.execution_count = None
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if "text/markdown" in data:
                    md = data["text/markdown"]
                    md = "".join(md) if isinstance(md, list) else md
                    data["text/markdown"] = _outside_fences(link_inline_tags(md, items, local), protect_table_math)
        cells.append(cell)
    if in_solution:
        cells.append(_new_markdown(":::{solution-end}\n:::", "solution-end-last"))
    nb.cells = cells
    live_3d_views(nb)
    return nb


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: the caption above a live 3-D view in the book (class used by book.css and the browser test)
LIVE_CAPTION = ('<p class="rfnb-live3d-caption">Live 3-D view of the first state: drag to turn, scroll to zoom, '
                "right-drag to move (it runs in your browser, without a kernel; the controls above need one).</p>")  # fmt: skip


def _models_reachable(state: dict, root: str) -> set[str]:
    """The widget models ``root`` refers to, directly or through others (``"IPY_MODEL_<id>"`` strings)."""
    seen, todo = set(), [root]
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        stack = [state[mid].get("state", {})]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, str) and v.startswith("IPY_MODEL_"):
                todo.append(v[len("IPY_MODEL_"):])
    return seen


def live_3d_views(nb) -> int:
    """Keep the 3-D scenes of the widget outputs live in the book; every other widget stays a still picture.

    A widget output keeps its still (``image/png``) and loses its view, so the page shows what the
    notebook showed, controls included, as a picture. For every pythreejs ``Renderer`` inside the
    widget a new output follows with that renderer alone, which the ipywidgets HTML manager (vendored
    with jupyter-threejs, book/build.py) draws from the saved state: orbit controls turn and zoom it
    client-side. The saved state is cut down to the models these renderers use. Returns the number
    of live views.
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    keep: set[str] = set()
    n_live = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            outputs.append(out)
            view = out.get("data", {}).pop(WIDGET_VIEW, None)
            if view is None:
                continue
            renderers = sorted(m for m in _models_reachable(state, view.get("model_id", ""))
                               if state[m].get("model_name") == "RendererModel"
                               and state[m].get("model_module") == "jupyter-threejs")  # fmt: skip
            for r in renderers:
                keep |= _models_reachable(state, r)
                outputs.append(nbformat.v4.new_output("display_data", data={"text/html": LIVE_CAPTION}))
                outputs.append(nbformat.v4.new_output("display_data", data={
                    WIDGET_VIEW: {"model_id": r, "version_major": 2, "version_minor": 0},
                    "text/plain": "a live 3-D view (needs JavaScript)"}))  # fmt: skip
                n_live += 1
        cell.outputs = outputs
    widgets = nb.metadata.pop("widgets", None)
    if keep:
        saved = widgets[WIDGET_STATE]
        nb.metadata["widgets"] = {WIDGET_STATE: {**{k: v for k, v in saved.items() if k != "state"},
                                                 "state": {m: state[m] for m in sorted(keep)}}}  # fmt: skip
    return n_live


def chain_sources(src: Path) -> list[Path]:
    """The notebooks of the chain (``NN_slug.ipynb``), in order."""
    return sorted(src.glob("[0-9][0-9]_*.ipynb"))


def transform_chain(src: Path, dest: Path, preprocess=None) -> list[Path]:
    """Write transformed copies of every notebook of the chain in ``src`` to ``dest``.

    ``preprocess(nb, name)``, when given, is applied to each notebook first and returns the notebook
    to transform (the student build passes the student edition's ``student_notebook``: no solution).
    Files whose content did not change are left alone (their modification time too), and
    copies of notebooks that no longer exist are removed. Returns the written paths.
    """
    src, dest = Path(src), Path(dest)
    paths = chain_sources(src)
    if not paths:
        raise TransformError(f"no notebook NN_slug.ipynb in {src}")
    notebooks = {p.stem: nbformat.read(p, as_version=4) for p in paths}
    if preprocess is not None:
        notebooks = {name: preprocess(nb, name) for name, nb in notebooks.items()}
    items, where = collect_items(notebooks)
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for p in paths:
        out = transform_notebook(notebooks[p.stem], p.stem, items, where[p.stem])
        text = nbformat.writes(out) + "\n"
        target = dest / p.name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    for stale in set(dest.glob("*.ipynb")) - set(written):
        stale.unlink()
    return written


def item_table(src: Path) -> list[dict]:
    """The items found in the chain (tag, label, kind, notebook), for tests and reports."""
    notebooks = {p.stem: nbformat.read(p, as_version=4) for p in chain_sources(Path(src))}
    _, where = collect_items(notebooks)
    return [asdict(item) for occ in where.values() for item in occ.values()]


def main(argv: list[str] | None = None) -> int:
    """``transform.py SRC DEST``: write the transformed chain; print one line per notebook."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    try:
        written = transform_chain(Path(args[0]), Path(args[1]))
    except TransformError as exc:
        print(f"book/transform.py: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"notebooks": len(written), "dest": str(Path(args[1]))}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
