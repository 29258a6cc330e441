"""The cell tags of the exercises: the one place where their names are spelled.

The py:percent sources tag cells as ``# %% tags=["..."]`` (jupytext keeps the tags in the
.ipynb). Each exercise is four cells, in this order:

* :data:`EXERCISE` — a markdown cell with the task, headed ``### Exercise N.k — title``;
* :data:`ANSWER` — the code cell where the student writes, e.g. ``answer_3_1 = None``;
* :data:`SOLUTION` — the worked solution (collapsed in JupyterLab, behind a toggle in the book,
  removed from the student edition); it sets ``answer_3_1`` and ends with ``ex.solution("3.1", answer_3_1)``;
* :data:`CHECK` — the checker's call, ``ex.nbNN.check_3_1(answer_3_1)``, which prints feedback.

Who reads them: ``book/transform.py`` (exercise boxes, solution toggles, check cells without the teacher's output),
``scripts/student_edition.py`` (drops solutions, clears the teacher's answer and check outputs, adds
nbgrader's metadata that ``scripts/grade.py`` grades by).
``voila.json`` hides the same four tags in the app view; JSON cannot import, so keep it in step
by hand.

This module imports nothing: tools outside the notebooks (the book build, the scripts) put
``notebooks/`` on ``sys.path`` and import ``exercises.tags`` without loading any checker.
"""

from __future__ import annotations

__all__ = ["EXERCISE", "ANSWER", "SOLUTION", "CHECK", "EXERCISE_TAGS"]

EXERCISE = "exercise"
ANSWER = "answer"
SOLUTION = "solution"
CHECK = "check"

#: the tags of one exercise's cells, in the order the cells come
EXERCISE_TAGS = (EXERCISE, ANSWER, SOLUTION, CHECK)
