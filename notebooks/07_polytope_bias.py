# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 — Polytope bias estimation
#
# The sampling-based estimate of [06_sampling](06_sampling.ipynb) is exact on its samples and
# becomes a guarantee on the domain only after a covering radius is subtracted. The polytope bias
# estimation (the paper's "Approach B") reads a bias off the **inscribing polytope**
# $P_\Phi = \operatorname{conv}\{\phi_1,\dots,\phi_m\}$ of a normalized frame instead, and is a proof:
# the frame is rectifying on the whole domain, not only at sample points.
#
# **What you will learn**
#
# * why the vertices of a facet of $P_\Phi$ form a frame, and when the cones over the facets cover
#   $\mathbb{R}^n$ (omnidirectional frames; how to complete any frame to one);
# * the polytope bias $\alpha^\Delta_K$ and why it is rectifying on a bounded $K$ (Theorem PBE);
# * its closed forms on five domains (boundary of $P_\Phi$, sphere, ball/donut, non-negative ball,
#   exterior of a ball), with the corrections the printed formulas need;
# * when the polytope bias is the *maximal* bias (regular simplicial polytopes, e.g. three platonic
#   solids), and how slowly sampling approaches it for the tetrahedron (Figure conv);
# * how the hole radii of the facets give the covering radius of the frame, which ties the two
#   approaches together.
#
# | tag | item |
# |---|---|
# | `[lem:facet]` | vertices of a facet that misses 0 form a frame |
# | `[rem:omni-domain]` | facet cones cover $\mathbb{R}^n$ iff the frame is omnidirectional |
# | `[fig:omni]` | Figure "omni": an omnidirectional frame and one that is not |
# | `[lem:omni-completion]` | one extra vector makes any frame omnidirectional (App. B), and the App. B test |
# | `[thm:pbe]` | the polytope bias is rectifying on a bounded domain |
# | `[fig:poly]` | Figure "poly": facets, caps and most correlated bases of a random frame |
# | `[prop:pbeall]` | the five domains: $\partial P_\Phi$, $\mathbb{S}$, $\mathbb{B}_r$ / $\mathbb{D}_{r,s}$, $\mathbb{B}_r^+$, $\{\lVert x\rVert\ge s\}$ |
# | `[lem:err]` | simplicial and regular: the polytope bias is maximal on $\mathbb{S}$ (platonic solids) |
# | `[fig:conv]` | Figure "conv": sampling approaches the tetrahedron's maximal bias $-1/\sqrt3$ from above |
# | `[rem:hole-radius]` | hole radii of the facets and the covering radius of $\Phi$ |
# | `[fig:fig4]` | Figure 4: icosahedron vs. an irregular frame; the polytope bias of one vertex on $\mathbb{B}$ (static and interactive 3-D) |
#
# **Errata** of the printed paper, each stated, refuted by a counterexample in a checking cell and
# then replaced by the corrected version: the weights of App. B; the ball/donut formula (iii) and its
# radius scaling; the exterior statement (v); the test "$F_j$ meets $\mathbb{R}^n_+$" of App. C2 (iv); the
# tetrahedron value $\alpha_{\mathbb{S}} = -1/\sqrt3$ (printed $+1/\sqrt3$). The omnidirectionality test of
# App. B is listed with them but is of another kind: correct as stated when the minimum is attained, not
# computable as posed; the kit uses an LP instead. A remark on `[lem:err]` fills a gap in its proof.
#
# Conventions: rows of a matrix are the frame vectors, the layer is
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$ (the bias is subtracted), code indices are 0-based
# while the text counts $\phi_1, \phi_2, \dots$ from 1.

# %%
# %matplotlib inline
import numpy as np
from matplotlib.figure import Figure
from scipy.optimize import linprog, nnls

import relu_frames_nb as rf
from relu_frames_nb import experiments
from relu_frames_nb.viz import palette, plane, space
from relu_frames_nb.viz.experiments import plot_conv

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SIZE = "full" if FULL else "fast"  # size of the experiment behind Figure conv
WORKERS = None if FULL else 1  # fast: in this process; full: one process per CPU
SEED = 20241125
N_DENSE = 200_000 if FULL else 20_000  # samples for "rectifying on the domain" checks
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)


def rectifying_on(frame, alpha, K, n=N_DENSE, seed=SEED + 1000):
    """Sampled check of the alpha-rectifying property on K (a failure would be a proof of the contrary)."""
    return rf.check_rectifying(rf.ReLULayer(frame, alpha), K, n_samples=n, seed=seed)


# %% [markdown]
# ## 1. Facets of the inscribing polytope
#
# For a unit-norm frame every $\phi_i$ is a vertex of $P_\Phi$, and every facet $F$ is a polytope
# whose vertices are some of the $\phi_i$; write $I_F = \{i : \phi_i \in F\}$. A facet lies in a
# hyperplane $\{x : \langle a, x\rangle = b\}$ with $\langle a, \phi_\ell\rangle < b$ for the other
# vertices, so the vertices of $F$ are the frame elements most aligned with the normal $a$.
#
# **[lem:facet]** If the facet $F$ does not contain the origin, its vertices
# $\Phi_{I_F}$ span $\mathbb{R}^n$, i.e. they form a frame.
#
# (Reason: the vertices span the affine hyperplane $\{\langle a,\cdot\rangle = b\}$, and when
# $b \neq 0$ the linear span of an affine hyperplane is all of $\mathbb{R}^n$.)
#
# Check: every facet of random polytopes in $\mathbb{R}^3, \mathbb{R}^4, \mathbb{R}^5$ and of the
# platonic solids misses 0 and has vertices of rank $n$; and the hypothesis is needed: the frame
# $(e_1, e_2, -e_1)$ of $\mathbb{R}^2$ has a facet through 0 (the segment from $e_1$ to $-e_1$) whose
# two vertices span only a line.

# %%
frames = [rf.zoo.random_sphere(m, n, seed=SEED + n) for n, m in [(3, 12), (4, 20), (5, 30)]]
frames += [rf.zoo.platonic(name) for name in rf.zoo.PLATONIC_SOLIDS]
for F in frames:
    P = rf.inscribing_polytope(F)
    ranks = [np.linalg.matrix_rank(P.points[P.facet(j)]) for j in range(P.n_facets)]
    assert np.all(P.offsets > 0), "a facet contains 0"
    assert min(ranks) == F.n, (F, min(ranks))
    print(f"m={F.m:2d}, n={F.n}: {P.n_facets:4d} facets, vertices per facet {P.facet_sizes.min()}..{P.facet_sizes.max()}, "
          f"smallest rank {min(ranks)}")

G = rf.Frame([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
PG = rf.inscribing_polytope(G)
through_zero = [j for j in range(PG.n_facets) if abs(PG.offsets[j]) < 1e-12]
assert len(through_zero) == 1 and np.linalg.matrix_rank(PG.points[PG.facet(through_zero[0])]) == 1
print("(e1, e2, -e1): the facet {phi_%d, phi_%d} passes through 0, its vertices have rank 1" % tuple(PG.facet(through_zero[0]) + 1))

# %% [markdown]
# ## 2. Omnidirectional frames
#
# For a facet $F_j$ and a domain $K$ let $F_j^K = \operatorname{cone}(F_j) \cap K$ be the points of
# $K$ seen from the origin through $F_j$. A frame is **omnidirectional** when 0 is an interior
# point of $P_\Phi$; equivalently, no closed half-space through 0 contains all the $\phi_i$.
#
# **[rem:omni-domain]** The cones over the facets cover $\mathbb{R}^n$ (so
# $K = \bigcup_j F_j^K$ for every $K$), and no facet contains 0, exactly when the frame is
# omnidirectional.
#
# Check, both directions.
# * Omnidirectional frame in $\mathbb{R}^4$: every sample point $x$ is a non-negative combination
#   of the vertices of the facet that `InscribingPolytope.locate` assigns to it (non-negative least
#   squares residual 0).
# * Not omnidirectional: some facet hyperplane $\{\langle a,\cdot\rangle = b\}$ has $b \le 0$, so all
#   $\langle a, \phi_i\rangle \le 0$; then $a \notin \operatorname{cone}(F)$ for every facet (else
#   $\lVert a\rVert^2 = \langle a, \sum c_\ell \phi_\ell\rangle \le 0$): the residual is positive for all
#   facets.

# %%
F = rf.zoo.random_sphere(20, 4, seed=SEED)
P = rf.inscribing_polytope(F)
assert P.is_omnidirectional and rf.is_omnidirectional(F, method="lp")
X = rf.Ball(4).sample(500, seed=SEED + 4)
j = P.locate(X)
residuals = np.array([nnls(P.points[P.facet(k)].T, x)[1] for k, x in zip(j, X)])
print(f"omnidirectional frame, m=20 in R^4: largest distance of a sample to its facet cone below 1e-10: "
      f"{residuals.max() < 1e-10}")
assert residuals.max() < 1e-10

half = rf.Frame(np.abs(rf.zoo.random_sphere(10, 3, seed=SEED).vectors) * [1, 1, -1] + [0, 0, -0.2])
Ph = rf.inscribing_polytope(half)
assert not Ph.is_omnidirectional and not rf.is_omnidirectional(half, method="lp")
a = Ph.normals[np.argmin(Ph.offsets)]
assert np.all(half.vectors @ a <= 1e-12)
dist = min(nnls(Ph.points[Ph.facet(k)].T, a)[1] for k in range(Ph.n_facets))
print(f"not omnidirectional: the direction a is at distance >= {dist:.3f} from every facet cone")
assert dist > 0.5

# %% [markdown]
# **[fig:omni]** Left: an omnidirectional frame (0 inside the polygon). Right: a frame whose
# vectors all lie in one half-plane; 0 is outside the polygon, and the directions of the shaded
# half-plane belong to no facet cone.

# %%
omni = rf.Frame(np.column_stack([np.cos(np.deg2rad([20, 95, 170, 230, 300])), np.sin(np.deg2rad([20, 95, 170, 230, 300]))]))
angles = np.deg2rad([10, 55, 100, 150])
not_omni = rf.Frame(np.column_stack([np.cos(angles), np.sin(angles)]))
fig = Figure(figsize=(8, 4), layout="constrained")
axes = fig.subplots(1, 2)
for ax, Fr, title in zip(axes, [omni, not_omni], ["omnidirectional", "not omnidirectional"]):
    plane.style_axes(ax, extent=1.3)
    plane.draw_polygon(ax, Fr)
    plane.draw_frame_vectors(ax, Fr)
    ax.plot(0, 0, "o", color=palette.GOOD if rf.is_omnidirectional(Fr) else palette.BAD, ms=7, zorder=50)
    ax.set_title(f"[fig:omni] {title}", fontsize=11)
axes[1].fill_between([-1.3, 1.3], -1.3, 0, color=palette.lighten(palette.BAD, 0.8), zorder=0)
axes[1].text(0, -0.75, "in no facet cone", ha="center", fontsize=10, color=palette.BAD)
fig

# %%
assert rf.is_omnidirectional(omni) and rf.is_omnidirectional(omni, method="lp")
assert not rf.is_omnidirectional(not_omni) and not rf.is_omnidirectional(not_omni, method="lp")
assert np.all(not_omni.vectors @ [0.0, -1.0] < 0)  # every vector is in the upper half-plane

# %% [markdown]
# **[lem:omni-completion]** (App. B) If $\Phi$ is not omnidirectional, appending the unit vector
# $\phi_{m+1} = -\sum_i \phi_i / \lVert\sum_i \phi_i\rVert$ makes it omnidirectional. With
# $s = \lVert \sum_i \phi_i \rVert$ the weights $c_1 = \dots = c_m = 1/(m+s)$, $c_{m+1} = s/(m+s)$
# are positive, sum to 1 and give $\sum_{i=1}^{m+1} c_i \phi_i = 0$: the origin is a convex
# combination of *all* vertices with positive weights, hence an interior point of $P_{\Phi'}$
# (which is full-dimensional because $\Phi$ spans).
#
# Check: random frames squeezed into a half-space, $n = 2, \dots, 5$: not omnidirectional before,
# omnidirectional after `complete_omnidirectional` (hull test and LP test), and the weights of the
# proof do what they should.

# %%
for n in range(2, 6):
    V = rf.zoo.random_sphere(3 * n, n, seed=SEED + n).vectors.copy()
    V[:, 0] = np.abs(V[:, 0]) + 0.1  # all in the half-space x_1 > 0
    Fn = rf.Frame(V)
    Fc = rf.complete_omnidirectional(Fn)
    assert not rf.is_omnidirectional(Fn) and not rf.is_omnidirectional(Fn, method="lp")
    assert Fc.m == Fn.m + 1 and rf.is_omnidirectional(Fc) and rf.is_omnidirectional(Fc, method="lp")
    s = np.linalg.norm(V.sum(axis=0))
    c = np.r_[np.full(Fn.m, 1.0), s] / (Fn.m + s)
    np.testing.assert_allclose(Fc.vectors[-1], -V.sum(axis=0) / s)
    np.testing.assert_allclose(c @ Fc.vectors, 0, atol=1e-12)
    assert np.all(c > 0) and np.isclose(c.sum(), 1)
print("completion lemma checked for n = 2..5")

# %% [markdown]
# ### Erratum — App. B, proof of the completion lemma: the weights
#
# *Printed:* $c_1 = \dots = c_m = \frac{1}{1+s}$, $c_{m+1} = \frac{s}{1+s}$ with
# $s = \lVert\sum_i\phi_i\rVert$, "note that $\sum_{i=1}^{m+1} c_i = 1$".
#
# *Correct:* these weights do give $\sum_i c_i\phi_i = 0$, but they sum to $\frac{m+s}{1+s}$, which is
# 1 only for $m = 1$. Dividing by the sum, $c_i = \frac{1}{m+s}$ and $c_{m+1} = \frac{s}{m+s}$, repairs
# the argument (as used above). Counterexample: the standard basis of $\mathbb{R}^2$, $m = 2$,
# $s = \sqrt2$: the printed weights sum to $\frac{2+\sqrt2}{1+\sqrt2} = \sqrt2$.

# %%
E2 = rf.zoo.standard_basis(2)
s = np.linalg.norm(E2.vectors.sum(axis=0))
c_printed = np.r_[np.full(E2.m, 1 / (1 + s)), s / (1 + s)]
Ec = rf.complete_omnidirectional(E2)
print(f"printed weights: sum = {c_printed.sum():.6f}; the combination vanishes: {np.linalg.norm(c_printed @ Ec.vectors) < 1e-12}")
np.testing.assert_allclose(c_printed @ Ec.vectors, 0, atol=1e-12)
assert not np.isclose(c_printed.sum(), 1) and np.isclose(c_printed.sum(), np.sqrt(2))

# %% [markdown]
# ### Erratum (not computable as posed; correct as stated) — App. B: the omnidirectionality test
#
# *Printed:* $\Phi$ is omnidirectional iff the convex program
# $\min \lVert Dc\rVert$ subject to $c > 0$ has a solution ($D$ = synthesis matrix, columns $\phi_i$).
#
# *Read literally, this is correct when "has a solution" means that the minimum is attained.* For
# every frame the infimum over $c > 0$ is 0, approached along $c = t\,\mathbf 1$, $t \to 0$, since
# $\lVert D(t\mathbf 1)\rVert = t\lVert\sum_i\phi_i\rVert$. So a minimizer exists iff some $c > 0$ has $Dc = 0$,
# i.e. iff 0 is a convex combination of *all* $\phi_i$ with positive weights, i.e. iff 0 is an interior
# point of $P_\Phi$ — omnidirectionality.
#
# *Not computable as posed:* the feasible set $c > 0$ is open, and a solver returns $c \approx 0$,
# $\lVert Dc\rVert \approx 0$ for an omnidirectional frame and for one that is not; "attained" and
# "approached" look the same in floating point.
#
# *What the kit computes (an LP with a margin):* $\Phi$ is omnidirectional iff
# $t^* = \max\{t : Dc = 0,\ \sum_i c_i = 1,\ c_i \ge t\} > 0$. This is what
# `rf.is_omnidirectional(F, method="lp")` solves (HiGHS); the default `method="hull"` reads the same
# answer off the facet offsets of the convex hull.
#
# Checks: along $c = t\mathbf 1$ the printed objective goes to 0 for the non-omnidirectional frame
# `not_omni` of the figure exactly as for the omnidirectional `omni` (a solver cannot separate them);
# the literal reading holds for both — our own LP (`scipy.optimize.linprog`) gives $t^* > 0$ and a
# minimizer $c^* > 0$ with $Dc^* = 0$ for `omni`, and $t^* < 0$ for `not_omni` (no $c > 0$ has $Dc = 0$:
# the minimum is not attained); and the library's LP agrees with the hull test on 200 random frames,
# some omnidirectional and some not.

# %%
def omni_lp(Fr):
    """t* = max t subject to D c = 0, sum c = 1, c_i >= t (variables c, t), and the optimal c."""
    m, n = Fr.m, Fr.n
    A_eq = np.vstack([np.c_[Fr.vectors.T, np.zeros(n)], np.r_[np.ones(m), 0.0]])
    res = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-np.eye(m), np.ones(m)], b_ub=np.zeros(m), A_eq=A_eq,
                  b_eq=np.r_[np.zeros(n), 1.0], bounds=(None, None), method="highs")  # fmt: skip
    assert res.status == 0
    return -res.fun, res.x[:m]


values = {}
for name, Fr in [("not omnidirectional", not_omni), ("omnidirectional", omni)]:
    D = Fr.vectors.T
    values[name] = [np.linalg.norm(D @ (t * np.ones(Fr.m))) for t in [1e-1, 1e-4, 1e-8, 1e-12]]
    print(f"printed objective ||D c|| along c = t*1, {name:19s}:", [f"{v:.1e}" for v in values[name]])
for v in values.values():  # the printed program, solved numerically, cannot tell the two frames apart
    assert v[-1] < 1e-11 and np.all(np.diff(v) < 0)
t_omni, c_omni = omni_lp(omni)
t_not, _ = omni_lp(not_omni)
print(f"LP: t* = {t_omni:.4f} for omni (minimizer c* > 0 with ||D c*|| = {np.linalg.norm(omni.vectors.T @ c_omni):.1e}), "
      f"t* = {t_not:.4f} for not_omni (the minimum is not attained)")
assert t_omni > 0 and np.all(c_omni >= t_omni) and np.linalg.norm(omni.vectors.T @ c_omni) < 1e-12  # attained
assert t_not < 0  # no strictly positive c with D c = 0
assert rf.is_omnidirectional(omni, method="lp") and not rf.is_omnidirectional(not_omni, method="lp")
hull_says, lp_says = [], []
for k in range(200):
    n = 2 + k % 3
    Fr = rf.zoo.random_sphere(n + 1 + k % 5, n, seed=k)
    hull_says.append(rf.is_omnidirectional(Fr, method="hull"))
    lp_says.append(rf.is_omnidirectional(Fr, method="lp"))
print(f"hull test = LP test on {sum(np.equal(hull_says, lp_says))}/200 random frames ({sum(hull_says)} omnidirectional)")
assert hull_says == lp_says and 0 < sum(hull_says) < 200

# %% [markdown]
# ## 3. Polytope bias estimation
#
# **[thm:pbe]** Let $\Phi \subset \mathbb{S}$ be omnidirectional and $K$ bounded. Put
#
# $$\big(\alpha^\Delta_K\big)_i = \inf\big\{\langle x, \phi_i\rangle : x \in F_j^K,\ F_j \ni \phi_i\big\}.$$
#
# Then $\Phi$ is $\alpha^\Delta_K$-rectifying on $K$: a point $x \in K$ lies in some cone $F_j^K$
# (omnidirectional), all vertices of $F_j$ are active at $x$ by the definition of the infimum, and
# they form a frame (`[lem:facet]`).
#
# Check on random frames in $\mathbb{R}^3$ and $\mathbb{R}^4$ and the ball $\mathbb{B}$: rectifying at
# every one of many samples, and each value is attained (the infimum is a minimum at the returned
# `argmin`, a point of $K$ in a cone of a facet containing $\phi_i$), so no entry can be raised
# *within this construction*. "In the cone" is checked directly, not only through the facet index the
# library reports: the non-negative least-squares fit of `argmin` by the facet's vertices,
# $\min_{c \ge 0}\lVert \Phi_{I_F}^\top c - x\rVert$, has residual 0.

# %%
for m, n in [(12, 3), (30, 4)]:
    F = rf.zoo.random_sphere(m, n, seed=SEED)
    K = rf.Ball(n)
    est = rf.polytope_bias(F, K)
    P = est.info["polytope"]
    chk = rectifying_on(F, est.values, K)
    attained = np.einsum("ij,ij->i", est.argmin, F.vectors)
    in_facet = [i in P.facet(est.facets[i]) for i in range(m)]
    # the minimizer is a non-negative combination of the vertices of that facet: NNLS residual 0
    cone_residual = np.array([nnls(P.points[P.facet(est.facets[i])].T, est.argmin[i])[1] for i in range(m)])
    print(f"m={m}, n={n}: PBE on the ball in [{est.values.min():.3f}, {est.values.max():.3f}], "
          f"{est.guarantee}; rectifying at {chk.n_checked - chk.n_failed}/{chk.n_checked} samples; "
          f"largest distance of a minimizer to its facet cone {cone_residual.max():.1e}")
    assert chk.rectifying and est.is_guarantee
    np.testing.assert_allclose(attained, est.values, atol=1e-10)
    assert all(in_facet) and np.all(K.contains(est.argmin)) and cone_residual.max() < 1e-10
    assert np.any(np.linalg.norm(est.argmin, axis=1) > 0.5)  # not only the trivial minimizer 0 (in every cone)

# %% [markdown]
# **[fig:poly]** Three decompositions of the sphere for a random frame of $m = 12$ unit vectors
# in $\mathbb{R}^3$ (black dots): the facets $F_j$ of $P_\Phi$; the spherical caps
# $F_j^{\mathbb{S}} = \operatorname{cone}(F_j) \cap \mathbb{S}$; the patches where the most correlated
# basis $J^*(x)$ is constant. (Static matplotlib renderings; the interactive viewer is at the end.)

# %%
F12 = rf.zoo.random_sphere(12, 3, seed=SEED)
fig = space.figure_poly(F12, tag="fig:poly", fig=Figure(figsize=(12, 4.2), dpi=80))  # the package's Figure "poly"
fig

# %% [markdown]
# What the figure shows, checked: the polytope of 12 random points is simplicial with
# $2m - 4 = 20$ triangular facets (Euler); the caps tile the sphere (each sample direction lies in
# exactly one facet cone, up to a null set), and the most correlated bases cut the sphere into a
# different set of patches.

# %%
P12 = rf.inscribing_polytope(F12)
U = rf.Sphere(3).sample(N_DENSE, seed=SEED + 3)
cone_count = np.zeros(U.shape[0], dtype=int)
for j in range(P12.n_facets):  # barycentric test: U in cone(F_j) iff U = c @ F_j with c >= 0
    c = np.linalg.solve(P12.points[P12.facet(j)].T, U.T).T
    cone_count += np.all(c >= 0, axis=1)
bases = np.unique(np.sort(np.asarray(rf.most_correlated_basis(F12, U)), axis=1), axis=0)
facet_sets = np.sort(np.array(P12.facets), axis=1)
common = len({tuple(b) for b in bases} & {tuple(f) for f in facet_sets})
print(f"{P12.n_facets} facets (simplicial: {P12.is_simplicial}); every sample in exactly one cone: "
      f"{bool(np.all(cone_count == 1))}; {len(bases)} distinct J*(x), {common} of them facets")
assert P12.is_simplicial and P12.n_facets == 2 * 12 - 4
assert np.all(cone_count == 1)
assert len(bases) != P12.n_facets or common < len(bases)

# %% [markdown]
# ## 4. The five domains
#
# **[prop:pbeall]** For an omnidirectional $\Phi \subset \mathbb{S}$ the polytope bias has a closed
# form (or a small convex program) on five domains. Let $I_F$ be the vertex set of a facet $F$.
#
# 1. **Boundary** $\partial P_\Phi$: $(\alpha_\Phi^\Delta)_i = \min\{\langle\phi_\ell,\phi_i\rangle : \ell \in I_F,\ F \ni \phi_i\}$ —
#    a linear function on a facet is smallest at a vertex.
# 2. **Sphere** $\mathbb{S}$: $(\alpha_\mathbb{S}^\Delta)_i = \min\{\min_{y \in F^\mathbb{S}} \langle y,\phi_i\rangle,\ (\alpha_\Phi^\Delta)_i\}$;
#    the inner minimum is a convex program, and equals $(\alpha_\Phi^\Delta)_i$ when that is $\ge 0$
#    (radial projection from the facet to the sphere only enlarges non-negative values).
#    The library solves it as $-\lVert P_{\operatorname{cone}(F)}(-\phi_i)\rVert$ (Moreau), one
#    non-negative least-squares problem per facet and vertex.
# 3. **Ball and donut** $\mathbb{D}_{r,s} = \{s \le \lVert x\rVert \le r\}$ ($s = 0$: the ball
#    $\mathbb{B}_r$): with $a = (\alpha_\mathbb{S}^\Delta)_i$, $\alpha_i = r a$ if $a < 0$ and $s a$ if
#    $a \ge 0$ — since $\langle t y, \phi_i\rangle = t\langle y,\phi_i\rangle$ for $t \in [s, r]$. *(The
#    printed formula differs: see the erratum below.)*
# 4. **Non-negative ball** $\mathbb{B}^+_r$: the ball values, but only facets whose cone meets
#    $\mathbb{R}^n_+$ matter; elements in no such facet are free (any bias, $+\infty$).
# 5. **Exterior** $\{\lVert x\rVert \ge s\}$: if $\alpha_\Phi^\Delta \ge 0$, the bias
#    $s\,\alpha_\Phi^\Delta$. *(The printed statement scales the frame too: see the erratum.)*
#
# Check: one random frame ($m = 12$, $\mathbb{R}^3$) on each bounded domain, the icosahedron and a
# dense random frame on the exterior; rectifying at every sample, and the minima are attained at
# points of the domain. The values are compared with an **independent** computation, not with the
# formulas they implement: a brute-force minimum of $\langle y, \phi_i\rangle$ over many points $y$ of
# $\operatorname{cone}(F) \cap K$ for every facet $F \ni \phi_i$ (random non-negative combinations of
# the facet's vertices and dense points on its edges, pushed radially onto $\mathbb{S}$ and scaled to
# radii from $s$ to $r$). Sampling can only find values $\ge$ the true minimum, so the check is
# "library $\le$ brute force $\le$ library $+\,10^{-4}$"; the printed formula (iii), for instance, would
# fail it (see the erratum below). For the positive ball the facets whose cone meets $\mathbb{R}^3_+$ are
# found by our own feasibility LP (`scipy.optimize.linprog`: $c \ge 0$, $\sum c = 1$, $\Phi_{I_F}^\top c \ge 0$).

# %%
F = F12
P = P12
ests = {name: rf.polytope_bias(P, K) for name, K in [
    ("boundary", "boundary"), ("sphere", rf.Sphere(3)), ("ball B_2", rf.Ball(3, 2.0)),
    ("donut D_{1,1/2}", rf.Shell(3, 0.5, 1.0)), ("positive ball", rf.PositiveBall(3))]}

# samples of the boundary of P: the ray through u leaves P through the facet locate(u)
U = rf.Sphere(3).sample(N_DENSE, seed=SEED + 1)
jj = P.locate(U)
Xb = U * (P.offsets[jj] / np.einsum("ij,ij->i", P.normals[jj], U))[:, None]
domains = {"boundary": rf.Samples(Xb), "sphere": rf.Sphere(3), "ball B_2": rf.Ball(3, 2.0),
           "donut D_{1,1/2}": rf.Shell(3, 0.5, 1.0), "positive ball": rf.PositiveBall(3)}
for name, est in ests.items():
    chk = rectifying_on(F, est.finite(fill=10.0), domains[name])  # free elements: any bias, here 10
    v = est.values
    print(f"{name:16s} bias in [{v[np.isfinite(v)].min():+.3f}, {v[np.isfinite(v)].max():+.3f}], "
          f"{int(np.sum(np.isinf(v)))} free; rectifying at {chk.n_checked - chk.n_failed}/{chk.n_checked}")
    assert chk.rectifying

# %%
def cone_points(P, j, n_inner=3000, n_edge=400, seed=SEED):
    """Points of the facet F_j: random convex combinations of its vertices and dense points on its edges."""
    V = P.points[P.facet(j)]
    inner = np.random.default_rng(seed + j).dirichlet(np.ones(len(V)), n_inner) @ V
    t = np.linspace(0.0, 1.0, n_edge)[:, None]
    return np.vstack([inner] + [(1 - t) * V[a] + t * V[b] for a in range(len(V)) for b in range(a + 1, len(V))])


def brute_force_bias(P, radii=None, facets=None):
    """min <y, phi_i> over sampled y in cone(F) ∩ K, over the facets F containing phi_i (+inf: in none).

    radii None: K is the boundary of P (the facet points themselves); otherwise the points are pushed
    onto the unit sphere and scaled by every radius given (K = the shell or ball they span)."""
    out = np.full(P.points.shape[0], np.inf)
    for j in range(P.n_facets) if facets is None else facets:
        Y = cone_points(P, j)
        if radii is not None:
            U = Y / np.linalg.norm(Y, axis=1, keepdims=True)
            Y = np.vstack([r * U for r in radii])
        for i in P.facet(j):
            out[i] = min(out[i], float((Y @ P.points[i]).min()))
    return out


def meets_positive_orthant(V):
    """Feasibility LP: some c >= 0, sum c = 1, with V^T c >= 0 (the facet's cone meets R^n_+ beyond 0)."""
    res = linprog(np.zeros(len(V)), A_ub=-V.T, b_ub=np.zeros(V.shape[1]), A_eq=np.ones((1, len(V))), b_eq=[1.0],
                  bounds=(0, None), method="highs")  # fmt: skip
    return res.status == 0


radii = {"boundary": None, "sphere": [1.0], "ball B_2": np.linspace(0.0, 2.0, 5),
         "donut D_{1,1/2}": np.linspace(0.5, 1.0, 5)}  # fmt: skip
relevant = np.array([meets_positive_orthant(P.points[P.facet(j)]) for j in range(P.n_facets)])
brute = {name: brute_force_bias(P, r) for name, r in radii.items()}
brute["positive ball"] = brute_force_bias(P, np.linspace(0.0, 1.0, 5), facets=np.flatnonzero(relevant))
for name, b in brute.items():
    lib = ests[name].values
    fin = np.isfinite(lib)
    gap = b[fin] - lib[fin]
    print(f"{name:16s} brute force minus library in [{gap.min():+.1e}, {gap.max():+.1e}]; "
          f"free elements agree: {bool(np.array_equal(np.isfinite(b), fin))}")
    assert np.array_equal(np.isfinite(b), fin) and np.all(gap >= -1e-12) and np.all(gap <= 1e-4), name
assert np.array_equal(relevant, ests["positive ball"].info["relevant_facets"])  # the same facets as the library

aB, aS = ests["sphere"].info["alpha_boundary"], ests["sphere"].values
# (i) boundary: attained at a vertex of a facet containing phi_i
assert all(np.isclose(np.linalg.norm(ests["boundary"].argmin[i]), 1) for i in range(F.m))
# (ii) sphere: never above the boundary value, equal where that is >= 0, attained on S
assert np.all(aS <= aB + 1e-12)
np.testing.assert_allclose(aS[aB >= 0], aB[aB >= 0])
np.testing.assert_allclose(np.linalg.norm(ests["sphere"].argmin, axis=1), 1)
# (iii) ball: never below -r (Lemma B_r); (iv) positive ball: free elements exist, the others are
# never below the ball value (fewer facets)
assert np.all(ests["ball B_2"].values >= -2.0 - 1e-12)
pb = ests["positive ball"]
assert np.any(np.isinf(pb.values))
assert np.all(pb.values >= rf.polytope_bias(P, rf.Ball(3)).values - 1e-12)
print("formulas (i)-(iv) checked against brute-force minima over cone(F) ∩ K")

# %% [markdown]
# The exterior $\{\lVert x\rVert \ge s\}$ is unbounded, so sampling it means choosing radii: we take
# norms from $s$ to $100 s$ (log-uniform). For an element with $(\alpha^\Delta_\Phi)_i < 0$ no finite
# bias works on an unbounded domain, and the library refuses (the random 12-vector frame is such a
# case); frames with many evenly spread vectors have $\alpha^\Delta_\Phi \ge 0$.

# %%
def exterior_samples(n, s, N=N_DENSE, seed=SEED):
    g = np.random.default_rng(seed)
    u = rf.Sphere(n).sample(N, seed=seed)
    return u * (s * 100.0 ** g.random(N))[:, None]


ext_frames = {"icosahedron": rf.zoo.platonic("icosahedron"), "random m=60": rf.zoo.random_sphere(60, 3, seed=SEED)}
for name, Fe in ext_frames.items():
    aPhi = rf.polytope_bias(Fe, "boundary").values
    assert np.all(aPhi >= 0), name
    for s in [0.5, 2.0]:
        est = rf.polytope_bias_exterior(Fe, s)
        np.testing.assert_allclose(est.values, s * aPhi)
        assert rectifying_on(Fe, est.values, rf.Samples(exterior_samples(3, s))).rectifying
    print(f"{name}: alpha_Phi in [{aPhi.min():.3f}, {aPhi.max():.3f}]; s*alpha_Phi rectifying on ||x|| >= s for s = 0.5, 2")
try:
    rf.polytope_bias_exterior(F12, 1.0)
    raise AssertionError("expected a refusal")
except rf.InputError as exc:
    print("random m=12 frame:", str(exc).split(";")[1].strip())

# %% [markdown]
# ### Erratum — Prop. pbeall (iii) and App. C2 (iii): the bias on the ball and the donut
#
# *Printed:* $\Phi$ is $(r^{-1}\alpha^\Delta_\mathbb{B})$-rectifying on $\mathbb{D}_{r,s}$ with
# $(\alpha^\Delta_\mathbb{B})_i = \min\{s, (\alpha^\Delta_\mathbb{S})_i\}$.
#
# *Correct:* $\alpha_i = r\,a$ if $a = (\alpha^\Delta_\mathbb{S})_i < 0$ and $\alpha_i = s\,a$ if $a \ge 0$.
# On a ray $t y$, $y \in F^{\mathbb S}$, the coefficient $t\langle y, \phi_i\rangle$ is smallest at the
# outer radius $t = r$ when it is negative and at the inner radius $t = s$ when it is non-negative.
#
# Counterexamples to the printed formula:
# * **triangle frame on $\mathbb{B}_2$** ($\alpha_\mathbb{S} = -\tfrac12$): printed
#   $\tfrac12\min\{0, -\tfrac12\} = -\tfrac14$; at $x = 2\phi_1 \in \mathbb{B}_2$ only $\phi_1$ is active
#   ($\langle 2\phi_1, \phi_{2,3}\rangle = -1 < -\tfrac14$). Correct: $2 \cdot (-\tfrac12) = -1$.
# * **icosahedron on $\mathbb{D}_{1,1/2}$** ($\alpha_\mathbb{S} = 1/\sqrt5$): printed
#   $\min\{\tfrac12, 1/\sqrt5\} = 0.447$; at $x = \tfrac12 a_F$ (half the unit normal of a facet) every
#   coefficient is at most $\tfrac12 b_F = 0.397$, so **no** element is active. Correct: $\tfrac12 \cdot 1/\sqrt5 = 0.224$.

# %%
tri, ico = rf.zoo.mercedes_benz(), rf.zoo.platonic("icosahedron")
cases = [("triangle", tri, rf.Ball(2, 2.0), 2.0, 0.0, 2.0 * tri.vectors[0]),
         ("icosahedron", ico, rf.Shell(3, 0.5, 1.0), 1.0, 0.5, None)]
for name, Fr, K, r, s, x in cases:
    a_S = rf.polytope_bias(Fr, rf.Sphere(Fr.n)).values
    printed = np.minimum(s, a_S) / r
    correct = rf.polytope_bias(Fr, K).values
    if x is None:
        Pi = rf.inscribing_polytope(Fr)
        x = s * Pi.normals[0]
    L_printed = rf.ReLULayer(Fr, printed)
    bad = rectifying_on(Fr, printed, K)
    print(f"{name} on {K}: printed {printed[0]:+.4f}, correct {correct[0]:+.4f}; x = {np.round(x, 3)}: "
          f"{int(L_printed.active_set(x).sum())} active (printed) vs {int(rf.ReLULayer(Fr, correct).active_set(x).sum())} "
          f"(correct); printed fails at {100 * bad.n_failed / bad.n_checked:.0f}% of samples")
    assert K.contains(x) and not rf.is_rectifying(L_printed, x)
    assert not bad.rectifying and rectifying_on(Fr, correct, K).rectifying
np.testing.assert_allclose(rf.polytope_bias(tri, rf.Ball(2, 2.0)).values, -1.0)
np.testing.assert_allclose(rf.polytope_bias(ico, rf.Shell(3, 0.5, 1.0)).values, 0.5 / np.sqrt(5))

# %% [markdown]
# The triangle frame on $\mathbb{B}_2$: the maximal domain $K^*_\alpha$ (grey) for the printed bias
# leaves three lobes of $\mathbb{B}_2$ unrectified (vermillion); the corrected bias $-1$ covers it.

# %%
fig = Figure(figsize=(8, 4), layout="constrained")
axes = fig.subplots(1, 2)
for ax, alpha, title in zip(axes, [-0.25, -1.0], ["printed: $\\alpha=-1/4$", "corrected: $\\alpha=-1$"]):
    L = rf.ReLULayer(tri, alpha)
    plane.draw_maximal_domain(ax, L, domain=rf.Ball(2, 2.0), extent=2.4, resolution=241 if FULL else 161)
    plane.draw_halfspaces(ax, L, extent=2.4, shade=False)
    plane.draw_domain(ax, rf.Ball(2, 2.0))
    plane.draw_frame_vectors(ax, tri)
    ax.set_title(f"[prop:pbeall] (iii) triangle on $\\mathbb{{B}}_2$, {title}", fontsize=10)
fig

# %% [markdown]
# ### Erratum — Prop. pbeall (v): the exterior of a ball
#
# *Printed:* if $\alpha^\Delta_\Phi \ge 0$, the **scaled** frame $(s\phi_i)_i$ is
# $(s\,\alpha^\Delta_\Phi)$-rectifying on $\{\lVert x\rVert \ge s\}$ for every $s \ge 0$.
#
# *What holds:* $\Phi$ **itself** is $(s\,\alpha^\Delta_\Phi)$-rectifying there (the proof shows
# this: $x = c\,p$ with $p \in \partial P_\Phi$, $\lVert p\rVert \le 1$, so $c \ge s$ and
# $\langle x, \phi_i\rangle \ge s\,(\alpha^\Delta_\Phi)_i$ for the vertices of $p$'s facet). Since
# $\langle x, s\phi_i\rangle \ge s\alpha_i \iff \langle x, \phi_i\rangle \ge \alpha_i$, the printed
# reading is the statement "$\Phi$ is $\alpha^\Delta_\Phi$-rectifying on $\{\lVert x\rVert \ge s\}$",
# true for $s \ge 1$ and false for $s < 1$.
#
# Counterexample: icosahedron, $s = \tfrac12$, $x = \tfrac12 a_F$: with the scaled frame every
# coefficient is $\tfrac14\langle a_F, \phi_i\rangle \le 0.199 < \tfrac12 \cdot 0.447$, nothing is
# active. With $\Phi$ itself, the three vertices of $F$ are active.

# %%
s = 0.5
aPhi = rf.polytope_bias(ico, "boundary").values
x = s * rf.inscribing_polytope(ico).normals[0]
L_printed = rf.ReLULayer(rf.Frame(s * ico.vectors), s * aPhi)
L_correct = rf.ReLULayer(ico, s * aPhi)
print("active at x: printed (scaled frame)", int(L_printed.active_set(x).sum()), "| correct (frame itself)",
      int(L_correct.active_set(x).sum()))
assert np.isclose(np.linalg.norm(x), s) and not L_printed.active_set(x).any() and rf.is_rectifying(L_correct, x)
Xe = rf.Samples(exterior_samples(3, s))
assert not rf.check_rectifying(L_printed, Xe).rectifying and rf.check_rectifying(L_correct, Xe).rectifying
for s_big in [1.0, 2.0]:  # for s >= 1 the printed reading holds
    L = rf.ReLULayer(rf.Frame(s_big * ico.vectors), s_big * aPhi)
    assert rf.check_rectifying(L, rf.Samples(exterior_samples(3, s_big))).rectifying

# %% [markdown]
# ### Erratum — App. C2 (iv): which facets meet $\mathbb{R}^n_+$
#
# *Printed:* $F_j \cap \mathbb{R}^n_+ \neq \emptyset$ is tested by the feasibility of
# $\min \lVert D_{I_{F_j}} c\rVert$ subject to $c \ge 0$, $\sum_i c_i = 1$.
#
# *Why it cannot work:* these constraints describe the probability simplex, which is never empty
# ($c = e_1$): every facet passes, $I^+ = I$, and formula (iv) reduces to the ball formula — a
# valid but never a better bias.
#
# *Correct:* add the constraint that the point is non-negative, $D_{I_{F_j}} c \ge 0$ (this tests
# $\operatorname{cone}(F_j) \cap \mathbb{R}^n_+ \ne \{0\}$, which is what the cone decomposition
# needs).
#
# Counterexample: the octahedron facet $\{-e_1, -e_2, -e_3\}$ passes the printed test ($c = e_1$ is
# feasible, as for every facet), yet its cone is $-\mathbb{R}^3_+$, which meets $\mathbb{R}^3_+$ only in
# 0: every point $D c = -c$ of the facet has a negative coordinate. The library drops exactly this
# facet of the octahedron. For the random frame, the printed reading keeps all facets and gives
# the ball bias, which is valid on $\mathbb{B}^+$ but never larger than the corrected one, and
# smaller for some elements.

# %%
octa = rf.zoo.platonic("octahedron")
est_o = rf.polytope_bias(octa, rf.PositiveBall(3))
Po = est_o.info["polytope"]
neg = [j for j in range(Po.n_facets) if np.all(Po.points[Po.facet(j)] <= 0)][0]
Dneg = Po.points[Po.facet(neg)].T  # synthesis matrix of the facet {-e1, -e2, -e3}
c = np.array([1.0, 0.0, 0.0])  # feasible for the printed constraints c >= 0, sum c = 1
assert np.all(c >= 0) and np.isclose(c.sum(), 1)
W = rng.dirichlet(np.ones(3), 1000)  # many points of the facet: none is in R^3_+
assert np.all(np.min(W @ Dneg.T, axis=1) < 0)
print("octahedron facet", (Po.facet(neg) + 1).tolist(), ": passes the printed test (c = e_1);",
      "kept by the library:", bool(est_o.info["relevant_facets"][neg]),
      f"| facets kept: {int(est_o.info['relevant_facets'].sum())}/{Po.n_facets}")
assert not est_o.info["relevant_facets"][neg] and est_o.info["relevant_facets"].sum() == Po.n_facets - 1

print(f"random frame: the printed test keeps {P.n_facets}/{P.n_facets} facets, the corrected one "
      f"{int(pb.info['relevant_facets'].sum())}")
assert not pb.info["relevant_facets"].all()
# the bias of the printed reading (all facets) is the ball bias: valid, never larger than the corrected one
ball1 = rf.polytope_bias(P, rf.Ball(3)).values
assert np.all(pb.values >= ball1 - 1e-12) and np.any(pb.values > ball1 + 1e-6)
assert rectifying_on(F, ball1, rf.PositiveBall(3)).rectifying
assert rectifying_on(F, pb.finite(fill=10.0), rf.PositiveBall(3)).rectifying

# %% [markdown]
# ## 5. When the polytope bias is maximal
#
# **[lem:err]** If $P_\Phi$ is simplicial (every facet has $n$ vertices) and regular around each
# vertex ($\langle\phi_i,\phi_k\rangle$ is the same for all $\phi_k$ sharing a facet with $\phi_i$),
# then $\Phi$ is $\alpha$-rectifying on $\mathbb{S}$ **iff** $\alpha \le \alpha^\Delta_\mathbb{S}$: no
# entry can be raised.
#
# Among the platonic solids, tetrahedron, octahedron and icosahedron are simplicial; cube and
# dodecahedron are not (square and pentagonal faces).
#
# Check. For the three simplicial solids: $\alpha^\Delta_\mathbb{S}$ is constant
# ($-1/\sqrt3$, $0$, $1/\sqrt5$), rectifying on dense samples, and raising any single entry by
# $\varepsilon = 0.02$ creates non-rectifying points near the minimizer of that entry.
# For cube and dodecahedron the same raise breaks nothing near the minimizer — the hypothesis is
# needed. For the cube the polytope bias $-1/3$ is far from maximal: even the bias $\mathbf 0$ is
# rectifying on all of $\mathbb{R}^3$ (exact Tukey-depth test).

# %%
expected = {"tetrahedron": -1 / np.sqrt(3), "octahedron": 0.0, "icosahedron": 1 / np.sqrt(5)}
eps = 0.02
for name in rf.zoo.PLATONIC_SOLIDS:
    Fp = rf.zoo.platonic(name)
    est = rf.polytope_bias(Fp, rf.Sphere(3))
    a = est.values
    assert rectifying_on(Fp, a, rf.Sphere(3)).rectifying
    raised_fails, at_minimizer = [], []
    for i in range(Fp.m):
        b = a.copy()
        b[i] += eps
        local = est.argmin[i] + 0.01 * np.random.default_rng(i).standard_normal((4000, 3))
        local /= np.linalg.norm(local, axis=1, keepdims=True)
        raised_fails.append(not rf.is_rectifying(rf.ReLULayer(Fp, b), local).all())
        at_minimizer.append(bool(rf.is_rectifying(rf.ReLULayer(Fp, b), est.argmin[i])))
        assert rf.is_rectifying(rf.ReLULayer(Fp, a), local).all()
    simplicial = est.info["polytope"].is_simplicial
    print(f"{name:12s} simplicial={simplicial!s:5s} alpha_S={a.min():+.4f} (constant: {np.ptp(a) < 1e-12}); "
          f"raising one entry fails nearby for {sum(raised_fails)}/{Fp.m} elements")
    if simplicial:
        np.testing.assert_allclose(a, expected[name], atol=1e-12)
        assert all(raised_fails)
        assert all(at_minimizer)  # see the remark below: the minimizer itself is not a witness
    else:
        assert not any(raised_fails)
depth = rf.zero_bias_injective(rf.zoo.platonic("cube"))
print(f"cube: polytope bias -1/3, but bias 0 is rectifying on R^3 (Tukey depth {depth.depth} >= n = 3)")
assert depth.injective and depth.depth >= 3

# %% [markdown]
# **Remark (a gap in the printed proof of `[lem:err]`).** The proof takes the minimizer $x^*$ of
# $\langle x, \phi_i\rangle$ over a cap and claims $I^\alpha_{x^*} = I_F \setminus \{i\}$ after
# raising $\alpha_i$. For the three solids above this is false at $x^*$ itself: a vertex *outside*
# $F$ sits exactly on its own threshold there (a tie), so $x^*$ still has $n$ active, spanning
# elements — the check above records `at_minimizer = True` for every element. The statement
# survives: moving from $x^*$ slightly away from that outside vertex breaks the tie while the
# raised entry stays inactive (the local samples find such points). Tetrahedron: the minimizer for
# $\phi_2$ found by the library is the midpoint of the arc $\phi_1\phi_3$ (facet
# $\{\phi_1,\phi_2,\phi_3\}$), and the outside vertex $\phi_4$ has $\langle x^*, \phi_4\rangle = -1/\sqrt3$ too:

# %%
tet = rf.zoo.platonic("tetrahedron")
est_tet = rf.polytope_bias(tet, rf.Sphere(3))
xs, facet = est_tet.argmin[1], est_tet.info["polytope"].facet(est_tet.facets[1])
coef = tet.vectors @ xs
(outside,) = np.setdiff1d(np.arange(4), facet)
print("facet of phi_2:", (facet + 1).tolist(), "| coefficients of phi_1..phi_4 at its minimizer:", np.round(coef, 4))
np.testing.assert_allclose(np.sort(coef), [-1 / np.sqrt(3)] * 2 + [1 / np.sqrt(3)] * 2, atol=1e-12)
assert np.isclose(coef[1], -1 / np.sqrt(3)) and np.isclose(coef[outside], -1 / np.sqrt(3))  # the tie
x_move = xs + 1e-3 * (tet.vectors[1] - tet.vectors[outside])  # tangent step: phi_out drops, phi_2 rises by < eps
x_move /= np.linalg.norm(x_move)
b = np.full(4, -1 / np.sqrt(3))
b[1] += eps
assert not rf.is_rectifying(rf.ReLULayer(tet, b), x_move)
assert rf.is_rectifying(rf.ReLULayer(tet, np.full(4, -1 / np.sqrt(3))), x_move)

# %% [markdown]
# ### Erratum — the tetrahedron value (Section "Approximation of the maximal bias", Figure conv)
#
# *Printed:* for the tetrahedron frame, the maximal bias on $\mathbb{S}$ is $\boldsymbol{1/\sqrt3}$.
#
# *Correct:* $\alpha_\mathbb{S} = \boldsymbol{-1/\sqrt3}$. The cap of the facet
# $\{\phi_2,\phi_3,\phi_4\}$ reaches, for $\phi_2$, the midpoint of the opposite arc:
# $\langle(\phi_3+\phi_4)/\lVert\phi_3+\phi_4\rVert, \phi_2\rangle = (-\tfrac23)/(2/\sqrt3) = -1/\sqrt3$.
#
# Counterexample to the printed value: at $x = -\phi_1 \in \mathbb{S}$ the coefficients are
# $(-1, \tfrac13, \tfrac13, \tfrac13)$, all below $1/\sqrt3 \approx 0.577$ — nothing is active, the
# layer is not even rectifying there. Figure conv below uses the right target.

# %%
x = -tet.vectors[0]
L_printed = rf.ReLULayer(tet, 1 / np.sqrt(3))
print("coefficients at -phi_1:", np.round(tet.vectors @ x, 4), "| active with the printed bias:",
      int(L_printed.active_set(x).sum()))
assert not L_printed.active_set(x).any()
np.testing.assert_allclose(rf.polytope_bias(tet, rf.Sphere(3)).values, -1 / np.sqrt(3))
assert rectifying_on(tet, -1 / np.sqrt(3), rf.Sphere(3)).rectifying

# %% [markdown]
# ### Sampling approaches the maximal bias: Figure conv
#
# **[fig:conv]** For the tetrahedron frame the polytope bias on the sphere *is* the maximal bias
# (`[lem:err]` above): $\alpha^{\mathbb{S}} = -1/\sqrt3$ for every element. The sampling-based estimate
# $\alpha^{(k)}$ of [06_sampling](06_sampling.ipynb) (Theorem samp, started at $+\infty$, uniform samples
# on $\mathbb{S}$) approaches it; the figure shows $\lVert\alpha^{(k)} - \alpha^{\mathbb{S}}\rVert$ over the
# iterations on a log scale (the experiment `relu_frames_nb.experiments.conv`: 8 trials of $10^4$
# samples at the default size, 100 trials of $10^5$ with `RELU_FRAMES_FULL=1`, as in the paper).
#
# Checked: every trial's distance is non-increasing in $k$ and every estimate stays *above*
# $\alpha^{\mathbb{S}}$ (sampling approaches the maximal bias from above); the approach is slow
# (still above $10^{-3}$ after $10^4$ samples at the default size); the final estimates are all near
# $-1/\sqrt3$, nowhere near the printed $+1/\sqrt3$. And a consequence the figure does not show:
# since the uncorrected estimate lies above the maximal bias, the layer with that bias is **not**
# rectifying on all of $\mathbb{S}$: near the minimizers of the polytope bias some points fail.

# %%
cv = experiments.conv(size=SIZE, max_workers=WORKERS, seed=0)
d = cv.distances
print(f"{d.shape[0]} trials, {int(cv.iterations[-1])} iterations: mean distance {cv.mean[-1]:.2e} "
      f"(min {d[:, -1].min():.2e}, max {d[:, -1].max():.2e}); non-increasing {cv.non_increasing}, from above {cv.from_above}")

# %%
fig = plot_conv(cv, band="minmax", tag="fig:conv")  # the package's figure (relu_frames_nb.viz.experiments)
fig

# %%
np.testing.assert_allclose(cv.alpha_s, -1 / np.sqrt(3))
np.testing.assert_allclose(est_tet.values, cv.alpha_s)
assert cv.non_increasing and cv.from_above
assert d[:, -1].min() > (1e-4 if FULL else 1e-3)  # slow
assert np.all(np.abs(cv.final - 1 / np.sqrt(3)) > 1.0)  # the printed +1/sqrt(3) is not the limit
# the uncorrected final estimate of one trial is not rectifying near the polytope minimizers
L_samp = rf.ReLULayer(tet, cv.final[0])
near = est_tet.argmin[:, None, :] + 0.02 * np.random.default_rng(0).standard_normal((4, 5000, 3))
near = (near / np.linalg.norm(near, axis=2, keepdims=True)).reshape(-1, 3)
n_fail = int(np.sum(~rf.is_rectifying(L_samp, near)))
print(f"uncorrected sampled bias of trial 0: not rectifying at {n_fail} of {near.shape[0]} points near the minimizers; "
      f"the exact -1/sqrt(3) is rectifying at all of them: {bool(rf.is_rectifying(rf.ReLULayer(tet, cv.alpha_s), near).all())}")
assert n_fail > 0 and rf.is_rectifying(rf.ReLULayer(tet, cv.alpha_s), near).all()

# %% [markdown]
# ### Beyond the polytope bias: the exact verdict
#
# The polytope bias is a *sufficient* bias: every bias below it is rectifying, but a bias above it
# need not fail (the cube above is an example). The paper's methods leave such layers open: the
# polytope bias does not cover them, and sampling can only find failures. The **exact stage** of
# `rf.check` (which runs it when its fast tests leave the question open; `method="exact"` runs it alone)
# settles them: a layer on a convex domain is injective iff no point of the domain has an active
# sub-frame that fails to span (Injectivity I/II, [02_injectivity](02_injectivity.ipynb)). For a small
# frame it can ask this of every hyperplane spanned by $n - 1$ frame vectors with one LP each (method
# `hyperplanes`); on a ball, box, polytope or hull it first searches the sets of frame vectors that could
# be the only active ones at one point (method `removal sets`, a branch and bound whose every bound is a
# least-distance certificate); otherwise a mixed-integer program bounds the fewest active vectors over $K$
# from below (a certificate) and from above (points of $K$). Points with few active vectors are looked for
# first: among seeded samples, and on boxes, polytopes and hulls by the LP relaxation of the count,
# re-solved with weights that push more vectors off (method `LP relaxation`).
#
# Check on the random 12-vector frame on $\mathbb{B}$: raise every entry of the polytope bias by $0.1$.
# `rf.check` cannot use the polytope bias any more (the margin is $-0.1$), yet the exact verdict proves
# the layer injective; dense sampling agrees (no failing point). Raising by $0.2$ instead, the exact
# verdict returns a verified colliding pair.

# %%
alpha_ball = rf.polytope_bias(F12, rf.Ball(3)).values
for raise_by in [0.1, 0.2]:
    L_up = rf.ReLULayer(F12, alpha_ball + raise_by)
    v = rf.check(L_up, rf.Ball(3))
    xv = rf.check(L_up, rf.Ball(3), method="exact")
    margin, h = v.details["polytope_margin"], xv.details["exact"]["h"]
    print(f"polytope bias + {raise_by}: rf.check says {v.status!r} (method {v.method!r}, margin {margin:+.2f}); "
          f"exact stage alone {xv.status!r} by {xv.method!r}, fewest active vectors in [{xv.lower_bound}, "
          f"{xv.upper_bound}], h = {h}")  # fmt: skip
    print("   ", xv.text)
    assert np.isclose(margin, -raise_by) and v.status == xv.status
    if raise_by == 0.1:
        assert xv.status == "injective" and xv.lower_bound > h  # the certificate: more than h active everywhere
        assert rectifying_on(F12, alpha_ball + raise_by, rf.Ball(3)).rectifying
    else:
        assert xv.status == "not injective" and xv.pair is not None
        x_a, x_b = xv.pair
        assert np.all(rf.Ball(3).contains(np.array([x_a, x_b]))) and not np.allclose(x_a, x_b)
        np.testing.assert_allclose(L_up(x_a), L_up(x_b), atol=1e-9)

# %% [markdown]
# ## 6. Hole radius and covering radius
#
# **[rem:hole-radius]** The paper defines the hole radius of a facet $F$ as the distance from the
# boundary to the centre of "its spherical cap $F^{\mathbb{S}}$", and $F^{\mathbb{S}}$ is
# $\operatorname{cone}(F) \cap \mathbb{S}$ (eq. (cone)): the radial image of the facet, a spherical
# polygon, which has no centre of its own. **Here we switch to a different set, the empty cap**: the
# hyperplane of $F$, with unit normal $a_F$ and offset $b_F$, cuts from the sphere the cap
# $\{y \in \mathbb{S} : \langle a_F, y\rangle \ge b_F\}$, a round disc on the sphere whose boundary circle
# passes through the vertices of $F$ and which contains no frame vector in its interior. It contains
# $F^{\mathbb{S}}$ (for $n = 3$: the circumscribed disc of the spherical triangle) and is strictly larger.
# Its centre is $a_F$, which may lie *outside* $F^{\mathbb{S}}$ (an obtuse facet), and the
# Euclidean distance from the centre to the boundary circle — the **hole radius** as used here, and
# in the covering-radius literature the paper cites — is
# $h_F = \lVert a_F - \phi_\ell\rVert = \sqrt{2 - 2b_F}$ ($\ell \in I_F$). The covering radius of
# the frame for the sphere, $\rho(\Phi; \mathbb{S}) = \sup_{y \in \mathbb{S}} \min_i \lVert y - \phi_i\rVert$
# (the quantity of Theorem samp in [06_sampling](06_sampling.ipynb) with $X_N = \Phi$), is the
# **largest hole radius**.
#
# This ties the two approaches together. Check for the random 12-vector frame:
# * the switch of sets: every point of $F^{\mathbb{S}}$ lies in the empty cap of $F$, the cap also has
#   points outside $\operatorname{cone}(F)$, and for several facets the centre $a_F$ itself is not in
#   $\operatorname{cone}(F)$ (NNLS residual $> 0$), so "the centre of $F^{\mathbb{S}}$" can only mean the cap's;
# * the centre $a_F$ of the largest hole has all frame vectors at distance $\ge h_F$, with equality
#   at its vertices (so $\rho \ge \max_F h_F$);
# * the library's guaranteed grid bound and a dense probe estimate bracket $\rho$, and both agree
#   with $\max_F h_F$ up to their resolution;
# * with that covering radius, Theorem samp on the samples $X_N = \Phi$ gives a guaranteed bias on
#   $\mathbb{S}$ — valid (rectifying on dense samples) but on average much smaller than the polytope bias.

# %%
centre_outside, cap_larger = 0, 0
for j in range(P12.n_facets):
    V, a_F, b_F = P12.points[P12.facet(j)], P12.normals[j], P12.offsets[j]
    FS = cone_points(P12, j)
    FS /= np.linalg.norm(FS, axis=1, keepdims=True)  # points of F^S = cone(F) ∩ S
    assert np.all(FS @ a_F >= b_F - 1e-12)  # F^S lies in the empty cap
    # a point of the cap's rim beyond the first edge: on the sphere, on the facet's plane, not a vertex
    centre, mid = b_F * a_F, (V[0] + V[1]) / 2
    w = centre + np.sqrt(1 - b_F**2) * (mid - centre) / np.linalg.norm(mid - centre)
    assert np.isclose(np.linalg.norm(w), 1) and np.isclose(w @ a_F, b_F)
    cap_larger += bool(nnls(V.T, w)[1] > 1e-6)  # ... and not in cone(F)
    centre_outside += bool(nnls(V.T, a_F)[1] > 1e-6)
print(f"every empty cap contains its F^S; a cap point outside cone(F) for {cap_larger}/{P12.n_facets} facets; "
      f"the centre a_F outside cone(F) for {centre_outside} facets")
assert cap_larger == P12.n_facets and centre_outside > 0

hole = np.sqrt(2 - 2 * P12.offsets)
jmax = int(np.argmax(hole))
d_centre = np.linalg.norm(P12.points - P12.normals[jmax], axis=1)
probe = rf.covering_radius(P12.points, rf.Sphere(3), kind="heuristic", n_probes=N_DENSE * 10, seed=SEED)
grid = rf.covering_radius(P12.points, rf.Sphere(3), kind="guaranteed", max_points=8_000_000 if FULL else 2_000_000)
print(f"hole radii in [{hole.min():.4f}, {hole.max():.4f}]; probe estimate {probe.value:.4f} <= max hole "
      f"{hole.max():.4f} <= guaranteed bound {grid.value:.4f}")
np.testing.assert_allclose(d_centre[P12.facet(jmax)], hole[jmax])
assert np.all(d_centre >= hole[jmax] - 1e-12)
assert probe.value <= hole.max() + 1e-12 <= grid.value + 2e-12
assert hole.max() - probe.value < 0.01 and grid.value - hole.max() < 0.05

samp = rf.sampling_bias(F12, P12.points, progress=False)  # Theorem samp with X_N = Phi: exact on X_N
alpha_cov = samp.values - hole.max()  # minus the covering radius: guaranteed on S (+inf: free)
pbe_S = rf.polytope_bias(P12, rf.Sphere(3)).values
assert rectifying_on(F12, np.where(np.isfinite(alpha_cov), alpha_cov, 10.0), rf.Sphere(3)).rectifying
fin = np.isfinite(alpha_cov)
below = int(np.sum(alpha_cov[fin] < pbe_S[fin]))
print(f"Theorem samp with X_N = Phi and rho = max hole: mean bias {alpha_cov[fin].mean():+.3f} "
      f"({int((~fin).sum())} free); polytope bias on S: mean {pbe_S.mean():+.3f}; smaller entry-wise for {below}/{int(fin.sum())}")
assert alpha_cov[fin].mean() < pbe_S[fin].mean() - 0.1

# %% [markdown]
# ## 7. Figure 4: regular vs. irregular polytopes
#
# **[fig:fig4]** Left: for the icosahedron, a point $x$ lies in the cone of a facet $F_j$ exactly when
# the vertices of $F_j$ are the most correlated basis of $x$, $I_{F_j} = J^*(x)$ — the facet
# decomposition *is* the most-correlated decomposition. Middle: for an irregular frame this fails
# on a large part of the sphere (a big facet loses points to a smaller neighbour whose vertices are
# better aligned with them). Right: the polytope bias of $\phi_2$ on $\mathbb{B}$ for the icosahedron:
# the minimum is taken over the cones (dashed edges) of the five facets around $\phi_2$ (coloured).
# All coefficients $\langle x, \phi_2\rangle$ in these cones are $\ge 0$, so on the ball the minimum is
# $0$, attained at the origin (the star); on the sphere it is $1/\sqrt5$, attained at the neighbouring
# vertices.

# %%
ico_P = rf.inscribing_polytope(ico)
Y = rf.Sphere(3).sample(N_DENSE, seed=SEED + 2)
share = {}
for name, Fr in [("icosahedron", ico), ("random m=12", F12)]:
    Pr = rf.inscribing_polytope(Fr)
    J = np.sort(np.asarray(rf.most_correlated_basis(Fr, Y)), axis=1)
    IF = np.array([Pr.facet(k) for k in Pr.locate(Y)])
    share[name] = float(np.mean(np.all(J == IF, axis=1)))
    print(f"{name}: I_F(x) = J*(x) at {100 * share[name]:.1f}% of the samples")
assert share["icosahedron"] == 1.0 and share["random m=12"] < 0.9

# %%
fig = space.figure4(irregular=F12, labels=True, elev=(20, 20, 15), azim=(60, 35, 100), tag="fig:fig4",
                    fig=Figure(figsize=(12, 4.2), dpi=80))  # the package's Figure 4, with the random frame above
fig

# %%
star = space.vertex_star(ico, 1, domain=rf.Ball(3))
print(f"phi_2: {len(star.facets)} facets, polytope bias on B = {star.value:.4f}, attained at distance "
      f"{np.linalg.norm(star.point):.4f} from 0")
assert len(star.facets) == 5 and np.isclose(star.value, 0.0)  # alpha_S = 1/sqrt5 >= 0 -> s * a = 0 on the ball
assert np.isclose(star.point @ ico.vectors[1], star.value) and np.linalg.norm(star.point) <= 1 + 1e-12
star_S = space.vertex_star(ico, 1, domain=rf.Sphere(3))
assert np.isclose(star_S.value, 1 / np.sqrt(5)) and np.isclose(np.linalg.norm(star_S.point), 1)

# %% [markdown]
# ## 8. Figures "poly" and 4 in interactive 3-D
#
# **[fig:poly]** The random frame of Figure "poly" in the 3-D explorer: tick *facets*, *spherical
# caps* or *most correlated bases* to switch between the three decompositions of the sphere, drag to
# rotate, pick a vertex to see its star and its polytope bias in the table. Without a running kernel
# (GitHub, nbviewer) a still picture of the first view stands in for the widget.

# %%
from relu_frames_nb.viz.widgets import PolytopeExplorer3D

explorer = PolytopeExplorer3D(F12, domain="sphere", layers=["facets", "edges", "vertices", "labels"], width=420, height=420)
explorer

# %%
np.testing.assert_allclose(explorer.estimate.values, rf.polytope_bias(F12, rf.Sphere(3)).values, atol=1e-12)
assert explorer.viewer.visible >= {"facets", "edges"} and not explorer.viewer.visible & {"caps", "correlated"}
explorer.layer_toggles["edges"].value = False  # a tick hides a layer ...
assert "edges" not in explorer.viewer.visible and not explorer.error_text
explorer.layer_toggles["edges"].value = True  # ... and shows it again
assert "edges" in explorer.viewer.visible and explorer.viewer.scene.P.n_facets == 20
# caps and most correlated bases are meshes of the sphere, built on their first tick; the second one
# holds exactly the bases J*(x) found on the samples above
mesh, patch_bases, _ = space.correlated_sphere(F12)
assert {tuple(b) for b in patch_bases} == {tuple(b) for b in bases}  # the same bases J*(x) as the samples above

# %% [markdown]
# **[fig:fig4]** The icosahedron of Figure 4 with the star of $\phi_2$ on the ball, as a pythreejs
# `PolytopeViewer` (switch layers with `viewer.show("caps")`, pick a vertex with
# `viewer.select_vertex(4)`, another frame with `viewer.set_frame(...)`).

# %%
viewer = space.PolytopeViewer(ico, layers=["sphere", "facets", "edges", "vertices", "labels", "star"], vertex=1,
                              domain=rf.Ball(3))
viewer

# %%
assert viewer.scene.P.n_facets == 20 and viewer.visible >= {"facets", "star"}
assert viewer.scene.star().vertex == 1 and len(viewer.scene.star().facets) == 5
np.testing.assert_allclose(viewer.scene.star().value, 0.0, atol=1e-12)  # as in the right panel above
viewer.select_vertex(4)
assert viewer.scene.star().vertex == 4
viewer.select_vertex(1)  # back to phi_2 for the saved view

# %% [markdown]
# ## What we saw
#
# * The facets of the inscribing polytope that miss the origin carry frames, and for an
#   omnidirectional frame their cones tile $\mathbb{R}^n$; one appended vector completes any frame
#   (with weights $1/(m+s)$, not the printed $1/(1+s)$); the printed test (a minimum over $c > 0$) is right when
#   read literally but not computable, and the kit's test is an LP with a margin.
# * The polytope bias is a proof: rectifying at every one of many samples on ball, sphere, donut,
#   non-negative ball and exterior, with closed forms whose printed versions for the ball/donut, the
#   exterior and the positive-ball facet test each fail on an explicit counterexample.
# * For the simplicial regular solids (tetrahedron, octahedron, icosahedron) no entry of
#   $\alpha^\Delta_\mathbb{S}$ can be raised; the tetrahedron's value is $-1/\sqrt3$, and sampling creeps
#   towards it from above, so an uncorrected sampled bias is not rectifying everywhere.
# * The polytope bias is sufficient, not necessary: above it the exact stage of `rf.check` still proves a
#   layer injective, or returns a verified colliding pair.
# * The largest hole radius of the facets (read on the empty cap of a facet, not on $F^{\mathbb{S}}$) is the
#   covering radius of the frame, the quantity that turns the sampling estimate into a guarantee; used that
#   way it gives a much smaller bias.
# * Only for regular frames do the facet cones coincide with the most-correlated-basis patches.
#
# Next: [08_random_layers](08_random_layers.ipynb) asks how often random layers are injective, and
# [09_reconstruction](09_reconstruction.ipynb) inverts the layers built here, with left inverses from the
# facets.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb07.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 7.1 — Complete a frame, then bias it on a donut
#
# The frame `F = ex.nb07.frame_7_1()` (10 random unit vectors in $\mathbb{R}^3$) is **not** omnidirectional,
# so it has no polytope bias. Complete it to an omnidirectional frame with one extra vector (App. B, §2),
# then compute the polytope bias of the completed frame on the donut $\mathbb{D}_{2,1/2} = \{\tfrac12 \le \lVert x\rVert \le 2\}$
# (`rf.Shell(3, 0.5, 2.0)`). Before you trust the library, predict one entry by hand from the sphere value:
# which one of $r a$ and $s a$ applies? Set `answer_7_1 = (completed_frame, bias)`.

# %% tags=["answer"]
answer_7_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F71 = ex.nb07.frame_7_1()
assert not rf.is_omnidirectional(F71)
F71c = rf.complete_omnidirectional(F71)  # appends -sum(phi_i)/||sum(phi_i)||
bias71 = rf.polytope_bias(F71c, rf.Shell(3, 0.5, 2.0)).values
a_S = rf.polytope_bias(F71c, rf.Sphere(3)).values  # on the unit sphere: scale by r = 2 if negative, s = 1/2 if not
np.testing.assert_allclose(bias71, np.where(a_S < 0, 2.0 * a_S, 0.5 * a_S))
print(f"completed frame: {F71c.m} vectors, omnidirectional {rf.is_omnidirectional(F71c)}; bias on D_(2,1/2): {bias71}")
answer_7_1 = (F71c, bias71)
ex.solution("7.1", answer_7_1)

# %% tags=["check"]
ex.nb07.check_7_1(answer_7_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 7.2 — How far is the polytope bias from the limit?
#
# For `F = ex.nb07.frame_7_2()` (10 random unit vectors in $\mathbb{R}^3$) and the unit ball, raise every entry of
# the polytope bias by the same amount $d \ge 0$. Find the largest such $d$, to within $0.01$, for which the layer
# is still injective on $\mathbb{B}$: use `rf.check` (injectivity is monotone in the bias, so bisection
# works). Set `answer_7_2` to a number $d$ such that the layer is injective at $d$ and not at $d + 0.01$.

# %% tags=["answer"]
answer_7_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F72 = ex.nb07.frame_7_2()
base72 = rf.polytope_bias(F72, rf.Ball(3)).values


def injective_72(d):
    return rf.check(rf.ReLULayer(F72, base72 + d), rf.Ball(3)).status == "injective"


lo, hi = 0.0, 1.0
assert injective_72(lo) and not injective_72(hi)
while hi - lo > 0.005:  # keep: injective at lo, not at hi
    mid = (lo + hi) / 2
    lo, hi = (mid, hi) if injective_72(mid) else (lo, mid)
print(f"injective up to d = {lo:.4f}, not at {hi:.4f}")
answer_7_2 = lo
ex.solution("7.2", answer_7_2)

# %% tags=["check"]
ex.nb07.check_7_2(answer_7_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 7.3 — The covering radius from the hole radii
#
# For `F = ex.nb07.frame_7_3()` (16 random unit vectors in $\mathbb{R}^3$) compute the covering radius
# $\rho(\Phi; \mathbb{S})$ of the frame for the sphere as the largest hole radius of the facets of its inscribing
# polytope (§6). Set `answer_7_3` to that number. (The check compares it with a dense probe of the sphere.)

# %% tags=["answer"]
answer_7_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
P73 = rf.inscribing_polytope(ex.nb07.frame_7_3())
holes73 = np.sqrt(2 - 2 * P73.offsets)  # distance from the cap's centre a_F to a vertex of F
answer_7_3 = float(holes73.max())
print(f"{P73.n_facets} facets, hole radii in [{holes73.min():.4f}, {holes73.max():.4f}]")
ex.solution("7.3", answer_7_3)

# %% tags=["check"]
ex.nb07.check_7_3(answer_7_3)

# %%
print("07_polytope_bias: all checks passed")
