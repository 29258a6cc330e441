"""Exercises 13.1-13.3 are graded automatically: their checks get the trained networks and the data from the
teacher's module (rebuilt from the notebook's recipe, saved as arrays), never from the submission.

Cheap: the reference is built once (two small networks, seconds); the answers are scored by grade.py's clean
process directly (no notebook run: tests/test_grade_sandbox.py covers the sandbox).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "notebooks"))
import grade  # noqa: E402  (scripts/grade.py)

pytest.importorskip("sklearn")
NB13 = ROOT / "notebooks" / "13_real_network.ipynb"
EXERCISES = ["13.1", "13.2", "13.3"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = grade.reference_objects(grade.NOTEBOOKS, "nb13", tmp_path_factory.mktemp("ref") / "reference-nb13.npz")
    with np.load(path, allow_pickle=False) as arrays:
        return path, {k: arrays[k] for k in arrays.files}


@pytest.fixture(scope="module")
def objects(reference):
    from exercises import nb13

    return nb13._grading_objects(reference[1])


def _stored_output(needle: str) -> str:
    nb = nbformat.read(NB13, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and needle in c.source)
    return "".join(o.get("text", "") for o in cell.outputs)


def _score(reference, answers: dict) -> dict:
    return grade.score_in_clean_process(grade.NOTEBOOKS, answers, EXERCISES, timeout=600,
                                        references={"nb13": str(reference[0])})  # fmt: skip


def test_the_reference_is_the_notebooks_networks(reference, objects):
    """The rebuilt networks score what the notebook's Run All printed (its stored output), to the digit shown."""
    from exercises import nb13

    printed = _stored_output("acc_raw, acc_pca =")
    acc_raw, acc_pca = (float(v) for v in re.findall(r"held-out accuracy (\d\.\d+)", printed))
    model = objects["13.1"]["model"]
    assert f"{model.score(*objects['13.1']['test']):.3f}" == f"{acc_pca:.3f}"
    raw = nb13._trained(reference[1], "raw")
    assert raw.coefs_[0].shape == (64, 128) and objects["13.3"]["layer"].m == 128
    assert objects["13.3"]["images"].shape == (1797, 64) and objects["13.2"]["basis"].shape[0] == 64
    assert 0.9 < acc_raw <= 1  # read back from the notebook, as printed
    assert not any(a.dtype == object for a in reference[1].values()), "the reference is plain arrays (no pickle)"


def test_exercises_13_are_no_longer_left_to_the_teacher():
    teacher = nbformat.read(NB13, as_version=4)
    assert grade._needs_objects(teacher) == EXERCISES
    assert grade.has_reference(grade.NOTEBOOKS, "nb13")
    assert grade._graded_by_hand(teacher, grade.NOTEBOOKS, "nb13") == {}


def _correct_answers(objects) -> dict:
    from exercises import nb13

    import relu_frames_nb as rf

    s = float(re.search(r"s = (\d\.\d+)", _stored_output("s_ball = exact_threshold")).group(1))
    L_pca = objects["13.1"]["layer"]
    alpha = L_pca.alpha - (s + 0.01) * L_pca.frame.norms  # the notebook's threshold, a little more lowered
    digit = objects["13.3"]["images"][nb13._DIGIT_13_2]
    x = objects["13.3"]["images"][nb13.DIGIT_13_3]
    near = rf.Box(np.clip(x - 2, 0, 16), np.clip(x + 2, 0, 16))
    witness = rf.check(objects["13.3"]["layer"], near, method="exact", time_limit=120).pair[0]
    return {"answer_13_1": alpha.tolist(), "answer_13_2": digit.tolist(), "answer_13_3": np.asarray(witness).tolist()}


def test_correct_answers_score_full_marks(reference, objects):
    scored = _score(reference, _correct_answers(objects))
    assert {e: ok for e, (ok, _) in scored.items()} == dict.fromkeys(EXERCISES, True), scored


def test_wrong_and_missing_answers_score_nothing(reference, objects):
    from exercises import nb13

    L_pca = objects["13.1"]["layer"]
    x = objects["13.3"]["images"][nb13.DIGIT_13_3]
    wrong = {"answer_13_1": (L_pca.alpha + 1.0).tolist(),  # raised: never helps injectivity
             "answer_13_2": np.zeros(64).tolist(),
             "answer_13_3": x.tolist()}  # the digit itself, where the layer is invertible  # fmt: skip
    scored = _score(reference, wrong)
    assert not any(ok for ok, _ in scored.values()), scored
    assert "raised the bias" in scored["13.1"][1] and "invertible there" in scored["13.3"][1]
    missing = _score(reference, {})
    assert not any(ok for ok, _ in missing.values()), missing
    assert all("could not run" not in line for _, line in missing.values()), missing
