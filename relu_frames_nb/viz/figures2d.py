r"""The paper's Figures 1-3 (matplotlib). Re-exported by :mod:`.plane`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util.validation import as_count
from ..domains import Ball, PositiveBall, RealSpace
from ..frames import Frame
from ..layer import ReLULayer
from ..zoo import example_a, mercedes_benz, plus_minus_basis, random_sphere, standard_basis
from . import palette
from ._draw2d import (
    draw_active_count,
    draw_collision,
    draw_correlated_partition,
    draw_domain,
    draw_frame_vectors,
    draw_halfspaces,
    draw_maximal_domain,
)
from ._plane2d import _Z, _style, default_extent
from ._shapes2d import outline_patch
from .readable import readable

# ---------------------------------------------------------------------------------
# The paper's figures
# ---------------------------------------------------------------------------------


def _new_figure(ncols: int, *, width: float = 4.0, fig: Any = None):
    if fig is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(width * ncols, width * 1.02), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, list(np.atleast_1d(axes))


def figure1(*, resolution: int = 241, fig: Any = None) -> Any:
    r"""Figure 1 of the paper: the active set :math:`I_x^\alpha`, a half-space :math:`\Omega_i^\alpha`,
    and a basis that is :math:`\alpha`-rectifying on :math:`K \subseteq \Omega_1^\alpha \cap \Omega_2^\alpha`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    made = fig is None
    from matplotlib.patches import Ellipse

    as_count(resolution, "resolution", minimum=2)
    fig, (a0, a1, a2) = _new_figure(3, fig=fig)
    B = Ball(2)
    box = default_extent(B, margin=0.35)
    # left: active set at a point
    F = Frame(np.array([[np.cos(t), np.sin(t)] for t in np.deg2rad([90, 160, 215, 290, 20])]))
    L = ReLULayer(F, 0.25)
    x = np.array([0.55, 0.45])
    act = np.flatnonzero(L.active_set(x))
    _style(a0, box)
    draw_domain(a0, B)
    draw_halfspaces(a0, L, extent=box, shade=False)
    draw_frame_vectors(a0, F, faded=[i for i in range(F.m) if i not in act])
    a0.plot(*x, "o", color=palette.INK, ms=6, zorder=30)
    a0.annotate("$x$", x, xytext=(6, 4), textcoords="offset points", fontsize=12)
    a0.set_title(r"$I_x^\alpha=\{" + ",".join(str(i + 1) for i in act) + r"\}$ (active at $x$)", fontsize=11)
    # mid: one half-space on the ball
    i = 0
    L1 = ReLULayer(F, 0.3)
    _style(a1, box)
    draw_halfspaces(a1, L1, indices=[i], extent=box)
    clip = outline_patch(B, transform=a1.transData)
    a1.patches[-1].set_clip_path(clip)
    a1.patches[-1].set_alpha(0.35)
    draw_domain(a1, B)
    draw_frame_vectors(a1, F, indices=[i])
    a1.text(0.05, 0.75, r"$\Omega_1^\alpha$", fontsize=13, color=palette.element_color(i), zorder=40)
    a1.set_title(r"$\Omega_1^\alpha=\{x:\langle x,\phi_1\rangle\geq\alpha_1\}$", fontsize=11)
    # right: a basis is alpha-rectifying on K inside the intersection
    Fb = Frame([[0.8, 0.6], [-0.6, 0.8]])
    Lb = ReLULayer(Fb, [-0.45, -0.45])
    _style(a2, box)
    draw_halfspaces(a2, Lb, extent=box)
    draw_frame_vectors(a2, Fb)
    a2.add_patch(Ellipse((0.05, 0.55), 0.9, 0.5, angle=20, facecolor=palette.lighten(palette.INK, 0.75), edgecolor=palette.INK,
                         lw=1.2, zorder=_Z["domain"] + 10))  # fmt: skip
    a2.text(0.05, 0.55, "$K$", ha="center", va="center", fontsize=13, zorder=40)
    a2.set_title(r"$K\subseteq\Omega_1^\alpha\cap\Omega_2^\alpha$", fontsize=11)
    return readable(fig) if made else fig  # a figure of our own: text readable in the book


def figure2(*, resolution: int = 241, fig: Any = None) -> Any:
    r"""Figure 2 of the paper: active counts for the :math:`\pm` basis on :math:`\mathbb{R}^2` (bias 0),
    the standard basis on :math:`\mathbb{R}^2_+` (bias 0) and on :math:`\mathbb{B}` (bias -1), and the
    triangle frame on :math:`\mathbb{B}` (bias -1/2).

    Returns
    -------
    matplotlib.figure.Figure
    """
    made = fig is None
    res = as_count(resolution, "resolution", minimum=2)
    fig, axes = _new_figure(3, fig=fig)
    box = (-1.6, 1.6, -1.6, 1.6)
    cases = [
        (plus_minus_basis(2), 0.0, RealSpace(2), r"$(\pm e_i)$, $\alpha=\mathbf{0}$ on $\mathbb{R}^2$"),
        (standard_basis(2), 0.0, PositiveBall(2, 1.5), r"$(e_i)$, $\alpha=\mathbf{0}$ on $\mathbb{R}^2_+$"),
        (mercedes_benz(), -0.5, Ball(2), r"triangle, $\alpha=-\frac{1}{2}$ on $\mathbb{B}$"),
    ]
    for ax, (F, a, K, title) in zip(axes, cases):
        L = ReLULayer(F, a)
        draw_active_count(ax, L, extent=box, resolution=res, colorbar=ax is axes[-1], vmax=4)
        draw_halfspaces(ax, L, extent=box, shade=False)
        if K.bounded:
            draw_domain(ax, K)
        draw_frame_vectors(ax, F)
        ax.set_title(title, fontsize=11)
    # mid: also the ball with bias -1
    Lm = ReLULayer(standard_basis(2), -1.0)
    draw_halfspaces(axes[1], Lm, extent=box, shade=False)
    for line in axes[1].lines[-2:]:
        line.set_linestyle("--")
    draw_domain(axes[1], Ball(2))
    axes[1].text(-1.5, -1.45, r"dashed: $\alpha=-\mathbf{1}$ on $\mathbb{B}$", fontsize=8, color=palette.INK)
    return readable(fig) if made else fig  # a figure of our own: text readable in the book


def figure3(*, resolution: int = 241, seed: int = 165, fig: Any = None) -> Any:
    r"""Figure 3 of the paper: maximal domains :math:`K^*_\alpha` (dark) of the triangle frame with
    zero bias and the colliding pair of Example "mb2", of a normalized random frame with a random
    bias, and the set :math:`K_2` of Example "a".

    Returns
    -------
    matplotlib.figure.Figure
    """
    made = fig is None
    res = as_count(resolution, "resolution", minimum=2)
    fig, (a0, a1, a2) = _new_figure(3, fig=fig)
    box = (-1.5, 1.5, -1.5, 1.5)
    B = Ball(2)
    # left: triangle, alpha = 0, Example mb2
    L = ReLULayer(mercedes_benz(), 0.0)
    draw_maximal_domain(a0, L, extent=box, resolution=res)
    draw_halfspaces(a0, L, extent=box, shade=False)
    draw_domain(a0, B)
    draw_frame_vectors(a0, L.frame)
    s3 = np.sqrt(3.0) / 2
    draw_collision(a0, ([0.5, s3], [-0.5, s3]), layer=L)
    a0.set_title(r"triangle, $\alpha=\mathbf{0}$: $x_1, x_2\in K^*_\alpha$", fontsize=11)
    # mid: random normalized frame, random bias
    rng = np.random.default_rng(seed)
    F = random_sphere(6, 2, seed=seed)
    Lr = ReLULayer(F, 0.4 * rng.standard_normal(F.m))
    draw_maximal_domain(a1, Lr, extent=box, resolution=res)
    draw_halfspaces(a1, Lr, extent=box, shade=False)
    draw_frame_vectors(a1, F)
    a1.set_title("random frame, random bias", fontsize=11)
    # right: Example "a", K_2
    Fa = example_a()
    draw_correlated_partition(a2, Fa, domain=B, element=1, extent=box, resolution=res)
    draw_domain(a2, B)
    draw_frame_vectors(a2, Fa)
    a2.set_title(r"Example a: $K_2=\{x\in\mathbb{B}: 2\in J^*(x)\}$", fontsize=11)
    return readable(fig) if made else fig  # a figure of our own: text readable in the book
