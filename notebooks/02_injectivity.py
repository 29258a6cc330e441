# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 — Injectivity: rectifying frames and collisions
#
# [01_frames_and_relu_layers](01_frames_and_relu_layers.ipynb) introduced the ReLU layer
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$ and the $\alpha$-rectifying property: at every
# point of $K$ the active elements span $\mathbb{R}^n$. This notebook shows that the property is
# exactly what makes $C_\alpha$ injective on $K$ — provided the domain has the right shape.
#
# **What you will learn**
#
# * Injectivity I: rectifying $\Rightarrow$ injective (for every smaller bias on any domain, and for
#   the bias itself on open or convex domains);
# * Injectivity II: injective $\Rightarrow$ rectifying on open or strictly convex domains, by an
#   explicit construction of two inputs with the same output (`rf.find_collision`);
# * what goes wrong on domains that are not open, convex or strictly convex, and why the printed
#   definition of strict convexity has to be corrected;
# * how to get injectivity on spheres, shells and finite data sets, which are neither open nor
#   convex.
#
# | tag | item |
# |---|---|
# | `[reluinj1]` | Injectivity I: $\alpha$-rectifying $\Rightarrow$ $C_\beta$ injective for $\beta<\alpha$; $C_\alpha$ too on open or convex $K$ |
# | `[reluinj0]` | Injectivity II: $C_\alpha$ injective on an open or strictly convex $K$ $\Rightarrow$ $\alpha$-rectifying |
# | `[ex:mb2]` | the triangle frame with $\alpha = 0$: rectifying on $\mathcal K^*_0$, yet two of its points collide |
# | `[cor:maxdomain-other]` | injective on $K \subseteq O \subseteq \mathcal K^*_\alpha$ with $O$ open or convex: spheres, donuts, finite sets |
#
# **Erratum** shown below, with a counterexample to the printed text: the sign in the definition of
# strict convexity.

# %%
# %matplotlib inline
import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import plane
from relu_frames_nb.viz.readable import readable

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240102
N = 200_000 if FULL else 20_000  # samples for checks "on the domain"
TRIALS = 200 if FULL else 40  # random layers for statements "for every frame and bias"
RES = 601 if FULL else 241  # grid resolution of the pictures
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)


def fmt(v):
    """A vector with 4 decimals, for printing."""
    return "(" + ", ".join(f"{c:.4f}" for c in np.asarray(v, dtype=float)) + ")"


# %% [markdown]
# ## 1. Rectifying implies injective
#
# **[reluinj1]** (Injectivity I) If $\Phi$ is $\alpha$-rectifying on $K$, then $C_\beta$ is injective
# on $K$ for every $\beta < \alpha$ (all entries strictly smaller), whatever $K$ is. If $K$ is open
# or convex, $C_\alpha$ itself is injective on $K$.
#
# Why: where the outputs of $x$ and $y$ agree *and are positive*, the coefficients
# $\langle x,\phi_i\rangle = \langle y,\phi_i\rangle$ agree. For $\beta < \alpha$ every element of
# $I_x^\alpha$ has a positive output $\langle x,\phi_i\rangle - \beta_i > 0$, and these elements span,
# so $x = y$. With $\alpha$ itself an active element may have output exactly $0$; one then looks at
# a point $x_\lambda = (1-\lambda)x + \lambda y$ of the segment (it stays in $K$ when $K$ is convex,
# or for small $\lambda$ when $K$ is open): its active elements are active at both ends with equal
# coefficients.
#
# Check, on the triangle frame with $\alpha = -\tfrac12$ on the (convex) unit ball, where it is
# rectifying (Example "mb" in [03_properties_of_frames](03_properties_of_frames.ipynb)): an explicit
# left inverse (`rf.reconstruct`, see [09_reconstruction](09_reconstruction.ipynb)) recovers every
# sample from its output, so no two samples share an output, and the exact search among the samples
# finds no collision. For $\beta < \alpha$ the same holds on a domain that is neither open nor
# convex: the unit sphere.

# %%
Ltri = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
assert rf.check_rectifying(Ltri, rf.Ball(2), n_samples=N, seed=SEED).rectifying
X = rf.Ball(2).sample(N, seed=SEED)
np.testing.assert_allclose(rf.reconstruct(Ltri, Ltri(X)), X, atol=1e-10)
none = rf.find_collision(Ltri, rf.Samples(X))
assert not none.found and none.certainty == "exact"

Lbeta = Ltri.with_bias(-0.5 - 1e-3)  # beta < alpha
S = rf.Sphere(2).sample(N, seed=SEED + 1)
np.testing.assert_allclose(rf.reconstruct(Lbeta, Lbeta(S)), S, atol=1e-10)
assert not rf.find_collision(Lbeta, rf.Samples(S)).found
print(f"{N} points of the ball (α = -1/2) and {N} of the sphere (β = -0.501) recovered exactly from their outputs")

# %% [markdown]
# ## 2. Injective implies rectifying: collision witnesses
#
# **[reluinj0]** (Injectivity II) Conversely, let $K$ be open or strictly convex. If $C_\alpha$ is
# injective on $K$, then $\Phi$ is $\alpha$-rectifying on $K$.
#
# The proof is constructive, and `rf.find_collision` implements it: at a point $x_0$ whose active
# elements miss a direction $r \ne 0$ ($r \perp \phi_i$ for all $i \in I_{x_0}^\alpha$), the two points
# $x_0 \pm \varepsilon r$ have the same active coefficients, and for small $\varepsilon$ the inactive
# elements stay inactive, so both outputs are equal. If $K$ is open, both points stay in $K$ for small
# $\varepsilon$; on a strictly convex $K$ one first moves $x_0$ slightly into the interior. Every pair
# the function returns is verified: both points lie in $K$ and their outputs agree.
#
# Check: for the triangle frame with $\alpha = 0$ on the closed unit ball a verified pair exists, and
# the direction between the two points is orthogonal to every active element; and for many random
# layers on the ball the two verdicts "rectifying on samples" and "a verified collision exists" are
# exact opposites — Theorems I and II together.

# %%
L0 = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
c0 = rf.find_collision(L0, rf.Ball(2))
assert c0.found and c0.certainty == "verified"
assert rf.Ball(2).contains(c0.x) and rf.Ball(2).contains(c0.y)
assert np.linalg.norm(c0.x - c0.y) > 1e-3
np.testing.assert_allclose(L0(c0.x), L0(c0.y), atol=1e-12)
r = c0.x - c0.y  # the missing direction: orthogonal to every active element
active = L0.active_set((c0.x + c0.y) / 2)
np.testing.assert_allclose(L0.frame.vectors[active] @ r, 0.0, atol=1e-12)

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
# Three witnesses, printed and drawn. The layers are not rectifying on the closed unit ball
# $\mathbb{B}$, for three different reasons:
#
# * the triangle with $\alpha = 0$: near each $\phi_i$ only $\phi_i$ itself is active;
# * the triangle with $\alpha = -0.45$: the failure is confined to a thin region just inside the unit
#   circle — strict convexity of the ball lets the construction stay inside;
# * the regular pentagon with $\alpha = 0.1$: near the origin fewer than two elements are active.
#
# The shading is the set of rectifying points (dark), the circle is $\mathbb{B}$; the insets zoom
# in on the pair ($\circ$ = $x$, $\square$ = $y$).

# %%
witness_layers = {
    "triangle, α = 0": L0,
    "triangle, α = -0.45": rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45),
    "pentagon, α = 0.1": rf.ReLULayer(rf.zoo.regular_polygon(5), 0.1),
}
witnesses = {}
for name, layer in witness_layers.items():
    c = rf.find_collision(layer, rf.Ball(2), seed=SEED)
    assert c.found and c.certainty == "verified" and not np.allclose(c.x, c.y)
    assert rf.Ball(2).contains(c.x) and rf.Ball(2).contains(c.y)
    np.testing.assert_allclose(layer(c.x), layer(c.y), atol=1e-12)
    np.testing.assert_allclose(c.output, layer(c.x), atol=1e-12)
    witnesses[name] = c
    print(f"{name:<20} x = {fmt(c.x)}, y = {fmt(c.y)}:  C(x) = {fmt(layer(c.x))} = C(y) = {fmt(layer(c.y))}")

# %%
box = (-1.3, 1.3, -1.3, 1.3)
figw = Figure(figsize=(13.5, 4.6), layout="constrained")
for ax, (name, layer) in zip(figw.subplots(1, 3), witness_layers.items()):
    c = witnesses[name]
    plane.draw_maximal_domain(ax, layer, extent=box, resolution=RES)
    plane.draw_domain(ax, rf.Ball(2))
    plane.draw_frame_vectors(ax, layer.frame)
    plane.draw_collision(ax, c, annotate=False)
    mid, h = (c.x + c.y) / 2, 0.9 * np.linalg.norm(c.x - c.y)
    zoom = (mid[0] - h, mid[0] + h, mid[1] - h, mid[1] + h)
    corner = [0.62 if mid[0] < 0 else 0.02, 0.62 if mid[1] < 0 else 0.02]  # away from the pair
    inset = ax.inset_axes([*corner, 0.36, 0.36])
    plane.draw_maximal_domain(inset, layer, extent=zoom, resolution=121)
    plane.draw_domain(inset, rf.Ball(2))
    plane.draw_collision(inset, c, annotate=False)
    inset.set_xticks([])
    inset.set_yticks([])
    ax.indicate_inset_zoom(inset, edgecolor="0.3")
    ax.set_title(f"{name}: a colliding pair in $\\mathbb{{B}}$", fontsize=11)
readable(figw)  # text that reads at 9 px or more where the book shows it

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
# point strictly inside a chord of the ball has norm $< 1$, which is what the proof uses.
#
# Check: the printed point stays on the circle; for chords whose **endpoints lie on the circle** (the
# hard case: endpoints inside the ball would make "strictly inside" trivial) every point with
# $0 < \lambda < 1$ has norm $< 1$. The same test fails, as it must, for a convex set that is not
# strictly convex: the square $[-1, 1]^2$, with chords along one of its edges.

# %%
x, y = np.array([1.0, 0.0]), np.array([-1.0, 0.0])
lam = np.linspace(0.01, 0.99, 99)[:, None]
printed = (1 - lam) * x - lam * y
np.testing.assert_allclose(np.linalg.norm(printed, axis=1), 1.0)  # always on the boundary: not interior
corrected = (1 - lam) * x + lam * y
assert np.all(np.linalg.norm(corrected, axis=1) < 1.0)

P, Q = rf.Sphere(2).sample(N, seed=1), rf.Sphere(2).sample(N, seed=2)  # chords with both ends on the circle
Q[:100] = P[:100] @ np.array([[np.cos(1e-3), np.sin(1e-3)], [-np.sin(1e-3), np.cos(1e-3)]])  # and very short ones
assert np.all(np.linalg.norm(P - Q, axis=1) > 0)  # x != y
lam_c = lam[::10, None]
inner = (1 - lam_c) * P + lam_c * Q
norms = np.linalg.norm(inner, axis=-1)
assert np.all(norms < 1.0)  # the + version: strictly inside the ball

u = rng.uniform(-1.0, 1.0, size=(2, N))  # the square [-1, 1]^2: both ends on its right edge
Ps, Qs = np.column_stack([np.ones(N), u[0]]), np.column_stack([np.ones(N), u[1]])
inner_sq = (1 - lam_c) * Ps + lam_c * Qs
assert not np.any(np.max(np.abs(inner_sq), axis=-1) < 1.0)  # the square: chords stay on its boundary
print("printed (1-λ)x - λy at x = e1, y = -e1 stays at norm 1; on chords of the circle (1-λ)x + λy has norm"
      f" ≤ 1 - {1 - norms.max():.1e}; the square fails the test")

# %% [markdown]
# ## 3. Why the shape of the domain matters
#
# Both theorems need the domain to be "thick": Injectivity I with $\alpha$ itself uses a segment
# (convex) or a small neighbourhood (open), Injectivity II moves along a missing direction. Without
# these assumptions each implication can fail.
#
# **Injectivity II needs open or strictly convex.** The standard basis with $\alpha = 0$ on the
# segment $K = \{(t, -1) : 0 \le t \le 1\}$ — closed and convex, but not strictly convex (its
# interior is empty). At every point only $e_1$ is active, so $\Phi$ is nowhere rectifying on $K$;
# yet $C_0(t,-1) = (t, 0)$ determines $t$, so $C_0$ is injective on $K$. The missing direction $e_2$
# points out of $K$. Thicken the segment into a strip of any width $2\delta$ and the points
# $(t, -1 \pm \delta)$ collide.

# %%
E2 = rf.ReLULayer(rf.zoo.standard_basis(2), 0.0)
t = np.linspace(0.0, 1.0, 401)
seg = np.column_stack([t, -np.ones_like(t)])
assert not np.any(rf.is_rectifying(E2, seg))  # nowhere rectifying on the segment
np.testing.assert_allclose(E2(seg), np.column_stack([t, np.zeros_like(t)]))  # C_0(t, -1) = (t, 0)
exact = rf.find_collision(E2, rf.Samples(seg))
assert not exact.found and exact.certainty == "exact"  # injective on the segment
for delta in (0.1, 1e-3):
    strip = np.vstack([seg + [0.0, s] for s in (-delta, 0.0, delta)])
    c = rf.find_collision(E2, rf.Samples(strip))
    assert c.found and np.linalg.norm(c.x - c.y) <= 2 * delta + 1e-12
print("segment: injective, nowhere rectifying; a strip around it of half-width 0.001 already has a colliding pair")

# %% [markdown]
# **Injectivity I with $\alpha$ itself needs open or convex**, and this is where the paper's example
# comes in. Call $\mathcal K^*_\alpha$ the set of *all* rectifying points,
# $\{x : \Phi_{I_x^\alpha} \text{ spans } \mathbb{R}^n\}$ — the largest domain on which $\Phi$ is
# $\alpha$-rectifying ([04_maximal_domain](04_maximal_domain.ipynb) describes it as a union of
# intersections of half-spaces).
#
# **[ex:mb2]** For the triangle frame and $\alpha = 0$, the points
# $x_1 = (\tfrac12, \tfrac{\sqrt3}2)$ and $x_2 = (-\tfrac12, \tfrac{\sqrt3}2)$ lie in $\mathcal K^*_0$
# ($\phi_1$ and $\phi_3$, resp. $\phi_1$ and $\phi_2$, are active — the second one with coefficient
# exactly $0$), and $C_0 x_1 = C_0 x_2 = (\tfrac{\sqrt3}2, 0, 0)$. So $\Phi$ is $\mathbf 0$-rectifying
# on $\mathcal K^*_0$ (and on the two-point set $\{x_1, x_2\}$) while $C_0$ is not injective there:
# these sets are neither open nor convex. For every $\beta < 0$, Injectivity I separates the two
# points again.
#
# Check: membership, equal outputs, the segment between them leaves $\mathcal K^*_0$ (only $\phi_1$
# is active strictly between them), and a slightly smaller bias tells them apart.

# %%
s3 = np.sqrt(3.0) / 2
x1, x2 = np.array([0.5, s3]), np.array([-0.5, s3])
assert rf.is_rectifying(L0, x1) and rf.is_rectifying(L0, x2)
assert rf.in_maximal_domain(L0, x1) and rf.in_maximal_domain(L0, x2)
np.testing.assert_allclose(L0(x1), [s3, 0.0, 0.0], atol=1e-15)
np.testing.assert_allclose(L0(x2), L0(x1), atol=1e-15)
inner = np.linspace(x1, x2, 101)[1:-1]
assert not np.any(rf.is_rectifying(L0, inner))  # strictly between them only phi_1 is active
assert np.all(L0.active_set(inner).sum(axis=1) == 1)
Lb = L0.with_bias(-1e-3)
assert not np.allclose(Lb(x1), Lb(x2))
print("C_0 x1 =", fmt(L0(x1)), "= C_0 x2 =", fmt(L0(x2)), "| with β = -0.001:", fmt(Lb(x1)), "≠", fmt(Lb(x2)))

# %% [markdown]
# ## 4. Spheres, donuts and finite data sets
#
# The set $\mathcal K^*_\alpha$ is neither open nor convex in general, so Injectivity I does not apply
# to it directly. It does apply to any open or convex set in between:
#
# **[cor:maxdomain-other]** If $\emptyset \ne K \subseteq O \subseteq \mathcal K^*_\alpha$ with $O$
# open or convex, then $C_\alpha$ is injective on $K$ (it is injective on $O$, and $K$ inherits it).
# This covers a sphere, a donut $\mathbb{D}_{r,s} = \{s \le \|x\| \le r\}$ or a finite data set, none
# of which is open or convex.
#
# Check, on the regular pentagon with $\alpha = 0.1\cdot\mathbf 1$ (the third witness above): it is not
# rectifying on the ball (at the origin nothing is active), but the open set $O = \{\|x\| > 0.4\}$
# lies in $\mathcal K^*_\alpha$ (the second largest coefficient of a unit vector is at least
# $\cos 72^\circ \approx 0.309$, and $0.4 \cdot 0.309 > 0.1$). So the layer is injective on the donut
# $\mathbb{D}_{1,1/2} \subset O$: all samples are recovered from their outputs, and no collision is
# found. The same for the unit sphere, and for a finite data set in $O$ (exact search).

# %%
F5 = rf.zoo.regular_polygon(5)
L5 = rf.ReLULayer(F5, 0.1)
assert not rf.is_rectifying(L5, np.zeros(2)) and not np.any(L5.active_set(np.zeros(2)))
O_pts = rf.Shell(2, 0.4, 5.0).sample(N, seed=SEED)  # samples of O (cut at radius 5; O is a union of rays beyond)
O_pts = np.vstack([O_pts, 1e3 * O_pts[:100], rf.Sphere(2, 0.4 + 1e-9).sample(N, seed=SEED)])
assert np.all(rf.in_maximal_domain(L5, O_pts)) and np.all(rf.is_rectifying(L5, O_pts))
for K in [rf.Shell(2, 0.5, 1.0), rf.Sphere(2)]:
    X = K.sample(N, seed=SEED + 1)
    np.testing.assert_allclose(rf.reconstruct(L5, L5(X)), X, atol=1e-10)
    assert not rf.find_collision(L5, K, n_samples=N).found
D = rf.Samples(rf.Shell(2, 0.45, 3.0).sample(500, seed=7))  # a finite data set inside O
none = rf.find_collision(L5, D)
assert not none.found and none.certainty == "exact"
print("pentagon, α = 0.1: injective on the donut D_{1,1/2}, on the sphere and on a finite set in O")

# %% [markdown]
# ## What we saw
#
# * On open or convex domains, $\alpha$-rectifying implies injective; for any strictly smaller bias
#   it does so on every domain, spheres and finite sets included.
# * On open or strictly convex domains the converse holds, and it is constructive: a missing
#   direction at a non-rectifying point gives two inputs with the same output, which
#   `rf.find_collision` returns verified.
# * The shape assumptions are not decoration: a segment can carry an injective layer that is
#   nowhere rectifying, and the two points of Example "mb2" are rectifying points that collide.
# * Strict convexity is about the points $(1-\lambda)x + \lambda y$ of a chord; the printed minus sign
#   makes even the closed ball fail the definition.
# * Injectivity transfers to any subset of an open or convex set of rectifying points — spheres,
#   donuts and data sets.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb02.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 2.1 — A colliding pair
#
# The layer `ex.nb02.layer_2_1()` has unit rows at $172^\circ, -160^\circ, -100^\circ, 52^\circ, 128^\circ$ and
# the bias $\alpha = (-0.44, -0.47, -0.32, -0.18, -0.38)$. It is rectifying at all but a fraction of a
# percent of the unit ball. Find two different points of the closed unit ball with the same output,
# and set `answer_2_1` to the pair `(x, y)`.

# %% tags=["answer"]
answer_2_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L21 = ex.nb02.layer_2_1()
chk21 = rf.check_rectifying(L21, rf.Ball(2), n_samples=N, seed=SEED)
pair21 = rf.find_collision(L21, rf.Ball(2), points=chk21.failures)  # Injectivity II, constructively
answer_2_1 = (pair21.x, pair21.y)
print(f"{chk21.n_failed} of {chk21.n_checked} samples fail; x = {fmt(pair21.x)}, y = {fmt(pair21.y)},"
      f" output {fmt(pair21.output)}")  # fmt: skip
ex.solution("2.1", answer_2_1)

# %% tags=["check"]
ex.nb02.check_2_1(answer_2_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 2.2 — The smallest donut
#
# The layer `ex.nb02.layer_2_2()` has unit rows at $0^\circ, 55^\circ, 120^\circ, 185^\circ, 240^\circ, 300^\circ$
# and the positive bias $\alpha = (0.2, 0.15, 0.25, 0.1, 0.2, 0.3)$, so nothing is active at the origin.
# Find the smallest $s$ for which the layer is $\alpha$-rectifying on the donut
# $\mathbb{D}_{1,s} = \{s \le \|x\| \le 1\}$, rounded *up* to three decimals, and set `answer_2_2` to it.
# (By the corollary of section 4 the layer is then injective on every donut $\mathbb{D}_{1,s'}$ with
# $s' > s$.) Hint: with $\alpha \ge 0$ a rectifying point stays rectifying when it moves away from the
# origin (Prop. "K" in [04_maximal_domain](04_maximal_domain.ipynb)), so only the inner circle matters.

# %% tags=["answer"]
answer_2_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L22 = ex.nb02.layer_2_2()
theta = np.linspace(0.0, 2 * np.pi, 20_000, endpoint=False)
circle = np.column_stack([np.cos(theta), np.sin(theta)])
lo, hi = 0.0, 1.0  # bisection: is the circle of radius s rectifying?
while hi - lo > 1e-5:
    mid = (lo + hi) / 2
    lo, hi = (lo, mid) if np.all(rf.is_rectifying(L22, mid * circle)) else (mid, hi)
answer_2_2 = np.ceil(hi * 1000) / 1000
assert rf.check_rectifying(L22, rf.Shell(2, answer_2_2, 1.0), n_samples=N, seed=SEED).rectifying
print(f"inner circle rectifying from s ≈ {hi:.5f}; answer {answer_2_2}")
ex.solution("2.2", answer_2_2)

# %% tags=["check"]
ex.nb02.check_2_2(answer_2_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 2.3 — Three verdicts
#
# `ex.nb02.layers_2_3()` returns three layers with their domains: (a) the triangle frame with
# $\alpha = -\tfrac12$ on $\mathbb{B}$, (b) the triangle frame with $\alpha = (-\tfrac12, -\tfrac12, -0.49)$ on
# $\mathbb{B}$, (c) the $\pm$ basis turned by $45^\circ$ with $\alpha = -0.1$ on the ball of radius 2. Decide
# for each whether it is injective on its domain (`rf.check` gives a verdict with its reason), explain
# each verdict in a sentence, and set `answer_2_3` to the three verdicts as booleans (True = injective).

# %% tags=["answer"]
answer_2_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_2_3 = []
for name, (layer, K) in ex.nb02.layers_2_3().items():
    v = rf.check(layer, K)
    answer_2_3.append(v.status == "injective")
    print(f"({name}) {v.status} [{v.method}]")
# (a) -1/2 is the triangle's largest bias on the ball (Example "mb"): rectifying, hence injective (the ball is convex).
# (b) alpha_3 = -0.49 switches phi_3 off just past phi_1 on the circle (turned towards phi_3); only phi_1 is left.
# (c) of each pair +-phi one has a coefficient >= 0 > -0.1, so two orthogonal rows are active everywhere.
ex.solution("2.3", answer_2_3)

# %% tags=["check"]
ex.nb02.check_2_3(answer_2_3)

# %%
print("02_injectivity: all checks passed")
