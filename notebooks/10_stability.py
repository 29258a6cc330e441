# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 — Stability of the reconstruction, the image of a layer, and a second layer
#
# Injectivity says an input *can* be recovered; stability says how much an error in the output can
# be amplified on the way back. For ReLU layers the natural constants are frame bounds of the
# *active* sub-frames. This notebook presents the paper's section on stability and the lemma on the
# image of a layer, and then uses that lemma the way a network does: the image of layer 1 is the
# domain of layer 2.
#
# **What you will learn**
#
# * what $\kappa$-stable rectification means (a Lipschitz constant of the inverse), why $1/A_\alpha$ alone does
#   not control pairs with different active sets, and the constant $B/A_\alpha^2$ that does on a convex domain;
# * the local constant $1/A_J$ near a point, and why strict activity (or a slightly lower bias) is
#   needed for it;
# * that the image of a layer lies in a non-negative ball, with which radius (corrected);
# * how to stack two layers: choose layer 2 injective on that positive ball, check it, and invert
#   the network layer by layer; and what goes wrong when the second bias is too large.
#
# | tag | item |
# |---|---|
# | `[def:stable-rectification]` | $\kappa$-stable $\alpha$-rectification (a lower Lipschitz bound) |
# | `[locstab]` | the same near a point |
# | `[prop:local-stability]` | near $x_0$ the constant is $A_J^{-1}$ for biases $\beta < \alpha$ |
# | `[cor:local-stability]` | and for $\alpha$ itself when $J$ is strictly active |
# | `[lem:image]` | the image lies in a non-negative ball; the domain of a second layer |
#
# **Errata** shown below, with counterexamples to the printed text, then corrected: the frame-type
# inequality (reluframe) with the extreme frame bounds of active sub-frames holds for $\alpha = 0$
# only, and Lemma image needs $\alpha \ge 0$ (or a larger radius) and its radius is not minimal.
#
# Conventions: rows are frame vectors, $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$, code indices
# 0-based, text indices from 1. For an index set $J$ with $\Phi_J$ a frame, $A_J \le B_J$ are its
# optimal frame bounds (extreme eigenvalues of $\sum_{i\in J}\phi_i\phi_i^\top$).

# %%
# %matplotlib inline
import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import palette, plane

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240707
N = 200_000 if FULL else 20_000  # samples / pairs
np.set_printoptions(precision=4, suppress=True)

# a layer that is injective on the unit disc: 7 random unit vectors, polytope bias on the ball
F = rf.zoo.random_sphere(7, 2, seed=SEED + 7)
L = rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(2)).values)
B1 = rf.Ball(2)
assert rf.check_rectifying(L, B1, n_samples=N, seed=SEED + 1).rectifying
print(L)

# %% [markdown]
# ## 1. Stable rectification
#
# **[def:stable-rectification]** $\Phi$ allows $\kappa$-stable $\alpha$-rectification on $K$ if
#
# $$\lVert y - z\rVert^2 \le \kappa\,\lVert C_\alpha y - C_\alpha z\rVert^2 \quad\text{for all } y, z \in K ,$$
#
# i.e. $\sqrt{\kappa}$ is a Lipschitz constant of the inverse on the image. A collision
# ($C_\alpha y = C_\alpha z$, $y \ne z$) rules out every $\kappa$.
#
# **A constant for every rectifying layer on a convex domain.** Let $\Phi$ be $\alpha$-rectifying on a convex $K$,
# $A_\alpha > 0$ the smallest lower frame bound of an active sub-frame over $K$ and $B$ the upper frame bound of
# $\Phi$. Then $\Phi$ allows $\kappa$-stable rectification on $K$ with $\kappa = B/A_\alpha^2$. Proof: for $y, z \in K$ put
# $d = z - y$ and $x(t) = y + t d \in K$. Each output coordinate $t \mapsto (\langle x(t),\phi_i\rangle - \alpha_i)_+$ is
# monotone (ReLU of an affine function), so $|(C_\alpha z - C_\alpha y)_i| = |\langle d,\phi_i\rangle|\,\tau_i$, where $\tau_i$ is
# the fraction of the segment on which $\phi_i$ is active. With $w_i = \langle d,\phi_i\rangle^2$:
# $\sum_i w_i\tau_i = \int_0^1 \sum_{i\in I_{x(t)}} w_i\,dt \ge A_\alpha\lVert d\rVert^2$, and by Cauchy–Schwarz
# $\lVert C_\alpha z - C_\alpha y\rVert^2 = \sum_i w_i\tau_i^2 \ge (\sum_i w_i\tau_i)^2/\sum_i w_i \ge A_\alpha^2\lVert d\rVert^4/(B\lVert d\rVert^2)$.
# (For the $\pm$ basis below, $B/A_0^2 = 2$ is attained by the pair $e_1, -e_1$: the constant cannot be improved in general.)
#
# Check: for the layer above, $A_\alpha$ (from `rf.global_bounds` on samples of the disc: a sampled value can only be
# too large, which makes the asserted bound stricter) is positive, and the measured ratios
# $\lVert y-z\rVert^2 / \lVert C_\alpha y - C_\alpha z\rVert^2$ over many random pairs of the disc all stay below
# $B/A_\alpha^2$; a non-injective layer fails both: for the triangle frame with bias 0, $A_\alpha = 0$ at samples of
# the disc and the colliding pair of Example mb2 ([02_injectivity](02_injectivity.ipynb)) has ratio $\infty$.

# %%
Y, Z = B1.sample(N, seed=SEED + 2), B1.sample(N, seed=SEED + 3)
ratios = rf.measured_lipschitz(L, Y, Z)
A_alpha, B_frame = rf.global_bounds(L, B1, n_samples=N, seed=SEED).lower, F.bounds[1]
kappa_global = B_frame / A_alpha**2
print(f"{N} random pairs in the disc: largest measured ratio {ratios.max():.3f} <= B / A_alpha^2 = "
      f"{B_frame:.3f} / {A_alpha:.4f}^2 = {kappa_global:.3f}")
assert A_alpha > 0 and np.all(ratios <= kappa_global)
T0 = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
x1, x2 = np.array([0.5, np.sqrt(3) / 2]), np.array([-0.5, np.sqrt(3) / 2])
assert rf.measured_lipschitz(T0, x1, x2) == np.inf and rf.global_bounds(T0, B1, n_samples=N).lower == 0

# %% [markdown]
# Two constants go with a rectifying frame: $A_\alpha$, the smallest lower frame bound of an active
# sub-frame $\Phi_{I_x}$, $x \in K$, and $B_\alpha$, the largest upper one. For **pairs** with a common
# active set $J \subseteq I_y \cap I_z$ the bias cancels on $J$, and
#
# $$A_J\lVert y-z\rVert^2 \le \sum_{i\in J}\langle y-z,\phi_i\rangle^2 \le \lVert C_\alpha y - C_\alpha z\rVert^2 \le \lVert \Phi(y-z)\rVert^2 \le B\,\lVert y-z\rVert^2 ,$$
#
# the last step because ReLU is 1-Lipschitz. Across *different* active sets there is no such bound
# by $A_\alpha$: Puthawala et al. show for $\alpha = 0$ on $\mathbb{R}^n$ that the constant
# $2m\,A_0^{-1}$ works but $A_0^{-1}$ does not.
#
# Check on two frames that are $0$-rectifying on all of $\mathbb{R}^2$ (exact Tukey-depth test): the
# $\pm$ basis ($m = 4$, $A_0 = 1$) and the regular pentagon. All measured ratios (random pairs and
# antipodal pairs $\pm y$) are below $B/A_0^2$ (the constant proved above) and below $2m/A_0$; the pair
# $(e_1, -e_1)$ has ratio $2 > 1/A_0$, equal to $B/A_0^2$.

# %%
for name, Fr in [("+- basis", rf.zoo.plus_minus_basis(2)), ("pentagon", rf.zoo.regular_polygon(5))]:
    Lr = rf.ReLULayer(Fr, 0.0)
    assert rf.zero_bias_injective(Fr).injective
    A0 = rf.global_bounds(Lr, rf.Sphere(2), n_samples=N, seed=SEED).lower  # homogeneous: the circle suffices
    Yr = rf.RealSpace(2).sample(N, seed=SEED + 4)
    Zr = np.vstack([rf.RealSpace(2).sample(N // 2, seed=SEED + 5), -Yr[N // 2:]])
    worst = rf.measured_lipschitz(Lr, Yr, Zr).max()
    print(f"{name:9s}: A_0 = {A0:.4f}, largest measured ratio {worst:.3f} <= B/A_0^2 = {Fr.bounds[1] / A0**2:.3f} "
          f"<= 2m/A_0 = {2 * Fr.m / A0:.2f}")
    assert worst <= Fr.bounds[1] / A0**2 * (1 + 1e-12) and worst <= 2 * Fr.m / A0
    if name == "+- basis":
        e1 = np.array([1.0, 0.0])
        ratio = rf.measured_lipschitz(Lr, e1, -e1)
        print(f"           pair (e1, -e1): ratio {ratio:.3f} > 1/A_0 = {1 / A0:.3f}")
        assert np.isclose(A0, 1.0) and np.isclose(ratio, 2.0) and np.isclose(ratio, Fr.bounds[1] / A0**2)

# %% [markdown]
# ### Erratum — the frame-type inequality (reluframe)
#
# *Printed:* if $\Phi$ is $\alpha$-rectifying on $K$, then
# $A_\alpha\lVert x\rVert^2 \le \lVert C_\alpha x\rVert^2 \le B_\alpha\lVert x\rVert^2$ for all $x \in K$,
# with $A_\alpha$ ($B_\alpha$) the smallest lower (largest upper) frame bound of an active sub-frame.
#
# *Correct:* this holds for $\alpha = 0$ (then $C_0 x$ is $\Phi_{I_x} x$ with the inactive entries set to
# 0), but not for other biases: the bias shifts every active coefficient. The difference form above is
# the valid statement for every bias.
#
# Counterexamples:
# * **upper bound, $\alpha < 0$:** triangle frame, $\alpha = -\tfrac12$, on the unit disc (where it is
#   rectifying), $x = \phi_1$. Every sub-frame has upper bound $\le B = \tfrac32$, yet
#   $C_\alpha\phi_1 = (\tfrac32, 0, 0)$ has $\lVert C_\alpha x\rVert^2 = \tfrac94 > \tfrac32\lVert x\rVert^2$.
# * **lower bound, $\alpha > 0$:** icosahedron, $\alpha = \alpha^\Delta_\Phi = 1/\sqrt5$ (rectifying on
#   $\{\lVert x\rVert \ge 1\}$, Prop. pbeall (v) in [07_polytope_bias](07_polytope_bias.ipynb)), on the shell $\mathbb{D}_{3,1}$, $x = \phi_1$. Every active set
#   contains a facet, so every active lower frame bound is $\ge A_F = 1 - 1/\sqrt5 \approx 0.553$ (the
#   Gram matrix of a face has eigenvalues $1 + 2/\sqrt5$ and $1 - 1/\sqrt5$ twice); but at $\phi_1$ the
#   five neighbours sit exactly on their threshold and
#   $\lVert C_\alpha\phi_1\rVert^2 = (1 - 1/\sqrt5)^2 \approx 0.306 < 0.553$.

# %%
tri = rf.zoo.mercedes_benz()
Lt = rf.ReLULayer(tri, -0.5)
x = tri.vectors[0]
print(f"triangle, alpha = -1/2: ||C x||^2 = {np.sum(Lt(x) ** 2):.4f} > B ||x||^2 = {tri.bounds[1]:.4f}")
assert rf.check_rectifying(Lt, B1, n_samples=N).rectifying
assert np.sum(Lt(x) ** 2) > tri.bounds[1] * np.sum(x**2)

ico = rf.zoo.platonic("icosahedron")
a_ico = rf.polytope_bias(ico, "boundary").values
Li = rf.ReLULayer(ico, a_ico)
K_shell = rf.Shell(3, 1.0, 3.0)
assert rf.check_rectifying(Li, K_shell, n_samples=N, seed=SEED).rectifying
P = rf.inscribing_polytope(ico)
face = ico.vectors[P.facet(0)]
A_F = np.linalg.eigvalsh(face.T @ face)[0]
x = ico.vectors[0]
print(f"icosahedron, alpha = 1/sqrt5: ||C x||^2 = {np.sum(Li(x) ** 2):.4f} < A_F ||x||^2 = {A_F:.4f}")
np.testing.assert_allclose(A_F, 1 - 1 / np.sqrt(5))
assert np.sum(Li(x) ** 2) < A_F * np.sum(x**2)
# every active set on the shell contains a facet (so A_{I_x} >= A_F): checked on samples
Xs = K_shell.sample(N, seed=SEED + 6)
act = Li.active_set(Xs)
has_facet = np.zeros(N, dtype=bool)
for j in range(P.n_facets):
    has_facet |= act[:, P.facet(j)].all(axis=1)
assert has_facet.all() and rf.active_bounds(Li, Xs)[0].min() >= A_F - 1e-12
# ... and with alpha = 0 the printed inequality holds (random 0-rectifying frame, R^3)
F0 = rf.zoo.random_sphere(20, 3, seed=SEED)
L0 = rf.ReLULayer(F0, 0.0)
assert rf.zero_bias_injective(F0).injective
X0 = rf.Ball(3).sample(N, seed=SEED + 7)
A_x, B_x = rf.active_bounds(L0, X0)
nx, ncx = np.sum(X0**2, axis=1), np.sum(L0(X0) ** 2, axis=1)
assert np.all(A_x * nx <= ncx * (1 + 1e-12)) and np.all(ncx <= B_x * nx * (1 + 1e-12))

# %% [markdown]
# ## 2. Local stability
#
# **[locstab]** For $x_0 \in K$, $\Phi$ allows $\kappa_{x_0}$-stable $\alpha$-rectification near $x_0$ if
# there is $\varepsilon > 0$ with $\lVert y-z\rVert^2 \le \kappa_{x_0}\lVert C_\alpha y - C_\alpha z\rVert^2$ for
# all $y, z$ in the open ball $B_\varepsilon(x_0)$.
#
# **[prop:local-stability]** Let $\Phi$ be $\alpha$-rectifying on $K$, $x_0 \in K$, and
# $J \subseteq I_{x_0}$ with $\Phi_J$ a frame. Then $\Phi$ allows $A_J^{-1}$-stable $\beta$-rectification
# near $x_0$ for every $\beta < \alpha$. (Lowering the bias keeps all of $J$ strictly active in a small
# ball, and the difference form above applies.)
#
# **[cor:local-stability]** If every element of $J$ is *strictly* active at $x_0$
# ($\langle x_0,\phi_i\rangle > \alpha_i$, $i \in J$), the same holds for $\alpha$ itself.
#
# Check with `rf.local_stability`, which returns $\kappa = 1/A_J$ for the strictly active set and the
# radius $\varepsilon$ (distance from $x_0$ to the nearest hyperplane $\langle x,\phi_i\rangle = \alpha_i$,
# $i \in J$): at points with five different active sets, all measured ratios of random pairs in $B_\varepsilon(x_0)$ are
# $\le \kappa$, and the bound is attained along the returned worst direction (it is sharp).

# %%
X_pts = B1.sample(2000, seed=SEED + 8)
margin = np.min(np.abs(L.preactivation(X_pts)), axis=1)
patterns, first = np.unique(L.active_set(X_pts), axis=0, return_index=True)
picks = []  # the point farthest from every hyperplane, in each of 5 different active patterns
for pat in patterns[:5]:
    rows = np.flatnonzero(np.all(L.active_set(X_pts) == pat, axis=1))
    picks.append(X_pts[rows[np.argmax(margin[rows])]])
for k, x0 in enumerate(picks):
    s = rf.local_stability(L, x0)
    Yl = x0 + 0.999 * rf.Ball(2, s.eps).sample(N // 4, seed=k)
    Zl = x0 + 0.999 * rf.Ball(2, s.eps).sample(N // 4, seed=k + 100)
    worst = rf.measured_lipschitz(L, Yl, Zl).max()
    t = 0.5 * s.eps_pattern
    along = rf.measured_lipschitz(L, x0 + t * s.direction, x0 - t * s.direction)
    print(f"x0 = {np.round(x0, 3)}: |J| = {s.J.size}, kappa = 1/A_J = {s.kappa:.4f}, eps = {s.eps:.3f}; "
          f"largest ratio in the ball {worst:.4f}, along the worst direction {along:.4f}")
    assert worst <= s.kappa * (1 + 1e-9) and np.isclose(along, s.kappa, rtol=1e-9)

# %% [markdown]
# **Why $\beta < \alpha$ (or strict activity) is needed.** The $\pm$ basis with $\alpha = 0$ at
# $x_0 = e_1$: $J = \{e_1, e_2\}$ is active ($e_2$ only just: $\langle x_0, e_2\rangle = 0$) with
# $A_J = 1$. With $\alpha$ itself, the pairs $y = (1, t)$, $z = (1, -t)$ have ratio $2 > A_J^{-1}$
# however small $t$ is (near $x_0$ the output splits the second coordinate between $e_2$ and $-e_2$).
# With $\beta = -\delta$ both $\pm e_2$ stay active in the ball of radius $\delta$, and the ratio is
# at most $1$.

# %%
Lpm = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
x0 = np.array([1.0, 0.0])
s0 = rf.local_stability(Lpm, x0, J=[0, 1])
print(f"alpha = 0: kappa = 1/A_J = {s0.kappa}, guaranteed radius eps = {s0.eps} (e_2 is only just active)")
for t in [1e-1, 1e-4, 1e-8]:
    assert np.isclose(rf.measured_lipschitz(Lpm, [1.0, t], [1.0, -t]), 2.0)
delta = 0.05
Lb = rf.ReLULayer(rf.zoo.plus_minus_basis(2), -delta)
sb = rf.local_stability(Lb, x0, J=[0, 1])
Yb = x0 + 0.999 * rf.Ball(2, sb.eps).sample(N // 4, seed=1)
Zb = x0 + 0.999 * rf.Ball(2, sb.eps).sample(N // 4, seed=2)
print(f"beta = -{delta}: kappa = {sb.kappa}, eps = {sb.eps:.3f}, largest ratio in the ball "
      f"{rf.measured_lipschitz(Lb, Yb, Zb).max():.4f}")
assert sb.kappa == 1.0 and np.isclose(sb.eps, delta) and rf.measured_lipschitz(Lb, Yb, Zb).max() <= 1 + 1e-9

# %% [markdown]
# The local constant $\kappa_x = 1/A_{I_x}$ over the disc for the 7-vector layer: dark where the
# active sub-frame is poorly conditioned — few active vectors, badly spread — here in the wide gap
# between $\phi_1$ and $\phi_2$. Inside one region of constant active set the layer is affine and the
# constant is exact.

# %%
res = 241 if FULL else 161
t = np.linspace(-1.3, 1.3, res)
G = np.stack(np.meshgrid(t, t), axis=-1).reshape(-1, 2)
A_grid = rf.active_bounds(L, G)[0]
kappa = np.where(np.linalg.norm(G, axis=1) <= 1, 1 / np.maximum(A_grid, 1e-12), np.nan).reshape(res, res)
fig = Figure(figsize=(5.8, 4.8), layout="constrained")
ax = fig.add_subplot()
im = ax.imshow(np.log10(kappa), origin="lower", extent=(-1.3, 1.3, -1.3, 1.3), cmap=palette.COUNT_CMAP, vmin=-0.3)
fig.colorbar(im, ax=ax, shrink=0.8, label="$\\log_{10}\\,\\kappa_x = -\\log_{10} A_{I_x}$")
plane.draw_halfspaces(ax, L, extent=1.3, shade=False)
plane.draw_domain(ax, B1)
plane.draw_frame_vectors(ax, F)
ax.set_title("[prop:local-stability] local constant $1/A_{I_x}$ on $\\mathbb{B}$", fontsize=11)
fig

# %%
assert np.nanmin(kappa) >= 1 / F.bounds[0] - 1e-9  # no active sub-frame beats the whole frame
assert np.all(np.isfinite(kappa[~np.isnan(kappa)]))  # rectifying: A_x > 0 everywhere on the disc

# %% [markdown]
# ## 3. The image of a ReLU layer
#
# **[lem:image]** (printed) If $\Phi$ is $\alpha$-rectifying on a bounded $K$ with
# $M = \sup_{x\in K}\lVert x\rVert$, then $C_\alpha(K) \subseteq \mathbb{B}^+_{\sqrt{B_\alpha}M}$ (the
# non-negative part of the ball of that radius), and the radius is minimal.
#
# For $\alpha \ge 0$ the inclusion is right: on the active set $0 \le \langle x,\phi_i\rangle - \alpha_i \le \langle x,\phi_i\rangle$,
# so $\lVert C_\alpha x\rVert^2 \le \sum_{i\in I_x}\langle x,\phi_i\rangle^2 \le B_{I_x}\lVert x\rVert^2$.
# Check, point by point, on samples for bias $0$ and a positive bias.

# %%
F3 = rf.zoo.random_sphere(25, 3, seed=SEED)
K2 = rf.Ball(3, 2.0)
X3 = K2.sample(N, seed=SEED + 9)
for a in [0.0, 0.15]:
    L3 = rf.ReLULayer(F3, a)
    Bx = rf.active_bounds(L3, X3)[1]
    out = np.sum(L3(X3) ** 2, axis=1)
    assert np.all(out <= Bx * np.sum(X3**2, axis=1) * (1 + 1e-12))
    R = rf.image_radius(L3, K2, B_alpha=Bx.max())
    print(f"alpha = {a}: largest output norm {np.sqrt(out.max()):.3f} <= sqrt(B_alpha) M = {R:.3f}")
    assert np.sqrt(out.max()) <= R and np.all(L3(X3) >= 0)

# %% [markdown]
# ### Erratum — Lemma image
#
# *Printed:* $C_\alpha(K) \subseteq \mathbb{B}^+_{\sqrt{B_\alpha}M}$, and $\sqrt{B_\alpha}M$ is the minimal
# radius.
#
# *Correct:* (a) the inclusion needs $\alpha \ge 0$; for any bias,
# $\lVert C_\alpha x\rVert \le \sqrt{B_\alpha}\,M + \lVert\max(-\alpha, 0)\rVert$ (what `rf.image_radius`
# returns); (b) the radius is an upper bound, not the minimal one: the top eigenvector of an active
# sub-frame need not lie in the region where that sub-frame is active.
#
# Counterexamples:
# * (a) the triangle frame with $\alpha = -\tfrac12$ on the unit disc: $B_\alpha = \tfrac32$, but
#   $\lVert C_\alpha\phi_1\rVert = \tfrac32 > \sqrt{3/2}$;
# * (b) the regular pentagon with $\alpha = 0$ (rectifying on all of $\mathbb{R}^2$) on the unit disc:
#   $\sqrt{B_\alpha} = 1.345$, but the image has radius $1.144$ only.
#
# The radii are compared with the **true** image radius $\sup_{x\in\mathbb{B}}\lVert C_\alpha x\rVert$, computed
# independently of any formula: $x \mapsto \lVert C_\alpha x\rVert^2 = \sum_i(\langle x,\phi_i\rangle - \alpha_i)_+^2$ is
# convex, so its maximum over the disc is on the unit circle; we take it on $2\cdot10^5$ equally spaced points, and
# since $x \mapsto \lVert C_\alpha x\rVert$ is $\sqrt{B}$-Lipschitz the grid misses the true supremum by at most
# $\sqrt{B}\cdot\pi/(2\cdot10^5)$.

# %%
def image_sup(layer, n_grid=200_000):
    """sup of ||C x|| over the unit disc (a convex function: its max is on the circle), and the grid's error bound."""
    th = np.linspace(0, 2 * np.pi, n_grid, endpoint=False)
    norms = np.linalg.norm(layer(np.column_stack([np.cos(th), np.sin(th)])), axis=1)
    return norms.max(), np.sqrt(layer.frame.bounds[1]) * np.pi / n_grid


x = tri.vectors[0]
R_printed = np.sqrt(1.5) * 1.0
R_correct = rf.image_radius(Lt, B1, n_samples=N)
sup_t, err_t = image_sup(Lt)
print(f"(a) triangle, alpha = -1/2: true image radius {sup_t:.4f} (grid error <= {err_t:.0e}), attained at phi_1: "
      f"||C phi_1|| = {np.linalg.norm(Lt(x)):.4f}; printed radius {R_printed:.4f} < it <= corrected radius {R_correct:.4f}")
assert R_printed < sup_t and sup_t + err_t <= R_correct  # the printed radius fails, the corrected one holds
assert np.isclose(sup_t, np.linalg.norm(Lt(x)), atol=err_t)

pent = rf.zoo.regular_polygon(5)
Lp = rf.ReLULayer(pent, 0.0)
theta = np.linspace(0, 2 * np.pi, 100_001)
circle = np.column_stack([np.cos(theta), np.sin(theta)])
norms = np.linalg.norm(Lp(circle), axis=1)  # for the figure below
B_alpha = rf.global_bounds(Lp, circle).upper
sup_p, err_p = image_sup(Lp)
print(f"(b) pentagon, alpha = 0: sqrt(B_alpha) M = {np.sqrt(B_alpha):.4f}, radius of the image {sup_p:.4f} "
      f"(grid error <= {err_p:.0e})")
assert sup_p + err_p < np.sqrt(B_alpha) - 0.15 and sup_p + err_p <= rf.image_radius(Lp, B1, B_alpha=pent.bounds[1])

# %%
fig = Figure(figsize=(7, 3.6), layout="constrained")
ax = fig.add_subplot()
ax.plot(np.rad2deg(theta), norms, color=palette.OKABE_ITO["blue"], lw=2, label="$\\|C_0 x\\|$, $x$ on the unit circle")
ax.axhline(np.sqrt(B_alpha), color=palette.BAD, ls="--", label="printed 'minimal' radius $\\sqrt{B_\\alpha}$")
for k, phi in enumerate(np.rad2deg(np.arctan2(pent.vectors[:, 1], pent.vectors[:, 0])) % 360):
    ax.axvline(phi, color=palette.element_color(k), lw=0.8, alpha=0.6)
ax.set_xlim(0, 360)
ax.set_xlabel("angle of $x$ (degrees); vertical lines: the frame vectors")
ax.set_ylabel("output norm")
ax.set_title("[lem:image] regular pentagon, $\\alpha=0$: the image radius is below $\\sqrt{B_\\alpha}M$", fontsize=11)
ax.legend(fontsize=9, loc="center right")
ax.grid(alpha=0.3)
fig

# %% [markdown]
# ## 4. A second layer: the image of layer 1 is the domain of layer 2
#
# In a network $x \mapsto C_{\beta}(C_\alpha x)$ the second layer never sees all of
# $\mathbb{R}^{m}$: its inputs are the outputs of the first. So the domain on which layer 2 must be
# injective is the image $C_\alpha(K)$, and by `[lem:image]` (corrected) that image lies in the
# non-negative ball $\mathbb{B}^+_R \subset \mathbb{R}^m$ with $R$ = `rf.image_radius(...)`. A recipe:
#
# 1. make layer 1 injective on $K$ (here the 7-vector layer on the disc, polytope bias);
# 2. compute $R$ with a guaranteed $B_\alpha$ (the upper frame bound $B$ of the whole frame bounds
#    every active $B_{I_x}$), and take $\mathbb{B}^+_R$ as the domain of layer 2;
# 3. choose layer 2 (a frame $\Psi$ of $\mathbb{R}^m$ and a bias $\beta$) that is injective on
#    $\mathbb{B}^+_R$, e.g. $\beta$ = the polytope bias on the positive ball
#    (Prop. pbeall (iv), [07_polytope_bias](07_polytope_bias.ipynb)), and confirm it with `rf.check`;
# 4. then the network is injective on $K$, and its inverse is the inverse of layer 2 followed by the
#    inverse of layer 1.
#
# Step 2, checked on samples of the disc: every output of layer 1 is non-negative, has norm at most
# $R$, and lies in `rf.PositiveBall(7, R)`. The image is a thin set there: a two-dimensional piece of
# a surface, on which most points have some coordinates exactly 0.

# %%
R1 = rf.image_radius(L, B1, B_alpha=F.bounds[1])  # B >= B_alpha: a guaranteed radius
K2 = rf.PositiveBall(F.m, R1)  # the domain of layer 2, in R^7
X2 = B1.sample(N, seed=SEED + 11)
Y2 = L(X2)  # the image of the disc under layer 1 (samples)
print(f"R = sqrt(B) M + ||max(-alpha, 0)|| = {R1:.4f}; largest output norm {np.linalg.norm(Y2, axis=1).max():.4f}; "
      f"outputs with a zero coordinate: {100 * np.mean(np.any(Y2 == 0, axis=1)):.1f}%")
assert np.all(Y2 >= 0) and np.linalg.norm(Y2, axis=1).max() <= R1
assert K2.contains(Y2).all()

# %% [markdown]
# Step 3: layer 2 is $\Psi$ = 21 random unit vectors in $\mathbb{R}^7$ (redundancy 3; omnidirectional,
# so the polytope bias exists) with $\beta$ just below the polytope bias on $\mathbb{B}^+_R$ (lowered by
# $10^{-6}$: a bias *at* a bound computed in floating point sits inside the bound's rounding, where no
# floating-point comparison proves anything; the kit compares such biases in exact rational arithmetic
# only for small frames). Elements that lie in no facet whose cone meets $\mathbb{R}^7_+$ are *free*
# (any bias works for them); we give them bias 0. `rf.check` proves injectivity on the positive ball
# ($\beta <$ polytope bias).

# %%
Psi = rf.zoo.random_sphere(3 * F.m, F.m, seed=SEED + 21)
assert rf.is_omnidirectional(Psi)
est2 = rf.polytope_bias(Psi, K2)
L2 = rf.ReLULayer(Psi, est2.finite(fill=0.0) - 1e-6)
verdict = rf.check(L2, K2)
print(f"layer 2: {Psi.m} vectors in R^{Psi.n}, {int(np.isinf(est2.values).sum())} free elements;")
print(verdict.text)
assert verdict.status == "injective" and verdict.method == "polytope bias"
assert rf.check_rectifying(L2, rf.Samples(Y2)).rectifying  # in particular on the image samples

# %% [markdown]
# Step 4: reconstruct $x$ from the network output $C_\beta(C_\alpha x)$ by inverting layer 2, then
# layer 1. One practical detail: `rf.reconstruct` reads the active set from the **positive** entries
# of an output. Layer 1 outputs exact zeros, which the inverse of layer 2 returns as rounding noise
# of order $10^{-16}$, with either sign; a positive one would mark an inactive element of layer 1 as
# active, a negative one is refused. `zero_tol=1e-9` tells `rf.reconstruct` to read such entries as 0.

# %%
out = L2(L(X2))  # the network
Y_hat = rf.reconstruct(L2, out)  # invert layer 2
noise = np.abs(Y_hat[Y2 == 0]).max()
X_hat = rf.reconstruct(L, Y_hat, zero_tol=1e-9)  # then layer 1
assert noise < 1e-12  # the zeros of layer 1 come back as zeros up to rounding noise
err2, err = np.abs(Y_hat - Y2).max(), np.abs(X_hat - X2).max()
print(f"{N} inputs: layer-2 inverse exact to 1e-10: {err2 < 1e-10}; network inverse exact to 1e-8: {err < 1e-8}")
assert err2 < 1e-10
np.testing.assert_allclose(X_hat, X2, rtol=0, atol=1e-8)

# %% [markdown]
# **A second bias that is too large.** The same $\Psi$ with the constant bias $\beta = 0.5$ (a value
# that looks harmless next to outputs of norm up to 1.9) is not rectifying at most points of the
# image, and two different inputs of the disc get the same network output (both are erased to 0
# by layer 2). The network is not injective, and `rf.reconstruct` refuses its outputs.

# %%
L2_bad = rf.ReLULayer(Psi, 0.5)
chk_bad = rf.check_rectifying(L2_bad, rf.Samples(Y2))
col = rf.find_collision(L2_bad, rf.Samples(Y2))  # exact search among the image samples
x_a, x_b = rf.reconstruct(L, col.x), rf.reconstruct(L, col.y)  # the two inputs behind them
print(f"beta = 0.5: not rectifying at {chk_bad.n_failed}/{chk_bad.n_checked} image samples; "
      f"collision found: {col.found}")
print(f"inputs x = {np.round(x_a, 4)} and x' = {np.round(x_b, 4)}: same network output "
      f"{bool(np.allclose(L2_bad(L(x_a)), L2_bad(L(x_b))))}")
assert not chk_bad.rectifying and chk_bad.n_failed > N // 2
assert col.found and B1.contains(np.array([x_a, x_b])).all() and np.linalg.norm(x_a - x_b) > 0.1
np.testing.assert_allclose(L2_bad(L(x_a)), L2_bad(L(x_b)), atol=1e-12)
assert rf.check(L2_bad, K2).status == "not injective"
try:
    rf.reconstruct(L2_bad, L2_bad(L(X2)))
    raise AssertionError("expected a refusal")
except rf.NotInjectiveError:
    print("reconstruct refuses the outputs of the network with beta = 0.5")

# %% [markdown]
# **The positive ball is much larger than the image.** The certificate on $\mathbb{B}^+_R$ is
# sufficient, not necessary: the image is a thin subset. The sampling-based bias of the *image
# samples* (Theorem samp, exact on those samples, [06_sampling](06_sampling.ipynb)) is larger than the
# polytope bias on $\mathbb{B}^+_R$ for every element the two share (by 0.6 to 2.7 here); it
# certifies nothing between the samples, but shows how much room a bias fitted to the actual
# image of layer 1 would have.

# %%
samp2 = rf.sampling_bias(Psi, rf.Samples(Y2), progress=False)
both = np.isfinite(samp2.values) & np.isfinite(est2.values)
gap = samp2.values[both] - est2.values[both]
print(f"{int(both.sum())} shared elements: sampling bias on the image minus polytope bias on B+_R "
      f"in [{gap.min():.3f}, {gap.max():.3f}], mean {gap.mean():.3f}")
assert np.all(gap > 0)
assert rf.check_rectifying(rf.ReLULayer(Psi, samp2.finite(fill=10.0)), rf.Samples(Y2)).rectifying

# %% [markdown]
# ## What we saw
#
# * Stability is a lower Lipschitz bound of the layer; a collision rules it out, and with different
#   active sets the best constant can exceed $1/A_\alpha$ (the $\pm$ basis pair $e_1, -e_1$). On a convex domain
#   $B/A_\alpha^2$ always works (a monotonicity and Cauchy–Schwarz argument), and it is attained by that pair.
# * The printed frame-type inequality with active frame bounds holds for $\alpha = 0$ only: a negative
#   bias breaks the upper bound, a positive one the lower bound.
# * Near a point the constant is $1/A_J$ of the strictly active set, attained along the worst
#   direction; an element that is only just active spoils it.
# * The image of a layer lies in a non-negative ball of radius $\sqrt{B_\alpha}M + \lVert\max(-\alpha,0)\rVert$
#   (the printed radius needs $\alpha \ge 0$ and is not minimal).
# * That ball is a valid domain for a second layer: with its polytope bias the two-layer network is
#   injective and is inverted layer by layer to $10^{-8}$; a constant bias of 0.5 instead erases the
#   image and makes two inputs collide.
#
# Next: [11_appendix](11_appendix.ipynb) relates rectifying frames to admissibility and maps the
# paper's pseudo-code to the package.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb10.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 10.1 — The local constant at a point
#
# `L = ex.nb10.layer_10_1()` is 6 random unit vectors in $\mathbb{R}^2$ with the polytope bias on the disc. At
# $x_0$ = `ex.nb10.X0_10_1` compute, from the frame and the bias (then compare with `rf.local_stability`), the
# local constant $\kappa = 1/A_J$ of Cor. "local stability" for $J$ the strictly active set, and the radius
# $\varepsilon$ of the ball around $x_0$ in which it is guaranteed. Set `answer_10_1 = (kappa, eps)`.

# %% tags=["answer"]
answer_10_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L101, x101 = ex.nb10.layer_10_1(), ex.nb10.X0_10_1
pre101 = L101.preactivation(x101)  # <x0, phi_i> - alpha_i
J101 = np.flatnonzero(pre101 > 0)  # strictly active
A_J101 = np.linalg.eigvalsh(L101.frame.vectors[J101].T @ L101.frame.vectors[J101])[0]
eps101 = np.min(pre101[J101] / np.linalg.norm(L101.frame.vectors[J101], axis=1))  # distance to J's hyperplanes
s101 = rf.local_stability(L101, x101)
assert np.isclose(1 / A_J101, s101.kappa) and np.isclose(eps101, s101.eps)
print(f"J = {(J101 + 1).tolist()}, kappa = {1 / A_J101:.4f}, eps = {eps101:.4f}")
answer_10_1 = (1 / A_J101, eps101)
ex.solution("10.1", answer_10_1)

# %% tags=["check"]
ex.nb10.check_10_1(answer_10_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 10.2 — A second layer on a box
#
# Layer 1 is `L1 = ex.nb10.layer1_10_2()` (5 unit vectors in $\mathbb{R}^2$, injective on the disc). Its image lies
# in the box $[0, u] \subset \mathbb{R}^5$ with $u_i = \max_{\lVert x\rVert\le1}(\langle x,\phi_i\rangle - \alpha_i)_+ = \lVert\phi_i\rVert - \alpha_i$
# — a polyhedral domain, on which `rf.check` decides exactly (`rf.Box(lo, hi)`). Layer 2 has the frame
# `ex.nb10.frame2_10_2()` (15 unit vectors in $\mathbb{R}^5$) and one constant bias $\beta$ for all elements.
# Find the largest $\beta$, to within $0.01$, for which layer 2 is injective on the box; the network is then
# injective on the disc. Set `answer_10_2` to a $\beta$ that is injective while $\beta + 0.01$ is not.

# %% tags=["answer"]
answer_10_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L1_102, Psi102 = ex.nb10.layer1_10_2(), ex.nb10.frame2_10_2()
box102 = rf.Box(np.zeros(L1_102.m), np.linalg.norm(L1_102.frame.vectors, axis=1) - L1_102.alpha)
assert np.all(box102.contains(L1_102(rf.Ball(2).sample(5000, seed=0))))  # the image lies in the box


def injective_102(beta):
    return rf.check(rf.ReLULayer(Psi102, beta), box102).status == "injective"


lo, hi = -3.0, 3.0
assert injective_102(lo) and not injective_102(hi)
while hi - lo > 0.005:  # injective at lo, not at hi
    mid = (lo + hi) / 2
    lo, hi = (mid, hi) if injective_102(mid) else (lo, mid)
print(f"layer 2 injective on the box up to beta = {lo:.4f}, not at {hi:.4f}")
answer_10_2 = lo
ex.solution("10.2", answer_10_2)

# %% tags=["check"]
ex.nb10.check_10_2(answer_10_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 10.3 — The global constant of a layer
#
# For the layer of 10.1 on the unit disc, compute the stability constant $\kappa = B/A_\alpha^2$ proved in §1
# ($A_\alpha$ from `rf.global_bounds` over samples of the disc, $B$ the upper frame bound), and check it against
# measured ratios of random pairs. Set `answer_10_3` to $\kappa$.

# %% tags=["answer"]
answer_10_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L103 = ex.nb10.layer_10_1()
A103 = rf.global_bounds(L103, rf.Ball(2), n_samples=50_000, seed=0).lower
answer_10_3 = L103.frame.bounds[1] / A103**2
worst103 = rf.measured_lipschitz(L103, rf.Ball(2).sample(20_000, seed=5), rf.Ball(2).sample(20_000, seed=6)).max()
print(f"A_alpha = {A103:.4f}, kappa = {answer_10_3:.3f} >= largest measured ratio {worst103:.3f}")
assert worst103 <= answer_10_3
ex.solution("10.3", answer_10_3)

# %% tags=["check"]
ex.nb10.check_10_3(answer_10_3)

# %%
print("10_stability: all checks passed")
