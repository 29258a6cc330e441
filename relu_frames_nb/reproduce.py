r"""Regenerate the figures of Section "Numerical experiments": the ``reproduce`` sub-command.

``python -m relu_frames_nb reproduce [FIGURE ...] [--full] [--out DIR] [--workers N] [--scheduler ADDRESS] [--n N,N,...]``

FIGURE is any of ``propinj``, ``isinj``, ``conv``, ``threshold`` (default: all four; ``threshold`` is
not a figure of the paper but the exact counterpart of ``isinj``'s zero-bias question). For each figure the
command writes ``DIR/FIGURE.png`` and the data ``DIR/FIGURE.npz`` (load it with
:func:`relu_frames_nb.experiments.load_result`). Finished pieces of work are cached in
``DIR/cache``, so an interrupted run resumes where it stopped. ``--full`` runs the paper's
sizes; the default is the fast size (seconds). ``--scheduler ADDRESS`` runs the tasks on an existing
``dask.distributed`` cluster (``distributed.Client(ADDRESS)``) instead of local processes; the results
come back to this process, which caches each finished task. ``--n 14,16`` chooses the dimensions of
``threshold``. Ctrl-C stops a run within a second or two (pending tasks cancelled, local workers
terminated) with exit status 130; the cache keeps what was finished.

The figures are drawn by :mod:`relu_frames_nb.viz.experiments` (``plot_propinj``, ``plot_isinj``,
``plot_conv``: a result in, a :class:`matplotlib.figure.Figure` out, no pyplot state), imported only
when a figure is drawn, so this module does not load matplotlib. The three names are still
available from here for backward compatibility.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from . import experiments as ex
from .errors import InputError, ReluFramesError
from .viz import experiments as figures

if TYPE_CHECKING:  # drawn by viz.experiments, imported lazily (see __getattr__ below)
    from .viz.experiments import plot_conv, plot_isinj, plot_propinj, plot_threshold

__all__ = ["FIGURES", "reproduce", "plot_propinj", "plot_isinj", "plot_conv", "plot_threshold", "build_parser", "main"]

#: the figures this command regenerates, in order
FIGURES = ("propinj", "isinj", "conv", "threshold")

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
#: exit status after Ctrl-C (128 + SIGINT, the shell's convention)
EXIT_INTERRUPTED = 130

#: the plotting function of each figure, in :mod:`relu_frames_nb.viz.experiments` (imported when drawing)
_PLOTS = {"propinj": "plot_propinj", "isinj": "plot_isinj", "conv": "plot_conv", "threshold": "plot_threshold"}
_RUNS = {"propinj": ex.propinj, "isinj": ex.isinj, "conv": ex.conv, "threshold": ex.threshold}


# ---------------------------------------------------------------------------------
# library entry point
# ---------------------------------------------------------------------------------


def reproduce(
    figures: Sequence[str] = FIGURES,
    *,
    size: str = "fast",
    out: str | os.PathLike = "reproduce-out",
    executor: Any = None,
    max_workers: int | None = None,
    cache: bool = True,
    progress: Any = None,
    seed: int = 0,
    n_values: Sequence[int] | None = None,
    cached_only: bool = False,
) -> dict[str, dict]:
    """Run the experiments and write ``FIGURE.png`` and ``FIGURE.npz`` into ``out``.

    Parameters
    ----------
    figures : sequence of str, default all
        Any of ``"propinj"``, ``"isinj"``, ``"conv"``, ``"threshold"``.
    size : {"fast", "full"}, default "fast"
        Experiment size.
    out : str or path-like, default "reproduce-out"
        Output directory (created if needed); the cache lives in ``out/cache``.
    executor : concurrent.futures.Executor or distributed.Client, optional
        Where the tasks run (default: a local process pool).
    max_workers : int, optional
        Size of the default pool (1 to 1024).
    cache : bool, default True
        Keep finished tasks in ``out/cache`` (an interrupted run resumes).
    progress : bool or callable, optional
        Progress bars (see :func:`relu_frames_nb.experiments.isinj`).
    seed : int, default 0
        Root seed.
    n_values : sequence of int, optional
        Dimensions of ``threshold`` (default: those of its size); the other figures ignore it.
    cached_only : bool, default False
        ``threshold`` only: run nothing, draw the figure from the layers already in ``out/cache`` (a
        run still going elsewhere, or one that was stopped); the layers missing are "not run".

    Returns
    -------
    dict
        Per figure: ``result``, ``png`` and ``data`` paths, and ``seconds``.
    """
    figs = _check_figures(figures)
    if size not in ex.SIZES:
        raise InputError(f"size must be 'fast' or 'full'; got {size!r}.")
    if not str(out).strip():
        raise InputError("out must not be empty (it would write into the working folder); give a directory, e.g. 'out'.")
    ex.check_workers(max_workers)
    if n_values is not None:
        n_values = ex.check_ints(n_values, "n_values", 2)
    if cached_only and (figs != ["threshold"] or not cache):
        raise InputError("cached_only draws the threshold figure from its cache: ask for 'threshold' alone, with the cache "
                         f"on; got figures {figs} and cache={cache}.")  # fmt: skip
    outdir = Path(out)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"out must be a directory that can be created; got {str(outdir)!r} ({exc}).") from None
    report = {}
    for name in figs:
        t0 = time.perf_counter()
        extra = {"n_values": n_values} if name == "threshold" and n_values is not None else {}
        if cached_only:
            extra["cached_only"] = True
        result = _RUNS[name](
            **extra,
            size=size,
            seed=seed,
            executor=executor,
            max_workers=max_workers,
            cache_dir=outdir / "cache" if cache else None,
            progress=progress,
        )
        data = result.save(outdir / f"{name}.npz")
        fig = _plot(name)(result)
        png = outdir / f"{name}.png"
        fig.savefig(png, dpi=120)
        report[name] = {"result": result, "png": png, "data": data, "seconds": time.perf_counter() - t0}
    return report


def _plot(name: str):
    """The plotting function of figure ``name`` (matplotlib is imported when it draws)."""
    return getattr(figures, _PLOTS[name])


def __getattr__(name: str) -> Any:  # the plotting functions moved to viz.experiments; keep the old names
    if name in ("plot_propinj", "plot_isinj", "plot_conv", "plot_threshold"):
        return getattr(figures, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _check_figures(figures: Sequence[str]) -> list[str]:
    if isinstance(figures, str):
        figures = [figures]
    figs = list(dict.fromkeys(figures))
    if "all" in figs:
        return list(FIGURES)
    bad = [f for f in figs if f not in FIGURES]
    if bad or not figs:
        raise InputError(f"figures must be among {', '.join(FIGURES)} (or 'all'); got {', '.join(map(str, bad)) or 'none'}.")
    return figs


# ---------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors: exit status 2, one line, no traceback
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``reproduce``."""
    p = _Parser(
        prog="python -m relu_frames_nb reproduce",
        description="Regenerate the figures of the paper's Section 'Numerical experiments' (PNG + .npz data).",
    )
    p.add_argument("figures", nargs="*", metavar="FIGURE", help="propinj, isinj, conv, threshold or all (default: all)")
    p.add_argument("--full", action="store_true", help="paper scale (default: the fast size)")
    p.add_argument("--out", default="reproduce-out", help="output directory (default: reproduce-out)")
    p.add_argument("--workers", type=int, default=None,
                   help=f"local worker processes, 1 to {ex.MAX_WORKERS} (default: one per CPU; 1 = in-process)")
    p.add_argument("--scheduler", default=None, help="address of a dask.distributed scheduler to run the tasks on (needs dask)")
    p.add_argument("--n", default=None, metavar="N,N,...", help="dimensions of the threshold figure, e.g. 14,16")
    p.add_argument("--no-cache", action="store_true", help="do not keep finished tasks in OUT/cache")
    p.add_argument("--cached-only", action="store_true",
                   help="threshold only: run nothing, draw the figure from the layers in OUT/cache (a run going on or stopped)")
    p.add_argument("--seed", type=int, default=0, help="root seed (default: 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def _claims(name: str, result: Any) -> str:
    if name == "propinj":
        last = result.mean[:, -1]
        parts = [f"n={n}, m={m}: {v:.4f}" for n, m, v in zip(result.n, result.m, last)]
        return f"mean proportion after {int(result.iterations[-1])} iterations: " + "; ".join(parts)
    if name == "isinj":
        s = result.summary()
        return (
            f"{s['configurations']} frames; injective per variance {s['injective']}; exact zero-bias verdicts for "
            f"{s['exact_known']} frames ({s['witnesses']} by a certified witness): sampling over-estimates on "
            f"{s['overestimated']} and is conservative on {s['conservative']}; {s['stopped_early']} frames decided early"
        )
    if name == "threshold":
        s = result.summary()
        tr = result.trend()
        counts = "; ".join(f"{k}: {v['injective']} of {v['layers']} injective, {v['undetermined']} undetermined"
                           for k, v in s.items() if isinstance(v, dict) and "layers" in v)  # fmt: skip
        q50 = ", ".join(f"n={n}: {q:.2f}" for n, q in s["q50"].items())
        return f"{counts}. Crossing of 1/2 (m/n): {q50}; fit q_inf + c/n: q_inf = {tr['q_inf']:.2f} ± {1.96 * tr['se']:.2f}"
    fin = result.mean[-1]
    return (
        f"final mean distance {fin:.3g} after {int(result.iterations[-1])} iterations; non-increasing: "
        f"{result.non_increasing}; from above: {result.from_above}"
    )


def _parse_n(text: str) -> tuple[int, ...]:
    """The dimensions of ``--n``: integers >= 2 separated by commas."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or any(v < 2 or v > _MAX_N for v in values):
        raise InputError(f"--n must be dimensions from 2 to {_MAX_N} separated by commas, e.g. 14,16; got {text!r}.")
    return tuple(values)


#: largest dimension ``--n`` accepts (the exact search is far out of reach beyond)
_MAX_N = 64


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``reproduce`` with command-line arguments; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments after ``reproduce`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for bad arguments, 1 when an experiment failed.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # argparse already printed the message
        return int(exc.code or 0)
    try:
        figs = _check_figures(args.figures or ["all"])
        if args.workers is not None and args.workers < 1:
            raise InputError(f"--workers must be a positive integer; got {args.workers}.")
        ex.check_workers(args.workers, "--workers")
        if not args.out.strip():
            raise InputError("--out must not be empty (it would write into the current folder); give a directory.")
        n_values = None if args.n is None else _parse_n(args.n)
        if args.seed < 0:
            raise InputError(f"--seed must be a non-negative integer; got {args.seed}.")
        executor, client = None, None
        if args.scheduler:
            try:
                from distributed import Client
            except ImportError:
                raise InputError("--scheduler needs dask.distributed: pip install 'relu_frames_nb[dask]'.") from None
            try:
                client = Client(args.scheduler, timeout=10)
            except Exception as exc:
                raise InputError(
                    f"--scheduler must be the address of a running Dask scheduler; got {args.scheduler!r} ({exc})."
                ) from None
            executor = client
    except (ReluFramesError, ValueError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    size = "full" if args.full else "fast"
    print(f"reproducing {', '.join(figs)} at {size} size into {args.out}", flush=True)
    status = EXIT_OK
    try:
        for name in figs:
            try:
                rep = reproduce(
                    [name],
                    size=size,
                    out=args.out,
                    executor=executor,
                    max_workers=args.workers,
                    cache=not args.no_cache,
                    progress=not args.quiet,
                    seed=args.seed,
                    n_values=n_values,
                    cached_only=args.cached_only,
                )[name]
            except (ReluFramesError, ValueError) as exc:
                print(f"{parser.prog}: error: {exc}", file=sys.stderr)
                return EXIT_BAD_INPUT
            except KeyboardInterrupt:
                print(
                    f"\ninterrupted: finished tasks are cached in {Path(args.out) / 'cache'}; rerun to resume.", file=sys.stderr
                )
                return EXIT_INTERRUPTED
            except Exception as exc:  # an experiment crashed: say so, keep going
                print(f"{name}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                status = EXIT_FAILED
                continue
            info = rep["result"].info
            print(
                f"{name}: {rep['seconds']:.1f} s (tasks computed {info.get('computed')}, cached {info.get('cached')}"
                + (f", not run {info['not_run']}" if info.get("not_run") else "") + "); "
                f"wrote {rep['png']} and {rep['data']}"
            )
            for healed in info.get("healed", ()):
                print(f"  cache: recomputed {healed}", file=sys.stderr)
            print(f"  {_claims(name, rep['result'])}", flush=True)
    finally:
        if client is not None:
            client.close()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
