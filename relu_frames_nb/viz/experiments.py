r"""The figures of the paper's Section "Numerical experiments" ("propinj", "isinj", "conv") and "threshold".

Each function takes the result of the matching experiment of :mod:`relu_frames_nb.experiments`
and draws the whole (multi-panel) figure into ``fig`` (a new
:class:`matplotlib.figure.Figure` when ``fig`` is None; no pyplot state, so they work with any
backend), and returns the figure. The ``reproduce`` command and the notebooks
``06_sampling``, ``07_polytope_bias`` and ``08_random_layers`` draw them from here.

``tag`` (optional, e.g. ``"fig:propinj"``) prefixes the panel titles with ``[tag]``, the label
of the figure in the notebooks' paper map.

matplotlib is imported inside the functions, never at import time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import experiments as ex
from ..errors import InputError
from ..zoo import platonic
from . import palette
from .readable import readable
from .render3d import static_render

__all__ = ["plot_propinj", "plot_isinj", "plot_conv", "plot_threshold", "plot_threshold_fits"]

#: the colour-blind-safe Okabe-Ito colours of the project's palette
_OI = palette.OKABE_ITO


def _figure(figsize):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("matplotlib must be installed to draw the figures: pip install 'relu_frames_nb[viz]'.") from None
    return Figure(figsize=figsize, layout="constrained")


def _tagged(tag: str | None, title: str) -> str:
    return f"[{tag}] {title}" if tag else title


def plot_propinj(result: ex.PropinjResult, *, fig: Any = None, quantiles: bool = True, tag: str | None = None):
    """Figure "propinj": mean and spread of the rectifying proportion per iteration.

    Parameters
    ----------
    result : PropinjResult
        From :func:`relu_frames_nb.experiments.propinj`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (a new one by default).
    quantiles : bool, default True
        Also draw the 10% / 90% quantiles over the trials (dotted).
    tag : str, optional
        Prefix of the panel titles (``[tag]``).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per dimension; per redundancy the mean (line), mean +- std (band) and the
        10% / 90% quantiles (dotted), on a log iteration axis.
    """
    if not isinstance(result, ex.PropinjResult):
        raise InputError(f"result must be a PropinjResult; got {type(result).__name__}.")
    dims = list(dict.fromkeys(result.n.tolist()))
    made, fig = fig is None, fig or _figure((6.0 * len(dims), 4.2))
    axes = fig.subplots(1, len(dims), sharey=True, squeeze=False)[0]
    it = result.iterations
    keep = it >= 1  # log axis
    mean, std = result.mean, result.std
    q = result.quantiles((0.1, 0.9))
    for ax, n in zip(axes, dims):
        for k, c in enumerate(np.flatnonzero(result.n == n)):
            color = palette.element_color(k)
            label = f"$q = {result.redundancy[c]:g}$ ($m = {result.m[c]}$)"
            (line,) = ax.plot(it[keep], mean[c, keep], color=color, lw=2, label=label)
            lo = np.clip(mean[c] - std[c], 0, 1)
            hi = np.clip(mean[c] + std[c], 0, 1)
            ax.fill_between(it[keep], lo[keep], hi[keep], color=line.get_color(), alpha=0.2, linewidth=0)
            if quantiles:
                ax.plot(it[keep], q[c, 0, keep], ":", color=line.get_color(), linewidth=0.8)
                ax.plot(it[keep], q[c, 1, keep], ":", color=line.get_color(), linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("iteration $k$ (samples processed)")
        ax.set_title(_tagged(tag, f"$n = {n}$"))
        ax.grid(linestyle="--", alpha=0.5)
        ax.legend(loc="lower right")
    axes[0].set_ylabel("proportion of test points where rectifying")
    T = result.proportions.shape[1]
    spread = "±std (band), 10%/90% quantiles (dotted)" if quantiles else "±std (band)"
    fig.suptitle(f"Evolution towards injectivity: mean, {spread}; {T} trials")
    return readable(fig) if made else fig  # a figure of our own: text readable in the book


def plot_isinj(result: ex.IsinjResult, *, fig: Any = None, tag: str | None = None):
    """Figure "isinj": heatmaps over ``(n, m)`` with the conjectured threshold and the bounds.

    Parameters
    ----------
    result : IsinjResult
        From :func:`relu_frames_nb.experiments.isinj`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into.
    tag : str, optional
        Prefix of the panel titles (``[tag]``).

    Returns
    -------
    matplotlib.figure.Figure
        One heatmap per bias variance (proportion of entries passing the sampled test; 1 =
        injective), lines ``m = 6.698 n`` (solid), ``3.3 n`` (dashed), ``9.091 n`` (dash-dot),
        vermillion crosses where sampling says injective but the exact zero-bias test says not;
        and a last panel comparing the sampled zero-bias verdict with the exact one (green: both
        injective, grey: both not, vermillion: sampling over-estimates, sky blue: sampling is
        conservative, blank: no exact verdict).
    """
    if not isinstance(result, ex.IsinjResult):
        raise InputError(f"result must be an IsinjResult; got {type(result).__name__}.")
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    V = result.variances.size
    # two panels per row, so that the figure stays readable at 100% zoom (text >= 9 pt at ~11 inches)
    ncols = min(V + 1, 2)
    nrows = -(-(V + 1) // ncols)
    made, fig = fig is None, fig or _figure((5.0 * ncols, 4.0 * nrows + 0.6))
    axes = fig.subplots(nrows, ncols, sharey=True, squeeze=False).ravel()
    for ax in axes[V + 1 :]:
        ax.set_visible(False)
    nmin, nmax, mmax = int(result.n.min()), int(result.n.max()), int(result.m.max())
    extent = (-0.5, nmax + 0.5, -0.5, mmax + 0.5)
    nn = np.linspace(nmin - 0.5, nmax + 0.5, 50)
    over = result.overestimated
    cons = result.conservative

    def lines(ax):
        ax.plot(nn, ex.CONJECTURED_REDUNDANCY * nn, color=_OI["reddish_purple"], linewidth=2,
                label=f"$m = {ex.CONJECTURED_REDUNDANCY}\\,n$ (conjecture)")  # fmt: skip
        ax.plot(nn, ex.REDUNDANCY_LOWER * nn, "--", color=_OI["vermillion"], linewidth=1.5,
                label=f"$m = {ex.REDUNDANCY_LOWER}\\,n$ (proven)")  # fmt: skip
        ax.plot(nn, ex.REDUNDANCY_UPPER * nn, "-.", color=_OI["sky_blue"], linewidth=1.5,
                label=f"$m = {ex.REDUNDANCY_UPPER}\\,n$ (proven)")  # fmt: skip
        ax.set_xlim(nmin - 0.5, nmax + 0.5)
        ax.set_ylim(nmin - 0.5, mmax + 0.5)
        ax.set_aspect("auto")
        ax.set_xlabel("dimension $n$")

    im = None
    for j, v in enumerate(result.variances):
        ax = axes[j]
        im = ax.imshow(
            result.grid(result.proportion[:, j]).T, origin="lower", extent=extent, cmap=palette.SEQUENTIAL_CMAP, vmin=0, vmax=1
        )
        lines(ax)
        if v == 0 and over.any():
            ax.plot(result.n[over], result.m[over], "x", color=palette.BAD, markersize=6, label="sampling over-estimates")
        title = f"$\\sigma^2 = {v:g}$: {int(result.injective[:, j].sum())} of {result.n.size} injective"
        ax.set_title(_tagged(tag, title), fontsize=11)
        if j % ncols == 0:
            ax.set_ylabel("number of frame vectors $m$")
    axes[0].legend(loc="upper left", fontsize=9)
    fig.colorbar(im, ax=list(axes[:V]), shrink=0.8, label="proportion of bias entries passing")
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
    cat = [palette.lighten(palette.INK, 0.55), palette.BAD, _OI["sky_blue"], palette.GOOD]
    ax.imshow(result.grid(code).T, origin="lower", extent=extent, cmap=ListedColormap(cat), vmin=-0.5, vmax=3.5,
              interpolation="nearest")  # fmt: skip
    lines(ax)
    s = result.summary()
    ax.legend(
        handles=[
            Patch(color=cat[3], label="both: injective"),
            Patch(color=cat[0], label="both: not injective"),
            Patch(color=cat[1], label=f"sampling says injective, exact: not ({s['overestimated']})"),
            Patch(color=cat[2], label=f"exact injective, sampling: not ({s['conservative']})"),
        ],
        loc="lower right",
        fontsize=9,
        framealpha=0.95,
    )
    ax.set_title(_tagged(tag, f"$\\sigma^2 = 0$ against exact verdicts ({s['exact_known']} frames)"), fontsize=11)
    if V % ncols == 0:
        ax.set_ylabel("number of frame vectors $m$")
    p = result.params
    fig.suptitle(
        f"Effect of redundancy: N = {p.get('n_samples')} samples, correction 0.05 (log N/N)^(1/n)"
        f"{' × ||φ_i||' if p.get('correction_scaling') == 'norms' else ''}.\nLast panel: exact verdicts from the Tukey depth "
        f"(small n), m < 2n, and certified witnesses (LP search); blank: no exact verdict",
        fontsize=11,
    )
    return readable(fig) if made else fig  # a figure of our own: text readable in the book


def plot_conv(result: ex.ConvResult, *, fig: Any = None, band: str = "std", xscale: str = "log", tag: str | None = None):
    r"""Figure "conv": the tetrahedron's inscribing polytope and the distance to its maximal bias.

    Parameters
    ----------
    result : ConvResult
        From :func:`relu_frames_nb.experiments.conv`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into.
    band : {"std", "minmax"}, default "std"
        The shaded band around the mean: mean +- std (clipped at the smallest trial, with the
        smallest and largest trial dotted), or the range from the smallest to the largest trial.
    xscale : {"log", "linear"}, default "log"
        Scale of the iteration axis (the distance is always on a log scale).
    tag : str, optional
        Prefix of the panel titles (``[tag]``).

    Returns
    -------
    matplotlib.figure.Figure
        Left: the inscribing polytope (rendered by :func:`relu_frames_nb.viz.space.static_render`).
        Right: mean (and spread) of :math:`\|\alpha^{(k)} - \alpha^{\mathbb{S}}\|` on a log scale.
    """
    if not isinstance(result, ex.ConvResult):
        raise InputError(f"result must be a ConvResult; got {type(result).__name__}.")
    if band not in ("std", "minmax"):
        raise InputError(f"band must be 'std' or 'minmax'; got {band!r}.")
    if xscale not in ("log", "linear"):
        raise InputError(f"xscale must be 'log' or 'linear'; got {xscale!r}.")
    made, fig = fig is None, fig or _figure((12.0, 4.2))
    gs = fig.add_gridspec(1, 3)
    ax3 = fig.add_subplot(gs[0, 0], projection="3d")
    static_render(platonic("tetrahedron"), layers=["sphere", "facets", "edges", "vertices", "labels"], ax=ax3,
                  title=_tagged(tag, "inscribing polytope of the tetrahedron"))  # fmt: skip
    ax = fig.add_subplot(gs[0, 1:])
    it = result.iterations
    d = result.distances
    fin = np.all(np.isfinite(d), axis=0) & (it >= 1)
    mean, std = result.mean, result.std
    lo, hi = d[:, fin].min(axis=0), d[:, fin].max(axis=0)
    ax.plot(it[fin], mean[fin], color=_OI["blue"], lw=2, label=f"mean over {d.shape[0]} trials")
    if band == "std":
        ax.fill_between(it[fin], np.maximum(mean[fin] - std[fin], lo), mean[fin] + std[fin], color=_OI["blue"], alpha=0.25,
                        lw=0, label="±std")  # fmt: skip
        ax.plot(it[fin], hi, ":", color=palette.MUTED, linewidth=0.8, label="max / min")
        ax.plot(it[fin], lo, ":", color=palette.MUTED, linewidth=0.8)
    else:
        ax.fill_between(it[fin], lo, hi, color=_OI["blue"], alpha=0.2, lw=0, label="min / max")
    ax.set_xscale(xscale)
    ax.set_yscale("log")
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel(r"$\|\alpha^{(k)} - \alpha^{\mathbb{S}}\|$")
    ax.grid(linestyle="--", alpha=0.5, which="both")
    ax.legend()
    ax.set_title(_tagged(tag, r"distance to $\alpha^{\mathbb{S}} = -1/\sqrt{3}$ (polytope bias; the paper prints $+1/\sqrt{3}$)"))
    return readable(fig) if made else fig  # a figure of our own: text readable in the book


def plot_threshold(result: ex.ThresholdResult, *, fig: Any = None, tag: str | None = None):
    r"""The injectivity threshold of random layers: probability curves, crossings, and the bias's effect.

    Parameters
    ----------
    result : ThresholdResult
        From :func:`relu_frames_nb.experiments.threshold`.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into.
    tag : str, optional
        Prefix of the panel titles (``[tag]``).

    Returns
    -------
    matplotlib.figure.Figure
        Top left: the share of zero-bias Gaussian layers injective on :math:`\mathbb{R}^n` against m/n,
        one curve per n with its 95 % band (Wilson; undetermined layers widen it both ways and are
        counted in the legend), the asymptotic anchors as vertical lines. Below: the crossing of 1/2
        per n against 1/n (error bars: 1.96 standard errors of the logistic fit), the fit
        ``q_inf + c / n`` extended to 1/n = 0, where the anchors sit. Top right: at the largest n with
        biased columns, zero bias against a Gaussian bias on :math:`\mathbb{R}^n` and on the unit ball.
    """
    if not isinstance(result, ex.ThresholdResult):
        raise InputError(f"result must be a ThresholdResult; got {type(result).__name__}.")
    made, fig = fig is None, fig or _figure((11.0, 8.8))
    # the two probability panels side by side, the crossings (with the anchors' long names) below, full width
    grid = fig.add_gridspec(2, 2)
    axes = [fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, :]), fig.add_subplot(grid[0, 1])]
    ns = sorted(set(result.n.tolist()))
    colours = [palette.ELEMENT_COLORS[i % len(palette.ELEMENT_COLORS)] for i in range(len(ns))]
    styles = ["--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1))]
    anchors = ex.THRESHOLD_ANCHORS

    def curve(ax, sel, column, colour, label, marker="o", linestyle="-"):
        p, lo, hi = result.probability(column)
        c = result.counts(column)
        keep = sel & (c["run"] > 0)
        if not keep.any():
            return
        q = result.ratio[keep]
        und = int(c["undetermined"][keep].sum())
        text = label + (f" ({und} undetermined)" if und else "")
        ax.fill_between(q, lo[keep], hi[keep], color=colour, alpha=0.18, linewidth=0)
        ax.plot(q, p[keep], linestyle=linestyle, marker=marker, markersize=3, color=colour, label=text)

    ax = axes[0]
    for i, n in enumerate(ns):
        curve(ax, result.n == n, "zero bias", colours[i], f"n = {n}")
    for k, (q, _) in enumerate(anchors):
        ax.axvline(q, color=palette.MUTED, linestyle=styles[k], linewidth=1)
    ax.axhline(0.5, color=palette.INK, linewidth=0.6)
    ax.set_xlabel("redundancy m / n")
    ax.set_ylabel("share of layers injective on $\\mathbb{R}^n$")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(_tagged(tag, "zero bias: ReLU(Wx), W Gaussian (grey lines: the anchors)"), fontsize=11)
    if ax.get_legend_handles_labels()[0]:  # nothing to name when no layer was run
        ax.legend(loc="lower right", fontsize=8)

    ax = axes[1]
    tr = result.trend()
    per = [result.crossing(n) for n in ns]
    per = [c for c in per if np.isfinite(c["q50"])]
    if per:
        x = np.array([1 / c["n"] for c in per])
        y = np.array([c["q50"] for c in per])
        e = np.array([1.96 * c["se"] for c in per])
        ax.errorbar(x, y, yerr=e, fmt="o", color=palette.INK, capsize=3, label="crossing of 1/2 (logistic fit)")
        xi = np.array([c["interpolated"] for c in per])
        ax.plot(x, xi, "x", color=palette.MUTED, label="crossing (interpolated)")
    if np.isfinite(tr["q_inf"]):
        xx = np.linspace(0, 1 / tr["n_min"], 50)
        fit = f"$q_\\infty$ = {tr['q_inf']:.2f} ± {1.96 * tr['se']:.2f}"
        ax.plot(xx, tr["q_inf"] + tr["c"] * xx, color=_OI["blue"],
                label=f"fit $q_\\infty + c/n$ (n ≥ {tr['n_min']}): {fit}")  # fmt: skip
    for k, (q, name) in enumerate(anchors):
        ax.axhline(q, color=palette.MUTED, linestyle=styles[k], linewidth=1)
        ax.annotate(f"{q:g}  {name}", (0.01, q), xycoords=("axes fraction", "data"), ha="left", va="bottom", fontsize=7,
                    color=palette.INK)  # fmt: skip
    ax.set_xlim(0, 1 / min(ns) + 0.02)
    ax.set_ylim(2.5, 11)
    ax.set_xlabel("1 / n")
    ax.set_ylabel("m / n at which half the layers are injective")
    ax.set_title(_tagged(tag, "crossings against 1/n and the asymptotic anchors"), fontsize=11)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper right", fontsize=8)  # the anchors' names are on the left

    ax = axes[2]
    cols = result.columns.tolist()

    def dims_with(first: int) -> list[int]:  # dimensions where a column from ``first`` on was run
        return [k for k in ns if (result.status[result.n == k][:, first:] != ex.NOT_RUN).any()]

    ran = dims_with(2) or dims_with(1)
    if ran:
        n = max(ran)
        sel = result.n == n
        looks = ["-", "--", "-.", ":"]
        for j, col in enumerate(cols):
            curve(ax, sel, col, palette.ELEMENT_COLORS[j % len(palette.ELEMENT_COLORS)], col, linestyle=looks[j % 4])
        ax.set_title(_tagged(tag, f"n = {n}: zero bias against a Gaussian bias $\\sigma z$"), fontsize=11)
        ax.legend(loc="lower right", fontsize=8)
    else:
        ax.set_title(_tagged(tag, "no biased layers in this result"), fontsize=11)
    ax.axhline(0.5, color=palette.INK, linewidth=0.6)
    ax.set_xlabel("redundancy m / n")
    ax.set_ylim(-0.02, 1.02)
    s = result.summary()
    und = sum(v["undetermined"] for k, v in s.items() if isinstance(v, dict) and "undetermined" in v)
    info = result.info
    not_run = int(info.get("not_run", 0)) + sum(int(part.get("not_run", 0)) for part in info.get("parts", ()))
    fig.suptitle(
        f"Exact verdicts (half-space depth branch and bound; the ball by rf.check) for {s['zero bias']['layers']} zero-bias "
        f"layers,\n{und} undetermined in all"
        + (f", {not_run} tasks of the run not yet computed" if not_run else "")
        + "; bands: 95 % Wilson intervals",
        fontsize=11,
    )
    return readable(fig) if made else fig  # a figure of our own: text readable in the book


def plot_threshold_fits(result: ex.ThresholdResult, fits=((4, 1), (3, 2), (4, 2), (5, 2)), *, marks=(), fig: Any = None,
                        tag: str | None = None):  # fmt: skip
    r"""The crossings of 1/2 against 1/n and several extrapolations to :math:`n \to \infty`.

    Parameters
    ----------
    result : ThresholdResult
        From :func:`relu_frames_nb.experiments.threshold` (zero-bias column).
    fits : sequence of (n_min, order)
        The fits of :meth:`ThresholdResult.trend` to draw: ``order`` 1 is ``q_inf + c/n``, 2 adds ``c2/n^2``.
    marks : sequence of (float, str)
        Values to draw as horizontal lines at 1/n = 0 (e.g. an earlier estimate), besides the full-RSB threshold.
    fig, tag
        As for :func:`plot_threshold`.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the crossings (1.96 standard errors) and each fit, drawn over the dimensions it uses and
        extended to 1/n = 0. Right: each fit's :math:`q_\infty` with its 95 % interval (the error scaled
        up where the fit's chi-square asks for it), beside the marks.
    """
    if not isinstance(result, ex.ThresholdResult):
        raise InputError(f"result must be a ThresholdResult; got {type(result).__name__}.")
    fits = [(int(a), int(b)) for a, b in fits]
    if not fits:
        raise InputError("fits must name at least one (n_min, order) pair.")
    made, fig = fig is None, fig or _figure((11.0, 4.4))
    ax, bx = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    ns = sorted(set(result.n.tolist()))
    per = [c for c in (result.crossing(n) for n in ns) if np.isfinite(c["q50"])]
    x = np.array([1 / c["n"] for c in per])
    ax.errorbar(x, [c["q50"] for c in per], yerr=[1.96 * c["se"] for c in per], fmt="o", color=palette.INK, capsize=3,
                label="crossing of 1/2 (logistic fit)")  # fmt: skip
    rsb = next(q for q, name in ex.THRESHOLD_ANCHORS if "RSB" in name)
    lines = [(rsb, "full-RSB threshold")] + [(float(q), str(name)) for q, name in marks]
    colours = [_OI[k] for k in ("blue", "vermillion", "bluish_green", "orange", "reddish_purple", "sky_blue")]
    rows = []
    for i, (n_min, order) in enumerate(fits):
        tr = result.trend(n_min=n_min, order=order)
        if not np.isfinite(tr["q_inf"]):
            continue
        col = colours[i % len(colours)]
        xx = np.linspace(0, 1 / n_min, 60)
        yy = tr["q_inf"] + tr["c"] * xx + (tr["c2"] * xx**2 if order == 2 else 0)
        name = f"n ≥ {n_min}, " + ("c/n" if order == 1 else "c/n + c₂/n²")
        ax.plot(xx, yy, color=col, linewidth=1.2, label=name)
        rows.append((name, tr["q_inf"], 1.96 * tr["se_scaled"], col))
    for k, (q, name) in enumerate(lines):
        for a in (ax, bx):
            a.axhline(q, color=palette.MUTED, linestyle=["--", ":", "-."][k % 3], linewidth=1)
        bx.annotate(f"{q:g} {name}", (0.02, q), xycoords=("axes fraction", "data"), fontsize=7, va="bottom",
                    color=palette.INK)  # fmt: skip
    ax.set_xlim(-0.005, 1 / min(ns) + 0.02)
    ax.set_xlabel("1 / n")
    ax.set_ylabel("m / n at which half the layers are injective")
    ax.set_title(_tagged(tag, "crossings and fits, extended to 1/n = 0"), fontsize=11)
    ax.legend(loc="lower left", fontsize=8)  # the fits fall from upper left to lower right: that corner is free
    for j, (_name, q, e, col) in enumerate(rows):
        bx.errorbar([j], [q], yerr=[e], fmt="s", color=col, capsize=4)
    bx.set_xticks(range(len(rows)), [r[0] for r in rows], rotation=30, ha="right", fontsize=8)
    bx.set_xlim(-0.7, len(rows) - 0.3)
    bx.set_ylabel(r"$q_\infty$ (95 % interval)")
    bx.set_title(_tagged(tag, "the extrapolated threshold, per fit"), fontsize=11)
    return readable(fig) if made else fig
