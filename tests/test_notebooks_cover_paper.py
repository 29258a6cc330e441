"""The notebook chain covers the paper: every tagged item is presented and checked.

``tests/paper_tags.txt`` lists the tags of the numbered items of the paper (the tag column of the
paper map). For each tag, some markdown cell of a notebook source ``notebooks/NN_slug.py``
(py:percent) must contain ``[tag]``, and a code cell that follows it — before the next markdown
cell that names another tag — must contain a check (``assert`` or an ``np.testing`` call), so that
running the notebook proves the statement.

Failures name the tag and say what is missing: the tag itself, or a check after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TAGS_FILE = Path(__file__).with_name("paper_tags.txt")

_CELL = re.compile(r"^# %%(.*)$")
_MARKDOWN = re.compile(r"^\s*\[(markdown|md)\]")
_CHECK = re.compile(r"\bassert\b|\bnp\.testing\.|\bnumpy\.testing\.|\bassert_allclose\b|\bassert_array_equal\b")


@dataclass(frozen=True)
class Cell:
    """One cell of a py:percent notebook source."""

    path: Path
    index: int
    markdown: bool
    text: str


def read_tags(path: Path = TAGS_FILE) -> list[str]:
    """The tags, one per line; blank lines and ``#`` comments are skipped."""
    tags = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            tags.append(line)
    return tags


def parse_percent(path: Path) -> list[Cell]:
    """Split a py:percent file into cells (the YAML header before the first ``# %%`` is dropped)."""
    cells: list[Cell] = []
    current: list[str] | None = None
    markdown = False

    def flush():
        if current is not None:
            lines = current
            if markdown:  # markdown lines are commented out: "# text"
                lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
            cells.append(Cell(path, len(cells), markdown, "\n".join(lines)))

    for line in path.read_text(encoding="utf-8").splitlines():
        m = _CELL.match(line)
        if m:
            flush()
            current = []
            markdown = bool(_MARKDOWN.match(m.group(1)))
        elif current is not None:
            current.append(line)
    flush()
    return cells


def notebook_sources() -> list[Path]:
    """The notebook sources ``notebooks/NN_slug.py`` in order."""
    return sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def has_check(text: str) -> bool:
    """Whether a code cell contains an assertion (``assert``, ``np.testing.*``)."""
    code = "\n".join(line.split("#", 1)[0] if not line.lstrip().startswith("#") else "" for line in text.splitlines())
    return bool(_CHECK.search(code))


def coverage(tags: list[str], sources: list[Path]) -> dict[str, tuple[list[str], list[str]]]:
    """For each tag: (places where it is checked, places where it appears without a check)."""
    marks = {t: f"[{t}]" for t in tags}
    result: dict[str, tuple[list[str], list[str]]] = {t: ([], []) for t in tags}
    for path in sources:
        cells = parse_percent(path)
        tagged = [{t for t in tags if c.markdown and marks[t] in c.text} for c in cells]
        for k in range(len(cells)):
            for tag in tagged[k]:
                checked = False
                for j in range(k + 1, len(cells)):
                    if cells[j].markdown and tagged[j] - {tag}:
                        break  # the next tag's section begins
                    if not cells[j].markdown and has_check(cells[j].text):
                        checked = True
                        break
                where = f"{path.name} (cell {k})"
                result[tag][0 if checked else 1].append(where)
    return result


TAGS = read_tags()
SOURCES = notebook_sources()
COVERAGE = coverage(TAGS, SOURCES)


def test_tag_list_is_well_formed():
    assert TAGS, f"{TAGS_FILE} lists no tags"
    dupes = sorted({t for t in TAGS if TAGS.count(t) > 1})
    assert not dupes, f"duplicate tags in {TAGS_FILE.name}: {dupes}"
    bad = [t for t in TAGS if not re.fullmatch(r"[A-Za-z0-9:_-]+", t)]
    assert not bad, f"tags must be single words like 'thm:bas'; got {bad}"


def test_notebook_sources_exist():
    assert SOURCES, f"no notebook sources notebooks/NN_slug.py found in {NOTEBOOKS}"


@pytest.mark.parametrize("tag", TAGS)
def test_tag_is_presented_and_checked(tag):
    checked, unchecked = COVERAGE[tag]
    if checked:
        return
    if unchecked:
        pytest.fail(
            f"[{tag}] appears in {', '.join(unchecked)} but no code cell with an assert / np.testing check "
            "follows it before the next tagged markdown cell"
        )
    pytest.fail(f"[{tag}] is not presented: no markdown cell of notebooks/NN_slug.py contains '[{tag}]'", pytrace=False)


def test_parser_on_a_small_source(tmp_path):
    src = tmp_path / "99_demo.py"
    src.write_text(
        "# ---\n# jupyter:\n# ---\n\n"
        "# %% [markdown]\n# **[a:one]** a statement\n\n"
        "# %%\nx = 1\n\n# %%\nassert x == 1\n\n"
        "# %% [markdown]\n# **[b:two]** another\n\n# %%\nprint('no check')  # assert in a comment\n\n"
        "# %% [markdown]\n# **[c:three]** and a third\n\n# %%\nnp.testing.assert_allclose(1, 1)\n",
        encoding="utf-8",
    )
    cells = parse_percent(src)
    assert [c.markdown for c in cells] == [True, False, False, True, False, True, False]
    cov = coverage(["a:one", "b:two", "c:three", "d:four"], [src])
    assert cov["a:one"][0] and cov["c:three"][0]
    assert not cov["b:two"][0] and cov["b:two"][1]
    assert cov["d:four"] == ([], [])


def test_index_links_the_chain_and_maps_every_tag():
    index = NOTEBOOKS / "00_index.py"
    if not index.exists():
        pytest.fail("notebooks/00_index.py (the index of the chain) is missing", pytrace=False)
    text = index.read_text(encoding="utf-8")
    links = set(re.findall(r"\]\((\d\d_\w+)\.ipynb\)", text))
    chain = {p.stem for p in SOURCES if p.name != index.name}
    assert not links - chain, f"the index links notebooks that do not exist: {sorted(links - chain)}"
    assert not chain - links, f"the index misses notebooks: {sorted(chain - links)}"
    mapped = set(re.findall(r'^\s*\("([A-Za-z0-9:_-]+)",', text, flags=re.M))
    assert set(TAGS) <= mapped, f"the index's paper map misses tags: {sorted(set(TAGS) - mapped)}"
    assert mapped <= set(TAGS), f"the index's paper map has unknown tags: {sorted(mapped - set(TAGS))}"
