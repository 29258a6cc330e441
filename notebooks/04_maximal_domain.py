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
import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240202
N = 200_000 if FULL else 20_000  # samples for checks "on the domain"
TRIALS = 200 if FULL else 40  # random layers for statements "for every frame and bias"
RES = 601 if FULL else 241  # grid resolution of the pictures and grid checks
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)


def rectifying(layer, K, n=N, seed=SEED):
    """Sampled test of the alpha-rectifying property on K (exact for a finite set of samples)."""
    return rf.check_rectifying(layer, K, n_samples=n, seed=seed).rectifying


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
assert rectifying(Ltri, rf.Ball(2)) and rectifying(Ltri.with_bias(-1.0), rf.Ball(2, 2.0))  # (1) with r = 2
assert not rectifying(Ltri, rf.Ball(2, 2.0))  # (2) needs alpha >= 0
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

# the largest ball inside K*_alpha
L = rf.ReLULayer(rf.zoo.random_sphere(6, 2, seed=SEED + 300), rng.normal(-0.4, 0.3, size=6))
P = rf.Ball(2, 3.0).sample(20 * N, seed=SEED)
bad = P[~rf.is_rectifying(L, P)]
w = bad[np.argmin(np.linalg.norm(bad, axis=1))]  # the smallest non-rectifying point found
r_star = float(np.linalg.norm(w))
assert rf.Ball(2, r_star).contains(w) and not rf.is_rectifying(L, w)  # so not rectifying on B_r for r >= r*
assert rectifying(L, rf.Ball(2, 0.98 * r_star), n=5 * N)
print(f"union formula = rank test; this layer is rectifying on B_0.98r* but not on B_r*, r* ≈ {r_star:.3f}")

# zero bias: a small ball decides all of R^n
agree = 0
for t in range(TRIALS):
    F = rf.zoo.random_sphere(int(rng.integers(3, 8)), 2, seed=SEED + 400 + t)
    exact = rf.zero_bias_injective(F).injective
    assert exact == rectifying(rf.ReLULayer(F, 0.0), rf.Ball(2, 1e-2), n=5000, seed=t)
    agree += 1
assert rectifying(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2))
assert not rectifying(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.RealSpace(2))
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

# %%
print("04_maximal_domain: all checks passed")
