# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 06 — Sampling-based bias estimation (Approach A)
#
# The biases $\alpha^\flat_K$ and $\alpha^\sharp_K$ of [05_maximal_bias](05_maximal_bias.ipynb) have no closed form in
# general. Approach A replaces the domain $K$ by a finite set of samples and computes $\alpha^\flat$ of
# that set exactly; the covering radius of the samples then says how much to subtract so that the
# bias is safe on all of $K$. This notebook runs the method, measures how fast it settles, redraws
# the paper's Figure "evolution towards injectivity", and ends with the limit of the method in higher
# dimension, where an exact test catches what sampling misses.
#
# **What you will learn**
# - the sampling theorem: rectifying on the samples for free, on $K$ after subtracting the covering
#   radius $\rho$;
# - the difference between a *guaranteed* covering radius (a proof, feasible in low dimension) and a
#   *heuristic* one (a probe estimate, a lower bound), and how small the paper's correction
#   $0.05(\log N/N)^{1/n}$ is by comparison;
# - how the estimate converges as the number of samples $N$ grows (from above, slowly);
# - Figure "evolution towards injectivity", from the experiments module;
# - a layer in dimension 6 that sampling accepts and the exact zero-bias test proves not injective, and
#   how the exact stage of `rf.check` settles such cases for any bias.
#
# | tag | item |
# |---|---|
# | `[thm:samp]` | sampling-based bias estimation, with the covering-radius correction |
# | `[fig:propinj]` | evolution towards injectivity (proportion of test points that pass, per iteration) |
#
# Conventions: rows of a matrix are the frame vectors; $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$; the
# estimate after $k$ samples is $\alpha^{(k)}$.

# %%
# %matplotlib inline
from itertools import combinations

import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb import experiments
from relu_frames_nb.errors import TooExpensiveError
from relu_frames_nb.viz import palette
from relu_frames_nb.viz.experiments import plot_propinj

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240303
N = 200_000 if FULL else 20_000  # samples of a domain
N_LIMIT = 2_000_000 if FULL else 200_000  # samples in the high-dimension section
N_GRID = [10**2, 10**3, 10**4, 10**5, 10**6] if FULL else [10**2, 10**3, 10**4, 10**5]  # convergence study
SIZE = "full" if FULL else "fast"  # size of the experiments module's runs
WORKERS = None if FULL else 1  # full: one process per CPU; fast: in this process
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. The sampling theorem
#
# Replace $K$ by samples $X_N = (x_k)_{k=1}^N \subset K$ and go through them one at a time:
#
# **[thm:samp]** Start from some $\alpha^{(0)}$ (for instance $+\infty$ in every entry). For $k = 1, \dots, N$ and
# every $i \in J^*(x_k)$ set
# $$\alpha^{(k)}_i = \min\{\langle x_k,\phi_i\rangle,\ \alpha^{(k-1)}_i\},$$
# leaving the other entries unchanged. Then $\Phi$ is $\alpha^{(N)}$-rectifying on $X_N$. If the frame is
# unit-norm, it is also $(\alpha^{(N)} - \rho)$-rectifying on all of $K$, where
# $\rho = \rho(X_N; K) = \sup_{x\in K}\min_k\|x - x_k\|$ is the **covering radius** of the samples. The
# reason: every $x \in K$ has a sample within $\rho$, and moving by $\rho$ lowers each coefficient by at
# most $\rho\,\|\phi_i\|$. For frames that are not unit-norm one subtracts $\rho\,\|\phi_i\|$ from entry $i$
# (the paper's remark after the theorem).
#
# Check on a random unit-norm frame with $m = 4$ in the plane, $K = \mathbb{B}$: the package's vectorized
# estimate equals the iteration written out literally (a loop over the samples, $J^*(x)$ as the indices
# of the $n$ largest coefficients, which is right for a full-spark frame); it only decreases; it is rectifying on the
# samples; without the correction some fresh points of $K$ fail; with a *proven* upper bound of the
# covering radius (a grid argument, see §2) every point of a dense fresh sample of the ball and of its
# boundary passes. The polytope bias of [07_polytope_bias](07_polytope_bias.ipynb) is another proven
# bias for the same frame.

# %%
F4 = rf.zoo.random_sphere(4, 2, seed=SEED + 305)
assert rf.is_omnidirectional(F4)  # needed by the polytope bias below
X = rf.Ball(2).sample(N, seed=SEED)
est = rf.sampling_bias(F4, X, history=True, progress=False)

assert F4.is_full_spark()  # so J*(x) is the n largest coefficients
alpha_k = np.full(F4.m, np.inf)  # the iteration of the theorem, written out
for x in X:
    c = F4.vectors @ x
    Jx = np.argsort(-c)[: F4.n]  # J*(x): the top n coefficients
    alpha_k[Jx] = np.minimum(c[Jx], alpha_k[Jx])
np.testing.assert_allclose(est.values, alpha_k)
assert np.all(est.history[1:] <= est.history[:-1])  # the estimate only decreases

assert np.all(rf.is_rectifying(rf.ReLULayer(F4, est.values), X))  # rectifying on X_N
fresh = rf.Ball(2).sample(20 * N, seed=SEED + 1)
n_fail = int(np.sum(~rf.is_rectifying(rf.ReLULayer(F4, est.values), fresh)))
assert n_fail > 0  # but not on K without the correction

rho = rf.covering_radius(X, rf.Ball(2), kind="guaranteed", max_points=400_000)
assert rho.is_guarantee
corrected = est.values - rho.value * F4.norms
Xcheck = np.vstack([fresh, rf.Sphere(2).sample(5 * N, seed=SEED + 2)])
assert np.all(rf.is_rectifying(rf.ReLULayer(F4, corrected), Xcheck))
pbe = rf.polytope_bias(F4, rf.Ball(2))  # Approach B, another proof
assert np.all(rf.is_rectifying(rf.ReLULayer(F4, pbe.values), Xcheck))
print(f"uncorrected α^(N): {n_fail} of {fresh.shape[0]} fresh points of the ball fail")
print(f"covering radius ≤ {rho.value:.4f} (proven)")
print("α^(N)            :", est.values)
print("α^(N) - ρ (proof):", corrected)
print("polytope (proof) :", pbe.values)

# %% [markdown]
# How the estimate settles in this run: each entry of $\alpha^{(k)}$ against the number of samples $k$
# (log scale). The curves fall in steps towards $\alpha^\flat_{\mathbb{B}}$, from above; the dashed lines are the
# corrected values, which carry the proof.

# %%
fig = Figure(figsize=(7.5, 3.6), layout="constrained")
ax = fig.subplots()
steps = np.maximum(est.history_steps, 1)
for i in range(F4.m):
    c = palette.element_color(i)
    hist = np.where(np.isfinite(est.history[:, i]), est.history[:, i], np.nan)
    ax.step(steps, hist, where="post", color=c, lw=1.6, label=rf"$\alpha^{{(k)}}_{i + 1}$")
    ax.axhline(corrected[i], color=c, lw=1.0, ls="--")
ax.plot([], [], color=palette.INK, lw=1.0, ls="--", label=r"$\alpha^{(N)} - \rho\,\|\phi_i\|$")
ax.set_xscale("log")
ax.set_xlabel("number of samples $k$")
ax.set_ylabel("bias estimate")
ax.set_title("[thm:samp] sampling-based bias estimation on $\\mathbb{B}$, random frame $m=4$, $n=2$", fontsize=10)
ax.legend(ncol=3, fontsize=8, frameon=False)
ax.grid(alpha=0.3)
assert np.all(est.history[-1] == est.values)
fig

# %% [markdown]
# ## 2. The covering radius: guaranteed or heuristic
#
# The correction needs $\rho(X_N; K)$, a supremum over all of $K$, which cannot be computed exactly.
# The package offers two estimates, and labels them:
#
# * **guaranteed** — a cubic grid of spacing $h$ over $K$: every point of $K$ is within $h\sqrt n/2$ of a grid
#   point, so $\rho \le \max_g d(g, X_N) + h\sqrt n/2$. A proof, but the grid grows like $h^{-n}$: under a fixed
#   budget of grid points it is sharp in the plane and useless in dimension 6.
# * **heuristic** — the largest distance from random probe points of $K$ to their nearest sample. A
#   *lower* bound of $\rho$, so subtracting it proves nothing.
#
# For uniform samples $\mathbb{E}\,\rho \asymp (\log N/N)^{1/n}$ (the paper's (asym)), so in high dimension more
# samples barely help. The paper's experiments subtract $\rho^*(n, N) = 0.05\,(\log N/N)^{1/n}$, a factor
# chosen by experiment.
#
# Check: for each dimension the heuristic value stays below the guaranteed one (the true $\rho$ lies
# between them); in the plane the two are close; in dimension 6 the guaranteed bound is about the radius
# of the ball (useless as a correction), and the budget does not allow a finer grid. And the paper's $\rho^*$ is far below
# the heuristic lower bound of $\rho$ in every dimension shown: it is not a covering radius.

# %%
N_COV = 2_000
GRID_BUDGET = 5_000_000 if FULL else 400_000  # grid points allowed for a guaranteed bound
print(f"N = {N_COV} uniform samples of the unit ball")
print(f"{'n':>3}{'heuristic (≤ ρ)':>18}{'guaranteed (≥ ρ)':>19}{'(log N/N)^(1/n)':>17}{'paper ρ*':>10}")
for n in (2, 3, 6):
    Xn = rf.Ball(n).sample(N_COV, seed=SEED + n)
    h = rf.covering_radius(Xn, rf.Ball(n), kind="heuristic", n_probes=20_000, seed=SEED)
    g = rf.covering_radius(Xn, rf.Ball(n), kind="guaranteed", max_points=GRID_BUDGET)
    star = rf.paper_correction(n, N_COV)
    assert h.kind == "heuristic" and not h.is_guarantee and g.is_guarantee
    assert h.value <= g.value and star < h.value / 5
    asym = (np.log(N_COV) / N_COV) ** (1 / n)
    print(f"{n:>3}{h.value:>18.4f}{g.value:>19.4f}{asym:>17.4f}{star:>10.4f}")
    if n == 2:
        assert g.value < 1.2 * h.value  # sharp in the plane
    if n == 6:
        assert g.value > 0.8 and g.value > 1.5 * h.value  # near the radius of the ball: useless as a correction
try:
    rf.covering_radius(Xn, rf.Ball(6), kind="guaranteed", grid_step=0.05, max_points=GRID_BUDGET)
    refused = False
except TooExpensiveError:
    refused = True
assert refused
print("a finer guaranteed grid in dimension 6 is refused (too many grid points)")

# %% [markdown]
# ## 3. Convergence with $N$
#
# How fast does $\alpha^{(N)}$ approach its limit? For the triangle frame on the unit circle the limit is
# known: $\alpha^\flat_{\mathbb{S}} = -\tfrac12$ in every entry (Example mb,
# [03_properties_of_frames](03_properties_of_frames.ipynb)). Since the samples lie in $\mathbb{S}$, every
# estimate is at or above $-\tfrac12$; with the guaranteed covering radius subtracted it must drop to a
# proven bias.
#
# Check: the error $\max_i(\alpha^{(N)}_i + \tfrac12)$ is non-negative and shrinks as $N$ grows (here roughly
# like $1/N$: near $\phi_j$ the coefficient that decides changes linearly with the angle, and the largest
# gap between $N$ samples on the circle is about $2\pi\log N/N$); the guaranteed $\rho$ shrinks with $N$ (the
# circle is a curve, so its covering radius behaves like $\log N/N$ rather than the $(\log N/N)^{1/2}$ of a
# planar region, until the grid budget of the bound takes over); the corrected estimate lies below
# $-\tfrac12$ and is rectifying on a dense fresh sample of the circle.

# %%
Ftri = rf.zoo.mercedes_benz()
errors, radii = [], []
fresh_S = rf.Sphere(2).sample(10**6 if FULL else 2 * 10**5, seed=SEED + 7)
print(f"{'N':>8}{'max(α^(N) + 1/2)':>18}{'ρ (guaranteed)':>16}{'min(α^(N) - ρ)':>16}")
for n_s in N_GRID:
    Xs = rf.Sphere(2).sample(n_s, seed=SEED)
    e = rf.sampling_bias(Ftri, Xs, init="none", progress=False)
    r = rf.covering_radius(Xs, rf.Sphere(2), kind="guaranteed")
    assert np.all(e.values >= -0.5 - 1e-12)  # from above
    low = e.values - r.value * Ftri.norms
    assert np.all(low <= -0.5) and np.all(rf.is_rectifying(rf.ReLULayer(Ftri, low), fresh_S))
    errors.append(float(np.max(e.values + 0.5)))
    radii.append(r.value)
    print(f"{n_s:>8}{errors[-1]:>18.2e}{r.value:>16.2e}{low.min():>16.4f}")
assert errors[-1] < errors[0] / 100 and all(b < a for a, b in zip(radii, radii[1:]))

# %% [markdown]
# ## 4. Figure "evolution towards injectivity"
#
# **[fig:propinj]** The paper's first experiment (Approach A). Frame vectors, samples $X_N$ and test points
# $Y_M$ are i.i.d. uniform in the unit ball $\mathbb{B}$. While the estimate $\alpha^{(k)}$ (from $+\infty$) runs
# through the samples, we record the proportion of the *unseen* test points at which the frame is
# $\alpha^{(k)}$-rectifying, and average over trials, for $n = 3$ and $n = 30$ and redundancies
# $q = m/n = 2, 3.3, 9$. The run comes from `relu_frames_nb.experiments.propinj`: 16 trials, $10^3$ iterations
# and $10^3$ test points at the default size; 1000 trials, $10^4$ iterations and $10^4$ test points
# (the paper's sizes) with `RELU_FRAMES_FULL=1`.
#
# What the paper observes, and what is checked below:
# * every trial's proportion starts at 0 and never decreases in $k$ (the estimate only decreases, and a
#   smaller bias keeps the rectifying property, Prop. "inclusive" in
#   [01_frames_and_relu_layers](01_frames_and_relu_layers.ipynb));
# * at the last iteration the mean proportion is close to 1 (above 0.9 at the default size, above 0.99 at
#   the paper's);
# * the order of the curves: for each $n$ a lower redundancy gives a larger area under the curve, and for
#   each redundancy $n = 3$ beats $n = 30$.
#
# What the figure does *not* show: a proportion of 1 on $M$ test points is evidence, not a proof, that
# the layer is injective on $\mathbb{B}$. §5 shows how sampling can miss the worst directions.

# %%
prop = experiments.propinj(size=SIZE, max_workers=WORKERS, seed=0)
it = prop.iterations
print(f"{prop.proportions.shape[1]} trials, {int(it[-1])} iterations, {prop.params['n_test']} test points")
for c in range(prop.n.size):
    print(f"n = {prop.n[c]:2d}, q = {prop.redundancy[c]:3g} (m = {prop.m[c]:3d}): mean proportion after "
          f"{int(it[-1])} iterations {prop.mean[c, -1]:.4f}")  # fmt: skip

# %%
fig = plot_propinj(prop, tag="fig:propinj")  # the package's figure (relu_frames_nb.viz.experiments)
fig

# %%
P = prop.proportions
assert np.all(np.diff(P, axis=2) >= 0) and np.all(P[:, :, 0] == 0)
assert np.all(prop.mean[:, -1] >= (0.99 if FULL else 0.9))
auc = prop.mean.mean(axis=1)
for n in sorted(set(prop.n.tolist())):
    c = np.flatnonzero(prop.n == n)
    assert np.all(np.diff(auc[c[np.argsort(prop.redundancy[c])]]) < 0), n  # lower redundancy: faster
for q in sorted(set(prop.redundancy.tolist())):
    c = np.flatnonzero(prop.redundancy == q)
    assert auc[c[np.argmin(prop.n[c])]] > auc[c[np.argmax(prop.n[c])]], q  # lower dimension: faster
print("area under the curves:")
for n, q, a in zip(prop.n, prop.redundancy, auc):
    print(f"  n = {n:2d}, q = {q:3g}: {a:.4f}")

# %% [markdown]
# ## 5. The limit of sampling in higher dimension
#
# The guarantee of the theorem needs the covering radius, and §2 showed that in dimension 6 even
# $2\cdot10^3$ samples leave holes of radius near $0.5$; many more samples shrink them only slowly. The
# paper's heuristic $\rho^*$ is much smaller than that. Here is a layer where this matters.
#
# For $\alpha = \mathbf 0$ there is an **exact** test on $\mathbb{R}^n$ (and, with zero bias, on every ball
# around the origin, by scaling): a full-spark frame gives an injective $C_{\mathbf 0}$ iff every closed
# half-space $\{x : \langle x, u\rangle \ge 0\}$ contains at least $n$ frame vectors, i.e. iff the
# **Tukey depth** of the origin among the $\phi_i$ is at least $n$. The count
# $\#\{i : \langle x, \phi_i\rangle \ge 0\}$ is constant on the open cells of the arrangement of the hyperplanes
# $\phi_i^\perp$, and its minimum is attained on an open cell; each cell has a ray $\pm r_S$ on its boundary,
# with $r_S$ orthogonal to a set $S$ of $n - 1$ frame vectors. At $\pm r_S$ itself those $n - 1$ elements
# have coefficient $0$ and would count as active, so what `rf.zero_bias_injective`
# (`relu_frames_nb/paper/zero_bias.py`) computes for a full-spark frame is the count in the open cell beside the
# ray where all of $S$ is negative:
# $$d = \min_{|S| = n-1}\ \min\big(\#\{i \notin S : \langle r_S,\phi_i\rangle > 0\},\ \#\{i \notin S : \langle r_S,\phi_i\rangle < 0\}\big),$$
# a minimum over the $\binom{m}{n-1}$ sets $S$ (both signs), with a witness point in that cell. It is exact
# and affordable for small $n$. (Frames that are not full spark take a slower exact path.)
#
# A Gaussian frame with $m = 30$, $n = 6$ (seed 3), $K = \mathbb{B}$: sampling gives a positive estimate in
# every entry, so it accepts the bias $\mathbf 0$, with or without the paper's correction $\rho^*$. The exact
# test finds Tukey depth 5 < 6: in some direction only 5 elements are active, and the constructive proof
# of Injectivity II ([02_injectivity](02_injectivity.ipynb)) turns it into two different inputs with the
# same output. A proven correction would not have been fooled: the covering radius of the samples is at
# least the probe estimate below, which exceeds the estimate itself. The check also recomputes the
# depth with the formula above, by brute force over the $\binom{30}{5}$ sets $S$.

# %%
F = rf.zoo.gaussian(30, 6, seed=3)
K = rf.Ball(6)
X = K.sample(N_LIMIT, seed=SEED)
est6 = rf.sampling_bias(F, X, progress=False)  # exact on the samples
heur = rf.paper_correction(6, N_LIMIT)
assert np.all(est6.values > 0) and np.all(est6.values - heur * F.norms > 0)  # sampling accepts alpha = 0
L0 = rf.ReLULayer(F, 0.0)
assert np.all(rf.is_rectifying(L0, X))  # every sample is fine ...

tukey = rf.zero_bias_injective(F)  # ... but the exact test says no
assert tukey.full_spark and tukey.depth == 5 and not tukey.injective
w = tukey.witness
assert (F.vectors @ w >= 0).sum() == 5 and not rf.is_rectifying(L0, w)
S_all = np.array(list(combinations(range(F.m), F.n - 1)))  # the formula, by brute force
r_S = np.linalg.svd(F.vectors[S_all])[2][:, -1]  # unit vectors orthogonal to the n - 1 vectors of S
D = r_S @ F.vectors.T
np.put_along_axis(D, S_all, 0.0, axis=1)  # the elements of S: neither side
assert np.min(np.minimum((D > 1e-9).sum(axis=1), (D < -1e-9).sum(axis=1))) == tukey.depth

coll = rf.find_collision(L0, K, points=[0.5 * w / np.linalg.norm(w)])
assert coll.found and coll.certainty == "verified"
assert K.contains(coll.x) and K.contains(coll.y) and np.linalg.norm(coll.x - coll.y) > 1e-4
np.testing.assert_allclose(L0(coll.x), L0(coll.y), atol=1e-12)

rho_low = rf.covering_radius(X, K, kind="heuristic", n_probes=20_000, seed=SEED)  # a lower bound of rho
assert rho_low.value > est6.values.min()  # the proven correction would reject alpha = 0
print(f"samples: {N_LIMIT}; smallest sampled bias {est6.values.min():.4f} > 0; paper's ρ* = {heur:.4f}")
print(f"Tukey depth {tukey.depth} < n = 6: not injective; colliding pair at distance "
      f"{np.linalg.norm(coll.x - coll.y):.2e}")  # fmt: skip
print(f"covering radius ≥ {rho_low.value:.3f} (probe estimate), so α^(N) - ρ < 0 somewhere")

# %% [markdown]
# ### The exact verdict closes the gap
#
# The paper's two methods leave a gap: sampling can over-estimate in high dimension (as here), and the
# polytope bias of [07_polytope_bias](07_polytope_bias.ipynb) is a proof but only a sufficient one. The
# Tukey-depth test closes it for $\alpha = \mathbf 0$ only. The exact stage of `rf.check` (alone:
# `method="exact"`) decides any bias on a ball, a box, a polytope or $\mathbb{R}^n$: with a
# **certificate** — a lower bound on the fewest active rows over the domain, from the dual bound of a
# mixed-integer program (HiGHS), that exceeds $h$, the largest number of frame vectors in one hyperplane
# through 0 (then the active rows span everywhere) — or with a **verified colliding pair**.
# `rf.check(L, K)` (the default `method="auto"`) runs the fast tests first and the exact stage for what
# they leave open.
#
# Check, on the layer above: the exact verdict refutes $\alpha = \mathbf 0$ with a verified pair in the ball,
# and its upper bound on the fewest active rows is at most $h = 5$. For $\alpha = -0.02\cdot\mathbf 1$, sampling
# accepts as well, and the polytope bias cannot decide (its entries are all below $-0.36$); here the exact
# verdict, through `rf.check`, proves injectivity: at least 6 rows are active at every point of the ball,
# more than $h = 5$.

# %%
exact0 = rf.check(L0, K, method="exact", time_limit=60)
h0 = exact0.details["exact"]["h"]  # the most frame vectors in one hyperplane through 0
assert exact0.status == "not injective" and exact0.pair is not None
xe, ye = exact0.pair
assert K.contains(xe) and K.contains(ye) and np.linalg.norm(xe - ye) > 1e-6
np.testing.assert_allclose(L0(xe), L0(ye), rtol=1e-9, atol=1e-12)
assert h0 == 5 and exact0.upper_bound <= h0
print(f"α = 0: {exact0.status} (method {exact0.method}; fewest active rows ≤ {exact0.upper_bound}, h = {h0})")

L2 = L0.with_bias(-0.02)
pbe6 = rf.polytope_bias(F, K)
assert pbe6.is_guarantee and np.all(L2.alpha > pbe6.values)  # the polytope bias proves nothing here
assert np.all(est6.values >= L2.alpha) and np.all(rf.is_rectifying(L2, X))  # sampling accepts
v2 = rf.check(L2, K, time_limit=60)
assert v2.status == "injective" and v2.method.startswith("exact") and v2.certificate is not None
assert v2.certificate.lower_bound > v2.certificate.h == 5  # the certificate
print(f"α = -0.02: polytope bias ≤ {pbe6.values.max():.3f} proves nothing; rf.check: {v2.status} "
      f"({v2.method}; fewest active rows ≥ {v2.certificate.lower_bound} > h = {v2.certificate.h})")

# %% [markdown]
# [08_random_layers](08_random_layers.ipynb) repeats this comparison over a whole grid of random
# layers (Figure "isinj"): sampling and the exact test agree in low dimension, and sampling over-accepts
# more and more often as $n$ grows.
#
# ## What we saw
#
# - The sampled estimate $\alpha^{(N)}$ is exact on the samples; it becomes a proof for all of $K$ only after
#   subtracting the covering radius (times $\|\phi_i\|$), and without that some fresh points fail.
# - A guaranteed covering radius is a grid argument: sharp in the plane, worthless in dimension 6. The
#   heuristic probe value is a lower bound, and the paper's $\rho^* = 0.05(\log N/N)^{1/n}$ is smaller still.
# - The estimate approaches its limit from above and slowly (about $1/N$ on the circle, much slower in
#   higher dimension, since $\rho \asymp (\log N/N)^{1/n}$).
# - Figure "evolution towards injectivity" reproduces: the proportion of test points that pass rises to
#   about 1, fastest for small $n$ and low redundancy.
# - Passing on samples is not injectivity: in dimension 6 a layer passes every sample and the paper's
#   correction, yet the exact Tukey-depth test proves it not injective, with a verified colliding pair.
# - The exact stage of `rf.check` (alone: `method="exact"`) closes the gap the paper's methods leave:
#   it refutes that layer, and proves injective a nearby bias that neither sampling (no proof) nor the
#   polytope bias (too conservative) can settle.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb06.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 6.1 — A bias with a proof
#
# The frame `ex.nb06.frame_6_1()` has five unit vectors at $10^\circ, 60^\circ, 100^\circ, 150^\circ, 280^\circ$.
# With Approach A, compute a bias for which it is *proven* rectifying on the closed unit ball: the
# sampling estimate minus a guaranteed covering radius of the samples (times $\|\phi_i\|$). It should
# not be too conservative: every entry at most $0.05$ below the sampling estimate with 200 000 samples.
# Set `answer_6_1` to it and confirm it with `rf.check`. What does the exact verdict say about the
# uncorrected estimate?

# %% tags=["answer"]
answer_6_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F61 = ex.nb06.frame_6_1()
X61 = rf.Ball(2).sample(N, seed=SEED)
est61 = rf.sampling_bias(F61, X61, progress=False)  # exact on the samples
rho61 = rf.covering_radius(X61, rf.Ball(2), kind="guaranteed", max_points=400_000)
answer_6_1 = est61.values - rho61.value * F61.norms
print(f"ρ ≤ {rho61.value:.4f}; proven bias {answer_6_1.round(4)}")
for name, a in (("corrected", answer_6_1), ("uncorrected", est61.values)):
    print(f"{name:>11}:", rf.check(rf.ReLULayer(F61, a), rf.Ball(2)).status)
ex.solution("6.1", answer_6_1)

# %% tags=["check"]
ex.nb06.check_6_1(answer_6_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 6.2 — The Tukey depth by hand
#
# For the frame `ex.nb06.frame_6_2()` (eight random unit vectors in $\mathbb{R}^3$), compute the Tukey depth
# of the origin with the formula of section 5 (a loop over the pairs $S$), and a direction $u$ in the open
# cell beside the best ray, where exactly that many rows have $\langle u, \phi_i\rangle \ge 0$ (push $r_S$
# slightly so that both rows of $S$ become negative). Compare with `rf.tukey_depth_origin`, and set
# `answer_6_2` to `(depth, u)`.

# %% tags=["answer"]
answer_6_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
V62 = ex.nb06.frame_6_2().vectors
best62 = (V62.shape[0] + 1, None, None)
for S in combinations(range(V62.shape[0]), 2):
    r = np.cross(V62[S[0]], V62[S[1]])  # orthogonal to both rows of S
    r /= np.linalg.norm(r)
    for sign in (1.0, -1.0):
        count = int(np.sum(np.delete(sign * V62 @ r, S) > 0))
        if count < best62[0]:
            best62 = (count, sign * r, S)
depth62, r62, S62 = best62
u62 = r62 - 1e-6 * np.linalg.pinv(V62[list(S62)]) @ np.ones(2)  # both rows of S slightly negative
answer_6_2 = (depth62, u62)
print(f"depth {depth62} (library: {rf.tukey_depth_origin(V62).depth}); at u, {int(np.sum(V62 @ u62 >= 0))} rows >= 0")
ex.solution("6.2", answer_6_2)

# %% tags=["check"]
ex.nb06.check_6_2(answer_6_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 6.3 — A collision that sampling misses
#
# The layer `ex.nb06.layer_6_3()` has 20 Gaussian rows in $\mathbb{R}^5$ and the bias $-0.05$ in every entry.
# Check that 20 000 samples of the unit ball of $\mathbb{R}^5$ are all rectifying points, then produce two
# different points of the ball with the same output. Set `answer_6_3` to the pair `(x, y)`. (The zero-bias
# test of section 5 does not apply: the bias is not zero.)

# %% tags=["answer"]
answer_6_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L63 = ex.nb06.layer_6_3()
chk63 = rf.check_rectifying(L63, rf.Ball(5), n_samples=N, seed=SEED)
v63 = rf.check(L63, rf.Ball(5), method="exact")
answer_6_3 = v63.pair
print(f"sampling: {chk63.n_checked - chk63.n_failed} of {chk63.n_checked} rectifying | exact: {v63.status} "
      f"({v63.method}; fewest active rows ≤ {v63.upper_bound}, h = {v63.details['exact']['h']})")  # fmt: skip
ex.solution("6.3", answer_6_3)

# %% tags=["check"]
ex.nb06.check_6_3(answer_6_3)

# %%
print("06_sampling: all checks passed")
