# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 — The maximal bias: most correlated bases
#
# In [04_maximal_domain](04_maximal_domain.ipynb) the bias was given and we looked for the largest
# domain. Here it is the other way round (question **Q2**): the domain $K$ is given, and we want the
# largest bias $\alpha$ for which $\Phi$ is $\alpha$-rectifying on $K$. The key idea is that at each
# input $x$ only one basis matters, the $n$ elements that are "most aligned" with $x$; an element's
# bias must stay below its coefficient wherever it belongs to that basis.
#
# **What you will learn**
# - what a most correlated basis $J^*(x)$ is and why a greedy rule finds it;
# - the largest *constant* bias $\alpha_c$, and the per-element bias $\alpha^\flat_K$ that is always
#   rectifying;
# - why $\alpha^\flat_K$ is not always maximal (Example a, where one element is redundant), and an
#   erratum in the paper's description of the set $K_2$;
# - when the maximal bias $\alpha^\sharp_K$ exists (bias-exact domains), and the main theorem that ties
#   injectivity, rectifying, maximal domain and maximal bias together.
#
# | tag | item |
# |---|---|
# | `[def:mostcorr]` | the most correlated basis $J^*(x)$ |
# | `[prop:maxa]` | the maximal constant bias $\alpha_c$ |
# | `[prop:maxa2]` | the bias $\alpha^\flat_K$ (a minimum over $K_i$) is rectifying |
# | `[ex:a]` | a five-vector frame with $\alpha^\flat_{\mathbb{B}} = \mathbf 0$ and a redundant element |
# | `[fig:fig3]` | right panel: the set $K_2$ of Example a |
# | `[def:uniquemaxa]` | bias-exact domains |
# | `[thm:maxa]` | the maximal bias $\alpha^\sharp_K$ |
# | `[thm:bigthm]` | the main theorem: four verdicts that agree |
#
# **Erratum** shown below with a counterexample: the set $K_2$ of Example a is a sector centred at
# $\phi_2$, not at $e_1$ as printed.
#
# Conventions: the rows of a matrix are the frame vectors; the layer is
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$; code counts from 0, the text from 1 (so
# $J^*(x) = \{1, 3\}$ in the text is `[0, 2]` in code).

# %%
# %matplotlib inline
from itertools import combinations

import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import palette, plane
from relu_frames_nb.viz.readable import readable

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240303
N = 200_000 if FULL else 20_000  # samples of a domain
TRIALS = 100 if FULL else 20  # random frames for statements "for every frame"
RES = 601 if FULL else 241  # grid resolution of the picture and of the grid checks
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. Most correlated bases
#
# **[def:mostcorr]** Among all bases $\Phi_J$ contained in the frame, a **most correlated basis** for
# $x$ is one whose weakest coefficient is as large as possible:
# $$\min_{j\in J^*(x)}\langle x,\phi_j\rangle \;=\; \max_{J:\ \Phi_J \text{ is a basis}}\ \min_{j\in J}\langle x,\phi_j\rangle .$$
# We say that $\Phi$ *includes a unique most correlated basis everywhere* on $K$ when $J^*(x)$ is
# unique for every $x \in K$.
#
# Computing it: the bases of a frame are the bases of a matroid, so the greedy rule is optimal — walk
# through the elements by decreasing coefficient and keep an element whenever it is linearly
# independent of the ones already kept. For a full-spark frame this simply keeps the $n$ largest
# coefficients.
#
# Check: the package's $J^*(x)$ is a basis and reaches the maximum of the definition, which we compute
# by brute force over all bases, on random frames with and without parallel elements (where "top $n$"
# would be wrong). For the triangle frame and the two points of Example mb2
# ([02_injectivity](02_injectivity.ipynb)): $J^*(x_1) = \{1, 3\}$ and $J^*(x_2) = \{1, 2\}$.

# %%
for t in range(TRIALS):
    n = 2 + t % 3
    phi = rf.zoo.gaussian(n + 3, n, seed=SEED + t).vectors
    if t % 2:
        phi = np.vstack([phi, -phi[0], 3.0 * phi[1]])  # parallel elements: not full spark
    F = rf.Frame(phi)
    bases = [J for J in combinations(range(F.m), n) if F.spans(J)]
    X = rf.Ball(n).sample(200, seed=t)
    G = X @ phi.T
    best = np.max([G[:, J].min(axis=1) for J in bases], axis=0)  # brute force: max over bases of the min
    Jstar = rf.most_correlated_basis(F, X)
    assert all(F.spans(J) for J in Jstar)
    np.testing.assert_allclose(np.take_along_axis(G, Jstar, axis=1).min(axis=1), best, atol=1e-12)

Ftri = rf.zoo.mercedes_benz()
s3 = np.sqrt(3) / 2
J1, tie1 = rf.most_correlated_basis(Ftri, [0.5, s3], return_ties=True)
J2, tie2 = rf.most_correlated_basis(Ftri, [-0.5, s3], return_ties=True)
assert set(J1) == {0, 2} and set(J2) == {0, 1} and not tie1 and not tie2
print(f"greedy J* = brute force on {TRIALS} frames; J*(x1) = {{1, 3}}, J*(x2) = {{1, 2}} (counted from 1)")

# %% [markdown]
# ## 2. The maximal constant bias
#
# **[prop:maxa]** Among constant biases $\mathbf r = (r, \dots, r)$, $\Phi$ is $\mathbf r$-rectifying on $K$
# exactly when $r \le \alpha_c$, where
# $$\alpha_c = \inf_{x\in K}\ \max_{J \text{ basis}}\ \min_{j\in J}\langle x,\phi_j\rangle
#   = \inf_{x\in K}\ \min_{j\in J^*(x)}\langle x,\phi_j\rangle .$$
# Why: for $r \le \alpha_c$ the whole most correlated basis of every $x$ is active; for $r > \alpha_c$
# there is an $x$ at which every basis has an element below $r$, so no basis is active.
#
# Check: on a *finite* data set $X$ the infimum is a minimum and is computed exactly, so both
# directions can be tested exactly: rectifying at every point for $r = \alpha_c$, not rectifying for
# $r = \alpha_c + 10^{-9}$. On the unit circle the triangle frame has $\alpha_c = -\tfrac12$ (Example mb,
# [03_properties_of_frames](03_properties_of_frames.ipynb)).

# %%
for t in range(TRIALS):
    n = 2 + t % 3
    F = rf.zoo.random_sphere(int(rng.integers(n + 1, 4 * n)), n, seed=SEED + 100 + t)
    X = rf.Ball(n).sample(500, seed=t)
    a_c = rf.max_constant_bias(F, X)
    assert np.all(rf.is_rectifying(rf.ReLULayer(F, a_c), X))
    assert not np.all(rf.is_rectifying(rf.ReLULayer(F, a_c + 1e-9), X))  # fails at the attaining point
a_c = rf.max_constant_bias(Ftri, rf.Sphere(2), n_samples=N, seed=SEED)
assert -0.5 <= a_c < -0.5 + 1e-3
assert rf.check_rectifying(rf.ReLULayer(Ftri, -0.5), rf.Sphere(2), n_samples=N, seed=SEED).rectifying
assert not rf.check_rectifying(rf.ReLULayer(Ftri, -0.49), rf.Sphere(2), n_samples=N, seed=SEED).rectifying
print(f"α_c exact on {TRIALS} finite data sets; triangle on the circle: α_c ≈ {a_c:.4f} (exact: -1/2)")

# %% [markdown]
# ## 3. One bias per element: $\alpha^\flat_K$
#
# A constant bias is wasteful when the frame is irregular. Split $K$ by membership in the most
# correlated basis, $K_i = \{x \in K : i \in J^*(x)\}$. These pieces cover $K$, and an element whose
# piece is empty is never needed (its bias may be $+\infty$). Give each element the smallest of its
# coefficients on its own piece:
#
# **[prop:maxa2]** If $J^*$ is unique on $K$ and
# $$(\alpha^\flat_K)_i = \inf_{x\in K_i}\langle x,\phi_i\rangle ,$$
# then $\Phi$ is $\alpha^\flat_K$-rectifying on $K$: at every $x$, all of $J^*(x)$ is active.
#
# Check: on shifted finite data sets $X$ ($\alpha^\flat_X$ is then exact) the frame is
# $\alpha^\flat_X$-rectifying at every point; the smallest entry of $\alpha^\flat_X$ is the constant
# $\alpha_c$; the elements that lie in no $J^*(x)$ are exactly those that get $+\infty$.

# %%
n_irrelevant = 0
for t in range(TRIALS):
    n = 2 + t % 3
    F = rf.zoo.random_sphere(int(rng.integers(n + 1, 5 * n)), n, seed=SEED + 200 + t)
    X = rf.Ball(n).sample(300, seed=t) + rng.normal(0.0, 0.3, size=n)  # a shifted data set
    flat = rf.sampling_bias(F, X, progress=False)
    assert flat.is_guarantee  # exact: a finite set is used whole
    assert np.all(rf.is_rectifying(rf.ReLULayer(F, flat.finite(fill=1e6)), X))
    np.testing.assert_allclose(flat.values.min(), rf.max_constant_bias(F, X))
    J = rf.most_correlated_basis(F, X)
    assert np.array_equal(flat.irrelevant, ~np.isin(np.arange(F.m), J))
    n_irrelevant += int(flat.irrelevant.sum())
print(f"α♭ rectifying on {TRIALS} finite data sets; {n_irrelevant} elements were in no J*(x) (bias +inf)")

# %% [markdown]
# Often $\alpha^\flat_K$ can be raised further. An element $\phi_i$ only has to be active at inputs
# where nothing *outside* $J^*(x)$ helps out. That is the set
# $$K_i^\sharp = \Big\{x \in K_i : \langle x,\phi_j\rangle < (\alpha^\flat_K)_j \text{ for all } j \notin J^*(x)\Big\}.$$
# (The paper writes $K_i \setminus \bigcap_{y\in K_i}\bigcup_{j\notin J^*(y)}\Omega_j^{\alpha^\flat_K}$. Under
# uniqueness this is the same set: $J^*(x) \subseteq I_x^{\alpha^\flat_K}$ always holds, so $x$ has an
# extra active element iff $|I_x^{\alpha^\flat_K}| > n$, and such an $x$ lies in some $\Omega_j$ with
# $j \notin J^*(y)$, whatever $y$ is. Hence $K_i^\sharp = \{x \in K_i : |I_x^{\alpha^\flat_K}| = n\}$, the
# description used in the code below.) The next example shows that $K_i^\sharp$ can be empty.
#
# **[ex:a]** The frame
# $\Phi = \big(e_1,\ \tfrac{1}{\sqrt2}(e_1+e_2),\ e_2,\ -e_1,\ -e_2\big)$ on $K = \mathbb{B}$ has
# $\alpha^\flat_{\mathbb{B}} = \mathbf 0$. It is $\le \mathbf 0$ because every $K_i$ reaches the origin (each $\phi_i$
# belongs to $J^*(x)$ for points $x$ of every small norm, with $\langle x, \phi_i\rangle \le \|x\|$). It is
# $\ge \mathbf 0$ because the frame contains $\pm e_1$ and $\pm e_2$: at every $x$ the basis
# $(\operatorname{sign}(x_1)e_1, \operatorname{sign}(x_2)e_2)$ has coefficients $|x_1|, |x_2| \ge 0$, so the most
# correlated basis, whose weakest coefficient is at least as large, has no negative coefficient. The set $K_2$ is a sector of
# half-angle $3\pi/8$ around $\phi_2$, and everywhere on it at least three elements are active for
# $\alpha = \mathbf 0$, one more than a basis needs. So $K_2^\sharp = \emptyset$: the element $\phi_2$ is
# redundant. Without it the $\pm$ basis is still $\mathbf 0$-rectifying, and the bias of $\phi_2$ can be
# raised as far as we like.
#
# Check: both halves of $\alpha^\flat = \mathbf 0$ on a polar grid — every coefficient of $J^*(x)$ is at least
# $\min(|x_1|, |x_2|) \ge 0$, and every $K_i$ has grid points at radius $0.01$, where its coefficient is at
# most $0.01$ (and the grid scales down to any radius); the sampled $\alpha^\flat$ approaches $\mathbf 0$ from
# above; $K_2$ is the sector around $\phi_2$ on the polar grid (away from the rays where $J^*$ ties); at
# least three elements are active on all of $K_2$; removing $\phi_2$, or giving it the bias 10, keeps the
# layer rectifying.

# %%
Fa = rf.zoo.example_a()
flat_a = rf.sampling_bias(Fa, rf.Ball(2), n_samples=N, seed=SEED, progress=False)
assert np.all(flat_a.values >= 0) and np.all(flat_a.values < 0.05)
theta = np.linspace(-np.pi, np.pi, 3601)[:-1]
rad = np.linspace(0.01, 1.0, 40)
P = (rad[:, None, None] * np.stack([np.cos(theta), np.sin(theta)], axis=-1)[None]).reshape(-1, 2)
J, ties = rf.most_correlated_basis(Fa, P, return_ties=True)
coef_J = np.take_along_axis(P @ Fa.vectors.T, J, axis=1)  # the coefficients of J*(x)
assert np.all(coef_J.min(axis=1) >= np.abs(P).min(axis=1) - 1e-12)  # >= min(|x1|, |x2|) >= 0: alpha_flat >= 0
near_0 = np.linalg.norm(P, axis=1) <= 0.01 + 1e-12
for i in range(Fa.m):  # every K_i reaches the origin: alpha_flat_i <= 0.01 on this grid, <= 0 in the limit
    in_Ki = np.any(J == i, axis=1) & near_0
    assert in_Ki.any() and np.all(coef_J[in_Ki][J[in_Ki] == i] <= 0.01 + 1e-12)
in_K2 = np.any(J == 1, axis=1)
t_P = np.angle(P[:, 0] + 1j * P[:, 1])
sector = np.abs(np.angle(np.exp(1j * (t_P - np.pi / 4)))) <= 3 * np.pi / 8  # around phi_2 (angle pi/4)
assert np.array_equal(in_K2[~ties], sector[~ties])
L0a = rf.ReLULayer(Fa, 0.0)
assert np.all(L0a.active_set(P[in_K2]).sum(axis=1) >= 3)  # an extra active element everywhere on K_2
L_drop = rf.ReLULayer(np.delete(Fa.vectors, 1, axis=0), 0.0)  # drop phi_2
assert rf.check_rectifying(L_drop, rf.RealSpace(2), n_samples=N, seed=SEED).rectifying
L_raise = rf.ReLULayer(Fa, [0.0, 10.0, 0.0, 0.0, 0.0])  # or raise its bias to 10
assert rf.check_rectifying(L_raise, rf.Ball(2), n_samples=N, seed=SEED).rectifying
print("α♭ (sampled):", flat_a.values, f"| K_2 covers {in_K2.mean():.1%} of the polar grid")

# %% [markdown]
# ### Erratum: the set $K_2$ in Example a
#
# **Printed:** $K_2 = \{s(\cos t, \sin t) : t \in [-\tfrac{3\pi}8, \tfrac{3\pi}8],\ s \in [0,1]\}$, a sector
# centred at $e_1$.
#
# **Correct:** the sector is centred at $\phi_2$, which sits at angle $\pi/4$, so
# $t \in [-\tfrac{\pi}8, \tfrac{5\pi}8]$. For $t$ just below $-\pi/8$ the coefficient $-\sin t$ of $-e_2$
# overtakes the coefficient $\cos(t - \pi/4)$ of $\phi_2$ in the race for second place behind $e_1$.
#
# Counterexample to the printed set: $x = (\cos(-\tfrac\pi4), \sin(-\tfrac\pi4))$ lies in it, but its
# coefficients are $(0.71, 0, -0.71, -0.71, 0.71)$, so $J^*(x) = \{1, 5\}$, which does not contain 2. And
# $t = \tfrac{5\pi}8 - 0.01$ lies outside the printed set, yet $2 \in J^*(x)$ there. The figure below
# draws both sectors.

# %%
x_in_printed = np.array([np.cos(-np.pi / 4), np.sin(-np.pi / 4)])
x_out_printed = np.array([np.cos(5 * np.pi / 8 - 0.01), np.sin(5 * np.pi / 8 - 0.01)])
assert abs(-np.pi / 4) <= 3 * np.pi / 8 < abs(5 * np.pi / 8 - 0.01)  # first in, second out of the printed sector
Jin, tin = rf.most_correlated_basis(Fa, x_in_printed, return_ties=True)
Jout, tout = rf.most_correlated_basis(Fa, x_out_printed, return_ties=True)
assert set(Jin) == {0, 4} and not tin  # J* = {1, 5}: the printed K_2 contains a point outside K_2
assert 1 in Jout and not tout  # and misses a point of K_2
for t in (-np.pi / 8 + 0.01, np.pi / 4, 5 * np.pi / 8 - 0.01):  # inside the corrected sector
    assert 1 in rf.most_correlated_basis(Fa, [np.cos(t), np.sin(t)])
for t in (-np.pi / 8 - 0.01, 5 * np.pi / 8 + 0.01):  # just outside it
    assert 1 not in rf.most_correlated_basis(Fa, [np.cos(t), np.sin(t)])
print("printed sector: wrong at t = -π/4 and at t = 5π/8 - 0.01; corrected: t ∈ [-π/8, 5π/8]")

# %% [markdown]
# **[fig:fig3]** (right panel) Figure 3 of the paper, right: the set $K_2 = \{x \in \mathbb{B} : 2 \in J^*(x)\}$
# of Example a, redrawn with the corrected sector; the dashed rays bound the printed one. The left and
# middle panels (maximal domains) are in [04_maximal_domain](04_maximal_domain.ipynb). Next to it, the
# number of active elements for $\alpha = \mathbf 0$: it is at least 3 on all of $K_2$, which is why
# $K_2^\sharp$ is empty.
#
# Check of the picture: on the drawing grid, $K_2$ is the sector $|\angle(x, \phi_2)| \le 3\pi/8$ (away
# from the tie rays on its edges), a fraction $3/8$ of the ball; the active count on $K_2$ is at least 3.

# %%
box = (-1.5, 1.5, -1.5, 1.5)
B = rf.Ball(2)
fig = Figure(figsize=(9.0, 4.4), layout="constrained")
ax_k2, ax_cnt = fig.subplots(1, 2)
plane.draw_correlated_partition(ax_k2, Fa, domain=B, element=1, extent=box, resolution=RES)
plane.draw_domain(ax_k2, B)
plane.draw_frame_vectors(ax_k2, Fa)
for t, style in [(-np.pi / 8, "-"), (5 * np.pi / 8, "-"), (-3 * np.pi / 8, "--"), (3 * np.pi / 8, "--")]:
    ax_k2.plot([0, 1.4 * np.cos(t)], [0, 1.4 * np.sin(t)], style, color=palette.INK, lw=1.0)
ax_k2.plot([], [], "--", color=palette.INK, lw=1.0, label=r"printed: $|t| \leq 3\pi/8$")
ax_k2.plot([], [], "-", color=palette.INK, lw=1.0, label=r"correct: $t \in [-\pi/8, 5\pi/8]$")
ax_k2.legend(loc="lower left", fontsize=8, framealpha=0.9)
ax_k2.set_title(r"[fig:fig3] right: Example a, $K_2=\{x\in\mathbb{B}: 2\in J^*(x)\}$", fontsize=10)
plane.draw_active_count(ax_cnt, L0a, domain=B, extent=box, resolution=RES, colorbar=True)
plane.draw_domain(ax_cnt, B)
plane.draw_frame_vectors(ax_cnt, Fa)
ax_cnt.set_title(r"Example a: active elements for $\alpha=\mathbf{0}$", fontsize=10)
readable(fig)  # text that reads at 9 px or more where the book shows it

# %%
G = plane.grid_points(box, resolution=RES)
Bg = G[B.contains(G) & (np.linalg.norm(G, axis=1) > 1e-9)]
Jg, ties_g = rf.most_correlated_basis(Fa, Bg, return_ties=True)
in_K2_g = np.any(Jg == 1, axis=1)
angle = np.abs(np.angle((Bg[:, 0] + 1j * Bg[:, 1]) * np.exp(-1j * np.pi / 4)))  # angle to phi_2
assert np.array_equal(in_K2_g[~ties_g], (angle <= 3 * np.pi / 8)[~ties_g])
assert abs(in_K2_g.mean() - 0.375) < 0.02
assert np.all(plane.active_counts(L0a, Bg[in_K2_g]) >= 3)
print(f"K_2 on the drawing grid: {in_K2_g.mean():.1%} of the ball (a sector of half-angle 3π/8 is 37.5%)")

# %% [markdown]
# ## 4. Bias-exact domains and the maximal bias
#
# **[def:uniquemaxa]** $K$ is **bias-exact** for $\Phi$ if $K_i^\sharp \ne \emptyset$ for every $i$: each element
# has some input where it is indispensable.
#
# For a basis the definition says nothing: $J^*(x)$ is the whole basis and nothing else can be active,
# so $K_i^\sharp = K_i = K$ (and $\alpha^\sharp$ is Lemma B_r). The interesting cases are redundant frames.
#
# Check, with $K_i^\sharp = \{x \in K_i : \text{exactly } n \text{ elements active for } \alpha^\flat_K\}$: Example a
# on $\mathbb{B}$ is not bias-exact ($K_2^\sharp$ has no point of the dense polar grid); the triangle frame on
# $\mathbb{B}$ is (each $K_i^\sharp$ has points); and so is a random frame of six vectors in $\mathbb{R}^3$ on a
# finite data set $X$ of the ball, where everything is exact: $J^*$ is unique at every point of $X$,
# $\alpha^\flat_X$ is computed on $X$ itself, and every $K_i^\sharp$ has points but is a proper part of $K_i$ (at
# the other points of $K_i$ an element outside $J^*(x)$ is active too).

# %%
def k_sharp_points(frame, alpha_flat, X):
    """For each element i, the points of X in K_i^sharp (i in J*(x), exactly n elements active)."""
    J = rf.most_correlated_basis(frame, X)
    exact_n = rf.ReLULayer(frame, alpha_flat).active_set(X).sum(axis=1) == frame.n
    return [X[np.any(J == i, axis=1) & exact_n] for i in range(frame.m)]


Ka = k_sharp_points(Fa, np.zeros(5), P)
assert len(Ka[1]) == 0 and all(len(Ka[i]) > 0 for i in (0, 2, 3, 4))
Kt = k_sharp_points(Ftri, np.full(3, -0.5), rf.Ball(2).sample(N, seed=SEED))
assert all(len(k) > 0 for k in Kt)
F6 = rf.zoo.random_sphere(6, 3, seed=SEED + 600)
X6 = rf.Ball(3).sample(5000, seed=SEED)
J6, ties6 = rf.most_correlated_basis(F6, X6, return_ties=True)
assert not ties6.any()  # J* unique on X
flat6 = rf.sampling_bias(F6, X6, progress=False)  # alpha_flat of X, exact
assert flat6.is_guarantee and not flat6.irrelevant.any()
K6 = k_sharp_points(F6, flat6.values, X6)
K6_all = [int(np.any(J6 == i, axis=1).sum()) for i in range(F6.m)]
assert all(0 < len(K6[i]) < K6_all[i] for i in range(F6.m))  # non-empty, and a proper part of K_i
print("Example a: K_2♯ has no grid point (not bias-exact); triangle: every K_i♯ is non-empty")
print("six vectors in R^3 on a data set of 5000 points: |K_i♯| =", [len(k) for k in K6], "of |K_i| =", K6_all)

# %% [markdown]
# **[thm:maxa]** If $J^*$ is unique on $K$ and $K$ is bias-exact, then
# $$(\alpha^\sharp_K)_i = \inf_{x\in K_i^\sharp}\langle x,\phi_i\rangle$$
# is the **maximal bias**: $\Phi$ is $\alpha$-rectifying on $K$ if and only if $\alpha \le \alpha^\sharp_K$.
# Raising entry $i$ by any $\varepsilon > 0$ fails at a point $x_0 \in K_i^\sharp$ whose coefficient with
# $\phi_i$ is within $\varepsilon$ of the infimum: there only $J^*(x_0) \setminus \{i\}$ is active,
# $n - 1$ elements.
#
# Check, in settings where the hypotheses hold: for a basis on $\mathbb{B}$, $\alpha^\sharp = -(\|\phi_i\|)_i$,
# attained at $x_0 = -\phi_i/\|\phi_i\|$ (Lemma B_r, [03_properties_of_frames](03_properties_of_frames.ipynb)).
# Sampling reproduces it; random biases $\alpha \le \alpha^\sharp$ all pass; $\alpha^\sharp + \varepsilon e_i$ fails
# at $x_0$ with exactly $n - 1$ active elements. The triangle frame ($\alpha^\sharp = -\tfrac12$) behaves the
# same, with $x_0$ on the circle just past $\phi_j$, turned towards $\phi_i$. Without bias-exactness no
# such threshold exists: in Example a the bias of $\phi_2$ went up to 10 above.

# %%
Fb = rf.zoo.gaussian(3, 3, seed=SEED)  # a basis: K_i♯ = K, and Lemma B_r gives alpha♯
Xb = rf.Ball(3).sample(N, seed=SEED)
a_sharp = -Fb.norms
flat_b = rf.sampling_bias(Fb, rf.Sphere(3), n_samples=N, seed=SEED, progress=False)
np.testing.assert_allclose(flat_b.values, a_sharp, rtol=0.02)  # for a basis alpha^flat = alpha^sharp
for t in range(TRIALS):
    a = a_sharp - rng.exponential(0.3, size=3) * (rng.random(3) < 0.7)
    assert np.all(rf.is_rectifying(rf.ReLULayer(Fb, a), np.vstack([Xb, rf.Sphere(3).sample(2000, seed=t)])))
eps = 1e-6
for i in range(3):
    a = a_sharp.copy()
    a[i] += eps
    x0 = -Fb.vectors[i] / Fb.norms[i]
    L = rf.ReLULayer(Fb, a)
    assert L.active_set(x0).sum() == 2 and not rf.is_rectifying(L, x0)

for i in range(3):  # triangle: raise element i, fail just past phi_j, turned towards phi_i
    j = (i + 1) % 3
    a = np.full(3, -0.5)
    a[i] += eps
    tj, ti = (np.angle(complex(*Ftri.vectors[k])) for k in (j, i))
    step = np.angle(np.exp(1j * (ti - tj)))  # signed angle from phi_j to phi_i
    x0 = np.array([np.cos(tj + 1e-7 * np.sign(step)), np.sin(tj + 1e-7 * np.sign(step))])
    L = rf.ReLULayer(Ftri, a)
    assert L.active_set(x0).sum() == 1 and not rf.is_rectifying(L, x0)
    assert rf.is_rectifying(L.with_bias(-0.5), x0)
print("α♯ of a basis:", a_sharp, "| every α ≤ α♯ passes; raising one entry by 1e-6 fails (basis and triangle)")

# %% [markdown]
# ## 5. The main theorem
#
# Everything so far comes together in the paper's main theorem. It needs the maximal domain
# $\mathcal K^*_\alpha$ of [04_maximal_domain](04_maximal_domain.ipynb) and the maximal bias $\alpha^\sharp_K$ above.
#
# **[thm:bigthm]** Let $\Phi$ be a frame, $\alpha \in \mathbb{R}^m$ and $K \ne \emptyset$. Assume that $J^*(x)$ is
# unique for every $x \in K$, that $K$ is open or strictly convex, and that $K$ is bias-exact for $\Phi$.
# Then the following four verdicts agree:
#
# 1. $C_\alpha$ is injective on $K$;
# 2. $\Phi$ is $\alpha$-rectifying on $K$ (Injectivity I and II, [02_injectivity](02_injectivity.ipynb));
# 3. $K \subseteq \mathcal K^*_\alpha$ (Theorem "Maximal domain");
# 4. $\alpha \le \alpha^\sharp_K$ (Theorem "Maximal bias").
#
# **When do the assumptions hold?** Uniqueness is more demanding than it looks. Ties occur wherever the
# $n$-th and $(n+1)$-th largest coefficients are equal, and at $x = 0$ whenever $m > n$ (every basis has
# weakest coefficient 0 there). Moreover $J^*$ can only change across a tie: the weakest coefficient of
# each basis is continuous in $x$, so where one basis is strictly best it stays best nearby. On a
# *connected* $K$ with unique $J^*$ the most correlated basis is therefore one fixed basis, the other
# $m - n$ elements lie in no $J^*(x)$, and $K$ is not bias-exact. For a redundant frame the theorem
# speaks about domains in several pieces.
#
# * Setting A: a **basis** ($m = n$), a random one of $\mathbb{R}^3$ (not normalized), on the closed unit ball
#   (strictly convex). $J^*$ is the whole basis, $K_i^\sharp = K_i = K$, and
#   $\alpha^\sharp_{\mathbb{B}_r} = -r\,(\|\phi_i\|)_i$.
# * Setting B: the **triangle frame** on the open set
#   $K = \mathbb{B}^\circ \setminus ([0,\phi_1] \cup [0,\phi_2] \cup [0,\phi_3])$, the open unit disk cut along the
#   three radii through the frame vectors: three open sectors. The triangle's ties lie on the cuts (at
#   $x = t\phi_i$ the other two coefficients are equal) and at the removed origin, so on the sector
#   between $\phi_j$ and $\phi_k$ the most correlated basis is $\{j, k\}$, uniquely. Each element belongs to
#   $J^*$ on two sectors, and $K_i^\sharp \ne \emptyset$: in the middle of a sector at radius $> \tfrac12$ the third
#   coefficient is below $-\tfrac12$, so exactly two elements are active for $\alpha^\flat = -\tfrac12$. The
#   infimum $\alpha^\sharp = -\tfrac12$ is approached at the outer ends of the cuts (not attained: $K$ is open). So
#   every hypothesis holds. (On the whole ball they fail at the origin and on the three radii.)
#
# Check: the hypotheses of Setting B on samples of $K$, including points within $10^{-6}$ of the cuts and of
# the circle: $J^*$ is unique at every sample, every $K_i^\sharp$ has sample points, and the sampled
# $\alpha^\sharp$ lies in $[-\tfrac12, -\tfrac12 + 0.01]$. Then each verdict by its own computation. (1) a verified
# colliding pair from `find_collision` whose two points lie in $K$ (a proof of non-injectivity), or else
# exact reconstruction of all samples from their outputs; (2) the rank test on the samples of $K$;
# (3) membership in $\bigcup_J\bigcap_{i\in J}\Omega_i^\alpha$ by enumerating the bases; (4) comparison with
# $\alpha^\sharp$ (Setting A: $-(\|\phi_i\|)_i$, confirmed by sampling).

# %%
def verdicts(layer, X, K_pairs, member, alpha_sharp, seed=SEED):
    """The four verdicts of the main theorem on samples X of K, each computed its own way.

    Colliding pairs are searched in the ball K_pairs (which contains K) and must lie in K (``member``).
    """
    coll = rf.find_collision(layer, K_pairs, n_samples=N, seed=seed)
    if coll.found:  # a pair in K: a proof that the layer is not injective on K
        assert member(coll.x) and member(coll.y)
    else:  # no collision: confirm injectivity on the samples with an explicit left inverse
        np.testing.assert_allclose(rf.reconstruct(layer, layer(X)), X, atol=1e-9)
    rect = bool(rf.is_rectifying(layer, X).all())
    in_max = bool(rf.in_maximal_domain(layer, X).all())
    below = bool(np.all(layer.alpha <= alpha_sharp + 1e-12))
    return (not coll.found, rect, in_max, below)


def show(name, v):
    print(f"   {name:<14}" + "".join(f"{str(b):>11}" for b in v))


K = rf.Ball(3)
Fbig = rf.zoo.gaussian(3, 3, seed=SEED + 800)
a_sharp = -K.radius * Fbig.norms
est = rf.sampling_bias(Fbig, rf.Sphere(3), n_samples=N, seed=SEED, progress=False)  # J* = the basis: α♭ = α♯
np.testing.assert_allclose(est.values, a_sharp, rtol=0.05)
assert np.all(est.values >= a_sharp - 1e-12)  # sampling approaches from above
XA = np.vstack([K.sample(N, seed=SEED), rf.Sphere(3).sample(N, seed=SEED + 1)])

biases_A = {
    "α♯ - 0.3": a_sharp - 0.3,
    "α♯": a_sharp,
    "α♯ + 0.4 e1": a_sharp + [0.4, 0, 0],
    "α♯ + 0.4 e3": a_sharp + [0, 0, 0.4],
    "0": np.zeros(3),
}
print("A: random basis of R^3 on the unit ball; α♯ =", a_sharp.round(4))
print(f"   {'bias':<14}{'injective':>11}{'rectifying':>11}{'K ⊆ K*_α':>11}{'α ≤ α♯':>11}")
for name, a in biases_A.items():
    v = verdicts(rf.ReLULayer(Fbig, a), XA, K, K.contains, a_sharp)
    assert len(set(v)) == 1, (name, v)  # the four verdicts agree
    show(name, v)


# %%
def in_slit_disk(X):
    """K of Setting B: the open unit disk without the three radii [0, phi_i] of the triangle frame."""
    X = np.atleast_2d(X)
    cross = X[:, :1] * Ftri.vectors[:, 1] - X[:, 1:] * Ftri.vectors[:, 0]  # (N, 3): zero on the line of phi_i
    on_cut = np.any((np.abs(cross) <= 1e-12) & (X @ Ftri.vectors.T >= 0), axis=1)
    return (np.linalg.norm(X, axis=1) < 1) & ~on_cut


t_cut = np.angle(Ftri.vectors[:, 0] + 1j * Ftri.vectors[:, 1])  # the angles of the cuts
near = np.concatenate([t_cut + d for d in (-1e-6, 1e-6)])
r_near = np.random.default_rng(SEED).uniform(0.0, 1.0, size=(2000, near.size))
XB = np.vstack([
    rf.Ball(2).sample(N, seed=SEED),
    rf.Sphere(2, 1 - 1e-6).sample(N, seed=SEED + 1),  # near the circle
    (r_near[..., None] * np.stack([np.cos(near), np.sin(near)], axis=-1)).reshape(-1, 2),  # near the cuts
])
assert np.all(in_slit_disk(XB))
JB, tiesB = rf.most_correlated_basis(Ftri, XB, return_ties=True)
assert not tiesB.any()  # J* unique on K
flatB = rf.sampling_bias(Ftri, XB, progress=False)  # alpha_flat of the samples (exact on them)
KB = k_sharp_points(Ftri, np.full(3, -0.5), XB)
assert all(len(k) > 0 for k in KB)  # bias-exact
sharpB = np.array([np.min(KB[i] @ Ftri.vectors[i]) for i in range(3)])  # alpha_sharp sampled on K_i♯
assert np.all(-0.5 <= flatB.values) and np.all(-0.5 <= sharpB) and np.all(sharpB <= -0.5 + 0.01)

biases_B = {
    "-0.7": -0.7,
    "-0.5": -0.5,
    "-(½,½,0.3)": [-0.5, -0.5, -0.3],
    "-0.45": -0.45,
    "0": 0.0,
}
print("B: triangle frame on the cut open disk; α♯ = -1/2 (sampled on K♯:", sharpB.round(4), ")")
print(f"   {'bias':<14}{'injective':>11}{'rectifying':>11}{'K ⊆ K*_α':>11}{'α ≤ α♯':>11}")
for name, a in biases_B.items():
    v = verdicts(rf.ReLULayer(Ftri, a), XB, rf.Ball(2, 1 - 1e-9), in_slit_disk, np.full(3, -0.5))
    assert len(set(v)) == 1, (name, v)
    show(name, v)

J0, tie0 = rf.most_correlated_basis(Ftri, np.zeros(2), return_ties=True)
assert tie0 and not in_slit_disk(np.zeros(2))  # m > n: J*(0) is never unique, and 0 is not in K

# %% [markdown]
# ## What we saw
#
# - The most correlated basis $J^*(x)$ is found by a greedy rule (the bases form a matroid), and it
#   matches a brute-force search over all bases, also for frames that are not full spark.
# - The largest constant bias is $\alpha_c = \inf_K \min_{J^*(x)}\langle x,\phi_j\rangle$; the per-element bias
#   $\alpha^\flat_K$ (the minimum of $\langle x, \phi_i\rangle$ over the piece $K_i$) is always rectifying.
# - Example a shows why $\alpha^\flat$ need not be maximal: on all of $K_2$ some element other than the basis
#   is active, so $\phi_2$ is redundant and its bias can go up freely. The paper's $K_2$ is centred at
#   the wrong vector; the correct sector is $t \in [-\pi/8, 5\pi/8]$.
# - On bias-exact domains (every $K_i^\sharp$ non-empty) $\alpha^\sharp_K$ is the exact threshold: raising any one
#   entry by $10^{-6}$ breaks the rectifying property.
# - The main theorem's four verdicts (injective, rectifying, inside the maximal domain, below the
#   maximal bias) agree where its assumptions hold: for a basis on the ball, and for the triangle frame on
#   the open disk cut along its three radii. For a redundant frame the assumptions force a domain in
#   several pieces, since $J^*$ can change only across a tie.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb05.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 5.1 — The largest constant bias
#
# The frame `ex.nb05.frame_5_1()` has five unit vectors at $20^\circ, 70^\circ, 110^\circ, 205^\circ, 330^\circ$.
# Find the largest constant bias $r$ for which it is $\mathbf r$-rectifying on the closed unit ball, rounded
# *down* to three decimals, and set `answer_5_1` to it. (`rf.max_constant_bias` on samples over-estimates
# a little; where is the infimum attained, and why is it not $0$ although $0 \in \mathbb{B}$?)

# %% tags=["answer"]
answer_5_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F51 = ex.nb05.frame_5_1()
assert F51.is_full_spark()  # J*(u) = the two largest coefficients
t51 = np.linspace(0.0, 2 * np.pi, 200_000, endpoint=False)
U51 = np.column_stack([np.cos(t51), np.sin(t51)])
second = np.sort(U51 @ F51.vectors.T, axis=1)[:, -2]  # weakest coefficient of J*(u); 1-Lipschitz in the angle
a51 = min(0.0, second.min())  # the origin contributes 0; on the ball the value is homogeneous in |x|
answer_5_1 = np.floor(a51 * 1000) / 1000  # the grid spacing 3e-5 cannot move it past a multiple of 1e-3 here
print(f"alpha_c ≈ {a51:.6f} at u = {U51[np.argmin(second)].round(4)}; sampled: "
      f"{rf.max_constant_bias(F51, rf.Ball(2), n_samples=N, seed=SEED):.6f} (over-estimate)")  # fmt: skip
for r in (answer_5_1, answer_5_1 + 0.001):
    print(f"r = {r:.3f}:", rf.check(rf.ReLULayer(F51, r), rf.Ball(2), method="exact").status)
# alpha_c < 0: in the direction u the frame has a single coefficient >= 0, so the second one is negative and the
# bias must go below it. The origin (every coefficient 0) only caps alpha_c at 0.
ex.solution("5.1", answer_5_1)

# %% tags=["check"]
ex.nb05.check_5_1(answer_5_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 5.2 — A most correlated basis by hand
#
# The frame `ex.nb05.frame_5_2()` has the rows $e_1$, $2e_1$, $e_2$, $(e_1 + e_2)/\sqrt2$, $e_3$,
# $(1, 1, 1)/\sqrt3$, $(-1, 0.5, 0.2)$; the point is $x = (0.9, 0.5, 0.1)$ (`ex.nb05.X_5_2`). Run the greedy
# rule of section 1 yourself (sort the coefficients, keep a row when it raises the rank of the rows kept),
# set `answer_5_2` to the numbers of the three elements you get, counted from 1 as in the text ($\phi_1, \dots,
# \phi_7$), and compare with `rf.most_correlated_basis` (which returns code indices, from 0). Why are the three
# largest coefficients not the answer?

# %% tags=["answer"]
answer_5_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F52, x52 = ex.nb05.frame_5_2(), np.array(ex.nb05.X_5_2)
c52 = F52.vectors @ x52
kept = []
for i in np.argsort(-c52):  # decreasing coefficients
    if np.linalg.matrix_rank(F52.vectors[kept + [int(i)]]) > len(kept):
        kept.append(int(i))
    if len(kept) == F52.n:
        break
answer_5_2 = [i + 1 for i in kept]  # element numbers, from 1 as in the text
print("coefficients", c52.round(3), "| greedy:", answer_5_2, "| library (+1):",
      (rf.most_correlated_basis(F52, x52) + 1).tolist())  # fmt: skip
# The three largest are phi_2, phi_4, phi_1, but phi_1 and phi_2 are parallel: not a basis.
ex.solution("5.2", answer_5_2)

# %% tags=["check"]
ex.nb05.check_5_2(answer_5_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 5.3 — Redundant elements of a data set
#
# On a finite data set everything of section 4 is exact. Take the frame `ex.nb05.frame_5_3()` (six random
# unit vectors in $\mathbb{R}^2$) and the data set `ex.nb05.data_5_3()` (400 points of the unit ball). Which
# elements have an empty set $K_i^\sharp$, i.e. are redundant, so that the data set is not bias-exact? Set
# `answer_5_3` to the list of their numbers, counted from 1 as in the text ($\phi_1, \dots, \phi_6$).

# %% tags=["answer"]
answer_5_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F53, X53 = ex.nb05.frame_5_3(), ex.nb05.data_5_3()
J53, ties53 = rf.most_correlated_basis(F53, X53, return_ties=True)
assert not ties53.any()  # J* unique on the data set
flat53 = rf.sampling_bias(F53, X53, progress=False)  # alpha_flat of the data set, exact
K53 = k_sharp_points(F53, flat53.values, X53)
answer_5_3 = [i + 1 for i in range(F53.m) if len(K53[i]) == 0]  # element numbers, from 1 as in the text
print("points in K_i♯ (i = 1, ..., 6):", [len(k) for k in K53], "-> redundant:", answer_5_3)
ex.solution("5.3", answer_5_3)

# %% tags=["check"]
ex.nb05.check_5_3(answer_5_3)

# %%
print("05_maximal_bias: all checks passed")
