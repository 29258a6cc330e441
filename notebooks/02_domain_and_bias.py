# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 — Interplay of domain and bias: the maximal domain
#
# Whether a ReLU layer loses information depends on three things at once: the weights, the bias and
# the set $K$ the inputs come from. Shrinking $K$ or lowering $\alpha$ can only help
# (notebook 01, `prop:inclusive`). Two dual questions follow:
#
# * **Q1** — given $\alpha$, what is the largest domain on which $\Phi$ is $\alpha$-rectifying?
# * **Q2** — given $K$, what is the largest bias? (notebooks 03 and 04)
#
# This notebook answers Q1 with an explicit **maximal domain** $\mathcal K^*_\alpha$, a union of
# intersections of half-spaces, and shows how the domain can compensate for a bias.
#
# | tag | item |
# |---|---|
# | `[prop:K]` | scaling domain and bias together; $0 \in K$ forces $n$ non-positive biases |
# | `[ex:basis]` | a basis is never rectifying on $\mathbb{R}^n$, the standard basis is on $\mathbb{R}^n_+$ |
# | `[ex:mb]` | the triangle frame: $-\tfrac12$ is the best constant bias on the unit ball |
# | `[fig:fig2]` | active counts for the $\pm$ basis, the standard basis and the triangle |
# | `[thm:bas]` | the maximal domain $\mathcal K^*_\alpha = \bigcup_J \bigcap_{i\in J}\Omega_i^\alpha$ |
# | `[cor:maxdomain-other]` | injectivity on spheres, donuts and finite sets |
# | `[ex:mb2]` | two points of $\mathcal K^*_0$ with the same output |
# | `[fig:fig3]` | maximal domains and the set $K_2$ of Example a |
#
# Conventions: rows of a matrix are the frame vectors; the layer is
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$; code indices are 0-based, the text counts from 1.

# %% tags=["parameters"]
FULL = False  # True: paper-scale sample sizes (slower); False: fast run for CI

# %%
# %matplotlib inline
import numpy as np

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

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
# **[ex:basis]** A basis ($m = n$) is never $\alpha$-rectifying on $\mathbb{R}^n$, whatever $\alpha$
# (it has fewer than $2n$ elements, notebook 01 `prop:red`). But the domain can make up for it: the
# standard basis is $\mathbf 0$-rectifying on the closed orthant $\mathbb{R}^n_+$, where every
# coordinate is $\ge 0$, so every element is active.
#
# Check: random bases and biases fail somewhere on $\mathbb{R}^n$; the standard basis with
# $\alpha = 0$ passes on samples of large non-negative balls *and* on their faces, where some
# coordinates are exactly 0.

# %%
for t in range(TRIALS // 2):
    n = 2 + t % 4
    L = rf.ReLULayer(rf.zoo.gaussian(n, n, seed=SEED + 100 + t), rng.normal(0.0, 2.0, size=n))
    assert not rectifying(L, rf.RealSpace(n), n=2000, seed=t)
for n in (2, 3, 4, 5):
    L = rf.ReLULayer(rf.zoo.standard_basis(n), 0.0)
    X = rf.PositiveBall(n, 100.0).sample(N, seed=n)
    X[: N // 2, : n // 2] = 0.0  # points on faces of the orthant
    assert np.all(rf.is_rectifying(L, X))
    assert not rf.is_rectifying(L, -np.ones(n) / n)  # and not beyond the orthant
print("bases: never on R^n; the standard basis: 0-rectifying on R^n_+ (n = 2..5)")

# %% [markdown]
# **[ex:mb]** The triangle (Mercedes-Benz) frame
# $\Phi_3 = \big((0,1), (-\tfrac{\sqrt3}2, -\tfrac12), (\tfrac{\sqrt3}2, -\tfrac12)\big)$ has $3 < 2n$
# elements, so it is not rectifying on $\mathbb{R}^2$ for any bias. On the unit ball it is
# $(-\tfrac12)$-rectifying, and $-\tfrac12$ cannot be raised: at $x = \phi_1$ the coefficients are
# $(1, -\tfrac12, -\tfrac12)$; rotate $x$ slightly towards $\phi_3$ and they become
# $(\approx 1, -\tfrac12 - \delta, -\tfrac12 + \delta)$, so only $\phi_1$ and $\phi_3$ are active, the
# latter just barely — any higher bias for $\phi_3$ switches it off.
#
# Check: the sampling estimate (notebook 03) and the polytope estimate (notebook 04) both give
# $-\tfrac12$ for every element, the latter as a proof; the maximal constant bias is $-\tfrac12$;
# raising any single entry by $0.01$ fails near the unit circle, with a verified collision; random biases fail on
# $\mathbb{R}^2$.

# %%
F = rf.zoo.mercedes_benz()
samp = rf.sampling_bias(F, rf.Ball(2), n_samples=N, seed=SEED, progress=False)
pbe = rf.polytope_bias(F, rf.Ball(2))
np.testing.assert_allclose(samp.values, -0.5, atol=1e-12)
np.testing.assert_allclose(pbe.values, -0.5, atol=1e-12)
assert pbe.is_guarantee
a_c = rf.max_constant_bias(F, rf.Sphere(2), n_samples=N, seed=SEED)
assert -0.5 <= a_c < -0.5 + 1e-3
assert rectifying(rf.ReLULayer(F, -0.5), rf.Ball(2)) and rectifying(rf.ReLULayer(F, -0.5), rf.Sphere(2))
for i in range(3):
    a = np.full(3, -0.5)
    a[i] += 0.01
    chk = rf.check_rectifying(rf.ReLULayer(F, a), rf.Sphere(2), n_samples=N, seed=i)
    assert not chk.rectifying  # fails near the unit circle, so on B too (prop:inclusive)
    witness = rf.find_collision(rf.ReLULayer(F, a), rf.Ball(2), points=0.9999 * chk.failures)
    assert witness.found  # and a verified collision in the ball (Injectivity II)
for t in range(TRIALS // 4):
    assert not rectifying(rf.ReLULayer(F, rng.normal(-1.0, 1.0, size=3)), rf.RealSpace(2), n=2000, seed=t)
print("sampling:", samp.values, "| polytope (guaranteed):", pbe.values, f"| α_c ≈ {a_c:.4f}")

# %% [markdown]
# **[fig:fig2]** Figure 2 of the paper, redrawn: the number of active elements $|I_x^\alpha|$ (darker =
# more). Left: the $\pm$ basis with $\alpha = 0$ — two elements are active everywhere, and they span.
# Middle: the standard basis with $\alpha = 0$ is rectifying on $\mathbb{R}^2_+$ (both active), and
# with $\alpha = -1$ on $\mathbb{B}$ (dashed lines: both half-spaces contain the ball). Right: the
# triangle with $\alpha = -\tfrac12$ has two or three active elements on $\mathbb{B}$ but only one in
# the light cones outside.

# %%
fig2 = plane.figure2(resolution=RES)
fig2

# %% [markdown]
# Check of the caption, on grids of the figure's window.

# %%
G = plane.grid_points((-1.6, 1.6, -1.6, 1.6), resolution=RES)
Lpm = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
assert np.all(rf.is_rectifying(Lpm, G)) and np.all(plane.active_counts(Lpm, G) >= 2)
Le0, Le1 = rf.ReLULayer(rf.zoo.standard_basis(2), 0.0), rf.ReLULayer(rf.zoo.standard_basis(2), -1.0)
assert np.array_equal(rf.is_rectifying(Le0, G), np.all(G >= 0, axis=1))  # exactly the closed orthant
assert np.all(rf.is_rectifying(Le1, G[rf.Ball(2).contains(G)]))
Ltri = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
counts = plane.active_counts(Ltri, G)
inside = rf.Ball(2).contains(G)
assert np.all(counts[inside] >= 2) and np.all(rf.is_rectifying(Ltri, G[inside]))
assert np.any(counts[~inside] == 1) and np.all(counts >= 1)  # the light cones: one active element
assert len(fig2.axes) >= 3
print("fig2 grid:", G.shape[0], "points; one-element cones outside the ball:", int(np.sum(counts == 1)), "points")

# %% [markdown]
# ## 2. The maximal domain
#
# Where exactly is $\Phi$ $\alpha$-rectifying? A point $x$ is a rectifying point iff its active
# elements contain a basis, i.e. iff $x$ lies in all half-spaces $\Omega_i^\alpha$ of *some* basis.
#
# **[thm:bas]** The largest set on which $\Phi$ is $\alpha$-rectifying is
# $$\mathcal K^*_\alpha = \bigcup_{J \subseteq I,\ \Phi_J \text{ basis}}\ \bigcap_{i\in J}\Omega_i^\alpha ,$$
# so $\Phi$ is $\alpha$-rectifying on $K$ iff $K \subseteq \mathcal K^*_\alpha$.
#
# Two consequences: a unit-norm frame is $\alpha$-rectifying on $\mathbb{B}_r$ iff $r$ does not exceed
# the distance from the origin to the complement of $\mathcal K^*_\alpha$; and for $\alpha = 0$ the set
# $\mathcal K^*_0$ is a union of cones, so being $\mathbf 0$-rectifying on a small ball is the same as
# on all of $\mathbb{R}^n$ — not so for negative biases (the triangle at $-\tfrac12$).
#
# Check: the union formula (`in_maximal_domain` enumerates the bases) and the rank test
# (`is_rectifying`) agree at every grid or sample point, for random frames in $\mathbb{R}^2$ and
# $\mathbb{R}^3$, with and without parallel vectors; the radius of the largest ball inside
# $\mathcal K^*_\alpha$ decides the ball test; and the exact zero-bias test on $\mathbb{R}^2$ (notebook 03)
# agrees with the test on a ball of radius $10^{-2}$.

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
# The maximal domain is neither open nor convex in general, so Injectivity I (notebook 01) does not
# apply to it directly. It applies to any open or convex set in between:
#
# **[cor:maxdomain-other]** If $\emptyset \ne K \subseteq O \subseteq \mathcal K^*_\alpha$ with $O$ open or
# convex, then $C_\alpha$ is injective on $K$ — for $K$ a sphere, a donut
# $\mathbb{D}_{r,s} = \{s \le \|x\| \le r\}$ or a finite data set, none of which is open or convex.
#
# Check, on the regular pentagon with $\alpha = 0.1\cdot\mathbf 1$: it is not rectifying on the ball
# (at the origin nothing is active), but the open set $O = \{\|x\| > 0.4\}$ lies in
# $\mathcal K^*_\alpha$ (the second largest coefficient of a unit vector is at least
# $\cos 72^\circ \approx 0.309$, and $0.4 \cdot 0.309 > 0.1$). So the layer is injective on the donut
# $\mathbb{D}_{1,1/2} \subset O$: all samples are recovered from their outputs, and no collision is
# found. The same for the unit sphere, and for a finite data set in $O$ (exact search).

# %%
F5 = rf.zoo.regular_polygon(5)
L5 = rf.ReLULayer(F5, 0.1)
assert not rectifying(L5, rf.Ball(2)) and not rf.is_rectifying(L5, np.zeros(2))
O_pts = rf.Shell(2, 0.4, 5.0).sample(N, seed=SEED)  # samples of O (cut at radius 5; O is a union of rays beyond)
O_pts = np.vstack([O_pts, 1e3 * O_pts[:100]])
assert np.all(rf.in_maximal_domain(L5, O_pts))
for K in [rf.Shell(2, 0.5, 1.0), rf.Sphere(2)]:
    X = K.sample(N, seed=SEED + 1)
    np.testing.assert_allclose(rf.reconstruct(L5, L5(X)), X, atol=1e-10)
    assert not rf.find_collision(L5, K, n_samples=N).found
D = rf.Samples(rf.Shell(2, 0.45, 3.0).sample(500, seed=7))  # a finite data set inside O
none = rf.find_collision(L5, D)
assert not none.found and none.certainty == "exact"
print("pentagon, α = 0.1: injective on the donut D_{1,1/2}, on the sphere and on a finite set in O")

# %% [markdown]
# Without such an $O$ injectivity can fail even on $\mathcal K^*_\alpha$ itself:
#
# **[ex:mb2]** For the triangle frame and $\alpha = 0$, the points
# $x_1 = (\tfrac12, \tfrac{\sqrt3}2)$ and $x_2 = (-\tfrac12, \tfrac{\sqrt3}2)$ lie in $\mathcal K^*_0$
# ($\phi_1$ and $\phi_3$, resp. $\phi_1$ and $\phi_2$, are active — the second one with coefficient
# exactly 0) and $C_0 x_1 = C_0 x_2 = (\tfrac{\sqrt3}2, 0, 0)$. So $\Phi$ is $\mathbf 0$-rectifying on
# $\mathcal K^*_0$ while $C_0$ is not injective there: $\mathcal K^*_0$ is neither open nor convex,
# and no open or convex $O \subseteq \mathcal K^*_0$ contains both points (they sit on its boundary).
#
# Check: membership, equal outputs, and that the segment between them leaves $\mathcal K^*_0$.

# %%
L0 = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
s3 = np.sqrt(3.0) / 2
x1, x2 = np.array([0.5, s3]), np.array([-0.5, s3])
assert rf.in_maximal_domain(L0, x1) and rf.in_maximal_domain(L0, x2)
assert rf.is_rectifying(L0, x1) and rf.is_rectifying(L0, x2)
np.testing.assert_allclose(L0(x1), [s3, 0.0, 0.0], atol=1e-15)
np.testing.assert_allclose(L0(x2), L0(x1), atol=1e-15)
seg = np.linspace(x1, x2, 101)[1:-1]
assert not np.any(rf.is_rectifying(L0, seg))  # strictly between them only phi_1 is active
print("C_0 x1 =", L0(x1), "= C_0 x2 =", L0(x2))

# %% [markdown]
# **[fig:fig3]** Figure 3 of the paper, redrawn. Left: the maximal domain $\mathcal K^*_0$ of the
# triangle frame (dark; white where a single element is active) with the
# colliding pair of `ex:mb2`. Middle: the maximal domain of a random unit-norm frame with a random
# bias — a union of intersections of half-planes. Right: the set
# $K_2 = \{x \in \mathbb{B} : 2 \in J^*(x)\}$ of Example a (notebook 03): a sector of half-angle
# $3\pi/8$ around $\phi_2$.

# %%
fig3 = plane.figure3(resolution=RES)
fig3

# %% [markdown]
# Check of the caption: the white region of the left panel is where fewer than two elements are
# active; $\mathcal K^*_\alpha$ of a random frame with random bias is the union formula (above, and
# once more here); $K_2$ is the sector $|\angle(x, \phi_2)| \le 3\pi/8$ (up to the tie rays on its
# edges).

# %%
G = plane.grid_points((-1.5, 1.5, -1.5, 1.5), resolution=RES)
assert np.array_equal(~rf.is_rectifying(L0, G), plane.active_counts(L0, G) < 2)
Lr = rf.ReLULayer(rf.zoo.random_sphere(6, 2, seed=SEED + 500), 0.4 * rng.standard_normal(6))
assert np.array_equal(rf.in_maximal_domain(Lr, G), rf.is_rectifying(Lr, G))

Fa = rf.zoo.example_a()
B = G[rf.Ball(2).contains(G) & (np.linalg.norm(G, axis=1) > 1e-9)]
J, ties = rf.most_correlated_basis(Fa, B, return_ties=True)
in_K2 = np.any(J == 1, axis=1)
angle = np.abs(np.angle((B[:, 0] + 1j * B[:, 1]) * np.exp(-1j * np.pi / 4)))  # angle to phi_2
sector = angle <= 3 * np.pi / 8
assert np.array_equal(in_K2[~ties], sector[~ties])
print(f"K_2 on the grid: {in_K2.mean():.1%} of the ball (a sector of half-angle 3π/8 is 37.5%)")

# %%
print("all checks passed")
