"""Check whether a trained ReLU layer or network is injective on a data domain.

``python -m relu_frames_nb check WEIGHTS [--bias B] [--domain SPEC] [--time-limit S] [--json]``

The command runs :func:`relu_frames_nb.check` and prints its :class:`~relu_frames_nb.Verdict`
(``--json``: ``Verdict.to_dict()``). WEIGHTS holding several linear layers (a PyTorch state dict,
or an ``.npz`` with keys ``fc1.weight``, ``fc1.bias``, ``fc2.weight``, ...) is checked as a whole
network, layer by layer; ``--layer NAME`` picks one layer. Biases in files and ``--bias`` are
read in PyTorch's convention ``ReLU(W x + b)`` unless named ``alpha`` (the paper's
``ReLU(W x - alpha)``); the verdict says which it used.

Exit status: 0 injective (with a proof), 1 not injective (a verified colliding pair),
3 undetermined, 2 bad input (unreadable file, wrong shapes, bad option), 4 internal error
(a bug: never reported as a verdict), 130 interrupted (Ctrl-C or SIGTERM). With ``--json``
every outcome prints one JSON object. The check answers within ``--time-limit`` plus a little;
should a stage overrun, a watchdog answers "undetermined" at ``1.1 * limit + 5`` seconds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import reproduce
from ._util.threads import one_blas_thread
from .checking import check
from .domains import parse_domain
from .errors import InputError, ReluFramesError
from .layer import ReLULayer
from .loading import load_model, load_near
from .options import OptionError, Parser, add_check_options
from .verdict import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, Status
from .viz.pairs import plot_pair

__all__ = [
    "EXIT_INJECTIVE",
    "EXIT_NOT_INJECTIVE",
    "EXIT_BAD_INPUT",
    "EXIT_UNDETERMINED",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
    "load_model",
    "main",
    "main_check",
    "build_check_parser",
]

EXIT_INJECTIVE = Status.INJECTIVE.exit_code
EXIT_NOT_INJECTIVE = Status.NOT_INJECTIVE.exit_code
EXIT_UNDETERMINED = Status.UNDETERMINED.exit_code

#: the watchdog waits at most this long (a year): a longer limit means no deadline in practice, and
#: ``threading.Timer`` fails on intervals beyond the platform's time_t
_WATCHDOG_MAX_WAIT = 365 * 24 * 3600.0


class _Interrupted(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt."""


def build_check_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``check`` sub-command (its options: :data:`relu_frames_nb.options.CHECK_OPTIONS`)."""
    p = parser or Parser(prog="python -m relu_frames_nb check", description=__doc__.split("\n\n")[0])
    p.add_argument("weights", help="weights: .npy, .npz, .csv/.txt (rows = frame vectors) or a PyTorch .pt/.pth state dict")
    return add_check_options(p)


# ---------------------------------------------------------------------------------
# The answer: one channel to the real standard output
# ---------------------------------------------------------------------------------


class _Answer:
    """Where the command writes its one answer: a copy of the standard output's file descriptor taken at start.

    The solvers' silencer (:func:`relu_frames_nb._util.lp.quiet`) points descriptor 1 at ``/dev/null``
    around a HiGHS call; the watchdog may answer just then, from its own thread. Writing to the
    copy with ``os.write`` reaches the real output whatever descriptor 1 points to at that moment.
    When ``sys.stdout`` has no descriptor (a notebook, pytest's capture) it is written to instead;
    the silencer does not touch such streams. The first caller to :meth:`claim` the answer writes
    it: the watchdog and the main thread never both answer.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claimed = False
        self.fd: int | None = None
        try:
            fd = sys.stdout.fileno()
            sys.stdout.flush()
            self.fd = os.dup(fd)
        except (AttributeError, OSError, ValueError):  # no descriptor (io.UnsupportedOperation), or closed
            self.fd = None

    def claim(self) -> bool:
        """True once: for the first caller, who then writes the answer."""
        with self._lock:
            first, self._claimed = not self._claimed, True
            return first

    def write(self, text: str) -> None:
        """``text`` and a newline on the real standard output; a reader who left (a closed pipe) is no error."""
        data = (text + "\n").encode("utf-8")
        try:
            if self.fd is None:
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
                return
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
        except BrokenPipeError:  # e.g. piped into `head`: the verdict stands, the reader left
            pass

    def close(self) -> None:
        """Release the copied descriptor."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _emit(answer: _Answer, text: str, code: int = 0) -> int:
    """Write ``text`` as the answer and return ``code``; if the watchdog answered first, wait for it to end the process."""
    if not answer.claim():
        while True:  # the watchdog has the answer and ends the process with os._exit
            time.sleep(1.0)
    answer.write(text)
    return code


def _fail(args: argparse.Namespace, answer: _Answer, code: int, message: str) -> int:
    kind = {EXIT_BAD_INPUT: "bad input", EXIT_INTERRUPTED: "interrupted"}.get(code, "internal error")
    if getattr(args, "json", False):
        status = "interrupted" if code == EXIT_INTERRUPTED else "error"
        return _emit(answer, json.dumps({"status": status, "error_kind": kind, "exit_code": code, "error": message}), code)
    print(f"{'interrupted' if code == EXIT_INTERRUPTED else 'error'}: {message}", file=sys.stderr)
    return code


def _stopped(args: argparse.Namespace, text: str, details: dict) -> str:
    """The answer "undetermined" of a check stopped by a budget (time or memory), as text or JSON."""
    if not args.json:
        return text
    out = {"status": "undetermined", "exit_code": EXIT_UNDETERMINED, "text": text, "method": "", "details": details}
    return json.dumps(out, indent=2, ensure_ascii=False)


# ---------------------------------------------------------------------------------
# Progress and the watchdog
# ---------------------------------------------------------------------------------


class _Watch:
    """Progress on stderr (unless ``--quiet``) and the last stage reached, for the watchdog."""

    def __init__(self, quiet: bool, total: float) -> None:
        self.stage = "loading"
        self.bar = None
        if not quiet:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=round(min(total, _WATCHDOG_MAX_WAIT), 1), unit="s", desc="check", file=sys.stderr,
                                leave=False)  # fmt: skip
            except ImportError:  # pragma: no cover - tqdm is optional
                self.bar = None

    def __call__(self, event: dict) -> None:
        self.stage = str(event.get("stage") or self.stage)
        if self.bar is not None:
            self.bar.n = min(float(event.get("done", 0.0)), self.bar.total or float("inf"))
            lo, up = event.get("lower"), event.get("upper")
            extra = f", bounds [{'?' if lo is None else lo}, {'?' if up is None else up}]" if (lo, up) != (None, None) else ""
            self.bar.set_postfix_str(f"{self.stage}{extra}", refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def watchdog_delay(time_limit: float) -> float:
    """Seconds after which the watchdog answers: ``1.1 * time_limit + 5``, at most a year (any limit is accepted)."""
    return min(1.1 * float(time_limit) + 5.0, _WATCHDOG_MAX_WAIT)


def _watchdog(args: argparse.Namespace, watch: _Watch, answer: _Answer) -> threading.Timer:
    """Answer "undetermined" and end the process if the check overruns its limit by 10 % + 5 s."""
    delay = watchdog_delay(args.time_limit)

    def fire() -> None:
        if not answer.claim():  # the main thread is answering: let it finish
            return
        for child in multiprocessing.active_children():
            child.kill()
        closer = threading.Thread(target=watch.close, daemon=True)  # clear the progress line, without waiting on it
        closer.start()
        closer.join(1.0)
        text = (f"undetermined — the check overran its time limit of {args.time_limit:g} s during '{watch.stage}' "
                f"and was stopped at {delay:.1f} s")  # fmt: skip
        answer.write(_stopped(args, text, {"stopped_by": "watchdog", "stage": watch.stage}))
        os._exit(EXIT_UNDETERMINED)

    timer = threading.Timer(delay, fire)
    timer.daemon = True
    timer.start()
    return timer


# ---------------------------------------------------------------------------------
# The check sub-command
# ---------------------------------------------------------------------------------


def main_check(args: argparse.Namespace) -> int:
    """Run the ``check`` sub-command; returns the exit status (never 1 unless a collision was verified)."""

    def on_term(signum, frame):  # SIGTERM is handled like Ctrl-C: one line, no traceback
        raise _Interrupted()

    old = None
    if threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGTERM, on_term)
    answer = _Answer()
    watch = _Watch(args.quiet, args.time_limit)
    timer = _watchdog(args, watch, answer)
    try:
        with one_blas_thread():
            return _main_check(args, watch, answer)
    except (KeyboardInterrupt, _Interrupted):
        watch.close()
        return _fail(args, answer, EXIT_INTERRUPTED, f"the check was interrupted during '{watch.stage}'; no verdict")
    finally:
        timer.cancel()
        watch.close()
        answer.close()
        if old is not None:
            signal.signal(signal.SIGTERM, old)


def _main_check(args: argparse.Namespace, watch: _Watch, answer: _Answer) -> int:
    t0 = time.perf_counter()
    try:
        if args.save_pair:  # before the check: a figure that cannot be written must not cost the verdict
            _save_target(args.save_pair)
        model, kind = load_model(args.weights, bias=args.bias, layer_name=args.layer_name, last=args.last,
                                 input_shape=args.input_shape, conv=dict(args.conv or ()),
                                 memory_limit=args.memory_limit * 1024**3)  # fmt: skip
        domain = parse_domain(args.domain, model.n, name="--domain")
        near = None if args.near is None else load_near(args.near, model.n)
        # reading the files counts against the limit (a hull of 60,000 images takes seconds to read and factor)
        left = max(0.0, args.time_limit - (time.perf_counter() - t0))
        verdict = check(model, domain, method=args.method, time_limit=left,
                        memory_limit=args.memory_limit * 1024**3, progress=watch, seed=args.seed,
                        n_samples=args.samples, max_facets=args.max_facets, near=near, workers=args.workers)  # fmt: skip
        if isinstance(model, ReLULayer):
            said = (
                "bias read as the paper's alpha (ReLU(W x - alpha))" if kind == "alpha"
                else "bias read as PyTorch's b (ReLU(W x + b), alpha = -b)"
            )  # fmt: skip
            verdict = replace(verdict, notes=(*verdict.notes, said), details={**verdict.details, "bias": said})
        watch.close()
        if args.save_pair:
            verdict = _save_pair(verdict, model, args.save_pair)
        text = json.dumps(verdict.to_dict(), indent=2, ensure_ascii=False) if args.json else verdict.report()
    except (ReluFramesError, ValueError, OSError) as exc:
        return _fail(args, answer, EXIT_BAD_INPUT, str(exc))
    except MemoryError:  # a budget the input needs more of: undetermined, as when the time runs out
        watch.close()
        text = (f"undetermined — memory limit: the check ran out of memory during '{watch.stage}' "
                f"(--memory-limit {args.memory_limit:g} GB); raise it, or check a smaller input or domain")  # fmt: skip
        details = {"stopped_by": "memory limit", "stage": watch.stage, "memory_limit_gb": args.memory_limit}
        return _emit(answer, _stopped(args, text, details), EXIT_UNDETERMINED)
    except (KeyboardInterrupt, _Interrupted):
        raise
    except Exception as exc:  # a bug: report it, never as a verdict
        return _fail(args, answer, EXIT_INTERNAL_ERROR, f"internal error ({type(exc).__name__}: {exc}); please report it")
    return _emit(answer, text, verdict.exit_code)


def _save_target(path: str) -> Path:
    """``--save-pair``'s file: a .png, .pdf or .svg in a folder that exists and can be written to, else an InputError."""
    target = Path(path)
    if target.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise InputError(f"--save-pair must name a .png, .pdf or .svg file; got {path!r}.")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"--save-pair must name a file in an existing folder; got {path!r}, and the folder "
                         f"{str(folder)!r} does not exist (create it first).")  # fmt: skip
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"--save-pair must name a file in a folder you can write to; got {path!r} ({str(folder)!r} "
                         "is not writable).")  # fmt: skip
    if target.is_dir():
        raise InputError(f"--save-pair must name a file; got the folder {path!r}.")
    return target


def _save_pair(verdict: Any, model: Any, path: str) -> Any:
    """Draw the verdict's pair into ``path`` (and say so in the verdict); without a pair, say that instead."""
    target = _save_target(path)
    if verdict.pair is None:
        return replace(verdict, notes=(*verdict.notes, f"--save-pair: no pair to draw ({verdict.status}); {path} not written"))
    out = model(verdict.pair[0])
    title = f"two inputs with the same output ({verdict.status}, layer {verdict.pair_layer or 1})"
    try:
        fig = plot_pair(verdict.pair, outputs=out, title=title)
    except ImportError as exc:  # pragma: no cover - matplotlib missing
        raise InputError(f"--save-pair needs matplotlib: {exc}") from None
    fig.savefig(target, dpi=120)
    return replace(verdict, notes=(*verdict.notes, f"the pair is drawn in {path}"),
                   details={**verdict.details, "pair_figure": str(target)})


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``relu-frames`` / ``python -m relu_frames_nb``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["reproduce"]:  # its own parser (argparse.REMAINDER drops leading options)
        return reproduce.main(argv[1:])
    parser = Parser(prog="python -m relu_frames_nb", description="Injectivity of ReLU layers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    build_check_parser(sub.add_parser("check", help="check a trained layer or network", description=__doc__.split("\n\n")[0]))
    rep = sub.add_parser("reproduce", help="regenerate the paper's experiments", add_help=False)
    rep.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        args = parser.parse_args(argv)
    except OptionError as exc:
        if "--json" in argv:
            answer = _Answer()
            try:
                return _emit(answer, json.dumps({"status": "error", "error_kind": "bad input", "exit_code": EXIT_BAD_INPUT,
                                                 "error": str(exc)}), EXIT_BAD_INPUT)  # fmt: skip
            finally:
                answer.close()
        sys.stderr.write(exc.usage + str(exc) + "\n")
        return EXIT_BAD_INPUT
    if args.command == "check":
        return main_check(args)
    return reproduce.main(args.rest)
