# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 09 — Duality and reconstruction
#
# An injective ReLU layer can be inverted, and on the set of inputs that share their active
# elements the inverse is *linear*: a dual frame of the active sub-frame, applied to the output
# after the bias is added back. This notebook presents the reconstruction formulas of the paper's
# Section "Duality and Reconstruction" and checks each one on a layer made injective by the polytope
# bias of [07_polytope_bias](07_polytope_bias.ipynb).
#
# **What you will learn**
#
# * the ReLU-synthesis operator $D^\alpha_J$: add the bias back, then synthesize with a dual frame;
# * why *any* dual frame of the active sub-frame inverts the layer near a point (ReLU-dual I), and
#   how a fixed index set gives a left inverse on a whole region (ReLU-dual II);
# * banks of left inverses computed once (facets of the inscribing polytope, most correlated bases);
# * PReLU layers, which are injective for every bias, and their inverse;
# * the ReLU frame algorithm, an iterative reconstruction without any matrix inversion, with and
#   without the bias as a proxy for the erased coefficients, and the step sizes it needs.
#
# | tag | item |
# |---|---|
# | `[def:relu-synthesis]` | the ReLU-synthesis operator $D^\alpha_J$ |
# | `[thm:leftinv]` | ReLU-dual I: a dual of the active sub-frame at $x_0$ inverts the layer near $x_0$ |
# | `[thm:leftinv2]` | ReLU-dual II: the same for a fixed index set $J$; banks of left inverses |
# | `[cor:left-inverse-exists]` | on a domain where the frame is rectifying, every input has a left inverse |
# | `[prelu]` | PReLU layers and their inverse |
# | `[prop:framealg]` | the ReLU frame algorithm, plain and with the bias as a proxy (convergence plot) |
#
# **Errata** shown below with counterexamples to the printed text, then corrected: the step size of
# the frame algorithm ($0 < \lambda < 2/B$, printed $B/2$) and the PReLU inverse (the printed formula
# divides the bias by $\gamma$ too). A remark qualifies "always outperforms" in the frame-algorithm
# section.
#
# Conventions: rows are frame vectors, $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$, code indices
# 0-based, text indices from 1.

# %%
# %matplotlib inline
import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import palette

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240606
N = 100_000 if FULL else 5_000  # samples of the domain
np.set_printoptions(precision=4, suppress=True)

# a layer that is injective on the unit ball: 12 random unit vectors in R^3, polytope bias
F = rf.zoo.random_sphere(12, 3, seed=SEED)
alpha = rf.polytope_bias(F, rf.Ball(3)).values
L = rf.ReLULayer(F, alpha)
X = rf.Ball(3).sample(N, seed=SEED + 1)
assert rf.is_rectifying(L, X).all()
print(L)

# %% [markdown]
# ## 1. The ReLU-synthesis operator
#
# For a frame, the synthesis operator $D(c) = \sum_i c_i \phi_i$ and the **canonical dual**
# $\tilde\phi_i = S^{-1}\phi_i$ ($S = \sum_i \phi_i\phi_i^\top$) give $\tilde D C x = x$: the
# pseudo-inverse of the analysis matrix $C$ is a left inverse.
#
# **[def:relu-synthesis]** For an index set $J \subseteq I$ and a bias $\alpha$, the ReLU-synthesis
# operator maps every $c \in \mathbb{R}^m$ to
#
# $$D^\alpha_J(c) = \sum_{i \in J} (c_i + \alpha_i)\,\phi_i .$$
#
# It is defined on all of $\mathbb{R}^m$ but reads only the entries in $J$; it adds the bias back
# before synthesizing. With a dual frame $(\tilde\phi_i)_{i\in J}$ of $\Phi_J$ in place of
# $(\phi_i)_{i \in J}$ we write $\tilde D^\alpha_J$.
#
# Check: `relu_synthesis` with the collection $\Phi_J$ itself equals the formula; the entries
# outside $J$ are ignored; `relu_dual` is the canonical dual $S_J^{-1}C_J^\top$ of Algorithm 4
# (App. C3, see [11_appendix](11_appendix.ipynb))
# (columns $S_J^{-1}\phi_i$) and a left inverse of $C_J$.

# %%
rng = np.random.default_rng(SEED)
J = np.array([7, 0, 4, 9])
c = rng.standard_normal((5, F.m))
formula = (c[:, J] + alpha[J]) @ F.vectors[J]
ours = rf.relu_synthesis(L, c, J, dual=rf.Frame(F.vectors[J]), check_dual=False)
np.testing.assert_allclose(ours, formula, atol=1e-12)
c2 = c.copy()
c2[:, np.setdiff1d(np.arange(F.m), J)] = 99.0  # entries outside J do not matter
np.testing.assert_allclose(rf.relu_synthesis(L, c2, J, dual=rf.Frame(F.vectors[J]), check_dual=False), formula)
D_J = rf.relu_dual(L, J)
C_J = F.vectors[J]
np.testing.assert_allclose(D_J, np.linalg.inv(C_J.T @ C_J) @ C_J.T, atol=1e-12)
np.testing.assert_allclose(D_J @ C_J, np.eye(3), atol=1e-12)
print("D^alpha_J matches its formula; the canonical dual is a left inverse of C_J")

# %% [markdown]
# ## 2. ReLU-dual I
#
# **[thm:leftinv]** Let $\Phi$ be $\alpha$-rectifying on $K$ and $x_0 \in K$, and let
# $(\tilde\phi_i)_{i \in I_{x_0}}$ be **any** dual frame of the active sub-frame
# $\Phi_{I_{x_0}}$. Then $\tilde D^\alpha_{I_{x_0}} C_\alpha x = x$ for every $x \in K$ whose
# active set contains that of $x_0$, $I_{x_0} \subseteq I_x$.
#
# (On $I_{x_0}$ every output coefficient is $\langle x,\phi_i\rangle - \alpha_i$, so adding
# $\alpha_i$ back gives the frame coefficients, and a dual frame reconstructs.)
#
# Check with the canonical dual and with a non-canonical one,
# $\tilde D = \tilde D_0 + W(I - C\tilde D_0)$ for a random $W$ (every left inverse of $C$ has this
# form): exact on all samples with $I_{x_0} \subseteq I_x$. The hypothesis matters: at samples
# where some element of $I_{x_0}$ is inactive, the same operator is wrong.

# %%
x0 = X[0]
I0 = np.flatnonzero(L.active_set(x0))
D0 = rf.relu_dual(L, I0)
C0 = F.vectors[I0]
D1 = D0 + rng.standard_normal((3, I0.size)) @ (np.eye(I0.size) - C0 @ D0)
np.testing.assert_allclose(D1 @ C0, np.eye(3), atol=1e-10)
assert np.abs(D1 - D0).max() > 0.1  # a genuinely different dual

inside = np.all(L.active_set(X)[:, I0], axis=1)
Z = L(X)
for name, D in [("canonical", D0), ("non-canonical", D1)]:
    rec = rf.relu_synthesis(L, Z[inside], I0, dual=D)
    err = np.abs(rec - X[inside]).max()
    print(f"{name:13s} dual of Phi_I(x0), |I(x0)| = {I0.size}: max error on {inside.sum()} samples with "
          f"I(x0) in I(x) below 1e-10: {err < 1e-10}")
    assert err < 1e-10
wrong = np.abs(rf.relu_synthesis(L, Z[~inside], I0, dual=D0) - X[~inside]).max(axis=1)
print(f"at the other {(~inside).sum()} samples the same operator misses by up to {wrong.max():.2f}")
assert np.all(wrong > 1e-8)

# %% [markdown]
# ## 3. ReLU-dual II and banks of left inverses
#
# **[thm:leftinv2]** Instead of a reference point, fix an index set $J$ with $\Phi_J$ a frame and a
# dual of $\Phi_J$: then $\tilde D^\alpha_J C_\alpha x = x$ for every $x \in K$ with $J \subseteq I_x$.
#
# This allows computing a *bank* of left inverses once and choosing one per output. Two natural
# banks (the paper's suggestion):
# * the **facets** of the inscribing polytope: with the polytope bias every $x$ lies in the cone of a
#   facet whose vertices are all active (Theorem PBE, [07_polytope_bias](07_polytope_bias.ipynb)), so
#   some facet dual applies to every input;
# * the **most correlated bases** $J^*(x)$ over samples: with the sampling-based bias every sample's
#   $J^*(x)$ is active ([06_sampling](06_sampling.ipynb)).
#
# Check: for every sample the bank finds a set $J$ contained in the positive coordinates of the
# output, and reconstructs exactly.

# %%
bank = rf.LeftInverseBank.from_facets(L)
choice = bank.assign(Z)
Zpos = Z > 0
contained = [np.all(Zpos[r, bank.index_sets[k]]) for r, k in enumerate(choice)]
err = np.abs(bank.reconstruct(Z) - X).max()
print(f"facet bank: {len(bank)} left inverses; every sample assigned: {bool(np.all(choice >= 0))}; "
      f"max error below 1e-10: {err < 1e-10}")
assert np.all(choice >= 0) and all(contained) and err < 1e-10

est = rf.sampling_bias(F, rf.Samples(X), progress=False)  # exact on the samples X
# lowered by 1e-6: at the sample attaining an entry, that element is active with equality and gives
# z_i = 0, which cannot be told apart from "inactive" (App. C3); a smaller bias stays rectifying
L_s = rf.ReLULayer(F, est.finite(fill=10.0) - 1e-6)
bank_s = rf.LeftInverseBank.from_most_correlated_bases(L_s, X)
Z_s = L_s(X)
choice_s = bank_s.assign(Z_s)
err_s = np.abs(bank_s.reconstruct(Z_s) - X).max()
print(f"most-correlated-basis bank: {len(bank_s)} bases; every sample assigned: {bool(np.all(choice_s >= 0))}; "
      f"max error below 1e-9: {err_s < 1e-9}")
assert np.all(choice_s >= 0) and err_s < 1e-9
for r, k in enumerate(choice_s[:200]):
    J_used = bank_s.index_sets[k]
    np.testing.assert_allclose(rf.relu_synthesis(L_s, Z_s[r], J_used), X[r], atol=1e-10)

# %% [markdown]
# ## 4. A left inverse for every input
#
# **[cor:left-inverse-exists]** If $\Phi$ is $\alpha$-rectifying on $K$, every $x \in K$ has an
# index set $J$ (for instance $J = I_x$) such that $\tilde D^\alpha_J$ is a left inverse of
# $C_\alpha$ at $x$.
#
# Check: `reconstruct` (which reads $J = \{i : z_i > 0\}$ from the output, Algorithm 5 of App. C3) recovers all
# samples of the ball. Conversely, where the layer is not rectifying no left inverse exists: the
# triangle frame with bias 0 on the unit disc has inputs whose positive coordinates do not span, and
# `reconstruct` refuses them (and two of them even collide, Example mb2 of
# [02_injectivity](02_injectivity.ipynb)).

# %%
err = np.abs(rf.reconstruct(L, Z) - X).max()
print(f"reconstruct: max error on {N} samples of the ball below 1e-10: {err < 1e-10}")
assert err < 1e-10

T0 = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
x1, x2 = np.array([0.5, np.sqrt(3) / 2]), np.array([-0.5, np.sqrt(3) / 2])
np.testing.assert_allclose(T0(x1), T0(x2))  # a collision: no left inverse can exist
try:
    rf.reconstruct(T0, T0(x1))
    raise AssertionError("expected a refusal")
except rf.NotInjectiveError as exc:
    print("triangle, bias 0:", str(exc).split(";")[0])

# %% [markdown]
# ## 5. PReLU layers
#
# **[prelu]** With $\mathrm{PReLU}_\gamma(s) = \max(\gamma s, s)$, $0 < \gamma \le 1$, nothing is
# thresholded away: the activation is injective, so the layer
# $x \mapsto \mathrm{PReLU}_\gamma(\Phi x - \alpha)$ is injective for **every** bias exactly when
# $\Phi$ is a frame. A left inverse with any dual frame $\tilde\Phi$ of the whole frame: with
# $I_x = \{i : c_i \ge 0\}$ (readable from the output $c$),
#
# $$\tilde D^\alpha_\gamma(c) = \sum_{i \in I_x} (c_i + \alpha_i)\,\tilde\phi_i + \sum_{i \notin I_x} (\gamma^{-1} c_i + \alpha_i)\,\tilde\phi_i .$$
#
# Check: exact reconstruction for random frames, biases (also positive ones, where the ReLU layer
# is far from injective) and slopes; the colliding pair of the triangle frame is separated by the
# PReLU layer.

# %%
for seed in range(5):
    g = np.random.default_rng(seed)
    n = 2 + seed % 3
    Fp = rf.zoo.random_sphere(n + 2 + seed, n, seed=seed)
    Pl = rf.PReLULayer(Fp, g.uniform(-0.5, 1.0, Fp.m), g.uniform(0.05, 1.0, Fp.m))
    Xp = rf.Ball(n, 2.0).sample(2000, seed=seed)
    assert np.abs(Pl.inverse(Pl(Xp)) - Xp).max() < 1e-10
P0 = rf.PReLULayer(rf.zoo.mercedes_benz(), 0.0, 0.25)
print("triangle, bias 0: ReLU outputs equal:", bool(np.allclose(T0(x1), T0(x2))), "| PReLU outputs equal:",
      bool(np.allclose(P0(x1), P0(x2))))
assert not np.allclose(P0(x1), P0(x2))
np.testing.assert_allclose(P0.inverse(P0(np.array([x1, x2]))), [x1, x2], atol=1e-12)

# %% [markdown]
# ### Erratum — the PReLU inverse
#
# *Printed:* on the inactive coordinates the inverse uses $\gamma^{-1}(c_i + \alpha_i)$.
#
# *Correct:* $\gamma^{-1}c_i + \alpha_i$. There $c_i = \gamma(\langle x,\phi_i\rangle - \alpha_i)$, so
# $\langle x, \phi_i\rangle = \gamma^{-1}c_i + \alpha_i$; the printed form also divides the bias by
# $\gamma$ and is right only when $\alpha_i = 0$ or $\gamma = 1$.
#
# Counterexample: 7 random unit vectors in $\mathbb{R}^3$, $\alpha = 0.3$, $\gamma = 0.2$,
# $x = (0.2, -0.4, 0.1)$: the printed formula misses $x$ by a lot; the corrected one is exact.

# %%
Fq = rf.zoo.random_sphere(7, 3, seed=41)
Pq = rf.PReLULayer(Fq, 0.3, 0.2)
x = np.array([0.2, -0.4, 0.1])
cq = Pq(x)
Dq = np.linalg.pinv(Fq.vectors)  # canonical dual, synthesis matrix
printed = Dq @ np.where(cq >= 0, cq + 0.3, (cq + 0.3) / 0.2)
print(f"{int(np.sum(cq < 0))} inactive coordinates; printed formula misses x by {np.linalg.norm(printed - x):.3f}, "
      f"corrected by less than 1e-12: {np.linalg.norm(Pq.inverse(cq) - x) < 1e-12}")
assert np.linalg.norm(printed - x) > 0.1 and np.linalg.norm(Pq.inverse(cq) - x) < 1e-12
P00 = rf.PReLULayer(Fq, 0.0, 0.2)  # with alpha = 0 both forms agree
np.testing.assert_allclose(Dq @ np.where(P00(x) >= 0, P00(x), P00(x) / 0.2), x, atol=1e-12)

# %% [markdown]
# ## 6. The frame algorithm for ReLU layers
#
# The classical frame algorithm reconstructs $x$ from its frame coefficients without inverting
# anything: $y_0 = 0$, $y_{k+1} = y_k + \lambda\sum_i (\langle x,\phi_i\rangle - \langle y_k,\phi_i\rangle)\phi_i$,
# i.e. $x - y_{k+1} = (I - \lambda S)(x - y_k)$. With optimal frame bounds $A \le B$ it contracts
# by $\kappa_\lambda = \max\{|1-\lambda A|, |1-\lambda B|\}$, best at $\lambda = 2/(A+B)$.
#
# **[prop:framealg]** For a layer that is $\alpha$-rectifying on $K$ and $x \in K$, run
#
# $$y_{k+1} = y_k + \lambda\sum_{i\in I_x}(\langle x,\phi_i\rangle - \langle y_k,\phi_i\rangle)\phi_i
#   + \lambda_0\sum_{i \in I_{y_k}\setminus I_x}(\alpha_i - \langle y_k,\phi_i\rangle)\phi_i$$
#
# (the first sum is known from the output: $\langle x,\phi_i\rangle = z_i + \alpha_i$ on $I_x$; the
# second uses the bias as a stand-in for the coefficients the ReLU erased). With
# $\lambda = 2/(A+B)$:
# * $\lambda_0 = 0$: $\lVert x - y_{k+1}\rVert \le \kappa\lVert x - y_k\rVert$ with
#   $\kappa = 1 - 2A_x/(A+B)$, $A_x$ the lower frame bound of the active sub-frame $\Phi_{I_x}$;
# * $\lambda_0 = 2/(A+B)$: each step contracts by $(1 - \varepsilon_k)\kappa$ with
#   $0 < \varepsilon_k < 1$ (under a mild condition on the frame bounds).
#
# Check on a batch of inputs: both variants converge to $x$; every step of each obeys the bound
# $\kappa$ (the library's `rate_bound`). And the rate itself is checked against an independent computation,
# not against the formula the library implements: for $\lambda_0 = 0$ the error is multiplied by
# $I - \lambda S_x$, $S_x = \Phi_{I_x}^\top\Phi_{I_x}$, whose largest eigenvalue in modulus is $1 - \lambda\lambda_{\min}(S_x)$
# (as $A \le \lambda_{\min}$ and $\lambda_{\max} \le B$). So we take $\lambda_{\min}$ from `np.linalg.eigvalsh` of the active
# Gram matrix and $A, B$ from the eigenvalues of $\Phi^\top\Phi$, and compare $1 - 2\lambda_{\min}/(A+B)$ with the
# contraction **measured** on the error curve (the geometric mean of $e_{k+1}/e_k$ over the second half of the run,
# where the slowest direction dominates).

# %%
A, B = F.bounds
Xf = X[:200]
Zf = L(Xf)
runs = {}
for name, lam0 in [("plain, lambda_0 = 0", 0.0), ("extended, lambda_0 = 2/(A+B)", None)]:
    res = rf.relu_frame_algorithm(L, Zf, x_true=Xf, lam0=lam0, tol=1e-12, n_iter=100_000)
    assert np.all(res.converged) and np.abs(res.x - Xf).max() < 1e-10
    runs[name] = res
eig_S = np.linalg.eigvalsh(F.vectors.T @ F.vectors)  # A and B, independently of F.bounds
np.testing.assert_allclose([A, B], eig_S[[0, -1]])
steps, measured, predicted = {}, [], []
for name, lam0 in [("plain", 0.0), ("extended", None)]:
    steps[name] = []
    for x in Xf[:40]:
        r = rf.relu_frame_algorithm(L, L(x), x_true=x, lam0=lam0, tol=1e-12, n_iter=100_000)
        e = r.errors
        noise = 1e-14 * np.linalg.norm(x)  # rounding of the iterates
        assert np.all(e[1:] <= r.rate_bound * e[:-1] + noise)
        steps[name].append(r.n_iter)
        if name == "plain":
            I_x = np.flatnonzero(L(x) > 0)
            lam_min = np.linalg.eigvalsh(F.vectors[I_x].T @ F.vectors[I_x])[0]  # A_x from the active Gram matrix
            predicted.append(1 - 2 * lam_min / (eig_S[0] + eig_S[-1]))
            h = len(e) // 2
            measured.append((e[-1] / e[h]) ** (1 / (len(e) - 1 - h)))  # geometric mean of e_{k+1}/e_k, 2nd half
            assert np.isclose(r.rate_bound, predicted[-1], rtol=1e-12)
    print(f"{name:8s}: all {sum(steps[name])} steps over 40 inputs contract by at most kappa")
measured, predicted = np.array(measured), np.array(predicted)
print(f"plain: measured contraction / (1 - 2 lambda_min(S_x)/(A+B)) in [{(measured / predicted).min():.6f}, "
      f"{(measured / predicted).max():.6f}] over 40 inputs; kappa in [{predicted.min():.3f}, {predicted.max():.3f}]")
np.testing.assert_allclose(measured, predicted, rtol=1e-4)
assert np.ptp(predicted) > 0.05  # the rate depends on the active set: different inputs, different kappa

# %% [markdown]
# The error curves for the input (of those 40) where the two variants differ most (log scale): the
# plain iteration follows its bound $\kappa^k$ closely (from $y_0 = 0$ the error aligns with the
# slowest direction); the extended iteration, which also pushes coordinates that are wrongly active at
# $y_k$ back to their threshold, is faster here.

# %%
x = Xf[int(np.argmax(np.array(steps["plain"]) / np.array(steps["extended"])))]
curves = {name: rf.relu_frame_algorithm(L, L(x), x_true=x, lam0=lam0, tol=1e-13, n_iter=100_000)
          for name, lam0 in [("plain ($\\lambda_0=0$)", 0.0), ("extended ($\\lambda_0=2/(A+B)$)", None)]}
fig = Figure(figsize=(6.5, 4), layout="constrained")
ax = fig.add_subplot()
for (name, r), color in zip(curves.items(), [palette.OKABE_ITO["blue"], palette.OKABE_ITO["vermillion"]]):
    ax.semilogy(r.errors, color=color, lw=2, label=f"{name}: {r.n_iter} steps")
r0 = curves["plain ($\\lambda_0=0$)"]
k = np.arange(r0.n_iter + 1)
ax.semilogy(k, r0.errors[0] * r0.rate_bound**k, "--", color=palette.MUTED, label=f"bound $\\kappa^k$, $\\kappa={r0.rate_bound:.3f}$")
ax.set_xlabel("iteration $k$")
ax.set_ylabel("$\\|x - y_k\\|$")
ax.set_title("[prop:framealg] ReLU frame algorithm, $\\lambda = 2/(A+B)$", fontsize=11)
ax.legend(fontsize=9)
ax.grid(alpha=0.3)
fig

# %%
assert curves["extended ($\\lambda_0=2/(A+B)$)"].n_iter < r0.n_iter
assert np.all(r0.errors <= r0.errors[0] * r0.rate_bound ** np.arange(r0.n_iter + 1) * (1 + 1e-9) + 1e-14)

# %% [markdown]
# **Remark — "always outperforms".** The paper says the extended iteration "always outperforms the
# naive approach". What the proposition proves is a per-step statement: each step of the
# extended iteration contracts its *own* current error by a factor below $\kappa$. It does not compare
# the two trajectories. Over random layers (bias 0) and inputs the extended iteration is faster in total
# and more often than not, but not always. A counterexample, compared at a **fixed iteration** $k$ rather
# than by step counts: a random layer of the same family (seed 9: $m = 20$ unit vectors in $\mathbb{R}^5$, bias 0)
# and one input of the ball. Both runs start at $y_0 = 0$; after a few steps the extended error is more than
# twice the plain one, and it stays so: the ratio $\lVert x - y^{\text{ext}}_k\rVert / \lVert x - y^{\text{plain}}_k\rVert$
# is above 2 at $k = 20, 50, 100$, while both errors are still far above rounding.

# %%
n_seeds = 40 if FULL else 6
plain_it, ext_it = [], []
for seed in range(n_seeds):
    g = np.random.default_rng(seed)
    m, n = int(g.integers(6, 40)), int(g.integers(2, 6))
    Lr = rf.ReLULayer(rf.zoo.random_sphere(m, n, seed=seed), 0.0)
    for x in rf.Ball(n).sample(20, seed=seed + 100):
        pre = Lr.preactivation(x)
        if not Lr.frame.spans(np.flatnonzero(pre > 1e-3)):
            continue  # an input the zero-bias layer cannot recover: skip
        plain_it.append(rf.relu_frame_algorithm(Lr, Lr(x), x_true=x, lam0=0.0, tol=1e-10, n_iter=50_000).n_iter)
        ext_it.append(rf.relu_frame_algorithm(Lr, Lr(x), x_true=x, tol=1e-10, n_iter=50_000).n_iter)
plain_it, ext_it = np.array(plain_it), np.array(ext_it)
print(f"{plain_it.size} inputs: extended faster in {np.sum(ext_it < plain_it)}, equal in {np.sum(ext_it == plain_it)}, "
      f"slower in {np.sum(ext_it > plain_it)}; total steps {ext_it.sum()} vs {plain_it.sum()} (plain)")
assert ext_it.sum() < plain_it.sum() and np.sum(ext_it < plain_it) > np.sum(ext_it > plain_it)

g = np.random.default_rng(9)
m, n = int(g.integers(6, 40)), int(g.integers(2, 6))
L9 = rf.ReLULayer(rf.zoo.random_sphere(m, n, seed=9), 0.0)
x9 = rf.Ball(n).sample(20, seed=9 + 100)[4]
assert L9.frame.spans(np.flatnonzero(L9.preactivation(x9) > 1e-3))
e_plain = rf.relu_frame_algorithm(L9, L9(x9), x_true=x9, lam0=0.0, tol=0, n_iter=100).errors
e_ext = rf.relu_frame_algorithm(L9, L9(x9), x_true=x9, tol=0, n_iter=100).errors
for k in [5, 20, 50, 100]:
    print(f"k = {k:3d}: plain error {e_plain[k]:.3e}, extended error {e_ext[k]:.3e}, ratio {e_ext[k] / e_plain[k]:.3f}")
assert (m, n) == (20, 5)
assert all(e_ext[k] / e_plain[k] > 2 for k in [20, 50, 100])  # the extended run is behind at a fixed k
assert min(e_plain[100], e_ext[100]) > 1e-6 * np.linalg.norm(x9)  # far above rounding

# %% [markdown]
# ### Erratum — the step size of the frame algorithm
#
# *Printed:* for $0 < \lambda < \tfrac{B}{2}$ the frame algorithm converges with rate
# $\kappa_\lambda = \max\{|1-\lambda A|, |1-\lambda B|\}$.
#
# *Correct:* $0 < \lambda < \tfrac{2}{B}$. The error is multiplied by $I - \lambda S$, whose eigenvalue
# $1 - \lambda B$ has modulus $< 1$ only if $\lambda < 2/B$; for $\lambda \ge 2/B$ the factor
# $\kappa_\lambda = \lambda B - 1 \ge 1$ and the component along the top eigenvector does not shrink.
# The two conditions differ whenever $B > 2$, i.e. as soon as there are more than about $2n$ unit
# vectors.
#
# Counterexample: 20 unit vectors in $\mathbb{R}^2$ ($B \approx 10$, so the printed range is
# $\lambda < 5$) with a bias so low that every element is active (the ReLU layer *is* the frame
# transform on the unit disc, and the algorithm is the classical one): $\lambda = 1.1\cdot 2/B$ is in
# the printed range and diverges; $\lambda = 0.9\cdot 2/B$ converges. The library refuses step sizes
# without a convergence guarantee unless asked (`check_step=False`).

# %%
F20 = rf.zoo.random_sphere(20, 2, seed=SEED)
A20, B20 = F20.bounds
L20 = rf.ReLULayer(F20, -2.0)  # <x, phi_i> >= -1 > -2 on the unit disc: all elements active
x = np.array([0.3, -0.5])
assert np.all(L20(x) > 0)
print(f"B = {B20:.3f}: printed range lambda < B/2 = {B20 / 2:.3f}, correct range lambda < 2/B = {2 / B20:.3f}")
fa = {}
for factor in [0.9, 1.1]:
    lam = factor * 2 / B20
    fa[factor] = rf.relu_frame_algorithm(L20, L20(x), x_true=x, lam=lam, lam0=0.0, n_iter=120, check_step=False, tol=0)
    final = fa[factor].errors[-1]
    print(f"lambda = {factor} * 2/B = {lam:.4f} (inside the printed range: {lam < B20 / 2}): "
          f"error after 120 steps {f'{final:.1e}' if final > 1e-12 else 'below 1e-12'}")
assert 1.1 * 2 / B20 < B20 / 2
assert fa[1.1].errors[-1] > 1e3 * fa[1.1].errors[0] and fa[0.9].errors[-1] < 1e-8 * fa[0.9].errors[0]
try:
    rf.relu_frame_algorithm(L20, L20(x), lam=1.1 * 2 / B20, lam0=0.0)
    raise AssertionError("expected a refusal")
except rf.InputError:
    print("the library refuses lambda = 1.1 * 2/B without check_step=False")

# %%
fig = Figure(figsize=(6.5, 4), layout="constrained")
ax = fig.add_subplot()
for factor, color in [(0.9, palette.GOOD), (1.1, palette.BAD)]:
    ax.semilogy(fa[factor].errors, color=color, lw=2, label=f"$\\lambda = {factor}\\cdot 2/B$")
ax.set_xlabel("iteration $k$")
ax.set_ylabel("$\\|x - y_k\\|$")
ax.set_title(f"[prop:framealg] erratum: both steps are $< B/2 = {B20 / 2:.1f}$", fontsize=11)
ax.legend(fontsize=9)
ax.grid(alpha=0.3)
fig

# %% [markdown]
# ## What we saw
#
# * Adding the bias back and applying *any* dual frame of an active sub-frame inverts the layer
#   exactly, wherever that sub-frame stays active; applied outside that region the same operator is
#   wrong.
# * A bank of left inverses computed once (facets of $P_\Phi$, or most correlated bases) covers every
#   input of a rectifying domain; where the frame is not rectifying no left inverse can exist, and
#   `reconstruct` refuses.
# * PReLU layers are injective for every bias; their inverse divides only the output by $\gamma$, not
#   the bias (the printed formula fails whenever $\alpha \ne 0$ and $\gamma \ne 1$).
# * The ReLU frame algorithm converges with the rate $1 - 2A_x/(A+B)$ of the active sub-frame (measured on the
#   error curves, with $A_x$ from the eigenvalues of the active Gram matrix); the bias proxy $\lambda_0$ usually,
#   but not always, saves steps: at a fixed iteration its error can be more than twice the plain one.
# * The step size must satisfy $0 < \lambda < 2/B$: a step inside the printed range $\lambda < B/2$
#   diverges.
#
# Next: [10_stability](10_stability.ipynb) asks how much an error in the output is amplified by these
# inverses, and stacks two layers.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb09.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 9.1 — Invert a layer
#
# `L = ex.nb09.layer_9_1()` is 9 random unit vectors in $\mathbb{R}^3$ with the polytope bias on the ball
# $\mathbb{B}_2$ of radius 2, so it is injective there. Some $x \in \mathbb{B}_2$ produced the output
# `z = ex.nb09.output_9_1()`. Find $x$: once with `rf.reconstruct`, and once by hand (read $J = \{i : z_i > 0\}$,
# add the bias back on $J$, apply the canonical dual of $\Phi_J$). Set `answer_9_1 = x`.

# %% tags=["answer"]
answer_9_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L91, z91 = ex.nb09.layer_9_1(), ex.nb09.output_9_1()
x91 = rf.reconstruct(L91, z91)
J91 = np.flatnonzero(z91 > 0)  # by hand: the positive coordinates, the bias added back, a dual frame
x91_hand = np.linalg.pinv(L91.frame.vectors[J91]) @ (z91[J91] + L91.alpha[J91])
np.testing.assert_allclose(x91_hand, x91, atol=1e-12)
print(f"J = {(J91 + 1).tolist()}, x = {x91}, ||x|| = {np.linalg.norm(x91):.3f}")
answer_9_1 = x91
ex.solution("9.1", answer_9_1)

# %% tags=["check"]
ex.nb09.check_9_1(answer_9_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 9.2 — Predict the rate of the frame algorithm for another step size
#
# Run the plain ReLU frame algorithm ($\lambda_0 = 0$) for the layer of 9.1 at the input $x$ = `ex.nb09.X_9_2`, but
# with the step $\lambda = 1/B$ instead of $2/(A+B)$. **Before running it**, predict the factor by which the error
# shrinks per step once the slowest direction dominates (§6: the error is multiplied by $I - \lambda S_x$). Set
# `answer_9_2` to your prediction; then confirm it on the error curve of `rf.relu_frame_algorithm`.

# %% tags=["answer"]
answer_9_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L92, x92 = ex.nb09.layer_9_1(), ex.nb09.X_9_2
B92 = L92.frame.bounds[1]
I92 = np.flatnonzero(L92(x92) > 0)
ev92 = np.linalg.eigvalsh(L92.frame.vectors[I92].T @ L92.frame.vectors[I92])
answer_9_2 = float(max(abs(1 - ev92[0] / B92), abs(1 - ev92[-1] / B92)))  # = 1 - lambda_min / B
e92 = rf.relu_frame_algorithm(L92, L92(x92), x_true=x92, lam=1 / B92, lam0=0.0, tol=0.0, n_iter=200).errors
print(f"|I_x| = {I92.size}: predicted {answer_9_2:.5f}; measured e_200/e_199 = {e92[200] / e92[199]:.5f}")
ex.solution("9.2", answer_9_2)

# %% tags=["check"]
ex.nb09.check_9_2(answer_9_2)

# %%
print("09_reconstruction: all checks passed")
