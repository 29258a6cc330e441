# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 — Domain and bias: the maximal domain
#
# Whether a ReLU layer loses information depends on three things at once: the weights, the bias and
# the set $K$ the inputs come from. Shrinking $K$ or lowering $\alpha$ can only help
# ([01_frames_and_relu_layers](01_frames_and_relu_layers.ipynb)). This notebook looks at how domain
# and bias interact and answers the first of the paper's two dual questions with an explicit
# **maximal domain**.
#
# **What you will learn**
#
# * how scaling the domain and the bias together preserves the property, and what $0 \in K$ forces
#   on the bias;
# * the questions Q1 (largest domain for a given bias) and Q2 (largest bias for a given domain);
# * the answer to Q1: $\mathcal K^*_\alpha$ is a union, over the bases inside the frame, of
#   intersections of half-spaces;
# * what $\mathcal K^*_\alpha$ looks like in the plane (Figure 3, left and middle).
#
# | tag | item |
# |---|---|
# | `[prop:K]` | scaling domain and bias together; $0 \in K$ forces $n$ non-positive biases |
# | `[thm:bas]` | the maximal domain $\mathcal K^*_\alpha = \bigcup_J \bigcap_{i\in J}\Omega_i^\alpha$ |
# | `[fig:fig3]` | Figure 3, left and middle: maximal domains of the triangle frame and of a random frame |
#
# The right panel of Figure 3 (the set $K_2$ of Example "a") belongs to the answer to Q2 and is drawn
# in [05_maximal_bias](05_maximal_bias.ipynb).

# %%
# %matplotlib inline
import itertools

import numpy as np
from matplotlib.figure import Figure
from scipy.optimize import linprog

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240202
N = 200_000 if FULL else 20_000  # samples for checks "on the domain"
TRIALS = 200 if FULL else 40  # random layers for statements "for every frame and bias"
RES = 601 if FULL else 241  # grid resolution of the pictures and grid checks
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. Scaling
#
# **[prop:K]** Let $\Phi$ be $\alpha$-rectifying on $K$.
#
# 1. $\Phi$ is $(r\alpha)$-rectifying on $rK$ for every $r > 0$: the active set of $rx$ for $r\alpha$
#    is the active set of $x$ for $\alpha$.
# 2. If $\alpha \ge 0$, $\Phi$ stays $\alpha$-rectifying on $rK$ for $r \ge 1$: moving away from the
#    origin only raises positive coefficients above non-negative thresholds.
# 3. If $0 \in K$, at least $n$ entries of $\alpha$ are $\le 0$: at $x = 0$ the active elements are
#    those with $\alpha_i \le 0$, and they must span.
#
# Check: (1) and (2) point by point for random layers; the sign condition in (2) matters (the
# triangle frame is $(-\tfrac12)$-rectifying on $\mathbb{B}$ but not on $\mathbb{B}_2$); (3) for random
# biases, whenever the layer is rectifying at the origin.

# %%
at_zero = 0
for t in range(TRIALS):
    m, n = int(rng.integers(3, 8)), 2 + t % 2
    F = rf.zoo.random_sphere(m, n, seed=SEED + t)
    a = rng.normal(0.0, 0.5, size=m)
    L = rf.ReLULayer(F, a)
    X = rf.Ball(n, 2.0).sample(2000, seed=t)
    r = float(rng.uniform(0.1, 5.0))
    assert np.array_equal(L.active_set(X), L.with_bias(r * a).active_set(r * X))
    assert np.array_equal(rf.is_rectifying(L, X), rf.is_rectifying(L.with_bias(r * a), r * X))  # (1)
    Lpos = L.with_bias(np.abs(a))
    ok = rf.is_rectifying(Lpos, X)
    assert np.all(rf.is_rectifying(Lpos, (1.0 + r) * X)[ok])  # (2): alpha >= 0, scaling by 1 + r >= 1
    if rf.is_rectifying(L, np.zeros(n)):  # (3)
        at_zero += 1
        assert np.sum(a <= 0) >= n
assert at_zero > 0

Ltri = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
assert rf.check_rectifying(Ltri, rf.Ball(2), n_samples=N, seed=SEED).rectifying
assert rf.check_rectifying(Ltri.with_bias(-1.0), rf.Ball(2, 2.0), n_samples=N, seed=SEED).rectifying  # (1) with r = 2
assert not rf.check_rectifying(Ltri, rf.Ball(2, 2.0), n_samples=N, seed=SEED).rectifying  # (2) needs alpha >= 0
print(f"scaling checked on {TRIALS} random layers; {at_zero} of them rectifying at 0, each with >= n biases <= 0")

# %% [markdown]
# ## 2. Two dual questions
#
# The scaling lemma shows that domain and bias trade against each other. The paper asks:
#
# * **Q1** — given a bias $\alpha$, what is the largest domain $K$ on which $\Phi$ is
#   $\alpha$-rectifying?
# * **Q2** — given a domain $K$, what is the largest bias $\alpha$ for which $\Phi$ is
#   $\alpha$-rectifying on $K$? (Answered in [05_maximal_bias](05_maximal_bias.ipynb), estimated in
#   [06_sampling](06_sampling.ipynb) and [07_polytope_bias](07_polytope_bias.ipynb).)
#
# Q1 has a complete answer. A point $x$ is a rectifying point iff its active elements contain a
# basis, i.e. iff $x$ lies in all half-spaces $\Omega_i^\alpha$ of *some* basis $\Phi_J$ inside the frame.
#
# ## 3. The maximal domain
#
# **[thm:bas]** The largest set on which $\Phi$ is $\alpha$-rectifying is
# $$\mathcal K^*_\alpha = \bigcup_{J \subseteq \{1,\dots,m\},\ \Phi_J \text{ basis}}\ \bigcap_{i\in J}\Omega_i^\alpha ,$$
# so $\Phi$ is $\alpha$-rectifying on $K$ iff $K \subseteq \mathcal K^*_\alpha$.
#
# Two consequences: a unit-norm frame is $\alpha$-rectifying on $\mathbb{B}_r$ iff $r$ does not exceed
# the distance from the origin to the complement of $\mathcal K^*_\alpha$; and for $\alpha = 0$ the set
# $\mathcal K^*_0$ is a union of cones, so being $\mathbf 0$-rectifying on a small ball is the same as
# on all of $\mathbb{R}^n$ — not so for negative biases (the triangle at $-\tfrac12$).
#
# Check: the union formula (`rf.in_maximal_domain` enumerates the bases) and the rank test
# (`rf.is_rectifying`) agree at every grid or sample point, for random frames in $\mathbb{R}^2$ and
# $\mathbb{R}^3$, with and without parallel vectors; the radius of the largest ball inside
# $\mathcal K^*_\alpha$ decides the ball test; and the exact zero-bias test `rf.zero_bias_injective`
# on $\mathbb{R}^2$ agrees with the sampled test on a ball of radius $10^{-2}$.
#
# The radius of the largest ball is computed exactly, not sampled. In the plane the lines
# $\langle x,\phi_i\rangle = \alpha_i$ cut $\mathbb{R}^2$ into open cells, and the active set is constant on
# each. The complement of $\mathcal K^*_\alpha$ is open; its closure is the union of the closed cells whose
# active set does not span. For every sign pattern one LP tells whether its cell is non-empty (the
# largest margin $t$ with $\pm(\langle x,\phi_i\rangle - \alpha_i) \ge t$); for a non-spanning cell the nearest
# point to $0$ of the closed cell (a polygon) is $0$, the foot of the perpendicular from $0$ on one of its
# lines, or a vertex where two lines meet — whichever of these lies in the cell and is shortest. The
# smallest of these distances is $r^* = \operatorname{dist}(0, \mathbb{R}^2 \setminus \mathcal K^*_\alpha)$. Then the
# layer is rectifying on the closed ball $\mathbb{B}_{r^*}$ (the failing set is open, so its distance
# $r^*$ is not attained) and on no larger ball: the exact verdict `rf.check(..., method="exact")` (an
# independent computation, by LPs over the hyperplanes) proves injectivity on $\mathbb{B}_{0.999 r^*}$ and
# finds a colliding pair in $\mathbb{B}_{1.001 r^*}$; a point of the open cell just beyond the nearest point
# is not rectifying; and the smallest failing point among many random samples is farther out than $r^*$
# (sampling can only over-estimate $r^*$). On $\mathbb{B}_{r^*}$ itself the exact verdict is
# *undetermined*: the radius sits on the injectivity threshold to within rounding (a certificate or a
# colliding pair needs a margin of $10^{-6}$, relative), so it decides neither way, and the kit reports a
# proof only for the problem asked (its text says so). That the closed ball is rectifying is the openness
# argument, checked on samples of the ball and of its boundary circle.

# %%
G2 = plane.grid_points(2.0, resolution=RES)
for t in range(TRIALS // 2):
    n = 2 + t % 2
    m = int(rng.integers(n + 1, 4 * n))
    phi = rf.zoo.random_sphere(m, n, seed=SEED + 200 + t).vectors
    if t % 4 == 3:
        phi = np.vstack([phi, -phi[0], 2.0 * phi[1]])  # not full spark
    L = rf.ReLULayer(phi, rng.normal(0.0, 0.5, size=phi.shape[0]))
    X = G2 if n == 2 else rf.Ball(3, 2.0).sample(N, seed=t)
    assert np.array_equal(rf.in_maximal_domain(L, X), rf.is_rectifying(L, X)), t

# the largest ball inside K*_alpha, exactly (2-D)
def distance_to_complement(layer, tol=1e-9):
    """dist(0, R^2 minus K*_alpha): over the cells of the line arrangement whose active set does not span.

    Returns (r*, the nearest point, an interior point of its cell, the cell's active set).
    """
    phi, a = layer.frame.vectors, layer.alpha
    m = len(a)
    feet = [a[i] * phi[i] / (phi[i] @ phi[i]) for i in range(m)]  # nearest point of each line to 0
    verts = [np.linalg.solve(phi[[i, j]], a[[i, j]]) for i in range(m) for j in range(i + 1, m)
             if abs(np.linalg.det(phi[[i, j]])) > 1e-12]  # fmt: skip
    candidates = np.array([np.zeros(2), *feet, *verts])
    best = (np.inf, None, None, None)
    for signs in itertools.product((1.0, -1.0), repeat=m):
        s_ = np.array(signs)
        active = s_ > 0
        if active.any() and np.linalg.matrix_rank(phi[active]) == 2:
            continue  # the active set spans: the cell lies in K*_alpha
        # LP: max t  s.t.  s_i (<x, phi_i> - a_i) >= t, t <= 1  (variables x1, x2, t)
        A_ub = np.column_stack([-s_[:, None] * phi, np.ones(m)])
        res = linprog([0.0, 0.0, -1.0], A_ub=A_ub, b_ub=-s_ * a, bounds=[(None, None), (None, None), (None, 1.0)],
                      method="highs")  # fmt: skip
        if res.status != 0 or res.x[2] <= tol:
            continue  # no open cell with this sign pattern
        inside = np.all(s_ * (candidates @ phi.T - a) >= -tol, axis=1)  # candidates in the closed cell
        d = np.linalg.norm(candidates[inside], axis=1)
        k = int(np.argmin(d))
        if d[k] < best[0]:
            best = (float(d[k]), candidates[inside][k], res.x[:2], np.flatnonzero(active))
    return best


L = rf.ReLULayer(rf.zoo.random_sphere(6, 2, seed=SEED + 300), rng.normal(-0.4, 0.3, size=6))
r_star, x_near, x_cell, I_cell = distance_to_complement(L)
assert 0 < r_star < np.inf and np.linalg.matrix_rank(L.frame.vectors[I_cell]) < 2
w = x_near + 1e-6 * (x_cell - x_near)  # a point of the open cell, just beyond the nearest point
assert not rf.is_rectifying(L, w) and np.linalg.norm(w) < r_star + 1e-5
inner_ball, at_ball, outer_ball = (rf.check(L, rf.Ball(2, r), method="exact") for r in (0.999 * r_star, r_star, 1.001 * r_star))
assert inner_ball.status == "injective" and outer_ball.status == "not injective"
assert at_ball.status == "undetermined" and "threshold" in at_ball.text  # r* itself: on the threshold, to within rounding
assert rf.check_rectifying(L, rf.Ball(2, r_star), n_samples=5 * N, seed=SEED).rectifying
assert rf.check_rectifying(L, rf.Sphere(2, r_star), n_samples=5 * N, seed=SEED).rectifying
P = rf.Ball(2, 3.0).sample(20 * N, seed=SEED)
bad = P[~rf.is_rectifying(L, P)]
r_sampled = float(np.min(np.linalg.norm(bad, axis=1)))  # the smallest failing sample
assert r_star <= r_sampled < r_star + 0.05
print(f"union formula = rank test; exact r* = {r_star:.6f} (the cell with active set {(I_cell + 1).tolist()}): "
      f"injective on B_0.999r*, a colliding pair in B_1.001r*; smallest failing sample at {r_sampled:.6f}")
print("on B_r* itself:", at_ball.status, "—", at_ball.text.partition(" — ")[2].split(":")[0])

# zero bias: a small ball decides all of R^n
agree = 0
for t in range(TRIALS):
    F = rf.zoo.random_sphere(int(rng.integers(3, 8)), 2, seed=SEED + 400 + t)
    exact = rf.zero_bias_injective(F).injective
    assert exact == rf.check_rectifying(rf.ReLULayer(F, 0.0), rf.Ball(2, 1e-2), n_samples=5000, seed=t).rectifying
    agree += 1
assert rf.check_rectifying(Ltri, rf.Ball(2), n_samples=N, seed=SEED).rectifying  # the triangle with alpha = -1/2 (section 1)
assert not rf.check_rectifying(Ltri, rf.RealSpace(2), n_samples=N, seed=SEED).rectifying
print(f"zero bias: B_0.01 and R^2 agree on {agree} random frames; α = -1/2: B yes, R^2 no (triangle)")

# %% [markdown]
# **[fig:fig3]** Figure 3 of the paper (left and middle panels), redrawn: maximal domains
# $\mathcal K^*_\alpha$ in dark, white where the active elements do not span.
# Left: the triangle frame with $\alpha = 0$ — $\mathcal K^*_0$ is a union of cones, white around each
# $\phi_i$ where $\phi_i$ alone is active; the two marked points are the colliding pair $x_1, x_2$ of
# Example "mb2" ([02_injectivity](02_injectivity.ipynb)), which lie on the boundary of
# $\mathcal K^*_0$. Middle: a random unit-norm frame of six vectors with a random bias — a union of
# intersections of half-planes, no longer a union of cones. The right panel of the paper's figure,
# the set $K_2$ of Example "a", is in [05_maximal_bias](05_maximal_bias.ipynb).

# %%
box = (-1.5, 1.5, -1.5, 1.5)
L0 = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
s3 = np.sqrt(3.0) / 2
x1, x2 = np.array([0.5, s3]), np.array([-0.5, s3])
rng3 = np.random.default_rng(165)  # the seed of the package's figure3
Fr = rf.zoo.random_sphere(6, 2, seed=165)
Lr = rf.ReLULayer(Fr, 0.4 * rng3.standard_normal(Fr.m))

fig3 = Figure(figsize=(8.0, 4.1), layout="constrained")
a0, a1 = fig3.subplots(1, 2)
plane.draw_maximal_domain(a0, L0, extent=box, resolution=RES)
plane.draw_halfspaces(a0, L0, extent=box, shade=False)
plane.draw_domain(a0, rf.Ball(2))
plane.draw_frame_vectors(a0, L0.frame)
plane.draw_collision(a0, (x1, x2), layer=L0)
a0.set_title("[fig:fig3] left: triangle, $\\alpha=\\mathbf{0}$, $x_1, x_2\\in K^*_\\alpha$", fontsize=10)
plane.draw_maximal_domain(a1, Lr, extent=box, resolution=RES)
plane.draw_halfspaces(a1, Lr, extent=box, shade=False)
plane.draw_frame_vectors(a1, Fr)
a1.set_title("[fig:fig3] middle: random frame, random bias", fontsize=10)
fig3

# %% [markdown]
# Check of the caption, on the grid of the figure: in the left panel the white region is exactly
# where fewer than two elements are active, $\mathcal K^*_0$ is invariant under scaling (a union of
# cones) and contains $x_1, x_2$ but not the points between them; in the middle panel the union
# formula equals the rank test, and $\mathcal K^*_\alpha$ is not a union of cones.

# %%
G = plane.grid_points(box, resolution=RES)
assert np.array_equal(~rf.is_rectifying(L0, G), plane.active_counts(L0, G) < 2)
for scale in (0.1, 3.0, 50.0):
    assert np.array_equal(rf.in_maximal_domain(L0, G), rf.in_maximal_domain(L0, scale * G))
assert rf.in_maximal_domain(L0, x1) and rf.in_maximal_domain(L0, x2)
assert not rf.in_maximal_domain(L0, (x1 + x2) / 2)
in_r = rf.in_maximal_domain(Lr, G)
assert np.array_equal(in_r, rf.is_rectifying(Lr, G))
assert not np.array_equal(in_r, rf.in_maximal_domain(Lr, 3.0 * G))  # a non-zero bias: not a union of cones
assert 0.0 < in_r.mean() < 1.0
titles = [ax.get_title() for ax in fig3.axes]
assert len(titles) == 2 and titles[0].startswith("[fig:fig3] left") and titles[1].startswith("[fig:fig3] middle")
print(f"left: K*_0 covers {rf.in_maximal_domain(L0, G).mean():.1%} of the window; middle: {in_r.mean():.1%}")

# %% [markdown]
# ## What we saw
#
# * Scaling the domain by $r$ and the bias by $r$ together preserves the property; non-negative
#   biases even survive enlarging the domain, and a domain containing $0$ needs $n$ biases $\le 0$.
# * For a given bias, the set of rectifying points has an explicit form: the union, over all bases
#   inside the frame, of the intersections of their half-spaces (Q1).
# * The union formula and the rank test agree everywhere we looked, and the largest ball inside
#   $\mathcal K^*_\alpha$ is the largest ball on which the layer is rectifying.
# * For $\alpha = 0$ the maximal domain is a union of cones, so a tiny ball decides all of
#   $\mathbb{R}^n$; with a non-zero bias its shape depends on the scale.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb04.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 4.1 — The largest ball
#
# The layer `ex.nb04.layer_4_1()` has unit rows at $70^\circ, -55^\circ, 100^\circ, -175^\circ, 30^\circ$ and the
# bias $\alpha = (-0.05, -1.25, -0.25, -0.5, -0.15)$. Find the largest $r$ for which it is rectifying on the
# ball $\mathbb{B}_r$, rounded *down* to three decimals, and set `answer_4_1` to it. (Sampling only gives an
# upper bound: how far off is the smallest failing point among $10^5$ samples?)

# %% tags=["answer"]
answer_4_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L41 = ex.nb04.layer_4_1()
r41, *_ = distance_to_complement(L41)  # the exact computation of section 3
answer_4_1 = np.floor(r41 * 1000) / 1000
P41 = rf.Ball(2, 3.0).sample(100_000, seed=SEED)
sampled41 = np.min(np.linalg.norm(P41[~rf.is_rectifying(L41, P41)], axis=1))
print(f"r* = {r41:.5f} (exact), smallest failing sample at {sampled41:.5f}; answer {answer_4_1}")
ex.solution("4.1", answer_4_1)

# %% tags=["check"]
ex.nb04.check_4_1(answer_4_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 4.2 — A basis inside the active set
#
# The frame `ex.nb04.frame_4_2()` has the rows $e_1$, $e_2$, $(e_1 + e_2)/\sqrt2$, $e_3$, $(-1, -1, -1)$,
# $(1, -1, \tfrac12)$, the bias is $\alpha = (0.1, 0.1, 0.1, -0.4, 0, -0.1)$ (`ex.nb04.ALPHA_4_2`) and the
# point is $x = (0.6, 0.5, -0.3)$ (`ex.nb04.X_4_2`). Show with the union formula of section 3 that
# $x \in \mathcal K^*_\alpha$: set `answer_4_2` to the numbers of three elements (counted from 1, as
# $\phi_1, \dots, \phi_6$ in the text) that form a basis and whose half-spaces $\Omega_j^\alpha$ all contain $x$.

# %% tags=["answer"]
answer_4_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F42, a42, x42 = ex.nb04.frame_4_2(), np.array(ex.nb04.ALPHA_4_2), np.array(ex.nb04.X_4_2)
act42 = np.flatnonzero(F42.vectors @ x42 >= a42)  # the active rows
answer_4_2 = next([int(j) + 1 for j in J] for J in itertools.combinations(act42, 3) if F42.spans(J))  # from 1
print("coefficients", (F42.vectors @ x42).round(3), "| active", (act42 + 1).tolist(), "| a basis among them:", answer_4_2)
assert rf.in_maximal_domain(rf.ReLULayer(F42, a42), x42)
ex.solution("4.2", answer_4_2)

# %% tags=["check"]
ex.nb04.check_4_2(answer_4_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 4.3 — Only $n$ non-positive biases
#
# Prop. "K" (3) says that a layer rectifying on a domain that contains $0$ has at least $n$ entries
# $\alpha_i \le 0$. For the regular pentagon `rf.zoo.regular_polygon(5)` find a bias with exactly two entries
# $\le 0$ (and three $> 0$) for which the layer is rectifying on the closed unit ball, and set `answer_4_3`
# to it. Confirm it with `rf.check`. Why do two entries equal to $0$ not work?

# %% tags=["answer"]
answer_4_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
P5 = rf.zoo.regular_polygon(5)
answer_4_3 = np.array([-0.3, -0.3, 0.05, 0.05, 0.05])
print("alpha =", answer_4_3, "->", rf.check(rf.ReLULayer(P5, answer_4_3), rf.Ball(2)).status)
# With two zeros, a small x whose coefficient with one of them is negative has at most one active row: near the
# origin the positive biases switch everything else off. Negative entries keep both rows active on a
# neighbourhood of 0, and further out enough of the others join.
print("alpha = (0, 0, 0.05, 0.05, 0.05) ->", rf.check(rf.ReLULayer(P5, [0, 0, 0.05, 0.05, 0.05]), rf.Ball(2)).status)
ex.solution("4.3", answer_4_3)

# %% tags=["check"]
ex.nb04.check_4_3(answer_4_3)

# %%
print("04_maximal_domain: all checks passed")
