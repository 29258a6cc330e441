# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 — Frames and ReLU layers
#
# A ReLU layer with weight rows $\phi_1, \dots, \phi_m \in \mathbb{R}^n$ and bias $\alpha \in \mathbb{R}^m$
# keeps a coefficient $\langle x, \phi_i\rangle - \alpha_i$ when it is positive and sets it to zero
# otherwise. Whether the input can be recovered from the output depends on *which* rows survive at
# each input. This notebook turns that into the notion of an **$\alpha$-rectifying frame**, proves
# numerically that it characterizes injectivity, and collects the first properties (normalization,
# spark, perturbation, redundancy, balls).
#
# | tag | item |
# |---|---|
# | `[relulayer]` | the ReLU layer and the PyTorch sign convention |
# | `[alpharect]` | $\alpha$-rectifying frames, `[fig:fig1]` the picture of $I_x^\alpha$ and $\Omega_i^\alpha$ |
# | `[prop:inclusive]` | monotone in the domain and in the bias |
# | `[reluinj1]`, `[reluinj0]` | rectifying $\Rightarrow$ injective, and back (open or strictly convex domains) |
# | `[lem:normalized]` | unit-norm rows: divide the bias by the norms |
# | `[cor:spark]` | full spark: rectifying is a count |
# | `[lem:perturbation]` | perturbed frames stay rectifying with a smaller bias |
# | `[prop:red]` | on all of $\mathbb{R}^n$ one needs $m \ge 2n$ |
# | `[lem:Br]` | on the ball $\mathbb{B}_r$ every unit-norm frame is $(-r)$-rectifying |
# | `[thm:bigthm]` | the main theorem: four verdicts that agree |
#
# **Errata** shown below, each with a counterexample to the printed text: the definition of strict
# convexity (a sign), the definition of the spark used in the corollary on spark, and the threshold
# $t^*$ in the proof of the redundancy bound.
#
# Conventions: rows of a matrix are the frame vectors; the layer is
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$ (the bias is *subtracted*); code indices are 0-based,
# the text counts $\phi_1, \phi_2, \dots$ from 1.

# %% tags=["parameters"]
FULL = False  # True: paper-scale sample sizes (slower); False: fast run for CI

# %%
# %matplotlib inline
import numpy as np

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

SEED = 20240101
N = 200_000 if FULL else 20_000  # samples for checks "on the domain"
TRIALS = 200 if FULL else 40  # random layers for statements "for every frame and bias"
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. ReLU layers
#
# **[relulayer]** For a collection $\Phi = (\phi_i)_{i=1}^m \subset \mathbb{R}^n$, a bias
# $\alpha \in \mathbb{R}^m$ and a domain $K \subseteq \mathbb{R}^n$, the ReLU layer is
# $$C_\alpha : K \to \mathbb{R}^m, \qquad C_\alpha(x) = \big(\max\{0, \langle x, \phi_i\rangle - \alpha_i\}\big)_{i=1}^m .$$
# When the $\phi_i$ span $\mathbb{R}^n$ they form a **frame**: there are $0 < A \le B$ with
# $A\|x\|^2 \le \sum_i \langle x,\phi_i\rangle^2 \le B\|x\|^2$; the optimal $A, B$ are the extreme
# eigenvalues of $\Phi^\top\Phi$.
#
# A deep-learning library writes the same layer as $\mathrm{ReLU}(Wx + b)$: the weights are the
# frame ($W = \Phi$) and the bias changes sign, $\alpha = -b$.
#
# Check: the batched forward pass equals the formula entry by entry, `from_weights(W, b)` stores
# $\alpha = -b$, and the frame bounds are the extreme eigenvalues.

# %%
W = rng.standard_normal((7, 3))
b = rng.standard_normal(7)
L = rf.ReLULayer.from_weights(W, b)
X = rng.standard_normal((500, 3))

np.testing.assert_allclose(L.alpha, -b)
np.testing.assert_allclose(L(X), np.maximum(X @ W.T + b, 0.0))  # the deep-learning convention
x = X[0]
explicit = [max(0.0, float(np.dot(x, W[i])) - L.alpha[i]) for i in range(7)]  # the paper's formula
np.testing.assert_allclose(L(x), explicit)
W2, b2 = L.to_weights()
np.testing.assert_allclose(W2, W)
np.testing.assert_allclose(b2, b)
A, B = L.frame.bounds
ev = np.linalg.eigvalsh(W.T @ W)
np.testing.assert_allclose([A, B], [ev[0], ev[-1]])
coef2 = ((X @ W.T) ** 2).sum(axis=1) / (X**2).sum(axis=1)
assert np.all(A * (1 - 1e-12) <= coef2) and np.all(coef2 <= B * (1 + 1e-12))
print(L, f"frame bounds A = {A:.4f}, B = {B:.4f}")

# %% [markdown]
# ## 2. Alpha-rectifying frames
#
# At an input $x$ the bias switches off every element with $\langle x, \phi_i\rangle < \alpha_i$. The
# survivors form the **active set** and each element has a closed half-space where it is active:
# $$I_x^\alpha = \{i : \langle x,\phi_i\rangle \ge \alpha_i\}, \qquad
#   \Omega_i^\alpha = \{x : \langle x,\phi_i\rangle \ge \alpha_i\}.$$
#
# **[alpharect]** $\Phi$ is **$\alpha$-rectifying on $K$** if for every $x \in K$ the active
# sub-collection $\Phi_{I_x^\alpha} = (\phi_i)_{i \in I_x^\alpha}$ is a frame for $\mathbb{R}^n$, i.e.
# has rank $n$.
#
# Check: the library's test agrees with a direct rank computation at random points, for a frame
# with a repeated and a parallel vector (so that counting active elements would not be enough).

# %%
phi = rng.standard_normal((6, 3))
phi = np.vstack([phi, phi[0], -2.0 * phi[1]])  # a repeated and a parallel vector
alpha = rng.normal(0.0, 0.7, size=8)
L = rf.ReLULayer(phi, alpha)
X = rf.Ball(3, 2.0).sample(N, seed=SEED)

mask = X @ phi.T >= alpha  # the active sets, from the definition
by_rank = np.array([np.linalg.matrix_rank(phi[row]) == 3 if row.any() else False for row in mask[:2000]])
assert np.array_equal(rf.is_rectifying(L, X[:2000]), by_rank)
assert np.array_equal(L.active_set(X), mask)
print(f"rectifying at {by_rank.mean():.1%} of 2000 random points of B_2; both tests agree at every point")

# %% [markdown]
# **[fig:fig1]** Figure 1 of the paper, redrawn. Left: the active set at a point $x$ of the unit
# ball (grey arrows are switched off). Middle: the half-space $\Omega_1^\alpha$ inside $\mathbb{B}$.
# Right: a *basis* $(\phi_1, \phi_2)$ has no spare elements, so it is $\alpha$-rectifying on $K$
# exactly when $K \subseteq \Omega_1^\alpha \cap \Omega_2^\alpha$.

# %%
fig1 = plane.figure1()
fig1

# %% [markdown]
# Check of the caption: for random bases of $\mathbb{R}^2$ and random biases, a point is a rectifying
# point iff it lies in both half-spaces; and the active set at $x$ is read off the signs of
# $\langle x,\phi_i\rangle - \alpha_i$.

# %%
for t in range(TRIALS):
    Fb = rf.zoo.gaussian(2, 2, seed=SEED + t)
    Lb = rf.ReLULayer(Fb, rng.normal(0.0, 0.5, size=2))
    P = rf.Ball(2, 1.5).sample(2000, seed=t)
    in_both = np.all(P @ Fb.vectors.T >= Lb.alpha, axis=1)
    assert np.array_equal(rf.is_rectifying(Lb, P), in_both)
assert len(fig1.axes) == 3
print("a basis is rectifying exactly on the intersection of its half-spaces:", TRIALS, "random bases checked")

# %% [markdown]
# **[prop:inclusive]** The property is monotone. If $\Phi$ is $\alpha'$-rectifying on $K'$ then
# (i) it is $\alpha'$-rectifying on every $K \subseteq K'$ (the definition is pointwise), and
# (ii) it is $\alpha$-rectifying on $K'$ for every $\alpha \le \alpha'$ (entrywise): lowering a bias
# can only add active elements, $I_x^{\alpha'} \subseteq I_x^{\alpha}$.
#
# Check: (ii) pointwise for random frames, biases and decrements, and (i) on subsets of the unit ball
# for the triangle frame at $\alpha = -\tfrac12$ (notebook 02 shows that this bias works on
# $\mathbb{B}$).

# %%
for t in range(TRIALS):
    F = rf.zoo.gaussian(5, 2, seed=SEED + 100 + t)
    a_big = rng.normal(0.0, 0.5, size=5)
    a_small = a_big - rng.exponential(0.3, size=5)
    L_big, L_small = rf.ReLULayer(F, a_big), rf.ReLULayer(F, a_small)
    P = rf.Ball(2, 2.0).sample(2000, seed=t)
    assert np.all(L_big.active_set(P) <= L_small.active_set(P))  # I_x^{alpha'} is a subset of I_x^{alpha}
    assert np.all(rf.is_rectifying(L_small, P)[rf.is_rectifying(L_big, P)])  # rectifying for alpha' => for alpha

Ltri = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
assert rf.check_rectifying(Ltri, rf.Ball(2), n_samples=N).rectifying
for K in [rf.Sphere(2), rf.Shell(2, 0.5, 1.0), rf.Ball(2, 0.3), rf.PositiveBall(2), rf.Samples(rf.Ball(2).sample(50, seed=3))]:
    assert rf.check_rectifying(Ltri, K, n_samples=N).rectifying, K
print("monotone in the bias (", TRIALS, "random layers) and in the domain (5 subsets of the ball)")

# %% [markdown]
# ## 3. Rectifying and injective
#
# **[reluinj1]** (Injectivity I) If $\Phi$ is $\alpha$-rectifying on $K$, then $C_\beta$ is injective
# on $K$ for every $\beta < \alpha$ (all entries strictly smaller), whatever $K$ is. If $K$ is open
# or convex, $C_\alpha$ itself is injective on $K$.
#
# Why: where the outputs of $x$ and $y$ agree and are positive, the coefficients agree; for
# $\beta < \alpha$ the elements of $I_x^\alpha$ all have *positive* output, and they span. With
# $\alpha$ itself one looks at a point $x_\lambda = (1-\lambda)x + \lambda y$ of the segment (which
# stays in $K$ when $K$ is convex, or for small $\lambda$ when $K$ is open): its active elements are
# active at both ends with equal coefficients.
#
# Check, on the triangle frame with $\alpha = -\tfrac12$ on the (convex) ball: an explicit left
# inverse (`rf.reconstruct`, notebook 06) recovers every sample from its output, so no two samples
# can share an output; the exact search among the samples finds no collision. For $\beta < \alpha$
# the same holds on a domain that is neither open nor convex: the sphere.

# %%
Ltri = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
X = rf.Ball(2).sample(N, seed=SEED)
np.testing.assert_allclose(rf.reconstruct(Ltri, Ltri(X)), X, atol=1e-10)
none = rf.find_collision(Ltri, rf.Samples(X))
assert not none.found and none.certainty == "exact"

Lbeta = Ltri.with_bias(-0.5 - 1e-3)  # beta < alpha
S = rf.Sphere(2).sample(N, seed=SEED + 1)
np.testing.assert_allclose(rf.reconstruct(Lbeta, Lbeta(S)), S, atol=1e-10)
print(f"{N} points of the ball and {N} of the sphere recovered exactly from their outputs")

# %% [markdown]
# **[reluinj0]** (Injectivity II) Conversely, let $K$ be open or strictly convex. If $C_\alpha$ is
# injective on $K$, then $\Phi$ is $\alpha$-rectifying on $K$.
#
# The proof is constructive, and the library implements it (`rf.find_collision`): at a point $x_0$
# whose active elements miss a direction $r \ne 0$ ($r \perp \phi_i$ for all $i \in I_{x_0}^\alpha$),
# the two points $x_0 \pm \varepsilon r$ have the same active coefficients, and for small
# $\varepsilon$ the inactive elements stay inactive, so both outputs are equal. On a strictly convex
# $K$ one first moves $x_0$ slightly into the interior.
#
# Check: for the triangle frame with $\alpha = 0$ on the ball a verified colliding pair exists; and
# for many random layers on the ball the two verdicts "rectifying on samples" and "a verified
# collision exists" are exact opposites — Theorems I and II together.

# %%
L0 = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
c = rf.find_collision(L0, rf.Ball(2))
assert c.found and c.certainty == "verified"
assert rf.Ball(2).contains(c.x) and rf.Ball(2).contains(c.y)
assert np.linalg.norm(c.x - c.y) > 1e-3
np.testing.assert_allclose(L0(c.x), L0(c.y), atol=1e-12)
r = c.x - c.y  # the missing direction: orthogonal to every active element
active = L0.active_set((c.x + c.y) / 2)
np.testing.assert_allclose(L0.frame.vectors[active] @ r, 0.0, atol=1e-12)
print("collision:", c.x.round(4), "and", c.y.round(4), "both map to", L0(c.x).round(4))

n_rect = n_coll = 0
for t in range(TRIALS):
    m = int(rng.integers(3, 7))
    Lr = rf.ReLULayer(rf.zoo.random_sphere(m, 2, seed=SEED + 200 + t), rng.normal(-0.3, 0.4, size=m))
    rect = rf.check_rectifying(Lr, rf.Ball(2), n_samples=N, seed=t).rectifying
    coll = rf.find_collision(Lr, rf.Ball(2), n_samples=N, seed=t)
    assert rect != coll.found, (t, rect, coll)
    n_rect += rect
    n_coll += coll.found
print(f"{TRIALS} random layers: {n_rect} rectifying on the ball (no collision), {n_coll} with a verified collision")

# %% [markdown]
# ### Erratum: strict convexity
#
# The paper defines $U$ strictly convex when $(1-\lambda)x - \lambda y$ lies in the interior of $U$
# for all $x, y \in U$, $\lambda \in (0,1)$, and uses the same expression in the proof of
# Injectivity II. The sign is wrong: strict convexity is about the **segment**
# $(1-\lambda)x + \lambda y$, and $x \neq y$ is needed (for $x = y$ on the boundary the point
# stays on the boundary).
#
# Counterexample to the printed version: the closed unit ball, which the paper treats as strictly
# convex, fails it — for $x = e_1$ and $y = -e_1$ the printed point is
# $(1-\lambda)e_1 + \lambda e_1 = e_1$, on the boundary for every $\lambda$. With the plus sign, every
# point strictly inside a chord of the ball has norm $< 1$.

# %%
B = rf.Ball(2)
x, y = np.array([1.0, 0.0]), np.array([-1.0, 0.0])
lam = np.linspace(0.01, 0.99, 99)[:, None]
printed = (1 - lam) * x - lam * y
np.testing.assert_allclose(np.linalg.norm(printed, axis=1), 1.0)  # always on the boundary: not interior
corrected = (1 - lam) * x + lam * y
assert np.all(np.linalg.norm(corrected, axis=1) < 1.0)

P, Q = B.sample(N, seed=1), B.sample(N, seed=2)  # random chords of the closed ball
mid = (1 - lam[::10, None]) * P + lam[::10, None] * Q
assert np.all(np.linalg.norm(mid, axis=-1) < 1.0)  # the + version: strictly inside
print("printed (1-λ)x - λy at x = e1, y = -e1 stays at norm 1; the segment (1-λ)x + λy has norm < 1")

# %% [markdown]
# ## 4. Normalized frames
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
    assert np.array_equal(L.active_set(X), Ln.active_set(X))
    assert np.array_equal(rf.is_rectifying(L, X), rf.is_rectifying(Ln, X))
    np.testing.assert_allclose(Ln(X) * F.norms, L(X), rtol=1e-12, atol=1e-12)
print("normalizing rows and biases changes no active set and no verdict")

# %% [markdown]
# ## 5. Full-spark frames
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
from itertools import combinations

smallest_always_spanning = min(k for k in range(1, 5) if all(Fpm.spans(J) for J in combinations(range(4), k)))
assert smallest_always_spanning == 3
L00 = rf.ReLULayer(Fpm, 0.0)
x = np.array([1.0, 1.0])
assert L00.active_set(x).sum() == 2 and rf.is_rectifying(L00, x)  # rectifying with fewer than 3 active
print(f"± basis: spark {s}; count test fails at e1 (α = 0.1); 'every 3 span' test fails at (1, 1) (α = 0)")

# %% [markdown]
# ## 6. Perturbed frames
#
# **[lem:perturbation]** Let $\Phi$ be $\alpha$-rectifying on a bounded $K$ with
# $M = \sup_{x\in K}\|x\|$. If $\|\phi_i - \phi'_i\| < \varepsilon$ for all $i$, then $\Phi'$ is
# $(\alpha - \varepsilon M)$-rectifying on $K$: every element active for $\Phi$ at $x$ stays active,
# since $\langle x, \phi'_i\rangle \ge \langle x, \phi_i\rangle - \varepsilon\|x\| \ge \alpha_i - \varepsilon M$.
#
# Check: random perturbations of the triangle frame ($\alpha = -\tfrac12$ on $\mathbb{B}$), tested on
# the ball and on its boundary, where the bias is tight. The shift $\varepsilon M$ cannot be
# dropped: for the standard basis, which is $(-1)$-rectifying on $\mathbb{B}$ and no more
# (Lemma `lem:Br` below), scaling by $1 + 0.99\varepsilon$ breaks the bias $-1$, and
# $-1 - \varepsilon$ repairs it.

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
assert rf.check_rectifying(rf.ReLULayer(E, -1.0), rf.Ball(2), n_samples=N).rectifying
assert not rf.is_rectifying(rf.ReLULayer(Es, -1.0), [-1.0, 0.0])  # alpha itself fails for the perturbed frame
assert rf.check_rectifying(rf.ReLULayer(Es, -1.0 - eps * M), rf.Ball(2), n_samples=N).rectifying
print(f"{TRIALS // 4} perturbations of size < {eps}: rectifying with α - εM = {-0.5 - eps:.2f}; the shift is needed")

# %% [markdown]
# ## 7. Redundancy
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
# failure too; and the $\pm$ basis is $0$-rectifying on $\mathbb{R}^n$ (exact test of notebook 03).

# %%
for t in range(TRIALS):
    n = int(rng.integers(2, 5))
    m = int(rng.integers(n, 2 * n))
    F = rf.zoo.gaussian(m, n, seed=SEED + 500 + t)
    L = rf.ReLULayer(F, rng.normal(0.0, 1.0, size=m))
    x = rng.standard_normal(n)
    c = F.vectors @ x
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
# (The printed $t^*$ can be negative, and then "$t > t^* > 0$" says nothing.)
# Counterexample to the printed threshold: the triangle frame, $\alpha = (-2, -\tfrac12, -\tfrac12)$,
# $x = e_2 = \phi_1$: the printed $t^* = 1$, but at $t = 1.1$ the point $-tx$ still has
# $\phi_1$ active ($-1.1 \ge -2$), so its active set is not the negative part. The corrected
# $t^* = 2$ works.

# %%
F = rf.zoo.mercedes_benz()
L = rf.ReLULayer(F, [-2.0, -0.5, -0.5])
x = np.array([0.0, 1.0])
c = F.vectors @ x
t_printed = np.max(L.alpha / c)
t_fixed = np.max(np.abs(L.alpha) / np.abs(c))
np.testing.assert_allclose([t_printed, t_fixed], [1.0, 2.0])
t = 1.1  # > printed t*
assert not np.array_equal(L.active_set(-t * x), c < 0)  # the claim fails
for t in (2.01, 5.0, 50.0):  # > corrected t*
    assert np.array_equal(L.active_set(t * x), c > 0) and np.array_equal(L.active_set(-t * x), c < 0)
print("printed t* =", t_printed, "is too small; corrected t* =", t_fixed)

# %% [markdown]
# ## 8. Balls
#
# Bounded domains break the redundancy bound:
#
# **[lem:Br]** Every unit-norm frame is $(-\mathbf r)$-rectifying on the ball $\mathbb{B}_r$ — since
# $\langle x,\phi_i\rangle \ge -\|x\| \ge -r$, *every* element is active. For a basis the value $-r$ is
# the largest possible: a basis needs all of its elements, and at $x = -r\phi_i$ the coefficient of
# $\phi_i$ is exactly $-r$.
#
# Check: random unit-norm frames, every element active on $\mathbb{B}_r$ for $\alpha = -r$; random
# bases: raising any single entry above $-r$ fails at $-r\phi_i$.

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
# ## 9. The main theorem
#
# **[thm:bigthm]** Let $\Phi$ be a frame, $\alpha \in \mathbb{R}^m$ and $K \ne \emptyset$. Assume that
# the most correlated basis $J^*(x)$ (notebook 03) is unique for every $x \in K$, that $K$ is open or
# strictly convex, and that $K$ is bias-exact for $\Phi$ (notebook 03). Then four verdicts agree:
#
# 1. $C_\alpha$ is injective on $K$;
# 2. $\Phi$ is $\alpha$-rectifying on $K$ (Injectivity I and II above);
# 3. $K \subseteq \mathcal K^*_\alpha$, the maximal domain (notebook 02);
# 4. $\alpha \le \alpha^\sharp_K$, the maximal bias (notebook 03).
#
# **When do the assumptions hold?** The uniqueness assumption is stronger than it looks: if
# $m > n$, at $x = 0$ every basis has $\min_{j\in J}\langle 0,\phi_j\rangle = 0$, so $J^*(0)$ is never
# unique, and more generally ties happen wherever the $n$-th and $(n+1)$-th largest coefficients
# are equal. For a **basis** ($m = n$) the assumptions hold literally on the closed ball: $J^*$ is
# the whole basis, every $K_i = K$, nothing is removed from $K_i^\sharp$, and (Lemma `lem:Br` with
# the norms put back) $\alpha^\sharp_{\mathbb{B}_r} = -r\,(\|\phi_i\|)_i$.
#
# Check, with every verdict computed by its own route:
# (1) a verified collision from `find_collision` (a proof of non-injectivity) or else exact
# reconstruction of all samples; (2) the rank test on samples of $\mathbb{B}$ and $\mathbb{S}$; (3)
# membership in $\bigcup_J\bigcap_{i\in J}\Omega_i^\alpha$ by enumerating bases; (4) comparison with
# $\alpha^\sharp$, here $-(\|\phi_i\|)_i$, itself confirmed by sampling. Setting A is a random
# (non-normalized) basis of $\mathbb{R}^3$ where the assumptions hold; setting B is the triangle frame,
# where they fail only on three rays, and the verdicts still agree with $\alpha^\sharp = -\tfrac12$.

# %%
def verdicts(layer, K, alpha_sharp, n_samples=N, seed=SEED):
    """The four verdicts of the main theorem, each by its own computation."""
    X = np.vstack([K.sample(n_samples, seed=seed), rf.Sphere(K.n, K.radius).sample(n_samples, seed=seed + 1)])
    coll = rf.find_collision(layer, K, n_samples=n_samples, seed=seed)
    if not coll.found:  # no collision found: confirm injectivity on the samples by an explicit left inverse
        np.testing.assert_allclose(rf.reconstruct(layer, layer(X)), X, atol=1e-9)
    rect = bool(rf.is_rectifying(layer, X).all())
    in_max = bool(rf.in_maximal_domain(layer, X).all())
    below = bool(np.all(layer.alpha <= alpha_sharp + 1e-12))
    return (not coll.found, rect, in_max, below)


K = rf.Ball(3)
Fb = rf.zoo.gaussian(3, 3, seed=SEED + 800)
a_sharp = -K.radius * Fb.norms
est = rf.sampling_bias(Fb, rf.Sphere(3), n_samples=N, seed=SEED, progress=False)  # J*(x) = the basis: alpha^flat = alpha^sharp
np.testing.assert_allclose(est.values, a_sharp, rtol=0.05)
assert np.all(est.values >= a_sharp - 1e-12)  # sampling approaches from above

biases_A = {
    "α♯ - 0.3": a_sharp - 0.3,
    "α♯": a_sharp,
    "α♯ + 0.4 e1": a_sharp + [0.4, 0, 0],
    "α♯ + 0.4 e3": a_sharp + [0, 0, 0.4],
    "0": np.zeros(3),
}
print("A: random basis of R^3 on the unit ball; α♯ =", a_sharp.round(4))
print(f"   {'bias':<14}{'injective':>10}{'rectifying':>11}{'K ⊆ K*_α':>10}{'α ≤ α♯':>8}")
for name, a in biases_A.items():
    v = verdicts(rf.ReLULayer(Fb, a), K, a_sharp)
    assert len(set(v)) == 1, (name, v)  # the four verdicts agree
    print(f"   {name:<14}" + "".join(f"{str(b):>10}" for b in v))

Ftri = rf.zoo.mercedes_benz()
a_sharp = np.full(3, -0.5)
biases_B = {
    "-0.7": -0.7,
    "-0.5": -0.5,
    "-(½,½,0.3)": [-0.5, -0.5, -0.3],
    "-0.45": -0.45,
    "0": 0.0,
}
print("B: triangle frame on the unit ball; α♯ = -1/2")
for name, a in biases_B.items():
    v = verdicts(rf.ReLULayer(Ftri, a), rf.Ball(2), a_sharp)
    assert len(set(v)) == 1, (name, v)
    print(f"   {name:<14}" + "".join(f"{str(b):>10}" for b in v))

J0, tie0 = rf.most_correlated_basis(Ftri, np.zeros(2), return_ties=True)
assert tie0  # m > n: J*(0) is never unique

# %%
print("all checks passed")
