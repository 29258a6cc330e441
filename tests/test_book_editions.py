"""The book's two builds: the teacher's keeps the worked solutions (folded away), the student's has none.

Cheap: the source transformation of both editions (what Sphinx reads) and the notebooks the pages offer
for download; no Sphinx build (``bash scripts/book.sh --student`` does one, into book/_build/student-html).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
sys.path.insert(0, str(BOOK))
import sources  # noqa: E402  (book/sources.py)
import transform  # noqa: E402  (book/transform.py)

#: a line of the worked solution of exercise 1.1 (notebooks/01_frames_and_relu_layers)
KNOWN_SOLUTION = "F11.canonical_dual().synthesis(c11)"


def _text(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.ipynb"))}


@pytest.fixture(scope="module")
def editions(tmp_path_factory):
    out = tmp_path_factory.mktemp("book-sources")
    transform.transform_chain(sources.NOTEBOOKS, out / "teacher")
    transform.transform_chain(sources.NOTEBOOKS, out / "student", preprocess=sources._student_notebook())
    return _text(out / "teacher"), _text(out / "student")


def test_the_teachers_build_keeps_the_solutions_folded_away(editions):
    teacher, _ = editions
    assert KNOWN_SOLUTION in teacher["01_frames_and_relu_layers.ipynb"]
    assert sum(t.count("{solution-start}") for t in teacher.values()) >= 10


def test_the_students_build_has_no_solution(editions):
    teacher, student = editions
    assert set(student) == set(teacher), "the student build has every page of the chain"
    for name, text in student.items():
        assert KNOWN_SOLUTION not in text, name
        assert "{solution-start}" not in text and "{solution-end}" not in text, name
        assert "ex.solution(" not in text, f"{name}: a worked solution's marking is left"
        nb = nbformat.reads(text, as_version=4)
        assert not [c for c in nb.cells if "solution" in c.metadata.get("tags", [])], name
    # the exercises themselves stay, boxed as in the teacher's build
    assert sum(t.count("{exercise}") for t in student.values()) == sum(t.count("{exercise}") for t in teacher.values())


def test_the_students_pages_offer_the_student_notebooks_for_download(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "ipynb_static", lambda edition="teacher": tmp_path / edition)
    monkeypatch.setattr(sources, "VENDOR", tmp_path / "vendor")
    teacher = _text(sources.copy_notebooks("teacher"))
    student = _text(sources.copy_notebooks("student"))
    assert set(teacher) == set(student) and len(student) >= 13
    assert KNOWN_SOLUTION in teacher["01_frames_and_relu_layers.ipynb"]
    assert not [name for name, text in student.items() if KNOWN_SOLUTION in text or "ex.solution(" in text]
    json.loads(student["01_frames_and_relu_layers.ipynb"])  # a notebook file


def test_each_edition_reads_its_own_sources_and_an_unknown_one_is_refused():
    assert sources.source_dir("teacher") == BOOK
    assert sources.source_dir("student") != BOOK and BOOK / "_build" in sources.source_dir("student").parents
    assert sources.ipynb_static("teacher") != sources.ipynb_static("student")
    with pytest.raises(ValueError, match="edition must be one of"):
        sources.source_dir("teachers")


def test_the_build_script_takes_student(monkeypatch):
    import build  # book/build.py

    calls = []
    monkeypatch.setattr(build, "build", lambda out, **kw: calls.append((Path(out), kw)) or 0.0)
    monkeypatch.setattr(build, "site_size", lambda out: (0, 0))
    assert build.main(["--student", "-q"]) == 0
    out, kw = calls[-1]
    assert kw["edition"] == "student" and out == build.STUDENT_OUT
    assert build.main(["-q"]) == 0
    assert calls[-1][1]["edition"] == "teacher" and calls[-1][0] == build.DEFAULT_OUT


def test_an_existing_student_build_shows_no_solution():
    """Over book/_build/student-html when it was built (bash scripts/book.sh --student): no solution box, no ex.solution call."""
    import os
    import re

    site = Path(os.environ.get("RFNB_STUDENT_BOOK_HTML") or BOOK / "_build" / "student-html")
    pages = sorted((site / "notebooks").glob("*.html")) if site.is_dir() else []
    if not pages:
        pytest.skip(f"no student build in {site} (bash scripts/book.sh --student builds one)")
    solution_box = re.compile(r'class="[^"]*\bsolution\b')
    marking = re.compile(r'solution</span><span class="p">\(')  # ex.solution( as Pygments writes it
    bad = [p.name for p in pages if solution_box.search(t := p.read_text(encoding="utf-8")) or marking.search(t)]
    assert not bad, f"student pages with a worked solution: {bad}"
    assert sum('class="exercise' in p.read_text(encoding="utf-8") for p in pages) >= 10, "the exercises are there"
