# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 00 — A five-minute tour
#
# `relu_frames_nb` decides whether a ReLU layer $x \mapsto \mathrm{ReLU}(Wx + b)$ loses information on
# the inputs you care about, following *Injectivity of ReLU layers: Tools from Frame Theory*. The rows
# of $W$ are read as a **frame** $\Phi = (\phi_i)_{i=1}^m$ and the bias as $\alpha = -b$ (the paper
# subtracts it): $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$. The layer is injective on a domain $K$
# essentially when, at every $x \in K$, the rows that survive the ReLU still span the space.
#
# In five steps: a layer, a verdict on the unit ball (with a proof either way), the largest safe
# bias by sampling and by the inscribing polytope, reconstruction, and a picture. The numbered
# notebooks (index at the end) go through the paper item by item.

# %% tags=["parameters"]
FULL = False  # True: paper-scale sample sizes (slower); False: fast run for CI

# %%
# %matplotlib inline
import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

SEED = 11
N = 200_000 if FULL else 20_000
np.set_printoptions(precision=3, suppress=True)

# %% [markdown]
# ## 1. A layer
#
# Weights and bias as a deep-learning library stores them — random here: 6 neurons on $\mathbb{R}^2$,
# so that everything can be drawn, with weight-normalized (unit-norm) rows.

# %%
rng = np.random.default_rng(SEED)
W = rng.normal(size=(6, 2))
W /= np.linalg.norm(W, axis=1, keepdims=True)
b = rng.normal(0.0, 0.5, size=6)
L = rf.ReLULayer.from_weights(W, b)  # alpha = -b
K = rf.Ball(2)  # the inputs: the closed unit ball
np.testing.assert_allclose(L(K.sample(5, seed=0)), np.maximum(K.sample(5, seed=0) @ W.T + b, 0.0))
print(L, "| α =", L.alpha)

# %% [markdown]
# ## 2. Is it injective on the unit ball?
#
# At each $x$ the **active** rows are those with $\langle x, \phi_i\rangle \ge \alpha_i$. If somewhere
# they do not span $\mathbb{R}^2$, moving $x$ along the missing direction does not change the output:
# the library builds such a pair and verifies it. Here it finds one, so the layer is **not**
# injective on $\mathbb{B}$ — a proof, not an estimate.

# %%
check = rf.check_rectifying(L, K, n_samples=N)
pair = rf.find_collision(L, K)
assert not check.rectifying and pair.found and pair.certainty == "verified"
np.testing.assert_allclose(L(pair.x), L(pair.y), atol=1e-12)
assert K.contains(pair.x) and K.contains(pair.y) and not np.allclose(pair.x, pair.y)
print(f"the active rows fail to span at {check.n_failed} of {check.n_checked} sample points of the ball")
print("two inputs, one output:", pair.x.round(3), pair.y.round(3), "->", L(pair.x).round(3))

# %% [markdown]
# ## 3. How large may the bias be?
#
# Two estimates of a bias for which the layer *is* injective on $\mathbb{B}$ (lowering any entry keeps
# it so):
#
# * **sampling** (Approach A, notebook 03): the smallest coefficient of each row over the samples
#   where it belongs to the best basis. Exact on the samples; on the ball only after subtracting the
#   covering radius of the samples (proven here on a grid, which is feasible in dimension 2);
# * **polytope** (Approach B, notebook 04): read off the facets of the convex hull of the normalized
#   rows — a proof on the whole ball, usually more conservative.

# %%
X = K.sample(N, seed=SEED)
samp = rf.sampling_bias(L.frame, X, progress=False)  # exact on the samples X
rho = rf.covering_radius(X, K, kind="guaranteed", max_points=400_000)
samp_K = samp.values - rho.value * L.frame.norms  # a proof on the whole ball
pbe = rf.polytope_bias(L.frame, K)
assert rho.is_guarantee and pbe.is_guarantee
for name, a in [("sampling - ρ", samp_K), ("polytope", pbe.values)]:
    dense = np.vstack([K.sample(5 * N, seed=1), rf.Sphere(2).sample(N, seed=2)])
    assert np.all(rf.is_rectifying(L.with_bias(a), dense)), name
print(f"{'row':>4} {'α (given)':>10} {'sampling':>10} {'sampling-ρ':>11} {'polytope':>10}")
for i in range(L.m):
    print(f"{i + 1:>4} {L.alpha[i]:>10.3f} {samp.values[i]:>10.3f} {samp_K[i]:>11.3f} {pbe.values[i]:>10.3f}")
print(f"covering radius of the {N} samples ≤ {rho.value:.4f}")

# %% [markdown]
# ## 4. Repair and reconstruct
#
# Lower only the entries of $\alpha$ that exceed the polytope bias. The new layer is injective on the
# ball, and an explicit left inverse (a ReLU-dual, notebook 06) recovers every input from its output.

# %%
alpha_safe = np.minimum(L.alpha, pbe.values)
L_safe = L.with_bias(alpha_safe)
changed = np.flatnonzero(alpha_safe < L.alpha)
assert rf.check_rectifying(L_safe, K, n_samples=N).rectifying
assert not rf.find_collision(L_safe, K, n_samples=N).found
np.testing.assert_allclose(rf.reconstruct(L_safe, L_safe(X)), X, atol=1e-10)
print("lowered rows:", (changed + 1).tolist(), "| new α =", alpha_safe)
print(f"all {N} samples recovered exactly from their outputs")

# %% [markdown]
# ## 5. The picture
#
# Grey levels: how many rows are active at $x$ (darker = more). Vermillion: points of the ball where
# the active rows do not span — the layer is not injective there; the marked pair has one output.
# Right: after the repair, the ball lies inside the maximal domain; stars mark where each polytope
# bias is attained.

# %%
fig = Figure(figsize=(9.0, 4.4), layout="constrained")
ax0, ax1 = fig.subplots(1, 2)
box = plane.default_extent(K, margin=0.3)
panels = [(ax0, L, "given bias: not injective on $\\mathbb{B}$"), (ax1, L_safe, "repaired bias: injective on $\\mathbb{B}$")]
for ax, layer, title in panels:
    plane.draw_active_count(ax, layer, domain=K, extent=box, vmax=L.m)
    plane.draw_maximal_domain(ax, layer, domain=K, extent=box)
    plane.draw_halfspaces(ax, layer, extent=box, shade=False)
    plane.draw_domain(ax, K)
    plane.draw_frame_vectors(ax, layer.frame)
    ax.set_title(title, fontsize=11)
plane.draw_collision(ax0, pair, layer=L)
plane.draw_polytope_minima(ax1, pbe)
fig

# %% [markdown]
# ## The chain
#
# * [01 — Frames and ReLU layers](01_frames_and_relu_layers.ipynb): $\alpha$-rectifying frames,
#   injectivity I and II, normalization, spark, perturbation, redundancy, balls, the main theorem.
# * [02 — Interplay of domain and bias](02_domain_and_bias.ipynb): scaling, the maximal domain
#   $\mathcal K^*_\alpha$, spheres, donuts and finite sets, Figures 2 and 3.
# * [03 — The maximal bias, Approach A](03_maximal_bias_sampling.ipynb): most correlated bases,
#   $\alpha_c$, $\alpha^\flat$, $\alpha^\sharp$, sampling with a covering radius, and its limits in
#   high dimension.
# * [04 — Polytope bias estimation (Approach B)](04_polytope_bias.ipynb): the inscribing polytope,
#   omnidirectionality, the polytope bias on five domains, maximality for regular polytopes.
# * [05 — The numerical experiments](05_experiments.ipynb): evolution towards injectivity, effect of
#   redundancy, sampling against the exact maximal bias.
# * [06 — Duality and reconstruction](06_reconstruction.ipynb): ReLU-synthesis, ReLU-duals,
#   left-inverse banks, PReLU, the ReLU frame algorithm.
# * [07 — Stability of the reconstruction and the image of a ReLU layer](07_stability.ipynb): stable
#   rectification, local stability, the image radius.
# * [08 — Appendix: admissibility and the algorithms](08_appendix.ipynb): admissibility, and each
#   algorithm of Appendix C against the library call that implements it.

# %%
print("all checks passed")
