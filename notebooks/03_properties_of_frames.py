# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 — Properties of alpha-rectifying frames
#
# [02_injectivity](02_injectivity.ipynb) showed that, on reasonable domains, a ReLU layer is
# injective exactly when its frame is $\alpha$-rectifying. This notebook collects the first
# structural facts about the property: what normalizing does, when counting active elements is
# enough, how robust the property is, how many elements one needs on all of $\mathbb{R}^n$, and what
# happens on balls. Three small frames serve as running examples.
#
# **What you will learn**
#
# * every frame can be normalized to unit norm if the bias is divided by the norms;
# * for full-spark frames the rank test becomes a count, $|I_x^\alpha| \ge n$ — and why the paper's
#   version with a general spark is wrong;
# * small perturbations of the frame keep the property at a slightly smaller bias;
# * on all of $\mathbb{R}^n$ one needs at least $2n$ elements (with a corrected threshold in the
#   proof), while on a ball every unit-norm frame works with bias $-r$;
# * the examples "basis" and "mb" and Figure 2.
#
# | tag | item |
# |---|---|
# | `[lem:normalized]` | unit-norm rows: divide the bias by the norms |
# | `[cor:spark]` | full spark: rectifying is a count $|I_x^\alpha| \ge n$ |
# | `[lem:perturbation]` | $\varepsilon$-perturbed frames stay rectifying with bias $\alpha - \varepsilon M$ |
# | `[prop:red]` | on all of $\mathbb{R}^n$ one needs $m \ge 2n$ |
# | `[lem:Br]` | on the ball $\mathbb{B}_r$ every unit-norm frame is $(-r)$-rectifying; sharp for bases |
# | `[ex:basis]` | a basis is never rectifying on $\mathbb{R}^n$; the standard basis is on $\mathbb{R}^n_+$ |
# | `[ex:mb]` | the triangle frame: $-\tfrac12$ is the best bias on the unit ball |
# | `[fig:fig2]` | Figure 2: active counts for the $\pm$ basis, the standard basis and the triangle |
#
# **Errata** shown below, each with a counterexample to the printed text: the definition of the
# spark used in the corollary on spark, and the threshold $t^*$ in the proof of the redundancy bound.

# %%
# %matplotlib inline
from itertools import combinations

import numpy as np

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240103
N = 200_000 if FULL else 20_000  # samples for checks "on the domain"
TRIALS = 200 if FULL else 40  # random layers for statements "for every frame and bias"
RES = 601 if FULL else 241  # grid resolution of the pictures and grid checks
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. Normalized frames
#
# **[lem:normalized]** $\langle x, \phi_i\rangle \ge \alpha_i$ iff
# $\langle x, \phi_i/\|\phi_i\|\rangle \ge \alpha_i/\|\phi_i\|$. So $\Phi$ is $\alpha$-rectifying on
# $K$ iff the unit-norm frame $\Phi' = (\phi_i/\|\phi_i\|)_i$ is $\alpha'$-rectifying with
# $\alpha'_i = \alpha_i/\|\phi_i\|$; the outputs differ by the factors $\|\phi_i\|$. From now on frames
# can be assumed unit-norm.
#
# Check: same active sets and same verdicts at every point, outputs rescaled.

# %%
for t in range(TRIALS // 4):
    F = rf.zoo.gaussian(9, 3, seed=SEED + 300 + t, scale=3.0)
    L = rf.ReLULayer(F, rng.normal(0.0, 2.0, size=9))
    Ln = L.normalized()
    X = rf.Ball(3, 2.0).sample(5000, seed=t)
    assert Ln.frame.is_normalized()
    np.testing.assert_allclose(Ln.alpha, L.alpha / F.norms)
    np.testing.assert_allclose(Ln.alpha, F.normalize_bias(L.alpha))
    assert np.array_equal(L.active_set(X), Ln.active_set(X))
    assert np.array_equal(rf.is_rectifying(L, X), rf.is_rectifying(Ln, X))
    np.testing.assert_allclose(Ln(X) * F.norms, L(X), rtol=1e-12, atol=1e-12)
print(f"normalizing rows and biases changes no active set and no verdict ({TRIALS // 4} random layers)")

# %% [markdown]
# ## 2. Full-spark frames
#
# A frame is **full spark** when every $n$ of its vectors form a basis (random frames are, with
# probability one). Then a set of active elements spans iff it has at least $n$ members:
#
# **[cor:spark]** For a full-spark frame, $\Phi$ is $\alpha$-rectifying on $K$ iff
# $|I_x^\alpha| \ge n$ for all $x \in K$.
#
# Check: for random full-spark frames the count test equals the rank test at random points.

# %%
for t in range(TRIALS // 4):
    F = rf.zoo.random_sphere(10, 4, seed=SEED + 400 + t)
    assert F.is_full_spark() and F.spark() == 5
    L = rf.ReLULayer(F, rng.normal(0.0, 0.4, size=10))
    X = rf.Ball(4).sample(5000, seed=t)
    by_count = rf.is_rectifying(L, X, full_spark=True)
    by_rank = rf.is_rectifying(L, X, full_spark=False)
    assert np.array_equal(by_count, by_rank)
    assert np.array_equal(by_count, L.active_set(X).sum(axis=1) >= 4)
print("count test = rank test on", TRIALS // 4, "random full-spark frames in R^4")

# %% [markdown]
# ### Erratum: the spark in the corollary
#
# The paper defines the spark as "the smallest number $s \ge n+1$ of linearly dependent frame
# elements" and states: *$\Phi$ with spark $s$ is $\alpha$-rectifying iff $|I_x^\alpha| \ge s-1$*.
# Any $n+1$ vectors of $\mathbb{R}^n$ are dependent, so that definition always gives $s = n+1$, and
# the statement is the full-spark corollary above. With the usual spark (the size of the smallest
# dependent sub-collection, which can be $\le n$) the count test is wrong in both directions, and no
# count replaces the rank test:
#
# * the $\pm$ basis $(e_1, e_2, -e_1, -e_2)$ has spark 2 ($e_1$ and $-e_1$ are dependent); with
#   $\alpha = 0.1\cdot\mathbf 1$ the point $x = e_1$ has $|I_x| = 1 \ge s-1$ but is not rectifying;
# * reading $s-1$ instead as "every $s-1$ elements span" ($s - 1 = 3$ here) fails the other way:
#   with $\alpha = 0$, $x = (1,1)$ is rectifying with only 2 active elements.

# %%
Fpm = rf.zoo.plus_minus_basis(2)
s = Fpm.spark()
assert s == 2
L01 = rf.ReLULayer(Fpm, 0.1)
x = np.array([1.0, 0.0])
assert L01.active_set(x).sum() >= s - 1 and not rf.is_rectifying(L01, x)  # printed count test says yes: wrong

smallest_always_spanning = min(k for k in range(1, 5) if all(Fpm.spans(J) for J in combinations(range(4), k)))
assert smallest_always_spanning == 3
L00 = rf.ReLULayer(Fpm, 0.0)
x = np.array([1.0, 1.0])
assert L00.active_set(x).sum() == 2 and rf.is_rectifying(L00, x)  # rectifying with fewer than 3 active
print(f"± basis: spark {s}; count test fails at e1 (α = 0.1); 'every 3 span' test fails at (1, 1) (α = 0)")

# %% [markdown]
# ## 3. Perturbed frames
#
# **[lem:perturbation]** Let $\Phi$ be $\alpha$-rectifying on a bounded $K$ with
# $M = \sup_{x\in K}\|x\|$. If $\|\phi_i - \phi'_i\| < \varepsilon$ for all $i$, then $\Phi'$ is
# $(\alpha - \varepsilon M)$-rectifying on $K$: every element active for $\Phi$ at $x$ stays active,
# since $\langle x, \phi'_i\rangle \ge \langle x, \phi_i\rangle - \varepsilon\|x\| \ge \alpha_i - \varepsilon M$.
#
# Check: random perturbations of the triangle frame ($\alpha = -\tfrac12$ on $\mathbb{B}$, Example
# "mb" below), tested on the ball and on its boundary, where the bias is tight. The shift
# $\varepsilon M$ cannot be dropped: for the standard basis, which is $(-1)$-rectifying on
# $\mathbb{B}$ and no more (Lemma "B_r" below), scaling by $1 + 0.99\varepsilon$ breaks the bias $-1$,
# and $-1 - \varepsilon$ repairs it.

# %%
F = rf.zoo.mercedes_benz()
eps, M = 0.05, 1.0
for t in range(TRIALS // 4):
    d = rng.standard_normal((3, 2))
    d *= (0.999 * eps * rng.random(3) / np.linalg.norm(d, axis=1))[:, None]
    Fp = rf.Frame(F.vectors + d)
    Lp = rf.ReLULayer(Fp, -0.5 - eps * M)
    assert rf.check_rectifying(Lp, rf.Ball(2), n_samples=N, seed=t).rectifying
    assert rf.check_rectifying(Lp, rf.Sphere(2), n_samples=N, seed=t).rectifying

E = rf.zoo.standard_basis(2)
Es = rf.Frame((1 + 0.99 * eps) * E.vectors)
assert rf.check_rectifying(rf.ReLULayer(E, -1.0), rf.Ball(2), n_samples=N, seed=SEED).rectifying
assert not rf.is_rectifying(rf.ReLULayer(Es, -1.0), [-1.0, 0.0])  # alpha itself fails for the perturbed frame
assert rf.check_rectifying(rf.ReLULayer(Es, -1.0 - eps * M), rf.Ball(2), n_samples=N, seed=SEED).rectifying
print(f"{TRIALS // 4} perturbations of size < {eps}: rectifying with α - εM = {-0.5 - eps:.2f}; the shift is needed")

# %% [markdown]
# ## 4. Redundancy
#
# **[prop:red]** A frame that is $\alpha$-rectifying on all of $\mathbb{R}^n$ has $m \ge 2n$
# elements, whatever $\alpha$ is.
#
# Why: pick $x$ with no $\langle x,\phi_i\rangle = 0$ and split the elements by the sign of
# $\langle x, \phi_i\rangle$. Far out along $\pm x$ the bias no longer matters: for large $t$ the active
# set of $tx$ is the positive part and that of $-tx$ the negative part. Both must span, and they are
# disjoint, so $m \ge n + n$. The $\pm$ basis shows that $2n$ is enough (for $\alpha = 0$).
#
# Check: for random frames with $n \le m < 2n$ and random biases, the two far points $\pm tx$ have
# disjoint active sets and one of them is not rectifying; `check_rectifying` on $\mathbb{R}^n$ finds a
# failure too; and the exact zero-bias test `rf.zero_bias_injective` confirms that the $\pm$ basis is
# $\mathbf 0$-rectifying on $\mathbb{R}^n$.

# %%
for t in range(TRIALS):
    n = int(rng.integers(2, 5))
    m = int(rng.integers(n, 2 * n))
    F = rf.zoo.gaussian(m, n, seed=SEED + 500 + t)
    L = rf.ReLULayer(F, rng.normal(0.0, 1.0, size=m))
    x = rng.standard_normal(n)
    c = F.analysis(x)
    t_star = np.max(np.abs(L.alpha) / np.abs(c))  # corrected threshold (see the erratum below)
    u, v = 1.01 * t_star * x, -1.01 * t_star * x
    Iu, Iv = L.active_set(u), L.active_set(v)
    assert np.array_equal(Iu, c > 0) and np.array_equal(Iv, c < 0) and not np.any(Iu & Iv)
    assert not (rf.is_rectifying(L, u) and rf.is_rectifying(L, v))
    assert not rf.check_rectifying(L, rf.RealSpace(n), n_samples=2000, seed=t).rectifying
for n in (2, 3, 4):
    assert rf.zero_bias_injective(rf.zoo.plus_minus_basis(n)).injective
print(f"{TRIALS} random frames with m < 2n: never rectifying on R^n; the ± basis (m = 2n) is")

# %% [markdown]
# ### Erratum: the threshold $t^*$ in the proof of the redundancy bound
#
# The proof sets $t^* = \max_i \alpha_i/\langle x,\phi_i\rangle$ and claims that for $t > t^*$ the active
# sets of $tx$ and $-tx$ are the positive and the negative part. Both conditions
# $\langle tx,\phi_i\rangle \gtrless \alpha_i$ and $\langle -tx,\phi_i\rangle \lessgtr \alpha_i$ are needed,
# which requires
# $$t > t^* = \max_i \frac{|\alpha_i|}{|\langle x,\phi_i\rangle|}.$$
# (The printed $t^*$ can be negative, and then "$t > t^*$" says nothing.)
# Counterexample to the printed threshold: the triangle frame, $\alpha = (-2, -\tfrac12, -\tfrac12)$,
# $x = e_2 = \phi_1$: the printed $t^* = 1$, but at $t = 1.1$ the point $-tx$ still has
# $\phi_1$ active ($-1.1 \ge -2$), so its active set is not the negative part. The corrected
# $t^* = 2$ works.

# %%
F = rf.zoo.mercedes_benz()
L = rf.ReLULayer(F, [-2.0, -0.5, -0.5])
x = np.array([0.0, 1.0])
c = F.analysis(x)
t_printed = np.max(L.alpha / c)
t_fixed = np.max(np.abs(L.alpha) / np.abs(c))
np.testing.assert_allclose([t_printed, t_fixed], [1.0, 2.0])
t = 1.1  # > printed t*
assert not np.array_equal(L.active_set(-t * x), c < 0)  # the claim fails
for t in (2.01, 5.0, 50.0):  # > corrected t*
    assert np.array_equal(L.active_set(t * x), c > 0) and np.array_equal(L.active_set(-t * x), c < 0)
print(f"printed t* = {t_printed:.1f} is too small; corrected t* = {t_fixed:.1f}")

# %% [markdown]
# ## 5. Balls
#
# Bounded domains break the redundancy bound:
#
# **[lem:Br]** Every unit-norm frame is $(-r)$-rectifying on the ball $\mathbb{B}_r$ (all entries
# of the bias equal to $-r$) — since $\langle x,\phi_i\rangle \ge -\|x\| \ge -r$, *every* element is
# active. For a basis the value $-r$ is the largest possible: a basis needs all of its elements, and at
# $x = -r\phi_i$ the coefficient of $\phi_i$ is exactly $-r$.
#
# Check: random unit-norm frames, every element active on $\mathbb{B}_r$ and on its boundary for
# $\alpha = -r$; random bases: raising any single entry above $-r$ fails at $-r\phi_i$.

# %%
for t in range(TRIALS // 4):
    n = int(rng.integers(2, 6))
    m = int(rng.integers(n, 3 * n))
    r = float(rng.uniform(0.5, 3.0))
    F = rf.zoo.random_sphere(m, n, seed=SEED + 600 + t)
    L = rf.ReLULayer(F, -r)
    X = np.vstack([rf.Ball(n, r).sample(2000, seed=t), rf.Sphere(n, r).sample(2000, seed=t)])
    assert np.all(L.active_set(X)) and np.all(rf.is_rectifying(L, X))
    Fb = rf.zoo.random_sphere(n, n, seed=SEED + 700 + t)  # a unit-norm basis
    for i in range(n):
        a = np.full(n, -r)
        a[i] += 1e-6
        assert not rf.is_rectifying(rf.ReLULayer(Fb, a), -r * Fb.vectors[i])
print("unit-norm frames are (-r)-rectifying on B_r; for bases -r cannot be raised")

# %% [markdown]
# ## 6. Three examples and Figure 2
#
# **[ex:basis]** A basis ($m = n$) is never $\alpha$-rectifying on $\mathbb{R}^n$, whatever $\alpha$
# (it has fewer than $2n$ elements, section 4). But the domain can make up for it: the standard basis
# is $\mathbf 0$-rectifying on the closed orthant $\mathbb{R}^n_+$, where every coordinate is
# $\ge 0$, so every element is active; and on the unit ball it is $(-1)$-rectifying (section 5).
#
# Check: random bases and biases fail somewhere on $\mathbb{R}^n$; the standard basis with
# $\alpha = 0$ passes on samples of large non-negative balls *and* on their faces, where some
# coordinates are exactly 0, and fails just outside the orthant.

# %%
for t in range(TRIALS // 2):
    n = 2 + t % 4
    L = rf.ReLULayer(rf.zoo.gaussian(n, n, seed=SEED + 100 + t), rng.normal(0.0, 2.0, size=n))
    assert not rf.check_rectifying(L, rf.RealSpace(n), n_samples=2000, seed=t).rectifying
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
# latter just barely — any higher bias for $\phi_3$ switches it off. (Lemma "B_r" only gives $-1$:
# redundancy buys a better bias.)
#
# Check: the polytope estimate ([07_polytope_bias](07_polytope_bias.ipynb)) gives $-\tfrac12$ for
# every element, as a proof. The sampling estimate ([06_sampling](06_sampling.ipynb)) only brackets
# the value: on $N$ samples of the ball it is a minimum over fewer points than $\mathbb{B}$, so it is
# $\ge -\tfrac12$, and once the covering radius $\rho$ of the samples is subtracted it is a proven
# bias, hence $\le -\tfrac12$ since $-\tfrac12$ cannot be raised. So
# $-\tfrac12 \le \alpha^{(N)}_i \le -\tfrac12 + \rho$, and with $N = 20\,000$ samples alone it stays
# above $-\tfrac12$ (about $-0.494$ at the default size). What the sampling routine returns by default is
# exactly $-\tfrac12$, but that is the seeding, not the sampling: it first feeds in the frame vectors
# themselves (`init="auto"`, the paper's suggestion), and at $x = \phi_j$ the other two coefficients
# are exactly $-\tfrac12$ — the three seeds alone give $-\tfrac12$. The maximal constant bias
# ([05_maximal_bias](05_maximal_bias.ipynb)) is $-\tfrac12$; raising any single entry by $0.01$ fails
# near the unit circle, with a verified collision; random biases fail on $\mathbb{R}^2$.

# %%
F = rf.zoo.mercedes_benz()
pbe = rf.polytope_bias(F, rf.Ball(2))
np.testing.assert_allclose(pbe.values, -0.5, atol=1e-12)
assert pbe.is_guarantee
Xs = rf.Ball(2).sample(N, seed=SEED)
samp = rf.sampling_bias(F, Xs, init="none", progress=False)  # the samples alone
rho = rf.covering_radius(Xs, rf.Ball(2), kind="guaranteed", max_points=400_000)
assert rho.is_guarantee
assert np.all(-0.5 <= samp.values) and np.all(samp.values <= -0.5 + rho.value * F.norms)  # -1/2 <= α^(N) <= -1/2 + ρ
assert np.all(samp.values > -0.5)  # N samples alone do not reach -1/2
seeded = rf.sampling_bias(F, rf.Ball(2), n_samples=N, seed=SEED, progress=False)  # init="auto": seeds first
seeds_only = rf.sampling_bias(F, F.vectors, progress=False)  # the three seeds, as a data set
np.testing.assert_allclose(seeded.values, -0.5, atol=1e-12)
np.testing.assert_allclose(seeds_only.values, -0.5, atol=1e-12)
a_c = rf.max_constant_bias(F, rf.Sphere(2), n_samples=N, seed=SEED)
assert -0.5 <= a_c < -0.5 + 1e-3
assert rf.check_rectifying(rf.ReLULayer(F, -0.5), rf.Ball(2), n_samples=N, seed=SEED).rectifying
assert rf.check_rectifying(rf.ReLULayer(F, -0.5), rf.Sphere(2), n_samples=N, seed=SEED).rectifying
for i in range(3):
    a = np.full(3, -0.5)
    a[i] += 0.01
    chk = rf.check_rectifying(rf.ReLULayer(F, a), rf.Sphere(2), n_samples=N, seed=i)
    assert not chk.rectifying  # fails near the unit circle, so on the ball too
    witness = rf.find_collision(rf.ReLULayer(F, a), rf.Ball(2), points=0.9999 * chk.failures)
    assert witness.found  # and a verified collision in the ball (Injectivity II)
for t in range(TRIALS // 4):
    L = rf.ReLULayer(F, rng.normal(-1.0, 1.0, size=3))
    assert not rf.check_rectifying(L, rf.RealSpace(2), n_samples=2000, seed=t).rectifying
print(f"sampling, {N} samples: {samp.values} (covering radius ≤ {rho.value:.4f}) | seeded: {seeded.values}")
print("polytope (guaranteed):", pbe.values, f"| α_c ≈ {a_c:.4f}")

# %% [markdown]
# **[fig:fig2]** Figure 2 of the paper, redrawn: the number of active elements $|I_x^\alpha|$ (darker =
# more). Left: the $\pm$ basis with $\alpha = 0$ — two elements are active everywhere, and they span.
# Middle: the standard basis with $\alpha = 0$ is rectifying on $\mathbb{R}^2_+$ (both active), and
# with $\alpha = -1$ on $\mathbb{B}$ (dashed lines: both half-spaces contain the ball). Right: the
# triangle with $\alpha = -\tfrac12$ has two or three active elements on $\mathbb{B}$ but only one in
# the light cones outside.

# %%
fig2 = plane.figure2(resolution=RES)
fig2.suptitle("[fig:fig2] number of active elements")
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
assert len(fig2.axes) >= 3 and fig2.get_suptitle().startswith("[fig:fig2]")
print("fig2 grid:", G.shape[0], "points; one-element cones outside the ball:", int(np.sum(counts == 1)), "points")

# %% [markdown]
# ## What we saw
#
# * Normalizing a frame and dividing the bias by the norms changes nothing, so unit-norm frames are
#   no loss of generality.
# * For full-spark frames the rank test is a count; for general frames no count works (the printed
#   spark corollary fails both ways on the $\pm$ basis).
# * The property survives small perturbations of the frame at the price of a bias lowered by
#   $\varepsilon M$.
# * All of $\mathbb{R}^n$ needs $2n$ elements (with the corrected $t^*$ in the proof); on a ball,
#   a bias of $-r$ works for every unit-norm frame and is the best a basis can do.
# * The domain can compensate: a basis works on the orthant, and the triangle frame reaches
#   $-\tfrac12$ on the unit ball.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb03.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 3.1 — Normalize a layer
#
# The frame `ex.nb03.frame_3_1()` has the rows $(3, 0), (1, 2), (-2, 2), (-1, -3), (2, -2)$, which are
# not unit-norm, and the layer has the bias $\alpha = (0.6, -0.5, 1, -2, 0.4)$ (`ex.nb03.ALPHA_3_1`).
# Which bias $\alpha'$ gives the normalized frame the same active set at every $x$? Set `answer_3_1` to it.

# %% tags=["answer"]
answer_3_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F31 = ex.nb03.frame_3_1()
L31 = rf.ReLULayer(F31, ex.nb03.ALPHA_3_1)
answer_3_1 = np.asarray(ex.nb03.ALPHA_3_1) / F31.norms  # Lemma "normalized"
X31 = rf.Ball(2, 3.0).sample(5000, seed=SEED)
assert np.array_equal(L31.active_set(X31), rf.ReLULayer(F31.normalized(), answer_3_1).active_set(X31))
print("alpha' =", answer_3_1)
ex.solution("3.1", answer_3_1)

# %% tags=["check"]
ex.nb03.check_3_1(answer_3_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 3.2 — Twice the dimension, but fragile
#
# The $\pm$ basis of $\mathbb{R}^3$ is $\mathbf 0$-rectifying on all of $\mathbb{R}^3$ with the smallest number of
# elements that section 4 allows, $m = 2n = 6$. Move each of its six rows (in the order
# $e_1, e_2, e_3, -e_1, -e_2, -e_3$) by less than $0.1$ so that the new frame is *not* $\mathbf 0$-rectifying on
# $\mathbb{R}^3$, and find a point $x \ne 0$ at which its active rows (zero bias) do not span. Set
# `answer_3_2` to `(frame, x)`, the frame as a $6 \times 3$ array of rows. Why does almost every small
# perturbation work? (Follow the count of positive coefficients along a path of directions $u$.)

# %% tags=["answer"]
answer_3_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
d32 = np.random.default_rng(SEED).standard_normal((6, 3))
Phi32 = rf.zoo.plus_minus_basis(3).vectors + 0.05 * d32 / np.linalg.norm(d32, axis=1, keepdims=True)
tukey32 = rf.zero_bias_injective(Phi32)
answer_3_2 = (Phi32, tukey32.witness)
print(f"Tukey depth {tukey32.depth} < 3; at x = {tukey32.witness.round(4)} the active rows are",
      [int(i) + 1 for i in np.flatnonzero(rf.ReLULayer(Phi32, 0.0).active_set(tukey32.witness))])  # fmt: skip
# Why: every generic direction u needs >= 3 of the 6 coefficients on each side, so exactly 3. Crossing the
# plane phi_i^perp moves phi_i to the other side and the split becomes 2/4 -- unless an antipodal partner -phi_i
# crosses at the same time. Only exact +- pairs keep the split, and a perturbation breaks the pairs.
ex.solution("3.2", answer_3_2)

# %% tags=["check"]
ex.nb03.check_3_2(answer_3_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 3.3 — The perturbation lemma at work
#
# Each row of the frame `ex.nb03.frame_3_3()`, $(-0.047, 0.987), (-0.82, -0.482), (0.817, -0.5)$, lies
# within $\varepsilon = 0.05$ of the corresponding row of the triangle frame, which is
# $(-\tfrac12)$-rectifying on $\mathbb{B}$. Which bias does Lemma "perturbation" guarantee for the new frame
# on $\mathbb{B}$? Set `answer_3_3` to it (a number or three entries), and check with `rf.check` that the old
# bias $-\tfrac12$ is no longer enough.

# %% tags=["answer"]
answer_3_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F33 = ex.nb03.frame_3_3()
M33 = 1.0  # sup of |x| over the unit ball
answer_3_3 = -0.5 - ex.nb03.EPS_3_3 * M33
for a in (-0.5, answer_3_3):
    print(f"alpha = {a}:", rf.check(rf.ReLULayer(F33, a), rf.Ball(2)).text)
ex.solution("3.3", answer_3_3)

# %% tags=["check"]
ex.nb03.check_3_3(answer_3_3)

# %%
print("03_properties_of_frames: all checks passed")
