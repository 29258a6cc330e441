r"""Regenerate the figures of Section "Numerical experiments": the ``reproduce`` sub-command.

``python -m relu_frames_nb reproduce [FIGURE ...] [--full] [--out DIR] [--workers N] [--scheduler ADDRESS]``

FIGURE is any of ``propinj``, ``isinj``, ``conv`` (default: all three). For each figure the
command writes ``DIR/FIGURE.png`` and the data ``DIR/FIGURE.npz`` (load it with
:func:`relu_frames_nb.experiments.load_result`). Finished pieces of work are cached in
``DIR/cache``, so an interrupted run resumes where it stopped. ``--full`` runs the paper's
sizes; the default is the fast size (seconds).

The plotting functions take a result and return a :class:`matplotlib.figure.Figure`
(no pyplot state, so they work with any backend; PNGs are written with Agg).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from . import experiments as ex
from .errors import InputError, ReluFramesError
from .viz import palette

__all__ = ["FIGURES", "reproduce", "plot_propinj", "plot_isinj", "plot_conv", "build_parser", "main"]

#: the figures this command regenerates, in order
FIGURES = ("propinj", "isinj", "conv")

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

#: the colour-blind-safe Okabe-Ito colours of the project's palette
_OI = palette.OKABE_ITO


def _figure(figsize):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("matplotlib must be installed to draw the figures: pip install 'relu_frames_nb[viz]'.") from None
    return Figure(figsize=figsize, layout="constrained")


# ---------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------


def plot_propinj(result: ex.PropinjResult, *, fig: Any = None):
    """Figure "propinj": mean and spread of the rectifying proportion per iteration.

    Parameters
    ----------
    result : PropinjResult
        From :func:`relu_frames_nb.experiments.propinj`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (a new one by default).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per dimension; per redundancy the mean (line), mean +- std (band) and the
        10% / 90% quantiles (dotted), on a log iteration axis.
    """
    if not isinstance(result, ex.PropinjResult):
        raise InputError(f"result must be a PropinjResult; got {type(result).__name__}.")
    dims = list(dict.fromkeys(result.n.tolist()))
    fig = fig or _figure((6.0 * len(dims), 4.2))
    axes = fig.subplots(1, len(dims), sharey=True, squeeze=False)[0]
    it = result.iterations
    keep = it >= 1  # log axis
    mean, std = result.mean, result.std
    q = result.quantiles((0.1, 0.9))
    for ax, n in zip(axes, dims):
        for c in np.flatnonzero(result.n == n):
            color = palette.element_color(int(np.flatnonzero(result.n == n).tolist().index(c)))
            (line,) = ax.plot(it[keep], mean[c, keep], color=color, label=f"q={result.redundancy[c]:g} (m={result.m[c]})")
            lo = np.clip(mean[c] - std[c], 0, 1)
            hi = np.clip(mean[c] + std[c], 0, 1)
            ax.fill_between(it[keep], lo[keep], hi[keep], color=line.get_color(), alpha=0.2, linewidth=0)
            ax.plot(it[keep], q[c, 0, keep], ":", color=line.get_color(), linewidth=0.8)
            ax.plot(it[keep], q[c, 1, keep], ":", color=line.get_color(), linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("iteration k")
        ax.set_title(f"n = {n}")
        ax.grid(linestyle="--", alpha=0.5)
        ax.legend(loc="lower right")
    axes[0].set_ylabel("proportion of test points where rectifying")
    T = result.proportions.shape[1]
    fig.suptitle(f"Evolution towards injectivity: mean, ±std (band), 10%/90% quantiles (dotted); {T} trials")
    return fig


def plot_isinj(result: ex.IsinjResult, *, fig: Any = None):
    """Figure "isinj": heatmaps over ``(n, m)`` with the conjectured threshold and the bounds.

    Parameters
    ----------
    result : IsinjResult
        From :func:`relu_frames_nb.experiments.isinj`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into.

    Returns
    -------
    matplotlib.figure.Figure
        One heatmap per bias variance (proportion of entries passing the sampled test; 1 =
        injective), lines ``m = 6.698 n`` (solid), ``3.3 n`` (dashed), ``9.091 n`` (dash-dot),
        red crosses where sampling says injective but the exact zero-bias test says not; and a
        last panel comparing the sampled zero-bias verdict with the exact one.
    """
    if not isinstance(result, ex.IsinjResult):
        raise InputError(f"result must be an IsinjResult; got {type(result).__name__}.")
    from matplotlib.colors import ListedColormap

    V = result.variances.size
    fig = fig or _figure((4.6 * (V + 1), 5.0))
    axes = fig.subplots(1, V + 1, sharey=True)
    nmax, mmax = int(result.n.max()), int(result.m.max())
    extent = (-0.5, nmax + 0.5, -0.5, mmax + 0.5)
    nn = np.linspace(0, nmax + 0.5, 50)
    over = result.overestimated
    cons = result.conservative

    def lines(ax):
        ax.plot(
            nn,
            ex.CONJECTURED_REDUNDANCY * nn,
            color=_OI["reddish_purple"],
            linewidth=2,
            label=f"m = {ex.CONJECTURED_REDUNDANCY} n",
        )
        ax.plot(nn, ex.REDUNDANCY_LOWER * nn, "--", color=_OI["vermillion"], linewidth=1.5, label=f"m = {ex.REDUNDANCY_LOWER} n")
        ax.plot(nn, ex.REDUNDANCY_UPPER * nn, "-.", color=_OI["sky_blue"], linewidth=1.5, label=f"m = {ex.REDUNDANCY_UPPER} n")
        ax.set_xlim(int(result.n.min()) - 0.5, nmax + 0.5)
        ax.set_ylim(int(result.n.min()) - 0.5, mmax + 0.5)
        ax.set_aspect("auto")
        ax.set_xlabel("dimension n")

    im = None
    for j, v in enumerate(result.variances):
        ax = axes[j]
        im = ax.imshow(
            result.grid(result.proportion[:, j]).T, origin="lower", extent=extent, cmap=palette.SEQUENTIAL_CMAP, vmin=0, vmax=1
        )
        lines(ax)
        if v == 0 and over.any():
            ax.plot(result.n[over], result.m[over], "x", color=_OI["vermillion"], markersize=4, label="sampling over-estimates")
        ax.set_title(f"σ² = {v:g}: {int(result.injective[:, j].sum())} of {result.n.size} injective")
    axes[0].set_ylabel("number of frame vectors m")
    axes[0].legend(loc="upper left", fontsize=7)
    fig.colorbar(im, ax=axes[:V], shrink=0.8, label="proportion of bias entries passing")
    # exact vs sampled, zero bias
    ax = axes[V]
    j0 = result.zero_variance
    code = np.full(result.n.size, np.nan)
    known = result.exact_injective >= 0
    if j0 >= 0:
        inj = result.injective[:, j0]
        code[known & inj & (result.exact_injective == 1)] = 3  # agree: injective
        code[known & ~inj & (result.exact_injective == 0)] = 0  # agree: not injective
        code[over] = 1
        code[cons] = 2
    cmap = ListedColormap([palette.INK, _OI["vermillion"], _OI["sky_blue"], _OI["yellow"]])
    ax.imshow(result.grid(code).T, origin="lower", extent=extent, cmap=cmap, vmin=-0.5, vmax=3.5, interpolation="nearest")
    lines(ax)
    from matplotlib.patches import Patch

    s = result.summary()
    ax.legend(
        handles=[
            Patch(color=_OI["yellow"], label="both: injective"),
            Patch(color=palette.INK, label="both: not injective"),
            Patch(color=_OI["vermillion"], label=f"sampling says injective, but not injective ({s['overestimated']})"),
            Patch(color=_OI["sky_blue"], label=f"exact injective, sampling not ({s['conservative']})"),
        ],
        loc="upper left",
        fontsize=7,
    )
    ax.set_title(f"σ² = 0 against exact verdicts ({s['exact_known']} frames)")
    p = result.params
    fig.suptitle(
        f"Effect of redundancy: N = {p.get('n_samples')} samples, correction 0.05 (log N/N)^(1/n)"
        f"{' × ||φ_i||' if p.get('correction_scaling') == 'norms' else ''}. Last panel: exact verdicts from the Tukey depth "
        f"(small n), m < 2n, and certified witnesses (LP search); blank: no exact verdict",
        fontsize=10,
    )
    return fig


def plot_conv(result: ex.ConvResult, *, fig: Any = None):
    r"""Figure "conv": the tetrahedron's inscribing polytope and the distance to its maximal bias.

    Parameters
    ----------
    result : ConvResult
        From :func:`relu_frames_nb.experiments.conv`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the inscribing polytope. Right: mean (and spread) of
        :math:`\|\alpha^{(k)} - \alpha^{\mathbb{S}}\|` on a log scale.
    """
    if not isinstance(result, ex.ConvResult):
        raise InputError(f"result must be a ConvResult; got {type(result).__name__}.")
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    from .zoo import platonic

    fig = fig or _figure((12.0, 4.2))
    gs = fig.add_gridspec(1, 3)
    ax3 = fig.add_subplot(gs[0, 0], projection="3d")
    V = platonic("tetrahedron").vectors
    faces = [[V[i] for i in f] for f in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3))]
    ax3.add_collection3d(Poly3DCollection(faces, alpha=0.35, facecolor=_OI["blue"], edgecolor=palette.INK))
    ax3.scatter(*V.T, color="k")
    for set_lim, set_ticks in ((ax3.set_xlim, ax3.set_xticks), (ax3.set_ylim, ax3.set_yticks), (ax3.set_zlim, ax3.set_zticks)):
        set_lim(-1, 1)
        set_ticks([-1, 0, 1])
    ax3.set_title("inscribing polytope of the tetrahedron")
    ax = fig.add_subplot(gs[0, 1:])
    it = result.iterations
    d = result.distances
    fin = np.all(np.isfinite(d), axis=0) & (it >= 1)
    mean, std = result.mean, result.std
    ax.plot(it[fin], mean[fin], color=_OI["blue"], label=f"mean over {d.shape[0]} trials")
    ax.fill_between(
        it[fin],
        np.maximum(mean[fin] - std[fin], d[:, fin].min(axis=0)),
        mean[fin] + std[fin],
        color=_OI["blue"],
        alpha=0.25,
        label="±std",
    )
    ax.plot(it[fin], d[:, fin].max(axis=0), ":", color=palette.MUTED, linewidth=0.8, label="max / min")
    ax.plot(it[fin], d[:, fin].min(axis=0), ":", color=palette.MUTED, linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("iteration k")
    ax.set_ylabel(r"$\|\alpha^{(k)} - \alpha^{\mathbb{S}}\|$")
    ax.grid(linestyle="--", alpha=0.5)
    ax.legend()
    ax.set_title(r"$\alpha^{\mathbb{S}} = -1/\sqrt{3}$ (polytope bias; the paper prints $+1/\sqrt{3}$)")
    return fig


_PLOTS = {"propinj": plot_propinj, "isinj": plot_isinj, "conv": plot_conv}
_RUNS = {"propinj": ex.propinj, "isinj": ex.isinj, "conv": ex.conv}


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
) -> dict[str, dict]:
    """Run the experiments and write ``FIGURE.png`` and ``FIGURE.npz`` into ``out``.

    Parameters
    ----------
    figures : sequence of str, default all
        Any of ``"propinj"``, ``"isinj"``, ``"conv"``.
    size : {"fast", "full"}, default "fast"
        Experiment size.
    out : str or path-like, default "reproduce-out"
        Output directory (created if needed); the cache lives in ``out/cache``.
    executor : concurrent.futures.Executor, optional
        Where the tasks run (default: a local process pool).
    max_workers : int, optional
        Size of the default pool.
    cache : bool, default True
        Keep finished tasks in ``out/cache`` (an interrupted run resumes).
    progress : bool or callable, optional
        Progress bars (see :func:`relu_frames_nb.experiments.isinj`).
    seed : int, default 0
        Root seed.

    Returns
    -------
    dict
        Per figure: ``result``, ``png`` and ``data`` paths, and ``seconds``.
    """
    figs = _check_figures(figures)
    if size not in ex.SIZES:
        raise InputError(f"size must be 'fast' or 'full'; got {size!r}.")
    outdir = Path(out)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"out must be a directory that can be created; got {str(outdir)!r} ({exc}).") from None
    report = {}
    for name in figs:
        t0 = time.perf_counter()
        result = _RUNS[name](
            size=size,
            seed=seed,
            executor=executor,
            max_workers=max_workers,
            cache_dir=outdir / "cache" if cache else None,
            progress=progress,
        )
        data = result.save(outdir / f"{name}.npz")
        fig = _PLOTS[name](result)
        png = outdir / f"{name}.png"
        fig.savefig(png, dpi=120)
        report[name] = {"result": result, "png": png, "data": data, "seconds": time.perf_counter() - t0}
    return report


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
    p.add_argument("figures", nargs="*", metavar="FIGURE", help="propinj, isinj, conv or all (default: all)")
    p.add_argument("--full", action="store_true", help="paper scale (default: the fast size)")
    p.add_argument("--out", default="reproduce-out", help="output directory (default: reproduce-out)")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: one per CPU; 1 = in-process)")
    p.add_argument("--scheduler", default=None, help="address of a dask.distributed scheduler to run on (needs dask)")
    p.add_argument("--no-cache", action="store_true", help="do not keep finished tasks in OUT/cache")
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
    fin = result.mean[-1]
    return (
        f"final mean distance {fin:.3g} after {int(result.iterations[-1])} iterations; non-increasing: "
        f"{result.non_increasing}; from above: {result.from_above}"
    )


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
            executor = client.get_executor()
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
                )[name]
            except (ReluFramesError, ValueError) as exc:
                print(f"{parser.prog}: error: {exc}", file=sys.stderr)
                return EXIT_BAD_INPUT
            except KeyboardInterrupt:
                print(
                    f"\ninterrupted: finished tasks are cached in {Path(args.out) / 'cache'}; rerun to resume.", file=sys.stderr
                )
                return 130
            except Exception as exc:  # an experiment crashed: say so, keep going
                print(f"{name}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                status = EXIT_FAILED
                continue
            info = rep["result"].info
            print(
                f"{name}: {rep['seconds']:.1f} s (tasks computed {info.get('computed')}, cached {info.get('cached')}); "
                f"wrote {rep['png']} and {rep['data']}"
            )
            print(f"  {_claims(name, rep['result'])}", flush=True)
    finally:
        if client is not None:
            client.close()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
