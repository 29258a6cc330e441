"""Grade a class's notebooks, each in its own sandbox, with a score computed outside the student's code.

Usage (from the repository root; ``bash scripts/grade.sh SUBMISSIONS [...]`` sets up ``.venv`` and calls this)::

    python scripts/grade.py SUBMISSIONS                          # into grading/
    python scripts/grade.py SUBMISSIONS --out OUT --timeout 60 --memory 4096 --sandbox auto

``SUBMISSIONS`` holds one folder per student, named by the student's id, with the notebooks of the
student edition the student worked in (``05_maximal_bias.ipynb``, ...; any subset of the chain)::

    SUBMISSIONS/ada/05_maximal_bias.ipynb
    SUBMISSIONS/ben/05_maximal_bias.ipynb

For every submitted notebook:

1. **a sandbox of its own**: a fresh temporary folder holding only the submission and the student
   edition's checkers (``exercises/``, as the students have them: no answer, no answer helper), with its
   own ``HOME`` and ``TMPDIR``. The notebook's check cells are left out (they grade nothing) and one cell
   is appended that prints the values of ``answer_N_k`` as JSON: numbers, strings, lists (NumPy arrays
   as lists), never a pickle. It runs top to bottom in a fresh kernel (nbclient) with a per-cell
   timeout (``--timeout``, default 60 s, 180 s for notebook 13 which trains networks: the cell is interrupted
   and the feedback says "timed out after 60 s"), a memory limit on the kernel's address space (``--memory``
   MB, ``RLIMIT_AS``: an allocation beyond it fails with MemoryError) and a limit on the whole run;
2. **the score, elsewhere**: the answers (data) are checked by the teacher's checkers
   (``notebooks/exercises``, which the student never had) in a fresh Python process started for this
   submission, which never ran the student's code and reads nothing the student wrote but that JSON.
   A student's notebook therefore cannot switch a check off, redefine a checker, or rewrite the
   checkers others are graded with: whatever it does happens in its own copy, and only its answers
   leave it. One point per exercise; the checker's line, after what happened to the cells, is the
   feedback. An exercise whose check needs objects the notebook builds (13.1-13.3 pass the trained
   networks and the data) gets them from the teacher's module, not from the submission: its
   ``_reference_arrays()`` rebuilds them from the notebook's recipe once per class, in a process of its
   own before any submission runs, saved as arrays (``np.savez``, read back without pickle), and its
   ``_grading_objects(arrays)`` makes the check's keyword arguments of them in each clean process. A
   module without them leaves such an exercise to be graded by hand, and says so;
3. only this program writes the gradebook, into ``OUT``: ``gradebook.csv`` (student, total, max, one
   column per exercise), ``feedback.csv`` (one row per student and exercise), ``lms.csv`` (for a
   learning-management system's grade import: student id, then points and max points of every
   exercise, then the total) and ``gradebook.html``.

The sandboxes (``--sandbox``):

* ``bwrap`` (bubblewrap, chosen by ``auto`` when it runs here; ``apt-get install bubblewrap``): new
  mount, PID, network, IPC and UTS namespaces (and a user namespace when the grader is not root). The
  submission sees the system read-only (``/usr``, ``/etc``, the virtual environment and the library's
  package), its copy as the only writable folder, and nothing else: no home folder, no ``/tmp``, not
  the repository (the teacher's notebooks with the solutions, the teacher's checkers, the submissions
  of others, ``OUT``), no network. Killing the run kills every process it started. When the grader
  runs as root, the submission runs as ``nobody`` (uid 65534), which owns its copy only, with at most
  256 processes and threads (a fork bomb stops there);
* ``process`` (where bubblewrap is missing): a separate process in its own session, with its own copy,
  ``HOME``, ``TMPDIR``, the time and memory limits and the score computed elsewhere, as above. It does
  not stop the code from reading files elsewhere that its user may read (the teacher's solutions, for
  one), nor from using the network. When the grader runs as root and ``nobody`` can reach Python, it runs
  as ``nobody`` (no writing outside its copy, the process limit); otherwise as the grader's user, who
  can write where the grader can: use ``bwrap``, or run the grader as a user of its own.

nbgrader is not used any more: its autograder runs the checks inside the student's kernel (which the
student's code controls) and restores the check cells but not the functions they call. Its
formgrader is therefore not part of this; hand-graded points go into the CSV.
"""

from __future__ import annotations

import argparse
import csv
import html
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from student_edition import chain, exercise_id, exercises_of, tags, write_edition_checkers  # noqa: E402

if str(NOTEBOOKS) not in sys.path:
    sys.path.insert(0, str(NOTEBOOKS))
from exercises.tags import ANSWER, CHECK  # noqa: E402  (notebooks/exercises/tags.py)

DEFAULT_OUT = ROOT / "grading"
MARKER = ".gradebook"  # marks a folder this script wrote (only such a folder is emptied)
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class GradingError(Exception):
    """The submissions cannot be graded as given (the message says why)."""


@dataclass
class Result:
    """One student's result on one exercise."""

    points: float
    max_points: float
    feedback: str


@dataclass
class Gradebook:
    """Everything graded: ``results[student][exercise]``, the exercises in chain order, and notes."""

    students: list[str]
    exercises: list[str]
    results: dict[str, dict[str, Result]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sandbox: str = ""

    def total(self, student: str) -> float:
        """The points of ``student`` over every exercise."""
        return sum(r.points for r in self.results.get(student, {}).values())

    @property
    def max_total(self) -> float:
        """The points of a class that solved everything."""
        return float(len(self.exercises))


# ---------------------------------------------------------------------------------------------
# the submissions
# ---------------------------------------------------------------------------------------------


def read_submissions(folder: Path, known: dict[str, Path]) -> tuple[dict[str, dict[str, Path]], list[str]]:
    """``{student: {notebook stem: path}}`` from ``folder/<student>/<NN_slug>.ipynb``, and notes on what was skipped."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GradingError(f"{folder} is not a folder of submissions (one sub-folder per student)")
    subs: dict[str, dict[str, Path]] = {}
    notes: list[str] = []
    for student_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        student = student_dir.name
        if not STUDENT_ID.match(student):
            notes.append(f"skipped the folder {student!r}: a student id is letters, digits, '_', '.', '-'")
            continue
        found = {}
        for path in sorted(student_dir.glob("*.ipynb")):
            if path.stem in known:
                found[path.stem] = path
            else:
                notes.append(f"{student}: {path.name} is not a notebook of the chain; not graded")
        if found:
            subs[student] = found
        else:
            notes.append(f"{student}: no notebook of the chain in {student_dir}")
    if not subs:
        raise GradingError(f"no submission in {folder}: expected {folder}/<student>/<NN_slug>.ipynb")
    return subs, notes


# ---------------------------------------------------------------------------------------------
# one submission, in its own sandbox
# ---------------------------------------------------------------------------------------------

#: the line the extraction cell prints before the answers (JSON)
ANSWERS_MARK = "@@relu-frames-answers@@"
#: the largest executed notebook or status file read back from a sandbox
MAX_READ = 64 * 2**20

#: the code the grader appends to a submission: the ``answer_*`` values as JSON (numbers, strings, lists), nothing else
EXTRACT = '''\
def __rfnb_plain(v, depth=0):
    import numbers
    if v is None or isinstance(v, (bool, str)):
        return v
    if depth > 6:
        return {"__unsupported__": "nested too deep"}
    if hasattr(v, "tolist") and type(v).__module__.split(".")[0] == "numpy":
        v = v.tolist()
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, (set, frozenset)):
        try:
            v = sorted(v)
        except TypeError:
            v = list(v)
    if isinstance(v, (list, tuple)):
        return [__rfnb_plain(x, depth + 1) for x in v]
    return {"__unsupported__": type(v).__name__}
import json as __rfnb_json
print("MARK" + __rfnb_json.dumps({k: __rfnb_plain(globals().get(k)) for k in NAMES}))
'''

#: the program that runs a submission inside its sandbox (copied into the sandbox as _run.py)
RUNNER = '''\
"""Run one notebook in this folder with a per-cell timeout and a memory limit; write executed.ipynb, status.json."""
import json
import resource
import sys

notebook, timeout, memory, nproc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if memory > 0:  # the kernel is a child of this process: it inherits the limit on its address space
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
if nproc > 0:  # and the limit on the processes and threads of this user (a user of the sandbox's own)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
# jsonschema (under nbformat) builds an optional IRI grammar at import, seconds per run; notebooks need no IRI format
sys.modules.setdefault("rfc3987_syntax", None)
import nbformat
from nbclient import NotebookClient

timed_out = []


class Client(NotebookClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, on_notebook_start=self._started, **kwargs)

    def _started(self, notebook=None):  # the grader stops the kernel by this id if the whole run overruns
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is not None:
            with open("kernel.pid", "w") as f:
                f.write(str(process.pid))

    async def _async_handle_timeout(self, timeout, cell=None):
        timed_out.append(self.nb.cells.index(cell) if cell is not None else -1)
        return await super()._async_handle_timeout(timeout, cell)


nb = nbformat.read(notebook, as_version=4)
status = {"timed_out": timed_out, "died": None}
client = Client(nb, timeout=timeout, interrupt_on_timeout=True, allow_errors=True, kernel_name="python3",
                resources={"metadata": {"path": "."}})
try:
    client.execute()
except Exception as exc:  # the kernel died (e.g. killed at the memory limit) or could not start
    status["died"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
nbformat.write(nb, "executed.ipynb")
with open("status.json", "w") as f:
    json.dump(status, f)
'''

SANDBOXES = ("auto", "bwrap", "process")

#: the user a sandbox runs as when the grader runs as root (nobody): it owns its copy and nothing else
SANDBOX_UID = 65534
#: processes and threads that user may have at once (a fork bomb stops here); set only when the grader is root
MAX_PROCESSES = 256


def sandbox_mode(requested: str = "auto") -> str:
    """``"bwrap"`` when bubblewrap runs here (asked for, or ``auto``), else ``"process"``; raises if ``bwrap`` is
    asked for and does not work.
    """
    if requested not in SANDBOXES:
        raise GradingError(f"--sandbox must be one of {', '.join(SANDBOXES)}; got {requested!r}")
    if requested == "process":
        return "process"
    works = bool(shutil.which("bwrap")) and subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"], capture_output=True).returncode == 0
    if works:
        return "bwrap"
    if requested == "bwrap":
        raise GradingError("bubblewrap (bwrap) is not installed or cannot make namespaces here: apt-get install bubblewrap,"
                           " or --sandbox process")  # fmt: skip
    return "process"


def _readable_system() -> list[str]:
    """Bwrap arguments that show the system read-only (no home, no /tmp, no repository): /usr, /etc, the interpreter,
    the virtual environment and the library's own package folder.
    """
    args: list[str] = []
    for top in ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    import relu_frames_nb

    seen: set[str] = set()
    made: set[str] = set()
    for path in (sys.prefix, sys.base_prefix, str(Path(relu_frames_nb.__file__).resolve().parent)):
        real = os.path.realpath(path)
        if real.startswith(("/usr/", "/etc/")) or real in seen:
            continue
        seen.add(real)
        for where in {real, path}:
            for folder in reversed(Path(where).parents):  # folders on the way, searchable by the sandbox's user
                if str(folder) != "/" and str(folder) not in made:
                    made.add(str(folder))
                    args += ["--perms", "0755", "--dir", str(folder)]
            args += ["--ro-bind", real, where]
    return args


def _reachable_by_all() -> bool:
    """Whether any user can run this Python and import the library (every folder on the way is world-searchable)."""
    import relu_frames_nb

    for path in (sys.executable, sys.prefix, sys.base_prefix, relu_frames_nb.__file__):
        p = Path(os.path.realpath(path))
        for folder in [p, *p.parents] if p.is_dir() else list(p.parents):
            if not folder.stat().st_mode & 0o001:
                return False
    return True


def _clean_env(home: str, tmp: str) -> dict[str, str]:
    """What the submission's kernel sees of the environment: its own HOME and TMPDIR, one BLAS thread, nothing else."""
    return {"HOME": home, "TMPDIR": tmp, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "JUPYTER_RUNTIME_DIR": f"{home}/runtime", "JUPYTER_PLATFORM_DIRS": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "IPYTHONDIR": f"{home}/.ipython", "MPLCONFIGDIR": f"{home}/.mpl"}  # fmt: skip


@dataclass
class Run:
    """What came back from one submission's sandbox: its answers and what happened to its cells."""

    answers: dict = field(default_factory=dict)
    cell_errors: dict[int, str] = field(default_factory=dict)  # index in the run notebook -> "Name: value"
    timed_out: list[int] = field(default_factory=list)
    died: str | None = None
    answer_cells: dict[str, int] = field(default_factory=dict)  # exercise -> index of its answer cell


def prepare(submitted, exercises: list[str]):
    """The notebook a sandbox runs: the submission without its check cells (the checks run elsewhere), with the cell
    that prints the ``answer_*`` values as JSON appended; and ``{exercise: index of its answer cell}``.
    """
    import copy

    from nbformat.v4 import new_code_cell

    nb = copy.deepcopy(submitted)
    kept, answer_cells, k = [], {}, 0
    for cell in nb.cells:
        if cell.cell_type == "code" and (CHECK in tags(cell) or cell.get("metadata", {}).get("nbgrader", {}).get("grade")):
            continue
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        if cell.cell_type == "code" and ANSWER in tags(cell) and k < len(exercises):
            answer_cells[exercises[k]] = len(kept)
            k += 1
        kept.append(cell)
    names = [f"answer_{e.replace('.', '_')}" for e in exercises]
    kept.append(new_code_cell(EXTRACT.replace("MARK", ANSWERS_MARK).replace("NAMES", repr(names))))
    nb.cells = kept
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb, answer_cells


def _stop(proc: subprocess.Popen, box: Path, as_uid: int | None) -> None:
    """Stop a run that overran: its process group, and (``process`` mode) its kernel, which has a session of its own,
    if that process runs as ``as_uid``.
    """
    os.killpg(proc.pid, 9)
    proc.communicate()
    try:
        pid = int((box / "kernel.pid").read_text()[:20])
        uid = next(int(ln.split()[1]) for ln in open(f"/proc/{pid}/status") if ln.startswith("Uid:"))
    except (OSError, ValueError, StopIteration):
        return
    if as_uid is not None and uid == as_uid:  # the file is the sandbox's: kill only a process of the sandbox's user
        os.killpg(pid, 9)


def run_submission(nb, box: Path, edition_exercises: Path, *, mode: str, timeout: int, memory_mb: int,
                   wall: int) -> Run:  # fmt: skip
    """Run the prepared notebook ``nb`` in the folder ``box`` (the sandbox's copy), under ``mode``; read back its answers."""
    import json

    import nbformat

    for sub in ("home", "tmp"):
        (box / sub).mkdir(parents=True)
    shutil.copytree(edition_exercises, box / "exercises")
    nbformat.write(nb, box / "submission.ipynb")
    (box / "_run.py").write_text(RUNNER)
    memory = memory_mb * 2**20
    # run as a user of its own (nobody) when the grader is root: it can write its copy only, and a process limit holds.
    # With bwrap the switch happens inside the sandbox, after its mounts; without, only if that user reaches Python.
    root = os.geteuid() == 0 and shutil.which("setpriv") is not None
    as_uid = SANDBOX_UID if root and (mode == "bwrap" or _reachable_by_all()) else None
    nproc = MAX_PROCESSES if as_uid is not None else 0
    switch: list[str] = []
    if as_uid is not None:
        for path in [box, *box.rglob("*")]:
            os.chown(path, as_uid, as_uid, follow_symlinks=False)
        box.parent.chmod(0o711)  # the user may pass through the grader's folder to its copy, not list it
        switch = ["setpriv", f"--reuid={as_uid}", f"--regid={as_uid}", "--clear-groups", "--"]
    run = [sys.executable, "_run.py", "submission.ipynb", str(timeout), str(memory), str(nproc)]
    if mode == "bwrap":
        inside = "/submission"
        # as root, bwrap needs no user namespace (setpriv then leaves root for good); as another user it makes one
        spaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"] if root \
            else ["--unshare-all"]
        cmd = ["bwrap", *_readable_system(), "--bind", str(box), inside, "--dev", "/dev", "--proc", "/proc", *spaces,
               "--die-with-parent", "--new-session", "--chdir", inside, "--clearenv"]  # fmt: skip
        for k, v in _clean_env(f"{inside}/home", f"{inside}/tmp").items():
            cmd += ["--setenv", k, v]
        cmd += switch + run
        run_env = None
    else:
        cmd = switch + run
        run_env = _clean_env(str(box / "home"), str(box / "tmp"))
    proc = subprocess.Popen(cmd, cwd=box, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip
    try:
        _, err = proc.communicate(timeout=wall)
    except subprocess.TimeoutExpired:
        _stop(proc, box, as_uid if mode == "process" else None)  # bwrap: the PID namespace ends with the run
        return Run(died=f"stopped after {wall} s in all (a cell did not stop when interrupted)")
    run = Run()
    status_path, executed = box / "status.json", box / "executed.ipynb"
    if not executed.exists() or executed.stat().st_size > MAX_READ or not status_path.exists():
        tail = err.decode(errors="replace").strip().splitlines()[-1:] if err else []
        return Run(died="the notebook could not be run" + (f" ({tail[0][:200]})" if tail else ""))
    try:
        status = json.loads(status_path.read_text()[:MAX_READ])
        run.timed_out = [int(i) for i in status.get("timed_out", [])]
        run.died = str(status["died"])[:300] if status.get("died") else None
        ran = nbformat.read(executed, as_version=4)
    except Exception as exc:  # the sandbox's files are the submission's data: anything may be in them
        return Run(died=f"the run's record is unreadable ({type(exc).__name__})")
    for i, cell in enumerate(ran.cells):
        if (e := _error(cell)) is not None:
            run.cell_errors[i] = e
    last = ran.cells[-1] if ran.cells else None
    text = "".join(o.get("text", "") for o in (last.get("outputs", []) if last else []) if o.get("output_type") == "stream")
    for line in text.splitlines():
        if line.startswith(ANSWERS_MARK):
            try:
                answers = json.loads(line[len(ANSWERS_MARK):])
                run.answers = answers if isinstance(answers, dict) else {}
            except ValueError:
                pass
    return run


# ---------------------------------------------------------------------------------------------
# the score, in a clean process with the teacher's checkers
# ---------------------------------------------------------------------------------------------

CHECK_ONLY = re.compile(r"^\s*ex\.nb\d+\.check_(\d+)_(\d+)\(\s*answer_\1_\2\s*\)\s*;?\s*$")


def score_in_clean_process(src: Path, answers: dict[str, object], exercises: list[str], *, timeout: int,
                           references: dict[str, str] | None = None) -> dict:  # fmt: skip
    """``{exercise: [correct, feedback]}``: the teacher's checkers (from ``src``) on ``answers``, in a fresh Python
    process started for this submission, which never ran the student's code (it reads the answers as JSON).

    ``references``: ``{"nb13": path of its _reference_arrays() as .npz}`` for the checks that need objects.
    """
    import json

    job = json.dumps({"src": str(Path(src).resolve()), "answers": answers, "exercises": exercises,
                      "references": references or {}})  # fmt: skip
    with_env = {k: v for k, v in os.environ.items() if not k.startswith("NBGRADER")}
    with_env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1")
    try:
        proc = subprocess.run([sys.executable, "-I", str(Path(__file__).resolve()), "--score"], input=job, text=True,
                              capture_output=True, timeout=timeout, env=with_env, cwd=Path(src).resolve())  # fmt: skip
    except subprocess.TimeoutExpired:
        return {e: [False, f"the check did not finish in {timeout} s"] for e in exercises}
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return {e: [False, f"the check could not run ({why[:200]})"] for e in exercises}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _score_main() -> int:
    """``grade.py --score``: read a job (JSON) on stdin, write ``{exercise: [correct, feedback]}`` (JSON) on stdout."""
    import importlib
    import io
    import json
    from contextlib import redirect_stdout

    job = json.loads(sys.stdin.read())
    sys.path.insert(0, job["src"])
    for name in [m for m in sys.modules if m == "exercises" or m.startswith("exercises.")]:
        del sys.modules[name]
    ex = importlib.import_module("exercises")
    ex._QUIET[0] = True  # the checker's feedback comes back as a value: nothing printed, nothing raised
    if job.get("make_reference"):  # grade.py's reference_objects: the module's arrays, written as .npz
        import numpy as np

        module = importlib.import_module(f"exercises.{job['make_reference']}")
        np.savez(job["out"], **module._reference_arrays())
        print(json.dumps({"written": job["out"]}))
        return 0
    objects: dict[str, dict] = {}
    out = {}
    for e in job["exercises"]:
        nb, k = e.split(".")
        try:
            module = importlib.import_module(f"exercises.nb{int(nb):02d}")
            check = getattr(module, f"check_{nb}_{k}")
            kwargs = {}
            if (path := job.get("references", {}).get(f"nb{int(nb):02d}")) is not None:
                if path not in objects:
                    import numpy as np

                    with np.load(path, allow_pickle=False) as arrays:
                        objects[path] = module._grading_objects({name: arrays[name] for name in arrays.files})
                kwargs = objects[path].get(e, {})
            answer = job["answers"].get(f"answer_{nb}_{k}")
            if isinstance(answer, dict):
                what = answer.get("__unsupported__", "a dict")
                out[e] = [False, f"Exercise {e}: not yet right — your answer is a {what}; answers are graded as numbers, "
                                 "strings, lists of them (or NumPy arrays)"]  # fmt: skip
                continue
            with redirect_stdout(io.StringIO()):
                fb = check(answer, **kwargs)
            out[e] = [bool(fb.correct), str(fb)]
        except Exception as exc:  # one exercise's check that fails costs only that exercise
            out[e] = [False, f"Exercise {e}: the check could not run ({type(exc).__name__}: {exc})"[:400]]
    print(json.dumps(out))
    return 0


# ---------------------------------------------------------------------------------------------
# a class
# ---------------------------------------------------------------------------------------------


def _error(cell) -> str | None:
    """``"Name: value"`` of the error a code cell raised, or None."""
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error":
            return f"{o.get('ename')}: {o.get('evalue')}"[:300]
    return None


def _needs_objects(teacher_nb) -> list[str]:
    """The exercises whose check cell passes the checker more than the answer (objects the notebook built)."""
    return [e for c in teacher_nb.cells
            if c.cell_type == "code" and CHECK in tags(c) and (e := exercise_id(c)) and not CHECK_ONLY.match(c.source)]


def has_reference(src: Path, module: str) -> bool:
    """Whether the teacher's checker module ``module`` (e.g. ``"nb13"``) rebuilds the objects its checks need."""
    path = Path(src) / "exercises" / f"{module}.py"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return "def _reference_arrays(" in text and "def _grading_objects(" in text


def reference_objects(src: Path, module: str, out: Path, *, timeout: int = 900) -> Path:
    """Write ``module._reference_arrays()`` of the teacher's checkers (from ``src``) to ``out`` (.npz), in a process of
    its own (no submission has run in it); raises :class:`GradingError` when that fails.
    """
    import json

    job = json.dumps({"src": str(Path(src).resolve()), "make_reference": module, "out": str(out), "exercises": []})
    env = {k: v for k, v in os.environ.items() if not k.startswith("NBGRADER")}
    env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1")
    try:
        proc = subprocess.run([sys.executable, "-I", str(Path(__file__).resolve()), "--score"], input=job, text=True,
                              capture_output=True, timeout=timeout, env=env, cwd=Path(src).resolve())  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise GradingError(f"rebuilding the objects of {module}'s checks took more than {timeout} s") from exc
    if proc.returncode != 0 or not Path(out).exists():
        why = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise GradingError(f"rebuilding the objects of {module}'s checks failed: {why[:300]}")
    return Path(out)


def _graded_by_hand(teacher_nb, src: Path, module: str) -> dict[str, str]:
    """``{exercise: why}`` for the exercises whose check needs objects and whose module cannot rebuild them."""
    if has_reference(src, module):
        return {}
    return {e: "not graded automatically: its check needs objects the notebook builds; grade it by hand"
            for e in _needs_objects(teacher_nb)}  # fmt: skip


def feedback_for(e: str, line: str, run: Run, timeout: int, memory_mb: int) -> str:
    """The checker's line, after what happened to the submission's cells that matters for exercise ``e``."""
    notes = []
    if run.died:
        notes.append(f"the run stopped: {run.died}")
    cell = run.answer_cells.get(e)
    for i in run.timed_out:
        notes.append(f"{'your answer cell' if i == cell else f'cell {i + 1}'} timed out after {timeout} s")
    err = run.cell_errors.get(cell) if cell is not None else None
    if err and cell not in run.timed_out:
        notes.append(f"your answer cell raised {err}")
    if any(v.startswith("MemoryError") for v in run.cell_errors.values()):
        notes.append(f"a cell was stopped by the memory limit ({memory_mb} MB)")
    if any(v.startswith("BlockingIOError") and "Errno 11" in v for v in run.cell_errors.values()):
        notes.append(f"a cell was stopped by the process limit ({MAX_PROCESSES} processes and threads)")
    return "; ".join([*dict.fromkeys(notes), line]) if notes else line


#: the per-cell timeout when the teacher gives none (seconds)
DEFAULT_CELL_TIMEOUT = 60
#: notebooks whose honest cells need longer than that on a loaded machine: 13 trains two networks and checks them
#: (cells 46 and 53 ran 60-120 s at load 5-6 and were interrupted at 60 s)
CELL_TIMEOUT_OF = {"13": 180}


def cell_timeout(assignment: str, timeout: int | None) -> int:
    """The per-cell timeout for ``assignment`` (e.g. ``"13_real_network"``): the teacher's ``--timeout`` when given,
    else the notebook's own need (:data:`CELL_TIMEOUT_OF`), else :data:`DEFAULT_CELL_TIMEOUT`.
    """
    if timeout is not None:
        return int(timeout)
    return CELL_TIMEOUT_OF.get(assignment[:2], DEFAULT_CELL_TIMEOUT)


def grade(submissions: Path, out: Path, *, src: Path = NOTEBOOKS, timeout: int | None = None, memory_mb: int = 4096,
          sandbox: str = "auto", progress=print) -> Gradebook:  # fmt: skip
    """Grade ``submissions`` (see the module's docstring) into ``out``; returns the :class:`Gradebook`."""
    import tempfile

    import nbformat

    t0 = time.perf_counter()
    src = Path(src).resolve()
    known = {p.stem: p for p in chain(src)}
    subs, notes = read_submissions(Path(submissions), known)
    mode = sandbox_mode(sandbox)
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise GradingError(f"{out} exists and was not written by scripts/grade.py; choose an empty folder")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by scripts/grade.py; emptied when it grades again\n")
    assignments = sorted({stem for found in subs.values() for stem in found})
    book = Gradebook(students=sorted(subs), exercises=[], notes=notes, sandbox=mode)
    with tempfile.TemporaryDirectory(prefix="rfnb-grade-") as tmp:
        work = Path(tmp)
        edition = work / "edition-exercises"
        write_edition_checkers(src / "exercises", edition)  # the students' checkers: what their notebooks import
        for a in assignments:
            teacher = nbformat.read(known[a], as_version=4)
            ids = [e for e in exercises_of(teacher) if e]
            book.exercises += ids
            module = f"nb{a[:2]}"
            by_hand = _graded_by_hand(teacher, src, module)
            references = {}
            if _needs_objects(teacher) and not by_hand:  # built before any submission of this notebook runs
                t1 = time.perf_counter()
                references[module] = str(reference_objects(src, module, work / f"reference-{module}.npz"))
                progress(f"[grade] {a}: the objects of its checks rebuilt from the notebook's recipe in "
                         f"{time.perf_counter() - t1:.0f} s")  # fmt: skip
            a_timeout = cell_timeout(a, timeout)
            progress(f"[grade] {a}: {len(ids)} exercises, sandbox: {mode}, {a_timeout} s per cell")
            for k, student in enumerate(s for s in book.students if a in subs[s]):
                row = book.results.setdefault(student, {})
                t1 = time.perf_counter()
                try:
                    submitted = nbformat.read(subs[student][a], as_version=4)
                    nbformat.validate(submitted)
                except Exception as exc:  # any reason the file is not a notebook
                    why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                    for e in ids:
                        row[e] = Result(0.0, 1.0, f"{a}.ipynb could not be read as a notebook ({why})")
                    continue
                nb, answer_cells = prepare(submitted, ids)
                code_cells = sum(c.cell_type == "code" for c in nb.cells)
                run = run_submission(nb, work / f"{student}-{a}", edition, mode=mode, timeout=a_timeout,
                                     memory_mb=memory_mb, wall=a_timeout * code_cells + 120)  # fmt: skip
                run.answer_cells = answer_cells
                scored = score_in_clean_process(src, run.answers, [e for e in ids if e not in by_hand],
                                                timeout=a_timeout * max(1, len(ids)) + 60, references=references)  # fmt: skip
                for e in ids:
                    if e in by_hand:
                        row[e] = Result(0.0, 1.0, by_hand[e])
                        continue
                    ok, line = scored[e]
                    row[e] = Result(1.0 if ok else 0.0, 1.0, feedback_for(e, line, run, a_timeout, memory_mb))
                shutil.rmtree(work / f"{student}-{a}", ignore_errors=True)
                progress(f"[grade] {a}: {student} ({k + 1}) in {time.perf_counter() - t1:.0f} s")
        for student in book.students:
            row = book.results.setdefault(student, {})
            for e in book.exercises:
                row.setdefault(e, Result(0.0, 1.0, "not submitted"))
    book.seconds = time.perf_counter() - t0
    write_csv(book, out)
    write_html(book, out / "gradebook.html")
    return book


# ---------------------------------------------------------------------------------------------
# the gradebook files
# ---------------------------------------------------------------------------------------------


def _points(x: float) -> str:
    return f"{x:g}"


def write_csv(book: Gradebook, out: Path) -> None:
    """``gradebook.csv`` (student, total, max, one column per exercise) and ``feedback.csv`` (one row per answer)."""
    with open(out / "gradebook.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "total", "max", *book.exercises])
        for s in book.students:
            w.writerow([s, _points(book.total(s)), _points(book.max_total),
                        *(_points(book.results[s][e].points) for e in book.exercises)])  # fmt: skip
    with open(out / "lms.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student_id", *(f"{e} {kind}" for e in book.exercises for kind in ("points", "max points")),
                    "total points", "total max points"])  # fmt: skip
        for s in book.students:
            r = book.results[s]
            w.writerow([s, *(_points(v) for e in book.exercises for v in (r[e].points, r[e].max_points)),
                        _points(book.total(s)), _points(book.max_total)])  # fmt: skip
    with open(out / "feedback.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "exercise", "points", "max", "feedback"])
        for s in book.students:
            for e in book.exercises:
                r = book.results[s][e]
                w.writerow([s, e, _points(r.points), _points(r.max_points), r.feedback])


def write_html(book: Gradebook, path: Path) -> None:
    """One self-contained page: the table student x exercise, each cell with its points and feedback."""
    esc = html.escape
    head = "".join(f"<th>{esc(e)}</th>" for e in book.exercises)
    rows = []
    for s in book.students:
        cells = []
        for e in book.exercises:
            r = book.results[s][e]
            cls = "ok" if r.points >= r.max_points else ("part" if r.points > 0 else "no")
            cells.append(f'<td class="{cls}"><b>{_points(r.points)}</b><div class="fb">{esc(r.feedback)}</div></td>')
        rows.append(f"<tr><th>{esc(s)}</th><td class='tot'>{_points(book.total(s))} / {_points(book.max_total)}</td>"
                    + "".join(cells) + "</tr>")  # fmt: skip
    notes = "".join(f"<li>{esc(n)}</li>" for n in book.notes)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Gradebook</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #bbb; padding: 4px 6px; vertical-align: top; text-align: left; }}
td.ok {{ background: #d9f2d9; }} td.part {{ background: #fff2cc; }} td.no {{ background: #f8d7d7; }}
td.tot {{ font-weight: bold; white-space: nowrap; }}
.fb {{ font-size: 0.8em; max-width: 22em; color: #333; }}
</style></head><body>
<h1>Gradebook</h1>
<p>{len(book.students)} students, {len(book.exercises)} exercises, one point each; each submission run in its own
sandbox ({esc(book.sandbox)}), its answers checked by the teacher's checkers in a clean process; {book.seconds:.0f} s.</p>
<table>
<thead><tr><th>student</th><th>total</th>{head}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>
{f"<h2>Notes</h2><ul>{notes}</ul>" if notes else ""}
</body></html>
"""
    path.write_text(page, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Grade and print where the gradebook is; exit 2 with a message when the submissions cannot be graded."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("submissions", type=Path, help="a folder with one sub-folder of notebooks per student")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default grading/)")
    ap.add_argument("--timeout", type=int, default=None,
                    help="seconds a single cell may run (default 60; 180 for notebook 13, which trains networks)")
    ap.add_argument("--memory", type=int, default=4096, help="MB of address space a submission's kernel may use (default 4096)")
    ap.add_argument("--sandbox", choices=SANDBOXES, default="auto",
                    help="bwrap (bubblewrap namespaces), process (a separate process only), auto (bwrap when it runs)")
    ap.add_argument("--src", type=Path, default=NOTEBOOKS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        book = grade(args.submissions, args.out, src=args.src, timeout=args.timeout, memory_mb=args.memory,
                     sandbox=args.sandbox)
    except GradingError as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return 2
    out = args.out.resolve()
    print(f"[grade] {len(book.students)} students x {len(book.exercises)} exercises in {book.seconds:.0f} s")
    for s in book.students:
        print(f"  {s}: {_points(book.total(s))} / {_points(book.max_total)}")
    for n in book.notes:
        print(f"  note: {n}")
    print(f"[grade] {out / 'gradebook.csv'}, {out / 'feedback.csv'}, {out / 'lms.csv'}, {out / 'gradebook.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(_score_main() if sys.argv[1:] == ["--score"] else main())
